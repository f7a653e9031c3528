//! Sessions: launch, connect, close, isolation, ordering, a browser that dies,
//! and the envelope's own errors.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::{SessionGuard, daemon, session, web};

#[test]
fn unknown_sessions_are_not_found_and_not_created() {
    let d = daemon();
    for cmd in ["text", "tabs", "close", "back", "screenshot"] {
        let e = d.err("never-made", cmd, json!({}), "not_found");
        assert!(
            e["hint"].as_str().unwrap_or_default().contains("webrig"),
            "{e}"
        );
    }
    let list = d.ok("x", "sessions", json!({}));
    assert!(!list.to_string().contains("never-made"), "{list}");
    d.err(
        "bad name!",
        "goto",
        json!({ "url": "about:blank" }),
        "invalid_argument",
    );
}

#[test]
fn launch_reports_the_browser_and_refuses_a_second_launch() {
    let s = session!();
    let out = s.ok("launch", json!({}));
    assert_eq!(out["session"]["browser"], "launched");
    assert!(out["session"]["pid"].as_u64().is_some(), "{out}");
    assert_eq!(out["tabs"].as_array().map(Vec::len), Some(1));
    let e = s.err("launch", json!({}), "invalid_argument");
    assert!(
        e["hint"].as_str().unwrap_or_default().contains("close"),
        "{e}"
    );
    // The first browser still works.
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
}

#[test]
fn launch_with_a_missing_browser_path_is_invalid() {
    let s = session!();
    let e = s.err(
        "launch",
        json!({ "browser_path": "/no/such/chrome" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("/no/such/chrome"),
        "{e}"
    );
    s.err("launch", json!({ "headed": "yes" }), "invalid_argument");
    s.err("launch", json!({ "bogus": 1 }), "invalid_argument");
}

#[test]
fn close_ends_the_session_and_kills_its_browser() {
    let s = session!();
    let pid = s.ok("launch", json!({}))["session"]["pid"]
        .as_u64()
        .expect("pid");
    s.ok("close", json!({}));
    s.err("title", json!({}), "not_found");
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    let start = Instant::now();
    while proc_dir.exists() && start.elapsed() < Duration::from_secs(5) {
        // A zombie still has /proc/PID; its state says Z.
        let status = std::fs::read_to_string(proc_dir.join("status")).unwrap_or_default();
        if status.contains("State:\tZ") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = std::fs::read_to_string(proc_dir.join("status")).unwrap_or_default();
    assert!(
        status.is_empty() || status.contains("State:\tZ"),
        "browser {pid} still runs"
    );
}

#[test]
fn two_sessions_run_at_once_with_their_own_browsers() {
    let d = daemon();
    let a = SessionGuard::new(d, "parallel-a");
    let b = SessionGuard::new(d, "parallel-b");
    a.ok("goto", json!({ "url": web().url("nav/a.html") }));
    b.ok("goto", json!({ "url": web().url("nav/b.html") }));
    a.ok(
        "eval",
        json!({ "script": "localStorage.setItem('who', 'a')" }),
    );
    // Different browsers: b does not see a's storage, and a's slow command does
    // not hold b up.
    let slow = std::thread::spawn(move || {
        daemon().ok(
            "parallel-a",
            "eval",
            json!({ "script": "new Promise(r => setTimeout(() => r('slow'), 1500))" }),
        )
    });
    daemon().wait_queued("parallel-a", 1);
    let start = Instant::now();
    let who = b.ok("eval", json!({ "script": "localStorage.getItem('who')" }));
    let b_took = start.elapsed();
    assert_eq!(who["value"], json!(null));
    assert!(
        b_took < Duration::from_millis(1000),
        "b waited for a: {b_took:?}"
    );
    assert_eq!(slow.join().expect("thread")["value"], "slow");
}

/// Each command is sent only once the daemon counts the one before it as
/// queued (and a counted command holds its place in line), and the blocker
/// ahead of them runs until the test releases it: no timing is assumed, so a
/// wrong order means the daemon broke arrival order.
#[test]
fn one_sessions_commands_run_in_arrival_order() {
    let s = session!();
    let name = s.name.clone();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let tab = s.ok("tabs", json!({}))["tabs"][0]["id"]
        .as_str()
        .expect("the tab's id")
        .to_string();
    s.ok("eval", json!({ "script": "window.seen = []" }));
    // Released from a second tab (same origin; tabs run in parallel).
    let releaser = s.ok("tab_new", json!({ "url": web().url("nav/a.html") }))["id"]
        .as_str()
        .expect("the new tab's id")
        .to_string();
    let in_tab = |script: String| {
        let (name, tab) = (name.clone(), tab.clone());
        std::thread::spawn(move || {
            daemon().request(json!({
                "session": name, "tab": tab, "command": "eval", "args": { "script": script }
            }))
        })
    };
    let blocker = in_tab(
        "new Promise(r => { window.gate = new BroadcastChannel('gate'); window.gate.onmessage = r; })"
            .into(),
    );
    daemon().wait_queued(&s.name, 1);
    let workers: Vec<_> = (0..8)
        .map(|i| {
            let worker = in_tab(format!("window.seen.push({i}); {i}"));
            daemon().wait_queued(&s.name, i + 2);
            worker
        })
        .collect();
    daemon().request(json!({
        "session": s.name, "tab": releaser, "command": "eval",
        "args": { "script": "new BroadcastChannel('gate').postMessage('go')" }
    }));
    let released = blocker.join().expect("blocker");
    assert_eq!(released["ok"], true, "{released}");
    for w in workers {
        let done = w.join().expect("worker");
        assert_eq!(done["ok"], true, "{done}");
    }
    let seen = daemon().request(json!({
        "session": s.name, "tab": tab, "command": "eval",
        "args": { "script": "window.seen" }
    }));
    assert_eq!(
        seen["result"]["value"],
        json!([0, 1, 2, 3, 4, 5, 6, 7]),
        "{seen}"
    );
}

#[test]
fn a_killed_browser_is_browser_gone_for_its_session_only() {
    let d = daemon();
    let victim = SessionGuard::new(d, "victim");
    let bystander = SessionGuard::new(d, "bystander");
    // A browser of its own: a shared one's crash loses every context on
    // it (`a_crash_of_the_shared_browser_…`).
    let pid = victim.ok("launch", json!({ "own_browser": true }))["session"]["pid"]
        .as_u64()
        .expect("pid");
    victim.ok("goto", json!({ "url": web().url("nav/a.html") }));
    bystander.ok("goto", json!({ "url": web().url("nav/b.html") }));

    // Kill it while a command is waiting on the page.
    let waiting = std::thread::spawn(|| daemon().cmd("victim", "wait", json!({ "text": "never" })));
    // In line or already waiting: either way the kill must end it.
    d.wait_queued("victim", 1);
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    let resp = waiting.join().expect("thread");
    assert_eq!(resp["error"]["code"], "browser_gone", "{resp}");

    let e = victim.err("title", json!({}), "browser_gone");
    assert!(
        e["hint"].as_str().unwrap_or_default().contains("launch"),
        "{e}"
    );
    assert_eq!(bystander.ok("title", json!({}))["title"], "Page B");
    let list = d.ok("x", "sessions", json!({}));
    let entry = list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "victim")
        .cloned()
        .expect("victim listed");
    assert_eq!(entry["info"]["browser"], "gone", "{entry}");
    // A new launch revives the session.
    victim.ok("launch", json!({}));
    assert_eq!(
        victim.ok("goto", json!({ "url": web().url("nav/a.html") }))["title"],
        "Page A"
    );
}

/// A Chromium started outside webrig, with a DevTools port.
struct External {
    child: std::process::Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl External {
    fn start() -> External {
        let exe = std::env::var("WEBRIG_BROWSER").unwrap_or_else(|_| {
            [
                "/usr/lib/chromium/chromium",
                "/usr/bin/chromium",
                "/usr/bin/google-chrome",
            ]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect("a Chromium to connect to")
            .to_string()
        });
        let profile = tempfile::tempdir().expect("profile");
        let child = std::process::Command::new(exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromium starts");
        let port_file = profile.path().join("DevToolsActivePort");
        let start = Instant::now();
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|s| s.lines().next().and_then(|l| l.parse().ok()))
            {
                break port;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no DevToolsActivePort"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        External {
            child,
            port,
            _profile: profile,
        }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn connect_drives_an_existing_browser_and_close_leaves_it_running() {
    let mut ext = External::start();
    let s = session!();
    let out = s.ok(
        "connect",
        json!({ "endpoint": format!("http://127.0.0.1:{}", ext.port) }),
    );
    assert_eq!(out["session"]["browser"], "connected");
    assert!(
        !out["tabs"].as_array().map(Vec::is_empty).unwrap_or(true),
        "{out}"
    );
    assert_eq!(
        s.ok("goto", json!({ "url": web().url("nav/a.html") }))["title"],
        "Page A"
    );
    s.ok("close", json!({}));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        ext.child.try_wait().expect("wait").is_none(),
        "webrig closed someone else's browser"
    );
}

#[test]
fn connect_to_nothing_is_browser_gone_and_bad_endpoints_invalid() {
    let s = session!();
    let closed = webrig_tests::free_port();
    s.err(
        "connect",
        json!({ "endpoint": format!("http://127.0.0.1:{closed}") }),
        "browser_gone",
    );
    s.err(
        "connect",
        json!({ "endpoint": format!("ws://127.0.0.1:{closed}/devtools/browser/x") }),
        "browser_gone",
    );
    s.err(
        "connect",
        json!({ "endpoint": "not a url" }),
        "invalid_argument",
    );
    s.err(
        "connect",
        json!({ "endpoint": "ftp://127.0.0.1:1" }),
        "invalid_argument",
    );
}

#[test]
fn envelope_errors_are_clear() {
    let d = daemon();
    let token = format!("Bearer {}", d.token());
    let auth = [("Authorization", token.as_str())];
    let (status, body) = d.post_raw("{not json", &auth);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid_argument")),
        "{body}"
    );
    let resp = d.request(json!({ "id": "q1", "command": "fly" }));
    assert_eq!(resp["id"], "q1");
    assert_eq!(resp["error"]["code"], "invalid_argument");
    for bad in [0, 120_001] {
        let resp = d.request(json!({ "command": "sessions", "timeout_ms": bad }));
        assert_eq!(resp["error"]["code"], "invalid_argument", "{resp}");
    }
    let resp = d.request(json!({ "command": "sessions", "extra": 1 }));
    assert_eq!(resp["error"]["code"], "invalid_argument", "{resp}");
    let resp = d.request(json!({ "command": "sessions" }));
    assert_eq!(resp["ok"], true);
    assert!(
        resp["id"].as_str().is_some_and(|id| !id.is_empty()),
        "an id is generated"
    );
}

#[test]
fn the_token_host_and_origin_are_checked() {
    let d = daemon();
    let body = json!({ "command": "sessions" }).to_string();
    let (status, resp) = d.post_raw(&body, &[]);
    assert_eq!(
        (status, resp["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    let (status, _) = d.post_raw(&body, &[("Authorization", "Bearer wrong")]);
    assert_eq!(status, 401);
    let token = format!("Bearer {}", d.token());
    let (status, resp) = d.post_raw(&body, &[("Authorization", &token), ("Host", "evil.test")]);
    assert_eq!(
        (status, resp["error"]["code"].as_str()),
        (403, Some("forbidden"))
    );
    let (status, _) = d.post_raw(
        &body,
        &[("Authorization", &token), ("Origin", "https://evil.test")],
    );
    assert_eq!(status, 403);
    let (status, _) = d.post_raw(&body, &[("Authorization", &token)]);
    assert_eq!(status, 200);
}
