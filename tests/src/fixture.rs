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
//! `/signals/...` refuse or challenge the browser ([`signals`]).
//! `/logins/sign-in?user=U&token=T` sets a persistent login cookie and
//! `/logins/whoami` says whom the request's cookie names (cookie import).

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
        .route("/logins/sign-in", get(logins_sign_in))
        .route("/logins/whoami", get(logins_whoami))
        .merge(signals::routes())
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

/// Pages that refuse or challenge the browser, for the signals tests
/// (`/signals/...`); each keeps a count of its hits per key, and a key can
/// be marked solved (what a person solving the challenge would do).
pub mod signals {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};

    use axum::Router;
    use axum::extract::{Path as AxPath, Query};
    use axum::http::{StatusCode, header};
    use axum::response::{IntoResponse, Response};
    use axum::routing::get;

    #[derive(Default)]
    struct Keys {
        hits: HashMap<String, u32>,
        solved: HashMap<String, bool>,
    }

    static KEYS: LazyLock<Mutex<Keys>> = LazyLock::new(Default::default);

    fn keys() -> std::sync::MutexGuard<'static, Keys> {
        KEYS.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `/signals/hits/{key}`: how many times a page of `key` was requested.
    async fn hits(AxPath(key): AxPath<String>) -> String {
        keys().hits.get(&key).copied().unwrap_or(0).to_string()
    }

    /// `/signals/solve/{key}`: marks `key` solved; its pages answer
    /// normally from now on.
    async fn solve(AxPath(key): AxPath<String>) -> &'static str {
        keys().solved.insert(key, true);
        "solved"
    }

    fn hit(key: &str) -> (u32, bool) {
        let mut k = keys();
        let n = {
            let n = k.hits.entry(key.to_string()).or_insert(0);
            *n += 1;
            *n
        };
        (n, k.solved.get(key).copied().unwrap_or(false))
    }

    pub(super) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
        Router::new()
            .route("/signals/flaky/{key}", get(flaky))
            .route("/signals/captcha/{key}", get(captcha))
            .route("/signals/solved/{key}", get(solved))
            .route("/signals/hits/{key}", get(hits))
            .route("/signals/solve/{key}", get(solve))
            .route("/signals/loop/{step}", get(looping))
    }

    fn page(code: StatusCode, extra: &[(header::HeaderName, &str)], body: String) -> Response {
        let mut r = (
            code,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response();
        for (k, v) in extra {
            if let Ok(v) = v.parse() {
                r.headers_mut().insert(k.clone(), v);
            }
        }
        r
    }

    fn welcome(key: &str) -> Response {
        page(
            StatusCode::OK,
            &[],
            format!(
                "<!doctype html><title>Welcome {key}</title><h1>Welcome</h1><p>The real page.</p>"
            ),
        )
    }

    #[derive(serde::Deserialize)]
    struct Flaky {
        /// Answer 429 every time (default: only the first).
        always: Option<bool>,
    }

    /// `/signals/flaky/{key}`: 429 (Retry-After: 1) first, then a page
    /// shaped like Cloudflare's "Just a moment..." interstitial (403) that
    /// never clears by itself; `?always=true`: 429 every time.
    async fn flaky(AxPath(key): AxPath<String>, Query(q): Query<Flaky>) -> Response {
        let (n, solved) = hit(&key);
        if solved {
            return welcome(&key);
        }
        if n == 1 || q.always == Some(true) {
            return page(
                StatusCode::TOO_MANY_REQUESTS,
                &[(header::RETRY_AFTER, "1")],
                "<!doctype html><title>Too Many Requests</title><p>Slow down.</p>".into(),
            );
        }
        page(
            StatusCode::FORBIDDEN,
            &[],
            "<!doctype html><html><head><title>Just a moment...</title></head><body>\
             <div id=\"challenge-running\"><h1>Checking if the site connection is secure</h1>\
             <p>This fixture needs to review the security of your connection before proceeding.</p></div>\
             </body></html>"
                .into(),
        )
    }

    /// `/signals/captcha/{key}`: a page holding an hCaptcha-style widget
    /// until the key is solved; the page looks for that itself and moves
    /// on, as a solved widget would.
    async fn captcha(AxPath(key): AxPath<String>) -> Response {
        let (_, solved) = hit(&key);
        if solved {
            return welcome(&key);
        }
        page(
            StatusCode::OK,
            &[],
            format!(
                "<!doctype html><title>Security check</title><h1>One more step</h1>\
                 <p>Please verify you are human.</p>\
                 <div class=\"h-captcha\" data-sitekey=\"fixture\" style=\"width:300px;height:80px;border:1px solid #999\"></div>\
                 <script>setInterval(async () => {{ const r = await fetch('/signals/solved/{key}'); \
                 if ((await r.text()) === 'yes') location.reload(); }}, 200);</script>"
            ),
        )
    }

    async fn solved(AxPath(key): AxPath<String>) -> Response {
        let yes = keys().solved.get(&key).copied().unwrap_or(false);
        (StatusCode::OK, if yes { "yes" } else { "no" }).into_response()
    }

    /// `/signals/loop/a` → `/signals/loop/b` → `/signals/loop/a` → …
    async fn looping(AxPath(step): AxPath<String>) -> Response {
        let next = if step == "a" {
            "/signals/loop/b"
        } else {
            "/signals/loop/a"
        };
        (StatusCode::FOUND, [(header::LOCATION, next)], "").into_response()
    }
}

#[derive(serde::Deserialize)]
struct SignIn {
    user: String,
    token: String,
}

/// Signs `user` in for an hour: a persistent cookie (Max-Age) the browser
/// writes to its cookie store, `webrig_login=USER.TOKEN`.
async fn logins_sign_in(Query(q): Query<SignIn>) -> Response {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !ok(&q.user) || !ok(&q.token) {
        return StatusCode::BAD_REQUEST.into_response();
    }
    (
        [
            (
                header::SET_COOKIE,
                format!(
                    "webrig_login={}.{}; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax",
                    q.user, q.token
                ),
            ),
            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_string()),
        ],
        "<!doctype html><title>Signed in</title><p>signed in</p>",
    )
        .into_response()
}

/// "logged in as USER" when the request carries the login cookie (never
/// its token), else "not logged in".
async fn logins_whoami(headers: HeaderMap) -> Response {
    let user = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().strip_prefix("webrig_login="))
        .find_map(|v| v.split_once('.').map(|(user, _)| user.to_string()))
        .filter(|u| u.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let who = match user {
        Some(u) => format!("logged in as {u}"),
        None => "not logged in".to_string(),
    };
    html(format!(
        "<!doctype html><title>Who am I</title><p id=\"who\">{who}</p>"
    ))
}
