//! From a request envelope to a response: find the command, take the session's
//! lock (FIFO, so one session's commands keep their order), run it against the
//! deadline.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{Entered, Slot, State};
use crate::commands::envelope::{Request, Response, check_session_name};
use crate::commands::{self, Cx, HeldTab, Scope};
use crate::error::{ApiError, ErrorCode};

/// Past the deadline a handler gets this long to notice before the dispatcher
/// gives up on it and answers `outcome_unknown`.
const GRACE: Duration = Duration::from_millis(250);

/// How long a reserved command (close) waits for a running command before it
/// interrupts it.
const RESERVED_PATIENCE: Duration = Duration::from_millis(200);

/// How often a command waiting for a lease looks again.
const LEASE_POLL: Duration = Duration::from_millis(25);

pub fn new_id() -> String {
    crate::config::random_hex(8).unwrap_or_else(|_| "0".into())
}

pub async fn dispatch(state: Arc<State>, req: Request) -> Response {
    let id = req.id.clone().unwrap_or_else(new_id);
    let started = std::time::Instant::now();
    let command = req.command.clone();
    let result = run(state, req).await;
    tracing::debug!(%id, %command, ok = result.is_ok(), ms = started.elapsed().as_secs_f64() * 1e3, "command");
    Response::from_result(id, result)
}

async fn run(state: Arc<State>, req: Request) -> Result<serde_json::Value, ApiError> {
    let entry = commands::find(&req.command).ok_or_else(|| {
        ApiError::invalid(format!("unknown command {:?}", req.command))
            .with_hint("see docs/SURFACE.md or webrig --help for the commands")
    })?;
    let limits = state.limits().clone();
    let timeout_ms = req.timeout_ms.unwrap_or(limits.timeout_default_ms);
    if timeout_ms == 0 || timeout_ms > limits.timeout_max_ms {
        return Err(ApiError::invalid(format!(
            "timeout_ms must be 1..={}, not {timeout_ms}",
            limits.timeout_max_ms
        )));
    }
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let session_name = req.session.as_deref().unwrap_or("default");

    let mut _entered = None;
    let scope = entry.scope();
    if scope == Scope::Daemon {
        let cx = Cx::new(state, None, req.tab, deadline);
        return finish(entry, cx, req.args, deadline, timeout_ms).await;
    }
    check_session_name(session_name)?;
    let slot = state.session(session_name, scope.creates())?;
    let reserved = entry.reserved();
    if !reserved {
        if !slot.enter(limits.waiting_per_session) {
            return Err(ApiError::new(
                ErrorCode::Busy,
                format!(
                    "session {session_name:?} already has {} commands waiting",
                    limits.waiting_per_session
                ),
            )
            .with_hint("wait for some to finish, or use another session"));
        }
        _entered = Some(Entered(slot.clone()));
    }
    let queued = |what: &str| {
        ApiError::timeout(format!(
            "waited {timeout_ms} ms for {what} of session {session_name:?}; this command did not run"
        ))
    };
    if scope.per_tab() {
        let held = hold_tab(
            &slot,
            &req,
            deadline,
            Duration::from_secs(limits.lease_idle_s),
        )
        .await?;
        let cx = Cx::for_tab(state, held, deadline);
        return finish(entry, cx, req.args, deadline, timeout_ms).await;
    }
    let lock = slot.state().clone().lock_owned();
    tokio::pin!(lock);
    let guard = if reserved {
        // Reserved commands (close) do not queue behind a stuck command:
        // they interrupt the browser connection it waits on.
        match tokio::time::timeout(RESERVED_PATIENCE, &mut lock).await {
            Ok(g) => Ok(g),
            Err(_) => {
                slot.interrupt();
                tokio::time::timeout_at(deadline, &mut lock).await
            }
        }
    } else {
        tokio::time::timeout_at(deadline, &mut lock).await
    };
    let guard = guard.map_err(|_| queued("the commands ahead"))?;
    if guard.is_closed() {
        return Err(ApiError::not_found(format!(
            "session {session_name:?} was closed"
        )));
    }
    let cx = Cx::new(state, Some(guard), req.tab, deadline);
    finish(entry, cx, req.args, deadline, timeout_ms).await
}

/// Resolves the tab a per-tab command acts on and takes its place in that
/// tab's line: lease first, then the tab's queue (entered while the session
/// lock is held, so one tab's commands keep their arrival order), then a
/// parallel slot.
async fn hold_tab(
    slot: &Arc<Slot>,
    req: &Request,
    deadline: Instant,
    lease_idle: Duration,
) -> Result<HeldTab, ApiError> {
    let name = req.session.as_deref().unwrap_or("default");
    let (tab, queue) = loop {
        let mut session = tokio::time::timeout_at(deadline, slot.state().clone().lock_owned())
            .await
            .map_err(|_| {
                ApiError::timeout(format!("session {name:?} stayed busy until the deadline"))
            })?;
        if session.is_closed() {
            return Err(ApiError::not_found(format!("session {name:?} was closed")));
        }
        let tab = session.tab(req.tab.as_deref()).await?;
        match tab.lease(req.client.as_deref(), lease_idle, req.wait_lease) {
            Ok(()) => {
                let mut queue = Box::pin(tab.queue().lock_owned());
                // One poll enters the line (tokio's mutex is FIFO).
                let ready = futures_util::poll!(&mut queue);
                drop(session);
                let guard = match ready {
                    std::task::Poll::Ready(g) => g,
                    std::task::Poll::Pending => tokio::time::timeout_at(deadline, queue)
                        .await
                        .map_err(|_| {
                            ApiError::timeout(format!(
                                "tab {} stayed busy until the deadline; this command did not run",
                                tab.id()
                            ))
                        })?,
                };
                break (tab, guard);
            }
            Err(leased) => {
                drop(session);
                let busy = ApiError::new(
                    ErrorCode::Busy,
                    format!(
                        "tab {} is leased to {} (for {} s)",
                        tab.id(),
                        leased.holder,
                        leased.held_for.as_secs()
                    ),
                );
                if !req.wait_lease {
                    return Err(busy.with_hint(
                        "use another tab (webrig tab new), or pass --wait-lease to wait in line",
                    ));
                }
                if Instant::now() + LEASE_POLL >= deadline {
                    return Err(ApiError::timeout(format!(
                        "{} until the deadline",
                        busy.message()
                    )));
                }
                tokio::time::sleep(LEASE_POLL).await;
            }
        }
    };
    let parallel = tokio::time::timeout_at(deadline, slot.parallel().clone().acquire_owned())
        .await
        .map_err(|_| {
            ApiError::timeout(format!(
                "no free tab slot in session {name:?} before the deadline"
            ))
        })?
        .map_err(|_| ApiError::internal("the session's tab slots are closed"))?;
    Ok(HeldTab::new(tab, queue, parallel))
}

async fn finish(
    entry: &commands::Entry,
    cx: Cx,
    args: serde_json::Value,
    deadline: Instant,
    timeout_ms: u64,
) -> Result<serde_json::Value, ApiError> {
    match tokio::time::timeout_at(deadline + GRACE, entry.run(cx, args)).await {
        Ok(result) => result,
        Err(_) => Err(ApiError::new(
            ErrorCode::OutcomeUnknown,
            format!(
                "{} passed its {timeout_ms} ms deadline while running",
                entry.api_name()
            ),
        )
        .with_hint("it may or may not have taken effect; check the page before retrying")),
    }
}
