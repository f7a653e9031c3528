//! HTTP routes and the checks in front of them: loopback Host, no web Origin,
//! bearer token (constant-time), 2 MiB bodies.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Request, State as AxState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use super::State;
use super::dispatch;
use crate::commands::envelope::{Request as CommandRequest, Response as CommandResponse};
use crate::error::{ApiError, ErrorCode};

pub const MAX_BODY: usize = 2 << 20;

pub fn app(state: Arc<State>) -> Router {
    let authed = Router::new()
        .route("/command", post(command))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/ping", get(ping))
        .merge(authed)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            check_host_and_origin,
        ))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

async fn ping() -> impl IntoResponse {
    axum::Json(json!({ "version": crate::VERSION, "name": "webrig" }))
}

async fn command(AxState(state): AxState<Arc<State>>, body: Bytes) -> Response {
    let request: CommandRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            let id = fallback_id(&body);
            return envelope(CommandResponse::from_result(
                id,
                Err(ApiError::invalid(format!("malformed request: {e}"))),
            ));
        }
    };
    envelope(dispatch::dispatch(state, request).await)
}

/// The id a malformed request carried, if any could be read, else a new one.
fn fallback_id(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_string))
        .unwrap_or_else(dispatch::new_id)
}

fn envelope(resp: CommandResponse) -> Response {
    let status = resp
        .error
        .as_ref()
        .map(|e| e.code().http_status())
        .unwrap_or(200);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(resp)).into_response()
}

fn refuse(code: ErrorCode, message: &str) -> Response {
    envelope(CommandResponse::from_result(
        dispatch::new_id(),
        Err(ApiError::new(code, message)),
    ))
}

async fn check_host_and_origin(
    AxState(state): AxState<Arc<State>>,
    req: Request,
    next: Next,
) -> Response {
    let port = state.port();
    let host_ok = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| h == format!("127.0.0.1:{port}") || h == format!("localhost:{port}"));
    if !host_ok {
        return refuse(
            ErrorCode::Forbidden,
            "Host must be 127.0.0.1 or localhost with the daemon's port",
        );
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let path = req.uri().path();
        let extension = origin.to_str().ok().is_some_and(is_extension_origin);
        if !(extension && path == "/ping") {
            return refuse(ErrorCode::Forbidden, "requests from web pages are refused");
        }
    }
    next.run(req).await
}

/// `chrome-extension://` followed by a 32-letter id from a–p.
fn is_extension_origin(origin: &str) -> bool {
    origin
        .strip_prefix("chrome-extension://")
        .is_some_and(|id| id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b)))
}

async fn require_token(AxState(state): AxState<Arc<State>>, req: Request, next: Next) -> Response {
    if !token_matches(req.headers(), state.token()) {
        return refuse(ErrorCode::Unauthorized, "missing or wrong bearer token");
    }
    next.run(req).await
}

fn token_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    constant_time_eq(given.trim().as_bytes(), token.as_bytes())
}

/// Compares without an early exit, so timing does not reveal a prefix match.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_origins_need_32_letters_a_to_p() {
        assert!(is_extension_origin(
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
        ));
        assert!(!is_extension_origin(
            "chrome-extension://abcdefghijklmnopabcdefghijklmnoz"
        ));
        assert!(!is_extension_origin("https://evil.test"));
        assert!(!is_extension_origin("chrome-extension://short"));
    }

    #[test]
    fn token_comparison_rejects_prefixes_and_case() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"ab", b"abc"));
        assert!(!constant_time_eq(b"abC", b"abc"));
    }
}
