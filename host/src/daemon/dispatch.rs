//! From a request envelope to a response: find the command, take the session's
//! lock (FIFO, so one session's commands keep their order), run it against the
//! deadline.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::State;
use crate::commands::envelope::{
    DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, Request, Response, check_session_name,
};
use crate::commands::{self, Cx, Scope};
use crate::error::{ApiError, ErrorCode};

/// Past the deadline a handler gets this long to notice before the dispatcher
/// gives up on it and answers `outcome_unknown`.
const GRACE: Duration = Duration::from_millis(250);

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
    let timeout_ms = req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 || timeout_ms > MAX_TIMEOUT_MS {
        return Err(ApiError::invalid(format!(
            "timeout_ms must be 1..={MAX_TIMEOUT_MS}, not {timeout_ms}"
        )));
    }
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let session_name = req.session.as_deref().unwrap_or("default");

    let guard = match entry.scope() {
        Scope::Daemon => None,
        scope => {
            check_session_name(session_name)?;
            let slot = state.session(session_name, scope == Scope::SessionCreate)?;
            let guard = tokio::time::timeout_at(deadline, slot.lock_owned())
                .await
                .map_err(|_| {
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
