//! Talking to a remote browser pool: a browserless endpoint's `/pressure`,
//! the WebSocket URL a session's browser is made at, and the connection.
//!
//! Owns what webrig reads from a pool endpoint (bounded in size and time;
//! whatever it sends is data, never trusted) and how a token travels (only
//! inside a [`Secret`] URL, redacted from every error). Choosing an endpoint
//! is the rig's (`rig::pool`); binding the session is `session.rs`'s.

use std::io::Read;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::cdp::{CdpError, Connection};
use crate::config::pool::{PoolEntry, Secret};
use crate::error::{ApiError, ErrorCode};

/// The most webrig reads of one answer from a pool endpoint.
pub const BODY_CAP: u64 = 64 << 10;
/// How long one `/pressure` or `/json/version` may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// How long making a browser on a pool may take (browserless starts it).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The wait suggested when every endpoint is full.
pub const RETRY_AFTER_S: u64 = 5;

/// Where a pooled session's browser runs (no token: safe to show).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Placement {
    /// The `[[pool]]` name.
    pub pool: String,
    /// The endpoint as configured.
    pub endpoint: String,
}

/// A browserless endpoint's `/pressure` (2.x), the fields webrig uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Pressure {
    pub is_available: bool,
    pub running: u64,
    pub queued: u64,
    pub max_concurrent: u64,
    pub max_queued: u64,
    pub cpu: Option<f64>,
    pub memory: Option<f64>,
    /// `full`, `cpu`, `memory` or empty.
    pub reason: String,
}

impl Pressure {
    /// Sessions it can still take (running or queued), 0 when unavailable.
    pub fn free(&self) -> u64 {
        if !self.is_available {
            return 0;
        }
        (self.max_concurrent + self.max_queued).saturating_sub(self.running + self.queued)
    }
}

/// Why an endpoint cannot take a session now.
#[derive(Debug, Clone)]
pub enum Probe {
    /// It answered: full (429, or `isAvailable` false) or not.
    Pressure(Pressure),
    Full(String),
    /// It answers (a plain CDP endpoint: no load figures).
    Up,
    /// It did not answer, or not as a pool would.
    Down(String),
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(PROBE_TIMEOUT))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// GETs `url` (which may hold the token) and parses at most [`BODY_CAP`]
/// bytes of JSON; errors never name the URL's query.
fn get_json(url: url::Url, token: Option<&Secret>) -> Result<(u16, serde_json::Value), String> {
    let redact = |s: String| token.map_or(s.clone(), |t| t.redact(&s));
    let mut resp = agent()
        .get(url.as_str())
        .call()
        .map_err(|e| redact(e.to_string()))?;
    let status = resp.status().as_u16();
    let mut bytes = Vec::new();
    resp.body_mut()
        .as_reader()
        .take(BODY_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| redact(e.to_string()))?;
    if bytes.len() as u64 > BODY_CAP {
        return Err(format!(
            "answered more than {BODY_CAP} bytes; not a pool endpoint"
        ));
    }
    if status == 429 || status == 503 {
        return Ok((status, serde_json::Value::Null));
    }
    if status != 200 {
        return Err(format!("answered HTTP {status}"));
    }
    let value = serde_json::from_slice(&bytes).map_err(|_| "answered with no JSON".to_string())?;
    Ok((status, value))
}

/// The URL of `path` on a browserless base `endpoint`, with the token.
fn browserless_url(endpoint: &str, path: &str, token: Option<&Secret>) -> Result<url::Url, String> {
    let mut url = url::Url::parse(endpoint).map_err(|_| "is not a URL".to_string())?;
    let scheme = match url.scheme() {
        "ws" | "http" => "http",
        _ => "https",
    };
    let _ = url.set_scheme(scheme);
    url.set_path(path);
    if let Some(t) = token {
        url.query_pairs_mut().append_pair("token", t.expose());
    }
    Ok(url)
}

/// A browserless endpoint's `/pressure` (blocking; run it off the runtime).
pub fn pressure(endpoint: &str, token: Option<&Secret>) -> Probe {
    let url = match browserless_url(endpoint, "/pressure", token) {
        Ok(u) => u,
        Err(e) => return Probe::Down(e),
    };
    match get_json(url, token) {
        Ok((200, v)) => match serde_json::from_value::<Pressure>(v["pressure"].clone()) {
            Ok(p) if v["pressure"].is_object() => Probe::Pressure(p),
            _ => Probe::Down("its /pressure has no pressure object".into()),
        },
        Ok((status, _)) => Probe::Full(format!("answered HTTP {status}")),
        Err(e) => Probe::Down(e),
    }
}

/// Whether a plain CDP endpoint answers (`/json/version` for http(s), a
/// TCP connect for ws(s)); blocking.
pub fn cdp_health(endpoint: &str) -> Result<(), String> {
    let url = url::Url::parse(endpoint).map_err(|_| "is not a URL".to_string())?;
    match url.scheme() {
        "http" | "https" => {
            let v = url.join("/json/version").map_err(|e| e.to_string())?;
            get_json(v, None).map(|_| ())
        }
        _ => {
            let addrs = url
                .socket_addrs(|| Some(if url.scheme() == "wss" { 443 } else { 80 }))
                .map_err(|e| e.to_string())?;
            let addr = addrs.first().ok_or("resolves to no address")?;
            std::net::TcpStream::connect_timeout(addr, PROBE_TIMEOUT)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

/// The browser WebSocket of a plain CDP endpoint: a `ws(s)://` one as
/// is, an `http(s)://` one through its `/json/version` (read within the
/// size cap). The answer must point back at the same host and port: a
/// hostile endpoint cannot send webrig (and the pool's token) elsewhere.
/// Blocking.
pub fn resolve_cdp(endpoint: &str) -> Result<String, String> {
    let url = url::Url::parse(endpoint).map_err(|_| "is not a URL".to_string())?;
    if matches!(url.scheme(), "ws" | "wss") {
        return Ok(endpoint.to_string());
    }
    let version = url.join("/json/version").map_err(|e| e.to_string())?;
    let (_, v) = get_json(version, None)?;
    let ws = v["webSocketDebuggerUrl"]
        .as_str()
        .ok_or("its /json/version has no webSocketDebuggerUrl")?;
    let parsed =
        url::Url::parse(ws).map_err(|_| "its webSocketDebuggerUrl is not a URL".to_string())?;
    // http and ws share port 80 as their default, https and wss 443.
    let same = matches!(parsed.scheme(), "ws" | "wss")
        && parsed.host_str() == url.host_str()
        && parsed.port_or_known_default() == url.port_or_known_default();
    if !same {
        return Err(format!(
            "its webSocketDebuggerUrl points at another host or port ({}); refused",
            parsed.host_str().unwrap_or("none")
        ));
    }
    Ok(ws.to_string())
}

/// The WebSocket URL a session's browser is made at on a browserless
/// endpoint: `/chromium` with the token, the launch options (headless,
/// args, stealth off) and the session timeout. A secret: it holds the token.
pub fn browserless_ws(
    pool: &PoolEntry,
    endpoint: &str,
    token: Option<&Secret>,
    proxy: Option<&super::proxy::Proxy>,
) -> Result<Secret, String> {
    let mut url = url::Url::parse(endpoint).map_err(|_| "is not a URL".to_string())?;
    let scheme = match url.scheme() {
        "http" | "ws" => "ws",
        _ => "wss",
    };
    let _ = url.set_scheme(scheme);
    url.set_path("/chromium");
    let mut args = pool.args.clone();
    args.extend(proxy.map(|p| p.switches()).unwrap_or_default());
    let launch = serde_json::json!({
        "headless": pool.headless.unwrap_or(true),
        "stealth": false,
        "args": args,
    });
    {
        let mut q = url.query_pairs_mut();
        if let Some(t) = token {
            q.append_pair("token", t.expose());
        }
        q.append_pair("launch", &launch.to_string());
        if let Some(ms) = pool.session_timeout_ms {
            q.append_pair("timeout", &ms.to_string());
        }
    }
    Ok(Secret::new(url.into()))
}

/// Connects to a pool's browser at `ws` (a secret URL). A refusal at the
/// upgrade with 429 (the pool is full) is `busy`; anything else is
/// `browser_gone`. No error names the URL.
pub async fn connect(ws: &Secret, placement: &Placement) -> Result<Connection, ApiError> {
    let attempt = tokio::time::timeout(CONNECT_TIMEOUT, Connection::connect_ws(ws.expose())).await;
    let reason = match attempt {
        Ok(Ok(conn)) => return Ok(conn),
        Ok(Err(CdpError::Connect { reason, .. })) => ws.redact(&reason),
        Ok(Err(e)) => ws.redact(&e.to_string()),
        Err(_) => format!("no browser within {}s", CONNECT_TIMEOUT.as_secs()),
    };
    let at = format!(
        "endpoint {} of pool {:?}",
        placement.endpoint, placement.pool
    );
    if reason.contains("429") {
        return Err(busy(&format!("{at} is full ({reason})")));
    }
    Err(ApiError::new(
        ErrorCode::BrowserGone,
        format!("no browser from {at}: {reason}"),
    )
    .with_hint("check the endpoint with webrig pool status"))
}

/// `busy` with the wait to retry after.
pub fn busy(why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Busy,
        format!("{why}; retry_after={RETRY_AFTER_S}s"),
    )
    .with_hint(format!(
        "retry after {RETRY_AFTER_S} s, close sessions you no longer need, or add endpoints \
         to the pool (webrig pool status shows each endpoint's load)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> PoolEntry {
        let text = "name = \"p\"\nengine = \"browserless\"\nendpoints = [\"http://127.0.0.1:3000\"]\n\
                    args = [\"--lang=de\"]\n";
        toml::from_str(text).expect("parses")
    }

    #[test]
    fn the_ws_url_carries_launch_options_and_the_token_only_as_a_secret() {
        let t = Secret::new("tok&en".into());
        let ws = browserless_ws(&pool(), "http://127.0.0.1:3000", Some(&t), None).expect("url");
        let url = url::Url::parse(ws.expose()).expect("a URL");
        assert_eq!(url.scheme(), "ws");
        assert_eq!(url.path(), "/chromium");
        let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(q["token"], "tok&en");
        let launch: serde_json::Value = serde_json::from_str(&q["launch"]).expect("json");
        assert_eq!(launch["stealth"], false);
        assert_eq!(launch["headless"], true);
        assert_eq!(launch["args"][0], "--lang=de");
        assert_eq!(format!("{ws:?}"), "Secret(***)");
        assert!(!ws.redact(ws.expose()).contains("tok"));
    }

    #[test]
    fn pressure_free_counts_only_an_available_endpoint() {
        let mut p = Pressure {
            is_available: true,
            running: 1,
            max_concurrent: 3,
            ..Default::default()
        };
        assert_eq!(p.free(), 2);
        p.is_available = false;
        assert_eq!(p.free(), 0);
    }

    /// A loopback server answering every request with `body(its port)`.
    fn serve(body: impl Fn(u16) -> String + Send + 'static) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            use std::io::Write;
            for stream in listener.incoming() {
                let Ok(mut s) = stream else { return };
                let mut buf = [0u8; 4096];
                let _ = std::io::Read::read(&mut s, &mut buf);
                let body = body(port);
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    #[test]
    fn a_cdp_endpoint_cannot_send_webrig_and_its_token_elsewhere() {
        let answer = |host: &'static str, delta: u16| {
            move |port: u16| {
                format!(
                    r#"{{"webSocketDebuggerUrl": "ws://{host}:{}/devtools/browser/x"}}"#,
                    port + delta
                )
            }
        };
        let err = resolve_cdp(&serve(answer("10.9.8.7", 0))).expect_err("another host");
        assert!(err.contains("another host or port"), "{err}");
        assert!(
            resolve_cdp(&serve(answer("127.0.0.1", 1))).is_err(),
            "another port"
        );
        let good = serve(answer("127.0.0.1", 0));
        let ws = resolve_cdp(&good).expect("the same host and port");
        assert!(ws.starts_with(&good.replace("http:", "ws:")), "{ws}");
        assert_eq!(
            resolve_cdp("ws://127.0.0.1:9/devtools/browser/y").expect("ws as is"),
            "ws://127.0.0.1:9/devtools/browser/y"
        );
    }

    #[tokio::test]
    async fn a_huge_or_hostile_pressure_answer_is_refused_not_read_whole() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            use std::io::Write;
            for (i, stream) in listener.incoming().enumerate() {
                let Ok(mut s) = stream else { return };
                let mut buf = [0u8; 4096];
                let _ = std::io::Read::read(&mut s, &mut buf);
                let body = if i == 0 {
                    "x".repeat(4 << 20)
                } else {
                    "{\"pressure\": 7}".into()
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let base = format!("http://127.0.0.1:{port}");
        let t = Secret::new("sekrit".into());
        let b = base.clone();
        let t2 = t.clone();
        let first = tokio::task::spawn_blocking(move || pressure(&b, Some(&t2)))
            .await
            .expect("joins");
        match first {
            Probe::Down(why) => assert!(why.contains("more than"), "{why}"),
            other => panic!("a 4 MiB body must be refused: {other:?}"),
        }
        let second = tokio::task::spawn_blocking(move || pressure(&base, Some(&t)))
            .await
            .expect("joins");
        assert!(matches!(second, Probe::Down(_)), "{second:?}");
    }
}
