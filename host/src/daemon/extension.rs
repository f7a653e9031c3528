//! The extension's door: `GET /extension` upgraded to a WebSocket (the
//! relay, see `browser::relay` and `extension/PROTOCOL.md`), and the CORS
//! answers the pairing popup needs.
//!
//! Who may connect: the exact `chrome-extension://<id>` origin that paired
//! (remembered in the home, so a restarted daemon knows it), and only once
//! it has proved it holds the token in a challenge-response in which the
//! daemon proves itself first ([`handshake`]): the token never crosses the
//! socket, so a stranger who binds the port while the daemon is down learns
//! nothing it could use, and a recorded exchange replays to nothing. Until
//! the extension's proof checks out a connection gets nothing from the
//! relay and does not hold the one extension slot.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State as AxState};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::Door;
use super::guard::Purpose;
use crate::browser::relay::{self, Link};
use crate::rig::pairing::paired_origin;

pub mod handshake;

/// The subprotocol of this protocol version (v1 sent the token in the
/// handshake; it is refused).
pub const PROTOCOL: &str = "webrig.v2";
/// The extension pings every 20 s; silence this long ends the link.
const SILENCE: Duration = Duration::from_secs(45);
const MAX_FRAME: usize = 64 << 20;

fn plain(status: StatusCode, text: &str) -> Response {
    (status, text.to_string()).into_response()
}

/// `GET /extension`: checks, then the WebSocket, then the handshake.
pub async fn connect(AxState(state): AxState<Arc<Door>>, req: Request) -> Response {
    let headers = req.headers().clone();
    let origin = super::routes::extension_origin(&headers)
        .unwrap_or_default()
        .to_string();
    if !super::upgrade::offered(&headers).any(|p| p == PROTOCOL) {
        return plain(StatusCode::BAD_REQUEST, "speak webrig.v2");
    }
    match paired_origin(&state) {
        Some(paired) if paired == origin => {}
        Some(_) => return plain(StatusCode::FORBIDDEN, "not the extension that paired"),
        None => {
            return plain(
                StatusCode::FORBIDDEN,
                "no extension has paired; run webrig pair",
            );
        }
    }
    // No "already connected" answer here: before its proof a caller is a
    // stranger, and must neither learn that nor take the slot.
    let (resp, upgrade) = match super::upgrade::accept(req, Some(PROTOCOL)) {
        Ok(x) => x,
        Err(_) => return plain(StatusCode::BAD_REQUEST, "not a WebSocket handshake"),
    };
    tokio::spawn(async move {
        let Some(io) = upgrade.io().await else {
            return;
        };
        serve_upgraded(state, io).await;
    });
    resp
}

/// The upgraded socket: the handshake under small frame limits and a
/// deadline, then (proved, and no other extension connected) the relay.
async fn serve_upgraded(state: Arc<Door>, io: hyper_util::rt::TokioIo<hyper::upgrade::Upgraded>) {
    let mut ws = super::upgrade::server(io, handshake::MAX_FRAME).await;
    let outcome = handshake::run(
        &mut ws,
        &handshake::Secret::new(&state.token(), state.port()),
        failure_delay(&state),
        handshake::WITHIN,
    )
    .await;
    if let Err(e) = outcome {
        // Counted as a failed authentication; nothing else happens to the
        // socket than a close with a reason that names no secret.
        let budget = state.limits().unauthenticated_per_minute;
        let _ = state
            .limiter()
            .hit(Purpose::Auth, super::guard::Caller::Extension, budget);
        tracing::info!(error = %e, "extension: handshake refused");
        handshake::close(&mut ws, e.close_code(), &e.to_string()).await;
        return;
    }
    if state.relay().is_some_and(|l| !l.is_closed()) {
        handshake::close(&mut ws, 4009, "this browser is already connected").await;
        return;
    }
    if let Err(e) = handshake::ready(&mut ws).await {
        tracing::info!(error = %e, "extension: lost before ready");
        return;
    }
    // The extension sends nothing between its proof and our `ready`, so no
    // frame is lost in the small-limit stream's buffer when it is unwrapped.
    let ws = super::upgrade::server(ws.into_inner(), MAX_FRAME).await;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let link = Link::new(tx);
    state.set_relay(link.clone());
    crate::rig::annotating::serve_extension(state.rig.clone(), link.clone());
    tracing::info!("extension connected");
    relay::serve(ws, link, rx, SILENCE).await;
    tracing::info!("extension disconnected");
}

/// How long the daemon waits before its own proof: nothing while failed
/// handshakes stay within the failed-authentication budget, a second past
/// it. A delay, not a refusal: a refusal would let a stranger who fails
/// on purpose keep the real extension out; the delay only slows the
/// stranger (the proofs cannot be guessed anyway).
fn failure_delay(state: &Door) -> Duration {
    let budget = state.limits().unauthenticated_per_minute;
    if state
        .limiter()
        .over(Purpose::Auth, super::guard::Caller::Extension, budget)
    {
        Duration::from_secs(1)
    } else {
        Duration::ZERO
    }
}

/// CORS for the pairing popup: only an extension origin, only `/pair`.
pub fn cors(resp: &mut Response, origin: &str) {
    if let Ok(v) = HeaderValue::from_str(origin) {
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
}

/// `OPTIONS /pair` from an extension: the preflight.
pub async fn preflight(headers: HeaderMap) -> Response {
    let Some(origin) = super::routes::extension_origin(&headers) else {
        return plain(
            StatusCode::FORBIDDEN,
            "pairing is for the webrig extension only",
        );
    };
    let mut resp = StatusCode::NO_CONTENT.into_response();
    cors(&mut resp, origin);
    let h = resp.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type"),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    resp
}
