//! The fixture web: `tests/fixtures/web` served on a loopback port, plus a few
//! dynamic routes (slow responses, slow assets) that static files cannot give.
//!
//! Text files may name the server itself: `{{origin}}` becomes
//! `http://127.0.0.1:PORT` (from the request's Host) and `{{origin_pct}}` the
//! same, percent-encoded (for links wrapped in a redirector's query, as
//! search engines do). So a results page can point at article pages of the
//! same fixture web whatever port it got.
//!
//! `/slow/<path>?ms=N` and `/delay/<N>/<path>` answer `<path>` after N ms (a
//! provider that times out) and `/status/<code>/<path>` answers `<code>`
//! (one that fails). `/login` sets cookies, `/download/<name>?bytes=N` is an
//! attachment, `/echo-headers` answers the request's headers as JSON.

use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as AxPath, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// A running fixture server; stops when the test process exits.
pub struct FixtureWeb {
    port: u16,
}

impl FixtureWeb {
    /// Starts a server on 127.0.0.1 (a free port) in a background thread.
    pub fn start() -> FixtureWeb {
        Self::start_on(super::fixture_dir(), 0)
    }

    pub fn start_on(root: PathBuf, port: u16) -> FixtureWeb {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind fixture port");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let port = listener.local_addr().expect("local addr").port();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("fixture runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                let _ = axum::serve(listener, app(root)).await;
            });
        });
        FixtureWeb { port }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }
}

fn app(root: PathBuf) -> Router {
    Router::new()
        .route("/slow", get(slow))
        .route("/slow.png", get(slow_png))
        .route("/status/{code}", get(status))
        .route("/status/{code}/{*rest}", get(status_rest))
        .route("/slow/{*path}", get(slow_file))
        .route("/delay/{ms}/{*path}", get(delay_file))
        .route("/redirect", get(redirect))
        .route("/login", get(login))
        .route("/download/{name}", get(download))
        .route("/echo-headers", get(echo_headers))
        .route("/", get(index))
        .route("/{*path}", get(file))
        .with_state(root)
}

#[derive(serde::Deserialize)]
struct Delay {
    ms: Option<u64>,
}

/// An HTML page answered after `ms` milliseconds.
async fn slow(Query(q): Query<Delay>) -> Response {
    let ms = q.ms.unwrap_or(1000).min(60_000);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    html(format!(
        "<!doctype html><title>Slow {ms}</title><p>answered after {ms} ms</p>"
    ))
}

/// A 1×1 PNG answered after `ms` milliseconds (holds back the load event).
async fn slow_png(Query(q): Query<Delay>) -> Response {
    let ms = q.ms.unwrap_or(1000).min(60_000);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    const PNG: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
        0xff, 0xff, 0x3f, 0x00, 0x05, 0xfe, 0x02, 0xfe, 0xa7, 0x35, 0x81, 0x84, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    ([(header::CONTENT_TYPE, "image/png")], PNG).into_response()
}

#[derive(serde::Deserialize)]
struct To {
    to: String,
}

/// A 302 to `to` (for redirect checks).
async fn redirect(Query(q): Query<To>) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, q.to)], "").into_response()
}

/// Sets an http-only session cookie and a plain one (cookie and redaction checks).
async fn login() -> Response {
    (
        axum::response::AppendHeaders([
            (
                header::SET_COOKIE,
                "sid=s3cr3t-session-value; Path=/; HttpOnly",
            ),
            (header::SET_COOKIE, "theme=dark; Path=/"),
        ]),
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<!doctype html><title>Logged in</title><p>welcome</p>",
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct Size {
    bytes: Option<usize>,
}

/// `bytes` bytes (default 1000) as an attachment named `name`.
async fn download(AxPath(name): AxPath<String>, Query(q): Query<Size>) -> Response {
    let n = q.bytes.unwrap_or(1000).min(64 << 20);
    let body: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
    (
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}

/// The request's headers as JSON (what `set headers` and `set locale` send).
async fn echo_headers(headers: HeaderMap) -> Response {
    let map: serde_json::Map<String, serde_json::Value> = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                serde_json::Value::String(v.to_str().unwrap_or_default().to_string()),
            )
        })
        .collect();
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::Value::Object(map).to_string(),
    )
        .into_response()
}

async fn status_rest(AxPath((code, _rest)): AxPath<(u16, String)>) -> Response {
    status(AxPath(code)).await
}

/// A fixture file answered after `ms` milliseconds (default 1000).
async fn slow_file(
    State(root): State<PathBuf>,
    AxPath(path): AxPath<String>,
    Query(q): Query<Delay>,
    headers: HeaderMap,
) -> Response {
    let ms = q.ms.unwrap_or(1000).min(60_000);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    serve(root, path, &headers).await
}

/// `/delay/<ms>/<path>`: `<path>` after `<ms>` milliseconds (for base URLs
/// that get a path appended, where a query cannot carry the delay).
async fn delay_file(
    State(root): State<PathBuf>,
    AxPath((ms, path)): AxPath<(u64, String)>,
    headers: HeaderMap,
) -> Response {
    tokio::time::sleep(Duration::from_millis(ms.min(60_000))).await;
    serve(root, path, &headers).await
}

async fn status(AxPath(code): AxPath<u16>) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST);
    (
        code,
        html(format!(
            "<!doctype html><title>Status {}</title>",
            code.as_u16()
        )),
    )
        .into_response()
}

async fn index(State(root): State<PathBuf>, headers: HeaderMap) -> Response {
    serve(root, "index.html".into(), &headers).await
}

async fn file(
    State(root): State<PathBuf>,
    AxPath(path): AxPath<String>,
    headers: HeaderMap,
) -> Response {
    serve(root, path, &headers).await
}

async fn serve(root: PathBuf, path: String, headers: &HeaderMap) -> Response {
    // Only plain relative paths inside the fixture folder.
    if path
        .split('/')
        .any(|part| part == ".." || part.starts_with('.'))
    {
        return StatusCode::NOT_FOUND.into_response();
    }
    let mut full = root.join(&path);
    if full.is_dir() {
        full = full.join("index.html");
    }
    let name = full.to_string_lossy().into_owned();
    match tokio::fs::read(&full).await {
        Ok(bytes) => {
            // An API path without an extension (`…/search`) that holds JSON.
            let kind = match content_type(&name) {
                "application/octet-stream" if bytes.first() == Some(&b'{') => "application/json",
                k => k,
            };
            (
                [(header::CONTENT_TYPE, kind)],
                with_origin(bytes, kind, headers),
            )
                .into_response()
        }
        Err(_) => (
            StatusCode::NOT_FOUND,
            html("<!doctype html><title>Not found</title>".into()),
        )
            .into_response(),
    }
}

/// `{{origin}}` and `{{origin_pct}}` in a text file, filled from the Host
/// the request came to.
fn with_origin(bytes: Vec<u8>, kind: &str, headers: &HeaderMap) -> Vec<u8> {
    let text_like = kind.starts_with("text/") || kind.contains("json") || kind.contains("svg");
    if !text_like || !bytes.windows(8).any(|w| w == b"{{origin") {
        return bytes;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    let origin = format!("http://{host}");
    let pct: String = origin
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    String::from_utf8_lossy(&bytes)
        .replace("{{origin_pct}}", &pct)
        .replace("{{origin}}", &origin)
        .into_bytes()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}
