//! From a request envelope to a response: find the command, take the session's
//! lock (FIFO, so one session's commands keep their order), run it against the
//! deadline.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{Entered, State};
use crate::commands::envelope::{Request, Response, check_session_name};
use crate::commands::{self, Cx, Scope};
use crate::error::{ApiError, ErrorCode};

/// Past the deadline a handler gets this long to notice before the dispatcher
/// gives up on it and answers `outcome_unknown`.
const GRACE: Duration = Duration::from_millis(250);

/// How long a reserved command (close) waits for a running command before it
/// interrupts it.
const RESERVED_PATIENCE: Duration = Duration::from_millis(200);

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
    let guard = match entry.scope() {
        Scope::Daemon => None,
        scope => {
            check_session_name(session_name)?;
            let slot = state.session(session_name, scope == Scope::SessionCreate)?;
            let reserved = entry.reserved();
            if !reserved && !slot.enter(limits.waiting_per_session) {
                return Err(ApiError::new(
                    ErrorCode::Busy,
                    format!(
                        "session {session_name:?} already has {} commands waiting",
                        limits.waiting_per_session
                    ),
                )
                .with_hint("wait for some to finish, or use another session"));
            }
            if !reserved {
                _entered = Some(Entered(slot.clone()));
            }
            let lock = slot.state().clone().lock_owned();
            tokio::pin!(lock);
            let guard = if reserved {
                // Reserved commands (close) do not queue behind a stuck
                // command: they interrupt the browser connection it waits on.
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
            let guard = guard.map_err(|_| {
                ApiError::timeout(format!(
                    "waited {timeout_ms} ms behind other commands of session {session_name:?}; this one did not run"
                ))
            })?;
            if guard.is_closed() {
                return Err(ApiError::not_found(format!(
                    "session {session_name:?} was closed"
                )));
            }
            Some(guard)
        }
    };

    let cx = Cx::new(state, guard, req.tab, deadline);
    match tokio::time::timeout_at(deadline + GRACE, entry.run(cx, req.args)).await {
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
