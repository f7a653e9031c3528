//! The `/extension` handshake (`extension/PROTOCOL.md`, "Handshake"): a
//! mutual challenge-response over the fresh WebSocket in which the daemon
//! proves first that it holds the token, and the extension proves it only
//! after that. The token itself never crosses the socket.
//!
//! ```text
//! ext → daemon  {"type":"challenge","nonce":NE}
//! daemon → ext  {"type":"daemon-proof","nonce":ND,"proof":HMAC(token, "webrig.v2 daemon PORT NE ND")}
//! ext → daemon  {"type":"extension-proof","proof":HMAC(token, "webrig.v2 extension PORT ND NE")}
//! daemon → ext  {"type":"ready"}
//! ```
//!
//! HMAC-SHA256 keyed with the token; nonces are 32 random bytes in lower
//! hex. The two directions have different labels, so one side's proof is
//! never the other's; each proof covers both fresh nonces, so a recorded
//! one is worthless on the next connection; and both cover the port the
//! daemon listens on, so a daemon that had to take another port cannot be
//! used as an oracle by whoever holds the extension's port. Owns only the
//! exchange: who may reach it, and what follows, is `extension.rs`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Largest frame before the handshake is done (its messages are ~200 bytes).
pub const MAX_FRAME: usize = 4096;
/// The whole exchange, from the upgrade to the extension's proof.
pub const WITHIN: Duration = Duration::from_secs(5);
const NONCE_BYTES: usize = 32;

/// What the proofs are keyed with and bound to. Its `Debug` shows no token.
pub struct Secret {
    token: String,
    port: u16,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secret").field("port", &self.port).finish()
    }
}

impl Secret {
    pub fn new(token: &str, port: u16) -> Secret {
        Secret {
            token: token.to_string(),
            port,
        }
    }

    fn mac(&self, label: &str, first: &str, second: &str) -> Hmac<Sha256> {
        // HMAC takes a key of any length; this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(self.token.as_bytes())
            .expect("HMAC accepts keys of any length");
        mac.update(format!("webrig.v2 {label} {} {first} {second}", self.port).as_bytes());
        mac
    }

    /// The daemon's proof for the extension's nonce `ne` and its own `nd`.
    pub fn daemon_proof(&self, ne: &str, nd: &str) -> String {
        hex(&self.mac("daemon", ne, nd).finalize().into_bytes())
    }

    /// The extension's proof (what the extension computes; tests use it).
    pub fn extension_proof(&self, nd: &str, ne: &str) -> String {
        hex(&self.mac("extension", nd, ne).finalize().into_bytes())
    }

    /// Checks the extension's proof in constant time.
    pub fn verify_extension(&self, nd: &str, ne: &str, proof: &str) -> bool {
        unhex(proof).is_some_and(|p| self.mac("extension", nd, ne).verify_slice(&p).is_ok())
    }
}

/// Why a handshake ended without a link.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("no handshake within {0:?}")]
    Timeout(Duration),
    #[error("the socket closed during the handshake")]
    Closed,
    #[error("expected {0}")]
    Unexpected(&'static str),
    #[error("the extension's proof is wrong")]
    BadProof,
    #[error("no randomness: {0}")]
    Random(String),
}

impl HandshakeError {
    /// The WebSocket close code the refusal is sent with.
    pub fn close_code(&self) -> u16 {
        match self {
            HandshakeError::BadProof => 4001,
            HandshakeError::Timeout(_) => 4008,
            HandshakeError::Random(_) => 1011,
            HandshakeError::Closed | HandshakeError::Unexpected(_) => 4002,
        }
    }
}

/// Runs the exchange on `ws` (a fresh server socket) within `within`
/// ([`WITHIN`] at the door); waits `delay` before the daemon's proof (see
/// `failure_delay`). Ok when the extension proved it holds the token.
pub async fn run<T>(
    ws: &mut WebSocketStream<T>,
    secret: &Secret,
    delay: Duration,
    within: Duration,
) -> Result<(), HandshakeError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    tokio::time::timeout(within, exchange(ws, secret, delay))
        .await
        .map_err(|_| HandshakeError::Timeout(within))?
}

async fn exchange<T>(
    ws: &mut WebSocketStream<T>,
    secret: &Secret,
    delay: Duration,
) -> Result<(), HandshakeError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    let challenge = next_json(ws).await?;
    if challenge["type"] != "challenge" {
        return Err(HandshakeError::Unexpected("a challenge"));
    }
    let ne = challenge["nonce"]
        .as_str()
        .filter(|n| is_nonce(n))
        .ok_or(HandshakeError::Unexpected(
            "a nonce of 64 lower-case hex digits",
        ))?
        .to_string();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let mut nd = [0u8; NONCE_BYTES];
    getrandom::fill(&mut nd).map_err(|e| HandshakeError::Random(e.to_string()))?;
    let nd = hex(&nd);
    let proof = secret.daemon_proof(&ne, &nd);
    send(
        ws,
        json!({"type": "daemon-proof", "nonce": nd, "proof": proof}),
    )
    .await?;
    let answer = next_json(ws).await?;
    if answer["type"] != "extension-proof" {
        return Err(HandshakeError::Unexpected("the extension's proof"));
    }
    let given = answer["proof"].as_str().unwrap_or_default();
    if secret.verify_extension(&nd, &ne, given) {
        Ok(())
    } else {
        Err(HandshakeError::BadProof)
    }
}

/// Tells a proved extension the link is up.
pub async fn ready<T>(ws: &mut WebSocketStream<T>) -> Result<(), HandshakeError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    send(ws, json!({"type": "ready"})).await
}

/// Closes with `code` and `reason`, giving the peer a second to take it.
pub async fn close<T>(ws: &mut WebSocketStream<T>, code: u16, reason: &str)
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: reason.chars().take(100).collect::<String>().into(),
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(Some(frame))).await;
}

async fn send<T>(ws: &mut WebSocketStream<T>, v: Value) -> Result<(), HandshakeError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    ws.send(Message::text(v.to_string()))
        .await
        .map_err(|_| HandshakeError::Closed)
}

/// The next text frame as a JSON object (pings are answered by tungstenite).
async fn next_json<T>(ws: &mut WebSocketStream<T>) -> Result<Value, HandshakeError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(text))) => {
                return serde_json::from_str::<Value>(&text)
                    .ok()
                    .filter(Value::is_object)
                    .ok_or(HandshakeError::Unexpected("a JSON object"));
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            Some(Ok(Message::Binary(_) | Message::Frame(_))) => {
                return Err(HandshakeError::Unexpected("a text frame"));
            }
            Some(Ok(Message::Close(_)) | Err(_)) | None => return Err(HandshakeError::Closed),
        }
    }
}

fn is_nonce(n: &str) -> bool {
    n.len() == 2 * NONCE_BYTES && n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

// Hex by hand: two 32-byte values per handshake do not warrant a crate.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::Role;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    async fn pair_of_sockets() -> (
        WebSocketStream<tokio::io::DuplexStream>,
        WebSocketStream<tokio::io::DuplexStream>,
    ) {
        let (a, b) = tokio::io::duplex(64 * 1024);
        let server = WebSocketStream::from_raw_socket(a, Role::Server, None).await;
        let client = WebSocketStream::from_raw_socket(b, Role::Client, None).await;
        (server, client)
    }

    async fn recv(ws: &mut WebSocketStream<tokio::io::DuplexStream>) -> Value {
        next_json(ws).await.expect("a frame")
    }

    /// The extension's side, with `token`; returns what the daemon said
    /// after the extension's proof, or the error.
    async fn extension(
        mut ws: WebSocketStream<tokio::io::DuplexStream>,
        token: &str,
        ne: &str,
    ) -> (bool, Result<Value, HandshakeError>) {
        let secret = Secret::new(token, 9377);
        send(&mut ws, json!({"type": "challenge", "nonce": ne}))
            .await
            .expect("send");
        let d = recv(&mut ws).await;
        let nd = d["nonce"].as_str().expect("nonce").to_string();
        let daemon_ok = d["proof"] == secret.daemon_proof(ne, &nd);
        let proof = secret.extension_proof(&nd, ne);
        send(&mut ws, json!({"type": "extension-proof", "proof": proof}))
            .await
            .expect("send");
        (daemon_ok, next_json(&mut ws).await)
    }

    const NE: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[tokio::test]
    async fn both_sides_with_the_token_prove_themselves() {
        let (mut server, client) = pair_of_sockets().await;
        let ext = tokio::spawn(extension(client, TOKEN, NE));
        let secret = Secret::new(TOKEN, 9377);
        run(&mut server, &secret, Duration::ZERO, WITHIN)
            .await
            .expect("handshake");
        ready(&mut server).await.expect("ready");
        let (daemon_ok, after) = ext.await.expect("join");
        assert!(daemon_ok, "the daemon's proof checks out");
        assert_eq!(after.expect("ready")["type"], "ready");
    }

    #[tokio::test]
    async fn an_extension_without_the_token_is_refused_and_sees_a_proof_it_cannot_check() {
        let (mut server, client) = pair_of_sockets().await;
        let ext = tokio::spawn(extension(client, "not-the-token", NE));
        let secret = Secret::new(TOKEN, 9377);
        let e = run(&mut server, &secret, Duration::ZERO, WITHIN)
            .await
            .expect_err("refused");
        assert!(matches!(e, HandshakeError::BadProof), "{e}");
        assert_eq!(e.close_code(), 4001);
        drop(server);
        let (daemon_ok, _) = ext.await.expect("join");
        assert!(!daemon_ok);
    }

    #[test]
    fn the_two_directions_never_share_a_proof_and_the_port_counts() {
        let s = Secret::new(TOKEN, 9377);
        let (a, b) = (NE, &"b".repeat(64));
        // The daemon's proof for (a, b) is not the extension's for (a, b)
        // nor for (b, a): a daemon proof cannot be replayed as the other.
        assert_ne!(s.daemon_proof(a, b), s.extension_proof(a, b));
        assert_ne!(s.daemon_proof(b, a), s.extension_proof(a, b));
        assert!(!s.verify_extension(a, b, &s.daemon_proof(b, a)));
        assert!(!s.verify_extension(a, b, &s.daemon_proof(a, b)));
        assert!(s.verify_extension(a, b, &s.extension_proof(a, b)));
        // Another port, another proof.
        let other = Secret::new(TOKEN, 9378);
        assert_ne!(s.daemon_proof(a, b), other.daemon_proof(a, b));
        assert!(!format!("{s:?}").contains(TOKEN), "Debug shows no token");
    }

    #[tokio::test]
    async fn a_recorded_extension_proof_opens_nothing_on_the_next_connection() {
        // Connection 1: a real extension; its proof is recorded.
        let (mut server, mut client) = pair_of_sockets().await;
        let secret = Secret::new(TOKEN, 9377);
        let recorded = tokio::spawn(async move {
            send(&mut client, json!({"type": "challenge", "nonce": NE}))
                .await
                .expect("send");
            let d = recv(&mut client).await;
            let nd = d["nonce"].as_str().expect("nonce").to_string();
            let proof = Secret::new(TOKEN, 9377).extension_proof(&nd, NE);
            send(
                &mut client,
                json!({"type": "extension-proof", "proof": proof}),
            )
            .await
            .expect("send");
            proof
        });
        run(&mut server, &secret, Duration::ZERO, WITHIN)
            .await
            .expect("first");
        let proof = recorded.await.expect("join");
        // Connection 2: the same frames, replayed.
        let (mut server, mut client) = pair_of_sockets().await;
        let replay = tokio::spawn(async move {
            send(&mut client, json!({"type": "challenge", "nonce": NE}))
                .await
                .expect("send");
            let _ = recv(&mut client).await;
            send(
                &mut client,
                json!({"type": "extension-proof", "proof": proof}),
            )
            .await
            .expect("send");
        });
        let e = run(&mut server, &secret, Duration::ZERO, WITHIN)
            .await
            .expect_err("replay refused");
        assert!(matches!(e, HandshakeError::BadProof), "{e}");
        replay.await.expect("join");
    }

    #[tokio::test]
    async fn a_silent_or_malformed_peer_is_dropped() {
        let (mut server, _client) = pair_of_sockets().await;
        let secret = Secret::new(TOKEN, 9377);
        let e = run(
            &mut server,
            &secret,
            Duration::ZERO,
            Duration::from_millis(200),
        )
        .await
        .expect_err("silent");
        assert!(matches!(e, HandshakeError::Timeout(_)), "{e}");
        for bad in [
            json!({"type": "challenge", "nonce": "short"}),
            json!({"type": "challenge", "nonce": NE.to_uppercase()}),
            json!({"type": "extension-proof", "proof": "00"}),
            json!({"id": 1, "method": "tabs.list"}),
        ] {
            let (mut server, mut client) = pair_of_sockets().await;
            send(&mut client, bad.clone()).await.expect("send");
            let e = run(&mut server, &secret, Duration::ZERO, WITHIN)
                .await
                .expect_err("malformed");
            assert!(matches!(e, HandshakeError::Unexpected(_)), "{bad}: {e}");
        }
    }
}
