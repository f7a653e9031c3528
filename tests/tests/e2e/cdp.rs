//! The CDP front end: real clients from npm (playwright-core,
//! puppeteer-core; `cargo xtask test` installs them into
//! target/cdp-clients) drive webrig sessions through the daemon, on a
//! launched browser and through the extension relay; raw WebSocket
//! clients attack the door and the scope.
//!
//! The npm clients are skipped with a printed reason when they are not
//! installed, unless `WEBRIG_EXPECT_CDP_CLIENTS` is set: then their
//! absence fails.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::{SessionGuard, both_transports, daemon, session, web};

fn repo_root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf()
}

/// Where playwright-core and puppeteer-core are, or None (skip).
fn clients() -> Option<PathBuf> {
    let dir = std::env::var_os("WEBRIG_CDP_CLIENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/cdp-clients"));
    let ok = ["playwright-core", "puppeteer-core"].iter().all(|p| {
        dir.join("node_modules")
            .join(p)
            .join("package.json")
            .is_file()
    });
    if ok {
        return Some(dir);
    }
    let why = format!(
        "playwright-core and puppeteer-core are not in {}",
        dir.display()
    );
    if std::env::var_os("WEBRIG_EXPECT_CDP_CLIENTS").is_some() {
        panic!("WEBRIG_EXPECT_CDP_CLIENTS is set but {why}");
    }
    eprintln!("skipping: {why} (cargo xtask test installs them)");
    None
}

/// A one-time URL for session `s` (`cdp-url`).
pub(crate) fn ticket_url(s: &SessionGuard<'_>, http: bool) -> String {
    let out = s.ok("cdp-url", json!({ "http": http }));
    out["url"].as_str().expect("url").to_string()
}

/// Runs `tests/cdp/drive.mjs` with `lib` against `url`; its JSON report.
fn drive(lib: &str, url: &str, token: Option<&str>, steps: &str) -> Value {
    let dir = clients().expect("clients");
    let mut cmd = Command::new("node");
    cmd.arg(repo_root().join("tests/cdp/drive.mjs"))
        .arg(lib)
        .env("WEBRIG_CDP_CLIENTS", &dir)
        .env("CDP_URL", url)
        .env("FIXTURE", web().url(""))
        .env("PAGE_FORM", web().url("cdp/form.html"))
        .env("STEPS", steps);
    match token {
        Some(t) => cmd.env("CDP_TOKEN", t),
        None => cmd.env_remove("CDP_TOKEN"),
    };
    let out = cmd.output().expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or("{}");
    let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
    assert!(
        out.status.success() && v["ok"] == true,
        "{lib} against {url}: {v}\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    v["steps"].clone()
}

const ALL: &str = "pages,goto,fill,click,evaluate,screenshot,newpage,cookies,close";

/// What every client must have seen doing [`ALL`].
fn check_steps(lib: &str, steps: &Value) {
    let text = |k: &str| steps[k].to_string();
    assert!(
        text("goto").contains("cdp/form.html"),
        "{lib} goto: {steps}"
    );
    assert!(
        text("click").contains("hello webrig"),
        "{lib} click: {steps}"
    );
    assert!(text("evaluate").contains('2'), "{lib} evaluate: {steps}");
    assert!(
        text("screenshot").contains("true"),
        "{lib} screenshot: {steps}"
    );
    assert!(
        text("cookies").contains("visited"),
        "{lib} cookies: {steps}"
    );
    assert!(
        !text("cookies").contains("yes"),
        "{lib}: cookie values are never printed: {steps}"
    );
}

both_transports!(playwright_and_puppeteer_drive_the_session, |s| {
    let Some(_) = clients() else { return };
    for lib in ["playwright", "puppeteer"] {
        let steps = drive(lib, &ticket_url(&s, false), None, ALL);
        check_steps(lib, &steps);
    }
    // The page the client drove is the session's: webrig reads it after
    // the client went (the tab went back to the session).
    let tabs = s.ok("tabs", json!({}));
    assert!(tabs.to_string().contains("cdp/form.html"), "{tabs}");
    let form = tabs["tabs"]
        .as_array()
        .and_then(|t| {
            t.iter().find(|t| {
                t["url"]
                    .as_str()
                    .is_some_and(|u| u.contains("cdp/form.html"))
            })
        })
        .and_then(|t| t["id"].as_str())
        .expect("the form's tab")
        .to_string();
    s.ok("tab_select", json!({ "id": form }));
    let v = s.ok("value", json!({ "target": "#name" }));
    assert!(v.to_string().contains("webrig"), "{v}");
});

#[test]
fn discovery_with_the_token_in_a_header_serves_playwright() {
    let Some(_) = clients() else { return };
    let s = session!();
    s.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    let d = daemon();
    let base = format!("http://127.0.0.1:{}/session/{}", d.port(), s.name);
    let steps = drive(
        "playwright",
        &base,
        Some(&d.token()),
        "pages,evaluate,screenshot",
    );
    assert!(
        steps["pages"].to_string().contains("cdp/form.html"),
        "{steps}"
    );
    // Discovery lists the session's page, with a WebSocket back to the daemon.
    let auth = format!("Bearer {}", d.token());
    let ((status, list), _) = d.http(
        "GET",
        &format!("/session/{}/json/list", s.name),
        None,
        &[("Authorization", &auth)],
    );
    assert_eq!(status, 200, "{list}");
    let ws = list[0]["webSocketDebuggerUrl"].as_str().unwrap_or_default();
    assert!(
        ws.starts_with(&format!(
            "ws://127.0.0.1:{}/session/{}/devtools/page/",
            d.port(),
            s.name
        )),
        "{list}"
    );
    assert!(
        !list.to_string().contains(&d.token()),
        "the token is in no URL"
    );
    // Without the token: refused, and nothing listed.
    let ((status, v), _) = d.http(
        "GET",
        &format!("/session/{}/json/version", s.name),
        None,
        &[],
    );
    assert_eq!(status, 401, "{v}");
}

/// A raw CDP client over a WebSocket, blocking.
pub(crate) struct Raw {
    rt: tokio::runtime::Runtime,
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    next: u64,
    events: Vec<Value>,
}

impl Raw {
    /// Opens `url` with `headers`; Err(HTTP status) when refused.
    pub(crate) fn open(url: &str, headers: &[(&str, &str)]) -> Result<Raw, u16> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        let mut req = url.into_client_request().expect("request");
        for (k, v) in headers {
            req.headers_mut().insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        let ws = rt
            .block_on(tokio_tungstenite::connect_async(req))
            .map_err(|e| match e {
                tokio_tungstenite::tungstenite::Error::Http(r) => r.status().as_u16(),
                other => panic!("{url}: {other}"),
            })?;
        Ok(Raw {
            rt,
            ws: ws.0,
            next: 1,
            events: Vec::new(),
        })
    }

    fn send_text(&mut self, text: String) {
        self.try_send(text).expect("send");
    }

    fn try_send(&mut self, text: String) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.rt.block_on(self.ws.send(Message::text(text)))
    }

    /// Sends one call and returns its answer frame (events meanwhile kept).
    pub(crate) fn call(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        let id = self.next;
        self.next += 1;
        let mut frame = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            frame["sessionId"] = json!(s);
        }
        self.send_text(frame.to_string());
        self.answer(id)
    }

    fn answer(&mut self, id: u64) -> Value {
        let until = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let msg = self
                .rt
                .block_on(async { tokio::time::timeout_at(until, self.ws.next()).await })
                .unwrap_or_else(|_| panic!("no answer to call {id}"));
            let Some(Ok(Message::Text(t))) = msg else {
                panic!("the connection ended before answer {id}: {msg:?}");
            };
            let v: Value = serde_json::from_str(&t).expect("json");
            if v["id"] == id {
                return v;
            }
            self.events.push(v);
        }
    }

    /// Whether the daemon closes the connection within `within`.
    fn closed_within(&mut self, within: Duration) -> bool {
        let until = tokio::time::Instant::now() + within;
        loop {
            match self
                .rt
                .block_on(async { tokio::time::timeout_at(until, self.ws.next()).await })
            {
                Err(_) => return false,
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => {}
            }
        }
    }
}

fn refused(answer: &Value) -> bool {
    answer["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty())
        && answer.get("result").is_none()
}

/// The client's page targets and a flat session on the first.
pub(crate) fn attach_first(raw: &mut Raw) -> (Vec<String>, String) {
    let targets = raw.call("Target.getTargets", json!({}), None);
    let ids: Vec<String> = targets["result"]["targetInfos"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| t["targetId"].as_str().unwrap_or_default().to_string())
        .collect();
    let attached = raw.call(
        "Target.attachToTarget",
        json!({ "targetId": ids[0], "flatten": true }),
        None,
    );
    let session = attached["result"]["sessionId"]
        .as_str()
        .expect("session")
        .to_string();
    (ids, session)
}

#[test]
fn a_raw_client_is_held_to_its_session() {
    let a = SessionGuard::new(daemon(), "cdp-scope-a");
    let b = SessionGuard::new(daemon(), "cdp-scope-b");
    a.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    b.ok("goto", json!({ "url": web().url("form.html") }));
    let mut raw = Raw::open(&ticket_url(&a, false), &[]).expect("open");
    let (ids, session) = attach_first(&mut raw);
    let b_target = {
        let mut rb = Raw::open(&ticket_url(&b, false), &[]).expect("open b");
        let t = rb.call("Target.getTargets", json!({}), None);
        t["result"]["targetInfos"][0]["targetId"]
            .as_str()
            .expect("b's page")
            .to_string()
    };
    assert!(!ids.contains(&b_target), "A sees only its own pages");

    // Page-level calls work on its own page.
    let v = raw.call(
        "Runtime.evaluate",
        json!({ "expression": "location.pathname", "returnByValue": true }),
        Some(&session),
    );
    assert_eq!(v["result"]["result"]["value"], "/cdp/form.html", "{v}");

    // Events go to the client that asked for them only: a second client
    // on the same page hears nothing of the first one's console.
    let mut other = Raw::open(&ticket_url(&a, false), &[]).expect("open a second client");
    let (_, other_session) = attach_first(&mut other);
    assert_ne!(other_session, session);
    raw.call("Runtime.enable", json!({}), Some(&session));
    raw.call(
        "Runtime.evaluate",
        json!({ "expression": "console.log('only-for-one')" }),
        Some(&session),
    );
    let heard = |r: &Raw| {
        r.events
            .iter()
            .any(|e| e.to_string().contains("only-for-one"))
    };
    let until = Instant::now() + Duration::from_secs(10);
    while !heard(&raw) {
        raw.call("Browser.getVersion", json!({}), None);
        assert!(
            Instant::now() < until,
            "the asking client hears its console"
        );
    }
    // Events come before a later answer, so any leak would be in by now.
    other.call("Browser.getVersion", json!({}), None);
    assert!(!heard(&other), "{:?}", other.events);
    // A page's session may not name another target (another tab's title
    // and URL), nor detach a session that is not its own.
    let info = raw.call(
        "Target.getTargetInfo",
        json!({ "targetId": b_target }),
        Some(&session),
    );
    assert!(refused(&info), "{info}");
    let detach = raw.call(
        "Target.detachFromTarget",
        json!({ "sessionId": other_session }),
        Some(&session),
    );
    assert!(refused(&detach), "{detach}");
    let v = other.call(
        "Runtime.evaluate",
        json!({ "expression": "1", "returnByValue": true }),
        Some(&other_session),
    );
    assert_eq!(v["result"]["result"]["value"], 1, "{v}");

    // Reaching past the session: refused, and the browser goes on.
    for (method, params, on) in [
        ("Browser.close", json!({}), None),
        ("SystemInfo.getInfo", json!({}), None),
        ("Target.createBrowserContext", json!({}), None),
        (
            "Target.attachToTarget",
            json!({ "targetId": b_target, "flatten": true }),
            None,
        ),
        ("Target.closeTarget", json!({ "targetId": b_target }), None),
        (
            "Target.setDiscoverTargets",
            json!({ "discover": true }),
            Some(session.as_str()),
        ),
        ("Target.getTargets", json!({}), Some(session.as_str())),
        (
            "Target.createTarget",
            json!({ "url": "about:blank" }),
            Some(session.as_str()),
        ),
        (
            "Target.attachToTarget",
            json!({ "targetId": b_target, "flatten": true }),
            Some(session.as_str()),
        ),
        ("Browser.close", json!({}), Some(session.as_str())),
        (
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allow", "downloadPath": "/tmp" }),
            Some(session.as_str()),
        ),
        ("SystemInfo.getInfo", json!({}), Some(session.as_str())),
        (
            "Runtime.evaluate",
            json!({ "expression": "1" }),
            Some("not-a-session"),
        ),
    ] {
        let answer = raw.call(method, params, on);
        assert!(refused(&answer), "{method} on {on:?}: {answer}");
    }
    // Neither session lost anything.
    assert_eq!(b.ok("url", json!({}))["url"], web().url("form.html"));
    let v = raw.call(
        "Runtime.evaluate",
        json!({ "expression": "1+1", "returnByValue": true }),
        Some(&session),
    );
    assert_eq!(v["result"]["result"]["value"], 2, "{v}");

    // Discovery of A lists A's page only.
    let auth = format!("Bearer {}", daemon().token());
    let ((_, list), _) = daemon().http(
        "GET",
        "/session/cdp-scope-a/json/list",
        None,
        &[("Authorization", &auth)],
    );
    assert!(
        list.to_string().contains("cdp/form.html") && !list.to_string().contains(&b_target),
        "{list}"
    );

    // Hostile frames: not JSON, no id, a huge one; answered or dropped,
    // never a crash.
    raw.send_text("{not json".into());
    raw.send_text(json!({ "method": "Runtime.evaluate" }).to_string());
    let v = raw.call("Browser.getVersion", json!({}), None);
    assert!(v["result"]["product"].is_string(), "{v}");
    assert!(
        raw.events.iter().any(|e| e["error"]["code"] == -32700),
        "{:?}",
        raw.events
    );
    // The daemon may close while the frame is still going out.
    let _ = raw.try_send("x".repeat(33 << 20));
    assert!(
        raw.closed_within(Duration::from_secs(20)),
        "an oversized frame ends the client"
    );
    a.ok("snapshot", json!({}));
}

#[test]
fn tickets_work_once_and_expire_and_the_door_checks_who_knocks() {
    let s = session!();
    let d = daemon();
    let url = ticket_url(&s, false);
    assert!(!url.contains(&d.token()), "{url}");
    Raw::open(&url, &[]).expect("first use");
    assert_eq!(Raw::open(&url, &[]).err(), Some(401), "a ticket works once");
    let made = ticket_url(&s, false);
    let ticket = made.split('/').nth(4).expect("ticket").to_string();
    assert_eq!(
        Raw::open(&made.replace(&ticket, &"0".repeat(64)), &[]).err(),
        Some(401),
        "a made-up ticket"
    );
    // The token: in the header or as a subprotocol, never in the URL.
    let ws = format!(
        "ws://127.0.0.1:{}/session/{}/devtools/browser",
        d.port(),
        s.name
    );
    assert_eq!(Raw::open(&ws, &[]).err(), Some(401));
    assert_eq!(
        Raw::open(&ws, &[("Authorization", "Bearer nope")]).err(),
        Some(401)
    );
    let auth = format!("Bearer {}", d.token());
    Raw::open(&ws, &[("Authorization", &auth)]).expect("the header");
    let proto = format!("webrig.cdp, webrig.token.{}", d.token());
    Raw::open(&ws, &[("Sec-WebSocket-Protocol", &proto)]).expect("the subprotocol");
    // A web page's WebSocket carries its Origin: refused, ticket or not.
    let url = ticket_url(&s, false);
    assert_eq!(
        Raw::open(&url, &[("Origin", "https://evil.example")]).err(),
        Some(403)
    );
    assert_eq!(
        Raw::open(
            &ws,
            &[("Authorization", &auth), ("Origin", "http://127.0.0.1:9")]
        )
        .err(),
        Some(403)
    );
    // A foreign Host (DNS rebinding) is refused too.
    assert_eq!(
        Raw::open(&ws, &[("Authorization", &auth), ("Host", "evil.example")]).err(),
        Some(403)
    );
    // Plugin sessions are the plugins' own.
    let plug = format!(
        "ws://127.0.0.1:{}/session/plugin-web/devtools/browser",
        d.port()
    );
    assert_eq!(
        Raw::open(&plug, &[("Authorization", &auth)]).err(),
        Some(403)
    );
    // An unused ticket expires (30 s).
    let late = ticket_url(&s, true);
    std::thread::sleep(Duration::from_secs(31));
    let ((status, v), _) = d.http(
        "GET",
        &format!(
            "{}/json/version",
            late.trim_start_matches(&format!("http://127.0.0.1:{}", d.port()))
        ),
        None,
        &[],
    );
    assert_eq!(status, 401, "{v}");
}

#[test]
fn discovery_through_a_ticket_hands_out_fresh_tickets_and_a_page_endpoint_speaks_to_the_page() {
    let s = session!();
    let d = daemon();
    s.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    let base = ticket_url(&s, true);
    let path = base
        .trim_start_matches(&format!("http://127.0.0.1:{}", d.port()))
        .to_string();
    let ((status, list), _) = d.http("GET", &format!("{path}/json/list"), None, &[]);
    assert_eq!(status, 200, "{list}");
    let page_ws = list[0]["webSocketDebuggerUrl"]
        .as_str()
        .expect("page url")
        .to_string();
    assert!(page_ws.contains("/devtools/page/"), "{page_ws}");
    let ((status, _), _) = d.http("GET", &format!("{path}/json/version"), None, &[]);
    assert_eq!(status, 401, "the discovery ticket was spent");
    // The page endpoint: calls without a sessionId go to the page.
    let mut raw = Raw::open(&page_ws, &[]).expect("page endpoint");
    let v = raw.call(
        "Runtime.evaluate",
        json!({ "expression": "document.title", "returnByValue": true }),
        None,
    );
    assert_eq!(v["result"]["result"]["value"], "CDP form", "{v}");
    assert!(refused(&raw.call("Target.getTargets", json!({}), None)));
    assert!(
        Raw::open(&page_ws, &[]).is_err(),
        "the page URL's ticket was spent too"
    );
}

#[test]
fn webrig_commands_and_a_client_take_turns_on_a_page() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    let mut raw = Raw::open(&ticket_url(&s, false), &[]).expect("open");
    let (_, session) = attach_first(&mut raw);
    // The client marks the page as fast as it can, from a thread of its own.
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let made = std::sync::Arc::new(AtomicUsize::new(0));
    let marker = {
        let (stop, made) = (stop.clone(), made.clone());
        std::thread::spawn(move || {
            while !stop.load(SeqCst) {
                let v = raw.call(
                    "Runtime.evaluate",
                    json!({ "expression": "window.log.push('cdp')" }),
                    Some(&session),
                );
                assert!(v.get("result").is_some(), "{v}");
                made.fetch_add(1, SeqCst);
            }
            made.load(SeqCst)
        })
    };
    // Waits (on a loaded machine too) until the client has made `n` calls.
    let client_made = |n: usize| {
        let until = Instant::now() + Duration::from_secs(60);
        while made.load(SeqCst) < n {
            assert!(
                Instant::now() < until,
                "the client made {} calls",
                made.load(SeqCst)
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    client_made(1);
    // One webrig command that waits inside the page: no client call may
    // land between its start and its end.
    for _ in 0..3 {
        s.ok(
            "eval",
            json!({ "script": "(async () => { window.log.push('w-start'); await new Promise(r => setTimeout(r, 300)); window.log.push('w-end'); return 1 })()" }),
        );
        s.ok("snapshot", json!({}));
        s.ok("click", json!({ "target": "#count" }));
    }
    client_made(4);
    stop.store(true, SeqCst);
    let calls = marker.join().expect("the client's thread");
    let log = s.ok("eval", json!({ "script": "window.log" }))["value"].clone();
    let log: Vec<&str> = log
        .as_array()
        .expect("log")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        calls > 3 && log.iter().filter(|e| **e == "cdp").count() > 3,
        "the client ran too: {calls}, {log:?}"
    );
    let mut inside = false;
    for e in &log {
        match *e {
            "w-start" => inside = true,
            "w-end" => inside = false,
            "cdp" => assert!(
                !inside,
                "a client call landed inside a webrig command: {log:?}"
            ),
            _ => {}
        }
    }
    assert_eq!(
        s.ok("eval", json!({ "script": "window.clicks" }))["value"],
        3
    );
}

#[test]
fn a_client_that_does_not_read_is_dropped_and_nothing_else_stalls() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    let mut raw = Raw::open(&ticket_url(&s, false), &[]).expect("open");
    let (_, session) = attach_first(&mut raw);
    // Ask for ~100 MiB of answers and read none of them.
    let started = Instant::now();
    for i in 0..100u64 {
        let frame = json!({ "id": 1000 + i, "sessionId": session, "method": "Runtime.evaluate",
            "params": { "expression": "'x'.repeat(1 << 20)", "returnByValue": true } });
        raw.send_text(frame.to_string());
    }
    // The daemon goes on serving everyone meanwhile, and drops the client
    // once its queue passes 64 MiB.
    let until = Instant::now() + Duration::from_secs(60);
    while !daemon().log().contains("passed its cap") {
        s.ok("snapshot", json!({}));
        assert!(
            Instant::now() < until,
            "the client was not dropped ({:?})",
            started.elapsed()
        );
    }
    // What the socket still holds drains, then the connection ends.
    assert!(
        raw.closed_within(Duration::from_secs(30)),
        "the connection ends"
    );
    s.ok("eval", json!({ "script": "1" }));
}

#[test]
fn a_client_makes_contexts_only_in_a_browser_of_the_sessions_own() {
    // A session in the shared browser is one context: no more.
    let shared = session!();
    let mut raw = Raw::open(&ticket_url(&shared, false), &[]).expect("open");
    assert!(refused(&raw.call(
        "Target.createBrowserContext",
        json!({}),
        None
    )));

    // A session with a browser of its own: contexts the client makes are
    // the client's, and go when it goes.
    let own = SessionGuard::new(daemon(), "cdp-own-browser");
    own.ok("launch", json!({ "own_browser": true }));
    let mut raw = Raw::open(&ticket_url(&own, false), &[]).expect("open");
    let made = raw.call("Target.createBrowserContext", json!({}), None);
    let context = made["result"]["browserContextId"]
        .as_str()
        .expect("a context")
        .to_string();
    let listed = raw.call("Target.getBrowserContexts", json!({}), None);
    assert_eq!(listed["result"]["browserContextIds"], json!([context]));
    let page = raw.call(
        "Target.createTarget",
        json!({ "url": web().url("cdp/form.html"), "browserContextId": context }),
        None,
    );
    let page = page["result"]["targetId"]
        .as_str()
        .expect("a page")
        .to_string();
    let targets = raw.call("Target.getTargets", json!({}), None);
    assert!(targets.to_string().contains(&page), "{targets}");
    // The browser is the session's: its cookies are the client's to read.
    let cookies = raw.call(
        "Storage.getCookies",
        json!({ "browserContextId": context }),
        None,
    );
    assert!(cookies["result"]["cookies"].is_array(), "{cookies}");
    assert!(
        refused(&raw.call(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": "0123" }),
            None
        )),
        "only its own contexts"
    );
    drop(raw);
    let mut after = Raw::open(&ticket_url(&own, false), &[]).expect("open");
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let targets = after.call("Target.getTargets", json!({}), None);
        if !targets.to_string().contains(&page) {
            break;
        }
        assert!(
            Instant::now() < until,
            "the client's context outlived it: {targets}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn another_local_user_who_reads_a_ticket_cannot_use_it() {
    let Some(other) = webrig_tests::other_user::OtherUser::get(
        "another_local_user_who_reads_a_ticket_cannot_use_it",
    ) else {
        return;
    };
    let s = session!();
    let d = daemon();
    // The URL as `ps` shows it to every user.
    let url = ticket_url(&s, true);
    let path = format!(
        "{}/json/version",
        url.trim_start_matches(&format!("http://127.0.0.1:{}", d.port()))
    );
    let out = other.perl(
        r#"use IO::Socket::INET;
           my ($port, $path) = @ARGV;
           my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port) or die "connect: $!";
           print $s "GET $path HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nConnection: close\r\n\r\n";
           local $/; my $answer = <$s>; print $answer;"#,
        &[&d.port().to_string(), &path],
    );
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(
        answer.starts_with("HTTP/1.1 403"),
        "{answer}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!answer.contains("webSocketDebuggerUrl"), "{answer}");
    // Refused before it was spent: its owner still gets in.
    let ((status, v), _) = d.http("GET", &path, None, &[]);
    assert_eq!(status, 200, "{v}");
    assert!(
        v["webSocketDebuggerUrl"]
            .as_str()
            .is_some_and(|u| u.contains("/cdp/")),
        "{v}"
    );
}

/// The session's domain policy holds what a CDP client opens and loads:
/// `Target.createTarget` to a refused host is refused before it is sent,
/// and a page's `Page.navigate` there never reaches it (the guard).
#[test]
fn a_clients_targets_and_navigations_are_held_to_the_sessions_policy() {
    let s = SessionGuard::new(daemon(), "cdp-policy");
    let (ok, bad) = (
        webrig_tests::sink::Sink::start(),
        webrig_tests::sink::Sink::start(),
    );
    s.ok(
        "launch",
        json!({ "allow": [format!("127.0.0.1:{},127.0.0.1:{}", web().port(), ok.port())] }),
    );
    s.ok("goto", json!({ "url": web().url("cdp/form.html") }));
    let mut raw = Raw::open(&ticket_url(&s, false), &[]).expect("open");
    let made = raw.call(
        "Target.createTarget",
        json!({ "url": format!("{}/target", bad.url()) }),
        None,
    );
    assert!(refused(&made), "{made}");
    assert!(made.to_string().contains("allowlist"), "{made}");
    let fine = raw.call(
        "Target.createTarget",
        json!({ "url": format!("{}/target", ok.url()) }),
        None,
    );
    assert!(fine["result"]["targetId"].is_string(), "{fine}");
    let (_, session) = attach_first(&mut raw);
    let nav = raw.call(
        "Page.navigate",
        json!({ "url": format!("{}/navigate", bad.url()) }),
        Some(&session),
    );
    assert!(
        nav["result"]["errorText"]
            .as_str()
            .is_some_and(|e| e.contains("BLOCKED"))
            || refused(&nav),
        "{nav}"
    );
    ok.wait_for(&["/target"], Duration::from_secs(10));
    assert_eq!(bad.hits(), Vec::<String>::new());
}
