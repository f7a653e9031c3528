//! Accepting a WebSocket upgrade on the daemon's own HTTP server (the
//! extension's door and the CDP front end's): the handshake answer, then
//! the upgraded connection once the answer is out.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

pub type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// Whether the request asks to become a WebSocket.
pub fn is_websocket(headers: &HeaderMap) -> bool {
    let has = |name: header::HeaderName, want: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|s| s.split(',').any(|p| p.trim().eq_ignore_ascii_case(want)))
        })
    };
    has(header::UPGRADE, "websocket")
        && has(header::CONNECTION, "upgrade")
        && headers.contains_key(header::SEC_WEBSOCKET_KEY)
}

/// The subprotocols the client offers.
pub fn offered(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
}

/// The connection being upgraded, usable once the 101 answer is out.
pub struct Pending(hyper::upgrade::OnUpgrade);

impl Pending {
    /// The raw upgraded connection, or None when the client left.
    pub async fn io(self) -> Option<TokioIo<hyper::upgrade::Upgraded>> {
        match self.0.await {
            Ok(io) => Some(TokioIo::new(io)),
            Err(e) => {
                tracing::info!(error = %e, "a WebSocket upgrade failed");
                None
            }
        }
    }

    /// The connection as a server-side WebSocket taking frames up to
    /// `max_frame` bytes.
    pub async fn websocket(self, max_frame: usize) -> Option<Socket> {
        let io = self.io().await?;
        Some(server(io, max_frame).await)
    }
}

/// A server-side WebSocket over `io`, frames up to `max_frame`.
pub async fn server(io: TokioIo<hyper::upgrade::Upgraded>, max_frame: usize) -> Socket {
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_frame))
        .max_frame_size(Some(max_frame));
    WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await
}

/// The 101 answer (choosing `protocol` when given) and the pending
/// connection; a refusal when the request is no WebSocket handshake.
pub fn accept(
    req: Request,
    protocol: Option<&'static str>,
) -> Result<(Response, Pending), Box<Response>> {
    let key = match req.headers().get(header::SEC_WEBSOCKET_KEY) {
        Some(k) if is_websocket(req.headers()) => k.as_bytes().to_vec(),
        _ => {
            return Err(Box::new(
                (StatusCode::BAD_REQUEST, "not a WebSocket handshake").into_response(),
            ));
        }
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(&key);
    let pending = Pending(hyper::upgrade::on(req));
    let mut resp = StatusCode::SWITCHING_PROTOCOLS.into_response();
    let h = resp.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    if let Some(p) = protocol {
        h.insert(header::SEC_WEBSOCKET_PROTOCOL, HeaderValue::from_static(p));
    }
    if let Ok(v) = HeaderValue::from_str(&accept) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    Ok((resp, pending))
}
