//! The extension's door: `GET /extension` upgraded to a WebSocket (the
//! relay, see `browser::relay` and `extension/PROTOCOL.md`), and the CORS
//! answers the pairing popup needs.
//!
//! Who may connect: the token, in a subprotocol (`webrig-token.<token>`,
//! never in the URL), from the exact `chrome-extension://<id>` origin that
//! paired (remembered in the home, so a restarted daemon knows it), one
//! connection per daemon (a second is refused with 409).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State as AxState};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::State;
use super::guard::Purpose;
use crate::browser::relay::{self, Link};

/// The subprotocol of this protocol version.
pub const PROTOCOL: &str = "webrig.v1";
const TOKEN_PREFIX: &str = "webrig-token.";
/// The extension pings every 20 s; silence this long ends the link.
const SILENCE: Duration = Duration::from_secs(45);
const MAX_FRAME: usize = 64 << 20;

/// The file that remembers which extension paired.
fn origin_file(state: &State) -> std::path::PathBuf {
    state.home().root().join("extension-origin")
}

/// The origin that paired last, if any.
pub fn paired_origin(state: &State) -> Option<String> {
    std::fs::read_to_string(origin_file(state))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| super::routes::is_extension_origin(s))
}

/// Remembers `origin` as the paired extension (owner-only file).
pub fn remember_origin(state: &State, origin: &str) {
    if let Err(e) = crate::config::write_private(&origin_file(state), origin.as_bytes()) {
        tracing::warn!(error = %e, "cannot remember the paired extension");
    }
}

fn plain(status: StatusCode, text: &str) -> Response {
    (status, text.to_string()).into_response()
}

/// `GET /extension`: checks, then the WebSocket.
pub async fn connect(AxState(state): AxState<Arc<State>>, req: Request) -> Response {
    let headers = req.headers().clone();
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let protocols: Vec<String> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|p| p.trim().to_string()))
        .collect();
    let token_ok = protocols.iter().any(|p| {
        p.strip_prefix(TOKEN_PREFIX).is_some_and(|t| {
            super::routes::constant_time_eq(t.as_bytes(), state.token().as_bytes())
        })
    });
    if !token_ok {
        let budget = state.limits().unauthenticated_per_minute;
        return match state
            .limiter()
            .hit(Purpose::Auth, super::guard::Caller::Extension, budget)
        {
            Ok(()) => plain(StatusCode::UNAUTHORIZED, "missing or wrong token"),
            Err(_) => plain(StatusCode::TOO_MANY_REQUESTS, "too many tries"),
        };
    }
    if !protocols.iter().any(|p| p == PROTOCOL) {
        return plain(StatusCode::BAD_REQUEST, "speak webrig.v1");
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
    if state.relay().is_some_and(|l| !l.is_closed()) {
        return plain(StatusCode::CONFLICT, "this browser is already connected");
    }
    let Some(key) = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .map(|k| k.as_bytes().to_vec())
    else {
        return plain(StatusCode::BAD_REQUEST, "not a WebSocket handshake");
    };
    if !is_upgrade(&headers) {
        return plain(StatusCode::BAD_REQUEST, "not a WebSocket handshake");
    }
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(&key);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let link = Link::new(tx);
    state.set_relay(link.clone());
    let upgrade = hyper::upgrade::on(req);
    tokio::spawn(async move {
        let io = match upgrade.await {
            Ok(io) => io,
            Err(e) => {
                tracing::info!(error = %e, "extension: the upgrade failed");
                link.close();
                return;
            }
        };
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_FRAME))
            .max_frame_size(Some(MAX_FRAME));
        let ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
            hyper_util::rt::TokioIo::new(io),
            tokio_tungstenite::tungstenite::protocol::Role::Server,
            Some(config),
        )
        .await;
        tracing::info!("extension connected");
        relay::serve(ws, link, rx, SILENCE).await;
        tracing::info!("extension disconnected");
    });
    let mut resp = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let h = resp.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    h.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(PROTOCOL),
    );
    if let Ok(v) = HeaderValue::from_str(&accept) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    resp
}

fn is_upgrade(headers: &HeaderMap) -> bool {
    let has = |name: header::HeaderName, want: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|s| s.split(',').any(|p| p.trim().eq_ignore_ascii_case(want)))
        })
    };
    has(header::UPGRADE, "websocket") && has(header::CONNECTION, "upgrade")
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
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .unwrap_or_default();
    if !super::routes::is_extension_origin(origin) {
        return plain(
            StatusCode::FORBIDDEN,
            "pairing is for the webrig extension only",
        );
    }
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
