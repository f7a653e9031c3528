//! HTTP routes and the checks in front of them: loopback Host, no web Origin
//! (extension origins only where the extension needs them), bearer token in
//! constant time, rate limits on what needs no token, body size.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Request, State as AxState};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use subtle::ConstantTimeEq;

use super::Door;
use super::guard::{Caller, Purpose};
use super::listen::Via;
use crate::commands::dispatch;
use crate::commands::envelope::{Request as CommandRequest, Response as CommandResponse};
use crate::error::{ApiError, ErrorCode};
use crate::rig::State;
use crate::rig::pairing::{Redeem, is_extension_origin, remember_origin};

/// Paths an extension origin may use; every other path refuses any Origin.
const EXTENSION_PATHS: &[&str] = &["/ping", "/pair", "/extension"];

/// The largest `/pair` body: `{"code":"123456"}` and room to spare.
const PAIR_BODY_BYTES: usize = 512;

pub fn app(rig: Arc<State>) -> Router {
    let state = Door::new(rig);
    let authed = Router::new()
        .route("/command", post(command))
        .route("/command/stream", post(command_stream))
        .route("/openapi.json", get(openapi))
        .nest_service("/mcp", crate::mcp::http_service(state.rig.clone()))
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .route("/ping", get(ping))
        .route(
            "/pair",
            post(pair)
                .layer(DefaultBodyLimit::max(PAIR_BODY_BYTES))
                .options(super::extension::preflight),
        )
        .route("/extension", get(super::extension::connect))
        .merge(authed)
        .merge(super::cdp::routes())
        .fallback(unknown_path)
        .method_not_allowed_fallback(wrong_method)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            check_host_and_origin,
        ))
        .layer(DefaultBodyLimit::max(state.limits().body_bytes))
        .layer(middleware::from_fn(errors_as_envelopes))
        .with_state(state)
}

async fn unknown_path(req: Request) -> Response {
    refuse(
        ErrorCode::NotFound,
        &format!("no such path {:?}", req.uri().path()),
    )
}

async fn wrong_method(req: Request) -> Response {
    let mut resp = refuse(
        ErrorCode::InvalidArgument,
        &format!("{} is not allowed on {}", req.method(), req.uri().path()),
    );
    *resp.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    resp
}

/// Every refusal is the error envelope, whatever produced it (an extractor's
/// rejection, a layer): an error answer that is not JSON is replaced by one
/// with the same status.
async fn errors_as_envelopes(req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.as_u16() < 400 || is_json {
        return resp;
    }
    let code = match status.as_u16() {
        401 => ErrorCode::Unauthorized,
        403 => ErrorCode::Forbidden,
        404 => ErrorCode::NotFound,
        408 => ErrorCode::Timeout,
        413 | 429 | 431 => ErrorCode::LimitExceeded,
        400..=499 => ErrorCode::InvalidArgument,
        _ => ErrorCode::Internal,
    };
    let message = match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    };
    let mut replaced = refuse(code, &message);
    *replaced.status_mut() = status;
    replaced
}

/// The request's `Origin` when it is an extension's
/// (`chrome-extension://<32 letters a–p>`); the one reading of the header
/// every check here and in the extension's door shares.
pub fn extension_origin(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .filter(|o| is_extension_origin(o))
}

/// Who is calling, for rate limits (see [`Caller`]).
pub(super) fn caller(req: &Request) -> Caller {
    match req.extensions().get::<Via>() {
        Some(Via::Local) => Caller::Local,
        _ if extension_origin(req.headers()).is_some() => Caller::Extension,
        _ => Caller::Loopback,
    }
}

async fn ping() -> impl IntoResponse {
    axum::Json(json!({ "version": crate::VERSION, "name": "webrig" }))
}

async fn openapi() -> impl IntoResponse {
    axum::Json(crate::commands::openapi::document())
}

#[derive(serde::Deserialize)]
struct PairBody {
    code: String,
}

/// Redeems a pairing code for the token (extension origin only; the
/// origin check runs before this). The one place the token travels to the
/// extension.
///
/// The code is compared before any rate limit: a wrong try never voids the
/// code and never counts against the right one (see `guard::Pairing` for
/// why), so a stranger's flood cannot keep the user's popup from pairing.
/// Wrong tries are counted, and past the budget answered 429, to slow a
/// guesser's feedback loop; the code's 60 bits are what make guessing hopeless.
async fn pair(AxState(state): AxState<Arc<Door>>, headers: HeaderMap, body: Bytes) -> Response {
    let origin = extension_origin(&headers).unwrap_or_default().to_string();
    if origin.is_empty() {
        return refuse(
            ErrorCode::Forbidden,
            "pairing is for the webrig extension only",
        );
    }
    let Ok(body) = serde_json::from_slice::<PairBody>(&body) else {
        return refuse(
            ErrorCode::InvalidArgument,
            "send {\"code\": \"XXXX-XXXX-XXXX\"}",
        );
    };
    let mut resp = match state.redeem(&body.code, &origin) {
        Redeem::Ok => {
            // This extension, and only it, may connect from now on.
            remember_origin(&state, &origin);
            axum::Json(json!({ "token": state.token() })).into_response()
        }
        Redeem::NoCode => refuse(
            ErrorCode::Unauthorized,
            "no pairing code is active; run webrig pair",
        ),
        Redeem::Expired => refuse(
            ErrorCode::Unauthorized,
            "the pairing code expired; run webrig pair again",
        ),
        Redeem::OtherExtension => refuse(
            ErrorCode::Forbidden,
            "this pairing code is for another extension (webrig pair --extension-id)",
        ),
        Redeem::Wrong => {
            let budget = state.limits().unauthenticated_per_minute;
            match state
                .limiter()
                .hit(Purpose::Pair, Caller::Extension, budget)
            {
                Ok(()) => refuse(ErrorCode::Unauthorized, "wrong code"),
                Err(retry) => too_many(retry),
            }
        }
    };
    super::extension::cors(&mut resp, &origin);
    resp
}

async fn command(
    AxState(state): AxState<Arc<Door>>,
    via: Option<axum::Extension<Via>>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    match read_request(&state, via, body) {
        Ok(request) => envelope(dispatch::dispatch(state.rig.clone(), request).await),
        Err(resp) => envelope(resp),
    }
}

/// `POST /command/stream`: the same request and auth as `/command`; the
/// answer is NDJSON: progress events (`{"event": …}`) while the command
/// runs, then its envelope as the last line. A client that goes away
/// cancels the command.
async fn command_stream(
    AxState(state): AxState<Arc<Door>>,
    via: Option<axum::Extension<Via>>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let mut request = match read_request(&state, via, body) {
        Ok(r) => r,
        Err(resp) => return envelope(resp),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<serde_json::Value>();
    request.events = Some(tx.clone());
    let task = tokio::spawn(async move {
        let resp = dispatch::dispatch(state.rig.clone(), request).await;
        let _ = tx.send(serde_json::to_value(resp).unwrap_or_default());
    });
    let guard = AbortOnDrop(task.abort_handle());
    // A line at least every 500 ms: writing to a client that hung up is how
    // the server learns it is gone, and a hang-up must cancel at once.
    let lines = futures_util::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let v = tokio::select! {
            v = rx.recv() => v?,
            _ = tokio::time::sleep(std::time::Duration::from_millis(500)) => json!({"event": "alive"}),
        };
        let mut line = v.to_string();
        line.push('\n');
        Some((
            Ok::<_, std::convert::Infallible>(Bytes::from(line)),
            (rx, guard),
        ))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        axum::body::Body::from_stream(lines),
    )
        .into_response()
}

/// Aborts the command's task when the response body is dropped (the
/// client hung up).
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The request of a `/command` body, or the envelope refusing it.
fn read_request(
    state: &State,
    via: Option<axum::Extension<Via>>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<CommandRequest, CommandResponse> {
    let body = match body {
        Ok(b) => b,
        Err(rejection) => {
            let too_big = rejection.status() == StatusCode::PAYLOAD_TOO_LARGE;
            let error = if too_big {
                ApiError::new(
                    ErrorCode::LimitExceeded,
                    format!(
                        "the request body is over {} bytes",
                        state.limits().body_bytes
                    ),
                )
            } else {
                ApiError::invalid(format!("unreadable request body: {rejection}"))
            };
            return Err(CommandResponse::from_result(dispatch::new_id(), Err(error)));
        }
    };
    let mut request: CommandRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            let id = fallback_id(&body);
            return Err(CommandResponse::from_result(
                id,
                Err(ApiError::invalid(format!("malformed request: {e}"))),
            ));
        }
    };
    let local = matches!(via, Some(axum::Extension(Via::Local)));
    request.local_files = local || state.access().http_local_files;
    Ok(request)
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

/// A refusal: the error envelope and nothing else (no data, no token).
pub(super) fn refuse(code: ErrorCode, message: &str) -> Response {
    envelope(CommandResponse::from_result(
        dispatch::new_id(),
        Err(ApiError::new(code, message)),
    ))
}

pub(super) fn too_many(retry_after: std::time::Duration) -> Response {
    let secs = retry_after.as_secs().max(1);
    let mut resp = refuse(
        ErrorCode::LimitExceeded,
        &format!("too many requests; retry in {secs} s"),
    );
    *resp.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        resp.headers_mut().insert(header::RETRY_AFTER, v);
    }
    resp
}

async fn check_host_and_origin(
    AxState(state): AxState<Arc<Door>>,
    req: Request,
    next: Next,
) -> Response {
    let port = state.port();
    let host_ok = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        // A host name is case-insensitive (RFC 3986 3.2.2): `LocalHost` is
        // still this machine.
        .is_some_and(|h| {
            h.eq_ignore_ascii_case(&format!("127.0.0.1:{port}"))
                || h.eq_ignore_ascii_case(&format!("localhost:{port}"))
        });
    if !host_ok {
        return refuse(
            ErrorCode::Forbidden,
            "Host must be 127.0.0.1 or localhost with the daemon's port",
        );
    }
    let path = req.uri().path().to_string();
    let extension = extension_origin(req.headers()).is_some();
    if req.headers().contains_key(header::ORIGIN)
        && !(extension && EXTENSION_PATHS.contains(&path.as_str()))
    {
        return refuse(ErrorCode::Forbidden, "requests from web pages are refused");
    }
    // Refusals that need no body come before the body is read: a client
    // that promises one and never sends it must not hold anything.
    if path == "/pair" && req.method() == axum::http::Method::POST && !extension {
        return refuse(
            ErrorCode::Forbidden,
            "pairing is for the webrig extension only",
        );
    }
    let cap = if path == "/pair" {
        PAIR_BODY_BYTES
    } else {
        state.limits().body_bytes
    };
    let promised = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if promised.is_some_and(|n| n > cap as u64) {
        // Answered at once; what the client still sends is read and
        // dropped, for at most the body deadline, so a client that writes
        // its whole body before reading gets this answer rather than a
        // reset (closing on unread data resets the connection).
        let wait = std::time::Duration::from_millis(state.limits().body_timeout_ms);
        let body = req.into_body();
        tokio::spawn(async move {
            use futures_util::StreamExt;
            let mut data = body.into_data_stream();
            let _ =
                tokio::time::timeout(wait, async { while data.next().await.is_some() {} }).await;
        });
        let mut resp = refuse(
            ErrorCode::LimitExceeded,
            &format!("the request body is over the {cap} bytes this path takes"),
        );
        *resp.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
        return resp;
    }
    // Wrong pairing codes are rate limited in `pair` itself, after the
    // comparison: a budget spent here, before it, would let one local process
    // keep the user's popup from pairing. `/ping` is not limited: it answers
    // only the version, costs next to nothing, and a budget shared by a
    // caller class would let one local process take it away from everyone
    // (the door's connection cap and timeouts bound what a flood costs).
    next.run(req).await
}

/// A request a web page made: the browser says so in `Sec-Fetch-Site`
/// (`cross-site` or `same-site`; `none` is the user, `same-origin` the
/// daemon itself), and the pairing extension's own requests carry its
/// `chrome-extension://` Origin. The door closes such a connection without
/// a word, so a page cannot even tell that a daemon listens (any answer,
/// even a refusal, is visible to a no-cors `fetch`).
pub fn from_a_web_page(headers: &HeaderMap) -> bool {
    let site = headers
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("?"));
    let web = site.is_some_and(|s| !matches!(s, "none" | "same-origin"));
    web && extension_origin(headers).is_none()
}

async fn require_token(AxState(state): AxState<Arc<Door>>, req: Request, next: Next) -> Response {
    let budget = state.limits().unauthenticated_per_minute;
    if !token_matches(req.headers(), &state.token()) {
        // Failed tries are counted; past the budget they get 429, which
        // slows a guesser while callers with the token are unaffected.
        return match state.limiter().hit(Purpose::Auth, caller(&req), budget) {
            Ok(()) => refuse(ErrorCode::Unauthorized, "missing or wrong bearer token"),
            Err(retry) => too_many(retry),
        };
    }
    next.run(req).await
}

pub(super) fn token_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    // Without an early exit, so timing does not reveal a prefix match.
    bool::from(given.trim().as_bytes().ct_eq(token.as_bytes()))
}

#[cfg(test)]
mod tests;
