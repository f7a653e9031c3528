//! The HTTP boundary in process: every route the router serves × token ×
//! Host × Origin × door, against the rules of docs/SECURITY.md ("The HTTP
//! door") written out as a small table, through `tower::ServiceExt::oneshot`
//! (no socket, no browser: some 9,400 requests in about a second, debug
//! build; most of it is the 24 OpenAPI documents the successes build).
//! Then the body rules (size, JSON), the rate limit, the extension's door
//! without an upgrade.
//!
//! What only the real listener does (Sec-Fetch-Site, connection caps,
//! header and body deadlines) stays end to end: `tests/tests/e2e/boundary.rs`
//! keeps a few cases through the socket, `hardening.rs` and `doors.rs` the rest.

use std::time::Instant;

use axum::body::Body;
use axum::http::Method;
use serde_json::Value;
use tower::ServiceExt;

use super::*;
use crate::config::{Access, Home, Limits};

/// The port the router believes it serves; nothing listens on it.
const PORT: u16 = 47_311;
/// 64 hex letters, like a real token.
const TOKEN: &str = "5eb5b2c0a1d34e8f9a7c6b5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f";
const EXT: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

const COMMAND: &str = r#"{"command":"sessions"}"#;
const PAIR: &str = r#"{"code":"0000-0000-0000"}"#;
const MCP_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"unit","version":"0"}}}"#;
const JSON: &[(&str, &str)] = &[("content-type", "application/json")];
const MCP: &[(&str, &str)] = &[
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A daemon's router over a temp home; no browser, no listener.
struct Rig {
    app: Router,
    state: Arc<State>,
    _home: tempfile::TempDir,
}

/// What came back, body read whole.
struct Answer {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    /// The body as JSON; for NDJSON (`/command/stream`) its last line.
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .ok()
            .or_else(|| {
                let last = self.body.lines().rfind(|l| !l.trim().is_empty())?;
                serde_json::from_str(last).ok()
            })
            .unwrap_or(Value::Null)
    }

    fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl Rig {
    /// A rig under the default limits as `edit` changes them.
    fn new(edit: impl FnOnce(&mut Limits)) -> Rig {
        let mut limits = Limits::default();
        edit(&mut limits);
        let home = tempfile::tempdir().expect("a temp home");
        let state = State::new(
            Home::at(home.path().to_path_buf()),
            TOKEN.into(),
            PORT,
            limits,
            Access::default(),
        );
        Rig {
            app: app(state.clone()),
            state,
            _home: home,
        }
    }

    /// Failed tries are never rate limited here: the matrix sends thousands.
    fn unlimited() -> Rig {
        Rig::new(|l| l.unauthenticated_per_minute = u32::MAX)
    }

    async fn send(&self, req: Request) -> Answer {
        let resp = self
            .app
            .clone()
            .oneshot(req)
            .await
            .unwrap_or_else(|never| match never {});
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = axum::body::to_bytes(resp.into_body(), 64 << 20)
            .await
            .expect("the answer's body reads whole");
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }
}

/// A request as the TCP door hands it to the router (good Host, no token
/// unless given in `headers`).
fn request(method: Method, path: &str, body: impl Into<Body>, headers: &[(&str, &str)]) -> Request {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::HOST, format!("127.0.0.1:{PORT}"))
        .extension(tcp())
        .body(body.into())
        .expect("a well-formed request");
    for (name, value) in headers {
        let name = header::HeaderName::from_bytes(name.as_bytes()).expect("a header name");
        let value = HeaderValue::from_str(value).expect("a header value");
        req.headers_mut().insert(name, value);
    }
    req
}

fn tcp() -> Via {
    Via::Tcp(std::net::SocketAddr::from(([127, 0, 0, 1], 40_000)))
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

/// The error code every refusal with this status carries.
fn code_for(status: u16) -> &'static str {
    match status {
        400 | 405 => "invalid_argument",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        413 | 429 => "limit_exceeded",
        _ => "internal",
    }
}

/// A refusal is the error envelope and nothing else: JSON, `ok: false`, the
/// code its status stands for, a message, no result, never the token.
fn assert_refusal(answer: &Answer, status: u16, case: &str) {
    assert_eq!(answer.status, status, "{case}: {}", answer.body);
    assert!(
        answer
            .header(header::CONTENT_TYPE)
            .is_some_and(|t| t.starts_with("application/json")),
        "{case}: a refusal that is not JSON: {:?}",
        answer.headers
    );
    let v = answer.json();
    assert_eq!(v["ok"], false, "{case}: {}", answer.body);
    assert_eq!(
        v["error"]["code"],
        code_for(status),
        "{case}: {}",
        answer.body
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{case}: {}",
        answer.body
    );
    assert!(v.get("result").is_none(), "{case}: {}", answer.body);
    assert!(
        !answer.body.contains(TOKEN),
        "{case}: a refusal carries the token"
    );
}

// ---- The matrix ----

#[derive(Clone, Copy, Debug)]
enum Token {
    Absent,
    Wrong,
    Right,
    /// `Bearer   <token>  `: whitespace around the token.
    Padded,
    /// `bearer <token>`.
    LowercaseScheme,
    /// The token alone, no scheme.
    NoScheme,
    /// The token and one letter more.
    Longer,
}

impl Token {
    const ALL: [Token; 7] = [
        Token::Absent,
        Token::Wrong,
        Token::Right,
        Token::Padded,
        Token::LowercaseScheme,
        Token::NoScheme,
        Token::Longer,
    ];

    fn header(self) -> Option<String> {
        match self {
            Token::Absent => None,
            Token::Wrong => Some(format!("Bearer {}", "f".repeat(64))),
            Token::Right => Some(bearer()),
            Token::Padded => Some(format!("Bearer   {TOKEN}  ")),
            Token::LowercaseScheme => Some(format!("bearer {TOKEN}")),
            Token::NoScheme => Some(TOKEN.to_string()),
            Token::Longer => Some(format!("Bearer {TOKEN}0")),
        }
    }

    /// Rule: the scheme is `Bearer` as written (clients send it so), and the
    /// token, whitespace around it aside, is the daemon's.
    fn authenticates(self) -> bool {
        matches!(self, Token::Right | Token::Padded)
    }
}

#[derive(Clone, Copy, Debug)]
enum Host {
    Ip,
    Localhost,
    /// `LocalHost:<port>`: a host name is case-insensitive.
    LocalhostMixedCase,
    /// `[::1]:<port>`: the daemon listens on IPv4 only, so no client
    /// reached it under this name.
    Ipv6Loopback,
    OtherPort,
    NoPort,
    /// What a DNS-rebinding page's requests carry.
    Foreign,
    Absent,
}

impl Host {
    const ALL: [Host; 8] = [
        Host::Ip,
        Host::Localhost,
        Host::LocalhostMixedCase,
        Host::Ipv6Loopback,
        Host::OtherPort,
        Host::NoPort,
        Host::Foreign,
        Host::Absent,
    ];

    fn header(self) -> Option<String> {
        match self {
            Host::Ip => Some(format!("127.0.0.1:{PORT}")),
            Host::Localhost => Some(format!("localhost:{PORT}")),
            Host::LocalhostMixedCase => Some(format!("LocalHost:{PORT}")),
            Host::Ipv6Loopback => Some(format!("[::1]:{PORT}")),
            Host::OtherPort => Some(format!("127.0.0.1:{}", PORT + 1)),
            Host::NoPort => Some("127.0.0.1".into()),
            Host::Foreign => Some(format!("evil.test:{PORT}")),
            Host::Absent => None,
        }
    }

    /// Rule (DNS rebinding): `127.0.0.1` or `localhost` (in any case) with
    /// the daemon's port.
    fn names_the_daemon(self) -> bool {
        matches!(self, Host::Ip | Host::Localhost | Host::LocalhostMixedCase)
    }
}

#[derive(Clone, Copy, Debug)]
enum Origin {
    Absent,
    Web,
    Extension,
    /// Upper-case letters: not an extension id (a–p only).
    LookalikeExtension,
    /// A sandboxed frame or a `file://` page.
    Null,
    /// The daemon's own origin, as a page served from it would send.
    Own,
}

impl Origin {
    const ALL: [Origin; 6] = [
        Origin::Absent,
        Origin::Web,
        Origin::Extension,
        Origin::LookalikeExtension,
        Origin::Null,
        Origin::Own,
    ];

    fn header(self) -> Option<String> {
        match self {
            Origin::Absent => None,
            Origin::Web => Some("https://evil.test".into()),
            Origin::Extension => Some(EXT.into()),
            Origin::LookalikeExtension => {
                Some("chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP".into())
            }
            Origin::Null => Some("null".into()),
            Origin::Own => Some(format!("http://127.0.0.1:{PORT}")),
        }
    }
}

/// What a route is, as far as the rules go.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Served to whoever passes Host and Origin; this status.
    Open(u16),
    /// Needs the token; 200 with it.
    Authed,
    /// `POST /pair`: the extension only; no code is active, so 401.
    Pair,
    /// `OPTIONS /pair`, the CORS preflight: the extension only, 204.
    Preflight,
    NoSuchPath,
    WrongMethod,
}

struct Route {
    method: Method,
    path: &'static str,
    body: &'static str,
    headers: &'static [(&'static str, &'static str)],
    kind: Kind,
    /// A path the extension uses (`/ping`, `/pair`, `/extension`): the
    /// one place an extension origin is let through.
    extension_path: bool,
    /// What a success must say.
    success: Option<fn(&Value) -> bool>,
}

fn route(method: Method, path: &'static str, kind: Kind, extension_path: bool) -> Route {
    Route {
        method,
        path,
        body: "",
        headers: &[],
        kind,
        extension_path,
        success: None,
    }
}

impl Route {
    fn with_body(
        mut self,
        body: &'static str,
        headers: &'static [(&'static str, &'static str)],
    ) -> Route {
        self.body = body;
        self.headers = headers;
        self
    }

    fn answers(mut self, check: fn(&Value) -> bool) -> Route {
        self.success = Some(check);
        self
    }
}

/// Every route the router serves, a path it does not, and methods it does
/// not take.
fn routes() -> Vec<Route> {
    let sessions: fn(&Value) -> bool = |v| v["ok"] == true && v["result"]["sessions"].is_array();
    vec![
        route(Method::GET, "/ping", Kind::Open(200), true).answers(|v| v["name"] == "webrig"),
        route(Method::POST, "/pair", Kind::Pair, true).with_body(PAIR, JSON),
        route(Method::OPTIONS, "/pair", Kind::Preflight, true),
        // No upgrade headers, no `webrig.v2`: a bad request.
        route(Method::GET, "/extension", Kind::Open(400), true),
        route(Method::POST, "/command", Kind::Authed, false)
            .with_body(COMMAND, JSON)
            .answers(sessions),
        route(Method::POST, "/command/stream", Kind::Authed, false)
            .with_body(COMMAND, JSON)
            .answers(sessions),
        route(Method::GET, "/openapi.json", Kind::Authed, false)
            .answers(|v| v["openapi"] == "3.1.0"),
        route(Method::POST, "/mcp", Kind::Authed, false)
            .with_body(MCP_INIT, MCP)
            .answers(|v| v["result"]["serverInfo"].is_object()),
        route(Method::GET, "/nope", Kind::NoSuchPath, false),
        route(Method::GET, "/ping/", Kind::NoSuchPath, false),
        route(Method::GET, "/command", Kind::WrongMethod, false),
        route(Method::DELETE, "/openapi.json", Kind::WrongMethod, false),
        route(Method::POST, "/ping", Kind::WrongMethod, true).with_body("{}", JSON),
        route(Method::GET, "/pair", Kind::WrongMethod, true),
    ]
}

/// The rules, in the order a request meets them. The door (TCP or the
/// CLI's Unix socket) changes none of them.
fn expected(route: &Route, token: Token, host: Host, origin: Origin) -> u16 {
    let extension = matches!(origin, Origin::Extension);
    if !host.names_the_daemon() {
        return 403;
    }
    // No web page anywhere; the extension only where it needs to be.
    let origin_ok = match origin {
        Origin::Absent => true,
        Origin::Extension => route.extension_path,
        _ => false,
    };
    if !origin_ok {
        return 403;
    }
    match route.kind {
        // The route list is public (openapi.json): no token needed to learn it.
        Kind::NoSuchPath => 404,
        Kind::WrongMethod => 405,
        Kind::Open(status) => status,
        Kind::Pair | Kind::Preflight if !extension => 403,
        Kind::Pair => 401,
        Kind::Preflight => 204,
        Kind::Authed if token.authenticates() => 200,
        Kind::Authed => 401,
    }
}

#[tokio::test]
async fn every_route_answers_every_token_host_origin_and_door_by_the_rules() {
    let rig = Rig::unlimited();
    let routes = routes();
    let doors = [tcp(), Via::Local];
    let started = Instant::now();
    let mut checked = 0;
    for route in &routes {
        for token in Token::ALL {
            for host in Host::ALL {
                for origin in Origin::ALL {
                    for via in doors {
                        let case = format!(
                            "{} {} token={token:?} host={host:?} origin={origin:?} via={via:?}",
                            route.method, route.path
                        );
                        let mut builder = Request::builder()
                            .method(route.method.clone())
                            .uri(route.path)
                            .extension(via);
                        let headers = [
                            (header::AUTHORIZATION, token.header()),
                            (header::HOST, host.header()),
                            (header::ORIGIN, origin.header()),
                        ];
                        for (name, value) in headers {
                            if let Some(value) = value {
                                builder = builder.header(name, value);
                            }
                        }
                        for (name, value) in route.headers {
                            builder = builder.header(*name, *value);
                        }
                        let req = builder
                            .body(Body::from(route.body))
                            .expect("a well-formed request");
                        let answer = rig.send(req).await;
                        let status = expected(route, token, host, origin);
                        if status >= 400 {
                            assert_refusal(&answer, status, &case);
                        } else {
                            assert_eq!(answer.status, status, "{case}: {}", answer.body);
                            assert!(!answer.body.contains(TOKEN), "{case}: the token");
                            if let Some(success) = route.success {
                                assert!(success(&answer.json()), "{case}: {}", answer.body);
                            }
                        }
                        // CORS is granted to the extension on `/pair` alone.
                        if let Some(allowed) = answer.header(header::ACCESS_CONTROL_ALLOW_ORIGIN) {
                            assert!(
                                route.path == "/pair" && allowed == EXT,
                                "{case}: CORS for {allowed}"
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    let took = started.elapsed();
    eprintln!("the boundary matrix: {checked} requests in {took:?}");
    assert_eq!(
        checked,
        routes.len() * Token::ALL.len() * Host::ALL.len() * Origin::ALL.len() * doors.len()
    );
}

// ---- The Host header alone ----

#[tokio::test]
async fn the_host_check_ignores_the_case_of_the_name_and_nothing_else() {
    let rig = Rig::unlimited();
    let ping = |host: &[u8]| {
        let mut req = request(Method::GET, "/ping", Body::empty(), &[]);
        req.headers_mut().insert(
            header::HOST,
            HeaderValue::from_bytes(host).expect("a header value"),
        );
        req
    };
    for host in ["127.0.0.1", "localhost", "LOCALHOST", "Localhost"] {
        let host = format!("{host}:{PORT}");
        let answer = rig.send(ping(host.as_bytes())).await;
        assert_eq!(answer.status, 200, "{host}: {}", answer.body);
    }
    let refused = [
        format!("localhost.:{PORT}"),
        format!("127.0.0.2:{PORT}"),
        format!("0.0.0.0:{PORT}"),
        format!("127.0.0.1:0{PORT}"),
        format!("127.0.0.1:{PORT}.evil.test"),
        format!("localhost:{PORT}@evil.test"),
        format!("evil.test@localhost:{PORT}"),
        format!("localhost.evil.test:{PORT}"),
        format!("127.0.0.1:{PORT}, evil.test"),
        "localhost".to_string(),
        String::new(),
    ];
    for host in &refused {
        let answer = rig.send(ping(host.as_bytes())).await;
        assert_refusal(&answer, 403, &format!("Host {host:?}"));
    }
    // Bytes that are not text: refused, not a crash.
    let answer = rig.send(ping(b"local\xffhost:47311")).await;
    assert_refusal(&answer, 403, "Host of non-UTF-8 bytes");
}

// ---- Bodies ----

#[tokio::test]
async fn a_body_over_the_limit_is_413_with_the_envelope_promised_or_not() {
    let rig = Rig::new(|l| l.body_bytes = 1024);
    let auth = bearer();
    let big = format!(
        r#"{{"command":"sessions","args":{{"pad":"{}"}}}}"#,
        "x".repeat(2000)
    );
    for path in ["/command", "/command/stream", "/mcp"] {
        // Promised in Content-Length: refused before the body is read.
        let length = big.len().to_string();
        let req = request(
            Method::POST,
            path,
            big.clone(),
            &[("authorization", &auth), ("content-length", &length)],
        );
        assert_refusal(
            &rig.send(req).await,
            413,
            &format!("{path}, Content-Length"),
        );
    }
    for path in ["/command", "/command/stream"] {
        // No length given (chunked): refused as it is read.
        let chunks = big
            .as_bytes()
            .chunks(256)
            .map(|c| Ok::<_, std::convert::Infallible>(Bytes::copy_from_slice(c)))
            .collect::<Vec<_>>();
        let body = Body::from_stream(futures_util::stream::iter(chunks));
        let req = request(Method::POST, path, body, &[("authorization", &auth)]);
        let answer = rig.send(req).await;
        assert_refusal(&answer, 413, &format!("{path}, chunked"));
        assert!(
            answer.body.contains("1024"),
            "says the limit: {}",
            answer.body
        );
    }
    // `/pair` takes 512 bytes, whatever `body_bytes` says.
    let pair = format!(r#"{{"code":"{}"}}"#, "1".repeat(600));
    let length = pair.len().to_string();
    let req = request(
        Method::POST,
        "/pair",
        pair.clone(),
        &[("origin", EXT), ("content-length", &length)],
    );
    assert_refusal(&rig.send(req).await, 413, "/pair, Content-Length");
    let req = request(Method::POST, "/pair", pair, &[("origin", EXT)]);
    assert_refusal(&rig.send(req).await, 413, "/pair, no length");
    // Within the limit the same request works.
    let req = request(
        Method::POST,
        "/command",
        COMMAND,
        &[("authorization", &auth)],
    );
    assert_eq!(rig.send(req).await.status, 200);
}

#[tokio::test]
async fn a_missing_or_malformed_json_body_is_400_with_the_envelope() {
    let rig = Rig::unlimited();
    let auth = bearer();
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let bodies: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not JSON", b"command=sessions".to_vec()),
        ("not UTF-8", b"{\"command\":\"\xff\xfe\"}".to_vec()),
        ("a JSON string", br#""sessions""#.to_vec()),
        ("no command", br#"{"args":{}}"#.to_vec()),
        ("a number for a command", br#"{"command":5}"#.to_vec()),
        (
            "an unknown field",
            br#"{"command":"sessions","tokn":"x"}"#.to_vec(),
        ),
        ("cut short", br#"{"command":"sess"#.to_vec()),
        ("nested 10,000 deep", deep.into_bytes()),
    ];
    for path in ["/command", "/command/stream"] {
        for (what, body) in &bodies {
            let req = request(
                Method::POST,
                path,
                body.clone(),
                &[("authorization", &auth)],
            );
            assert_refusal(&rig.send(req).await, 400, &format!("{path}: {what}"));
        }
    }
    // A well-formed request for a command that does not exist: 400 on
    // `/command`; on `/command/stream` the stream has begun, and its last
    // line is the same refusal.
    let unknown = r#"{"command":"no_such_command"}"#;
    let req = request(
        Method::POST,
        "/command",
        unknown,
        &[("authorization", &auth)],
    );
    assert_refusal(&rig.send(req).await, 400, "an unknown command");
    let req = request(
        Method::POST,
        "/command/stream",
        unknown,
        &[("authorization", &auth)],
    );
    let answer = rig.send(req).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let last = answer.json();
    assert_eq!(last["ok"], false, "{}", answer.body);
    assert_eq!(last["error"]["code"], "invalid_argument", "{}", answer.body);
    // A malformed request's id comes back when it could be read.
    let req = request(
        Method::POST,
        "/command",
        r#"{"id":"mine","command":"sessions","extra":1}"#,
        &[("authorization", &auth)],
    );
    let answer = rig.send(req).await;
    assert_refusal(&answer, 400, "an unknown field with an id");
    assert_eq!(answer.json()["id"], "mine");
    // `/pair` from the extension: the same envelope.
    for body in ["", "{", r#"{"code":5}"#, r#"{"code":null}"#] {
        let req = request(Method::POST, "/pair", body, &[("origin", EXT)]);
        assert_refusal(&rig.send(req).await, 400, &format!("/pair {body:?}"));
    }
}

// ---- Rate limits ----

#[tokio::test]
async fn failed_tokens_are_limited_per_door_and_the_right_token_never_is() {
    let rig = Rig::new(|l| l.unauthenticated_per_minute = 3);
    let wrong = |via: Via| {
        let mut req = request(
            Method::POST,
            "/command",
            COMMAND,
            &[("authorization", "Bearer nope")],
        );
        req.extensions_mut().insert(via);
        req
    };
    for _ in 0..3 {
        assert_refusal(&rig.send(wrong(tcp())).await, 401, "within the budget");
    }
    let answer = rig.send(wrong(tcp())).await;
    assert_refusal(&answer, 429, "past the budget");
    let retry: u64 = answer
        .header(header::RETRY_AFTER)
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry), "{retry}");
    // The CLI's socket is another class: a flood on TCP leaves it alone.
    assert_refusal(
        &rig.send(wrong(Via::Local)).await,
        401,
        "the socket's own budget",
    );
    // The right token is never counted nor refused.
    let auth = bearer();
    for _ in 0..5 {
        let req = request(
            Method::POST,
            "/command",
            COMMAND,
            &[("authorization", &auth)],
        );
        assert_eq!(rig.send(req).await.status, 200);
    }
    // `/ping` needs no token and is never limited.
    let answer = rig
        .send(request(Method::GET, "/ping", Body::empty(), &[]))
        .await;
    assert_eq!(answer.status, 200);
}

// ---- The extension's door without an upgrade ----

#[tokio::test]
async fn the_extension_door_refuses_with_the_envelope_until_it_is_a_websocket_of_the_paired_origin()
{
    let rig = Rig::unlimited();
    let speaks = |origin: Option<&str>| {
        let mut headers = vec![("sec-websocket-protocol", crate::daemon::extension::PROTOCOL)];
        if let Some(origin) = origin {
            headers.push(("origin", origin));
        }
        request(Method::GET, "/extension", Body::empty(), &headers)
    };
    // Nothing paired yet.
    assert_refusal(
        &rig.send(speaks(Some(EXT))).await,
        403,
        "no extension paired",
    );
    crate::rig::pairing::remember_origin(&rig.state, EXT);
    let other = "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba";
    assert_refusal(
        &rig.send(speaks(Some(other))).await,
        403,
        "another extension",
    );
    assert_refusal(&rig.send(speaks(None)).await, 403, "no Origin");
    assert_refusal(
        &rig.send(speaks(Some(EXT))).await,
        400,
        "the paired extension, without the upgrade headers",
    );
}

// ---- Helpers the checks rely on ----

#[test]
fn a_web_page_is_known_by_sec_fetch_site_unless_it_is_the_extension() {
    let headers = |pairs: &[(&str, &[u8])]| {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                header::HeaderName::from_bytes(name.as_bytes()).expect("a name"),
                HeaderValue::from_bytes(value).expect("a value"),
            );
        }
        map
    };
    for site in [&b"cross-site"[..], b"same-site", b"\xff"] {
        assert!(from_a_web_page(&headers(&[("sec-fetch-site", site)])));
        assert!(!from_a_web_page(&headers(&[
            ("sec-fetch-site", site),
            ("origin", EXT.as_bytes())
        ])));
    }
    for site in [&b"none"[..], b"same-origin"] {
        assert!(!from_a_web_page(&headers(&[("sec-fetch-site", site)])));
    }
    assert!(!from_a_web_page(&HeaderMap::new()), "curl, the CLI, SDKs");
}

#[test]
fn token_comparison_rejects_prefixes_case_and_other_schemes() {
    let headers = |v: &str| {
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(v).expect("header"),
        );
        h
    };
    assert!(token_matches(&headers("Bearer abc"), "abc"));
    assert!(!token_matches(&headers("Bearer ab"), "abc"));
    assert!(!token_matches(&headers("Bearer abC"), "abc"));
    assert!(!token_matches(&headers("Basic abc"), "abc"));
    assert!(!token_matches(&HeaderMap::new(), "abc"));
}
