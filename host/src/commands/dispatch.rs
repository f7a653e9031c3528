//! The scheduler, shared by every door (HTTP, the Unix socket, MCP): from a
//! request envelope to a response. Find the command in the registry, take
//! the session's lock (FIFO, so one session's commands keep their order) or,
//! for a per-tab command, the tab's lease, line and a parallel slot; run it
//! against the deadline; refuse a result larger than `limits.result_bytes`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OwnedMutexGuard;
use tokio::time::Instant;

use crate::browser::SessionState;
use crate::commands::envelope::{self, Request, Response, Size, check_session_name};
use crate::commands::{self, Cx, HeldTab, Scope};
use crate::error::{ApiError, ErrorCode};
use crate::rig::{Slot, State};

/// Past the deadline a handler gets this long to notice before the dispatcher
/// gives up on it and answers `outcome_unknown`.
const GRACE: Duration = Duration::from_millis(250);

/// How long a reserved command (close) waits for a running command before it
/// interrupts it.
const RESERVED_PATIENCE: Duration = Duration::from_millis(200);

/// How often a command waiting for a lease looks again.
const LEASE_POLL: Duration = Duration::from_millis(25);

/// A place in a session's line: resolves to the session's lock in turn.
type Place = Pin<Box<dyn Future<Output = OwnedMutexGuard<SessionState>> + Send>>;

/// Takes a place in the session's line (tokio's mutex is FIFO: one poll
/// enters it) without waiting for its turn.
async fn join_line(slot: &Slot) -> Place {
    let mut lock: Place = Box::pin(slot.state().clone().lock_owned());
    match futures_util::poll!(&mut lock) {
        std::task::Poll::Ready(guard) => Box::pin(std::future::ready(guard)),
        std::task::Poll::Pending => lock,
    }
}

pub fn new_id() -> String {
    crate::config::random_hex(8).unwrap_or_else(|_| "0".into())
}

pub async fn dispatch(state: Arc<State>, req: Request) -> Response {
    let id = req.id.clone().unwrap_or_else(new_id);
    let started = std::time::Instant::now();
    let command = req.command.clone();
    let result = run_explained(state, req).await;
    tracing::debug!(%id, %command, ok = result.is_ok(), ms = started.elapsed().as_secs_f64() * 1e3, "command");
    Response::from_result(id, result)
}

/// [`run`], with an `inbox:ID#N` target rewritten to its ref first (and a
/// failure on that ref told as one on the inbox target).
async fn run_explained(state: Arc<State>, mut req: Request) -> Result<serde_json::Value, ApiError> {
    let session = req.session.clone().unwrap_or_else(|| "default".into());
    let inbox = commands::annotate::inbox_target(&state, &session, &mut req.tab, &mut req.args)?;
    let result = run(state, req).await;
    match inbox {
        Some(t) => result.map_err(|e| t.explain(e)),
        None => result,
    }
}

async fn run(state: Arc<State>, req: Request) -> Result<serde_json::Value, ApiError> {
    let entry = commands::find(&req.command).ok_or_else(|| {
        ApiError::invalid(format!("unknown command {:?}", req.command))
            .with_hint("see docs/SURFACE.md or webrig --help for the commands")
    })?;
    let limits = state.limits().clone();
    let timeout_ms = req
        .timeout_ms
        .or_else(|| entry.timeout_for(&req.args))
        .unwrap_or(limits.timeout_default_ms);
    if timeout_ms == 0 || timeout_ms > limits.timeout_max_ms {
        return Err(ApiError::invalid(format!(
            "timeout_ms must be 1..={}, not {timeout_ms}",
            limits.timeout_max_ms
        )));
    }
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let session_name = req.session.clone().unwrap_or_else(|| "default".into());
    let session_name = session_name.as_str();

    let mut _entered = None;
    let scope = entry.scope();
    if scope == Scope::Daemon {
        let cx = Cx::new(state, None, req.tab, deadline)
            .with_local_files(req.local_files)
            .with_events(req.events.clone())
            .with_session_name(session_name);
        return finish(entry, cx, req.args, deadline, timeout_ms).await;
    }
    check_session_name(session_name)?;
    let slot = state.session(session_name, scope.creates())?;
    // In line first, counted second: a command that `sessions` counts as
    // queued already holds its place, so a client that sees the count rise
    // knows its command is ahead of any it sends next.
    let place = join_line(&slot).await;
    let reserved = entry.reserved();
    if !reserved {
        _entered = slot.enter(limits.waiting_per_session);
        if _entered.is_none() {
            return Err(ApiError::new(
                ErrorCode::Busy,
                format!(
                    "session {session_name:?} already has {} commands waiting",
                    limits.waiting_per_session
                ),
            )
            .with_hint("wait for some to finish, or use another session"));
        }
    }
    let queued = |what: &str| {
        ApiError::timeout(format!(
            "waited {timeout_ms} ms for {what} of session {session_name:?}; this command did not run"
        ))
    };
    if scope.per_tab() {
        let held = hold_tab(
            &slot,
            place,
            &req,
            deadline,
            Duration::from_secs(limits.lease_idle_s),
        )
        .await?;
        let devtools = (!entry.read_only()).then(|| held.tab().devtools().clone());
        let action = devtools.as_ref().map(|_| action_label(entry, &req.args));
        // A command that acts on the page answers for what it landed on.
        let acted_on = devtools.as_ref().map(|_| held.tab().clone());
        let cx = Cx::for_tab(state, held, deadline)
            .with_local_files(req.local_files)
            .with_events(req.events.clone());
        let result = match (
            finish(entry, cx, req.args, deadline, timeout_ms).await,
            acted_on,
        ) {
            (Ok(value), Some(tab)) => {
                let attempts = limits.challenge_attempts;
                crate::browser::signals::after_command(&tab, value, attempts, deadline).await
            }
            (result, _) => result,
        };
        told(&slot, &result);
        if let (Some(d), Some(action)) = (devtools, action) {
            d.note_action(match &result {
                Ok(_) => format!("{action} → ok"),
                Err(e) => format!("{action} → {}: {}", e.code().as_str(), e.message()),
            });
        }
        return result;
    }
    let mut lock = place;
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
    let cx = Cx::new(state, Some(guard), req.tab, deadline)
        .with_local_files(req.local_files)
        .with_events(req.events.clone());
    let result = finish(entry, cx, req.args, deadline, timeout_ms).await;
    told(&slot, &result);
    result
}

/// Notes that the caller was told the session's browser is gone (a lost
/// context then starts afresh with the next command).
fn told(slot: &Slot, result: &Result<serde_json::Value, ApiError>) {
    if let Err(e) = result
        && e.code() == ErrorCode::BrowserGone
    {
        slot.told_gone();
    }
}

/// Resolves the tab a per-tab command acts on and takes its place in that
/// tab's line: lease first, then the tab's queue (entered while the session
/// lock is held, so one tab's commands keep their arrival order), then a
/// parallel slot. `place` is the command's place in the session's line.
async fn hold_tab(
    slot: &Arc<Slot>,
    place: Place,
    req: &Request,
    deadline: Instant,
    lease_idle: Duration,
) -> Result<HeldTab, ApiError> {
    let name = req.session.as_deref().unwrap_or("default");
    let mut place = Some(place);
    let (tab, queue) = loop {
        let lock = place
            .take()
            .unwrap_or_else(|| Box::pin(slot.state().clone().lock_owned()));
        let mut session = tokio::time::timeout_at(deadline, lock).await.map_err(|_| {
            ApiError::timeout(format!("session {name:?} stayed busy until the deadline"))
        })?;
        if session.is_closed() {
            return Err(ApiError::not_found(format!("session {name:?} was closed")));
        }
        let tab = session.tab(req.tab.as_deref()).await?;
        match slot.lease(tab.id(), req.client.as_deref(), lease_idle, req.wait_lease) {
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
    // A CDP client's call on the page finishes first; its next waits.
    let turn = tokio::time::timeout_at(deadline, slot.gates().exclusive(tab.target_id()))
        .await
        .map_err(|_| {
            ApiError::timeout(format!(
                "a CDP client kept tab {} busy until the deadline; this command did not run",
                tab.id()
            ))
        })?;
    Ok(HeldTab::new(tab, queue, parallel, turn))
}

/// A tab action as `inspect` lists it: the command and what it acted on,
/// never the text it typed (a password) or a script.
fn action_label(entry: &commands::Entry, args: &serde_json::Value) -> String {
    let on = args["target"]
        .as_str()
        .map(str::to_string)
        .or_else(|| {
            args["url"]
                .as_str()
                .map(crate::browser::devtools::redact::url)
        })
        .unwrap_or_default();
    let on: String = on.chars().take(120).collect();
    format!("{} {on}", entry.cli_name()).trim_end().to_string()
}

async fn finish(
    entry: &commands::Entry,
    cx: Cx,
    args: serde_json::Value,
    deadline: Instant,
    timeout_ms: u64,
) -> Result<serde_json::Value, ApiError> {
    let limit = cx.result_bytes();
    match tokio::time::timeout_at(deadline + GRACE, entry.run(cx, args)).await {
        Ok(result) => result.and_then(|value| cap(entry, value, limit)),
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

/// Refuses a result whose JSON is longer than `limit` bytes. Every command
/// passes here, so a command that cannot measure in the page (or a new one)
/// is capped too; the ones that can refuse earlier, before the value crosses
/// CDP.
fn cap(
    entry: &commands::Entry,
    value: serde_json::Value,
    limit: usize,
) -> Result<serde_json::Value, ApiError> {
    let bytes = json_len(&value);
    if bytes > limit {
        return Err(envelope::too_large(
            entry.api_name(),
            Size::Exactly(bytes),
            limit,
            entry.ask_for_less(),
        ));
    }
    Ok(value)
}

/// The length of `value`'s JSON, counted as it is written out, without
/// building the text (it can be as large as the value itself).
fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a Value into a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_is_the_length_of_the_json_text() {
        for v in [
            serde_json::json!(null),
            serde_json::json!({ "value": "x\"y\u{e9}", "n": [1, 2.5, -3] }),
            serde_json::json!("x".repeat(10_000)),
        ] {
            assert_eq!(json_len(&v), serde_json::to_vec(&v).expect("encodes").len());
        }
    }
}
