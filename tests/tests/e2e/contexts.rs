//! Sessions as browser contexts of one shared Chromium: what one session
//! does (cookies, storage, routes, downloads, popups) stays its own; a
//! crash of the shared browser loses every context on it, and the next
//! command starts afresh; `--own-browser` keeps a browser apart.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Daemon, SessionGuard, web};

fn info(d: &Daemon, name: &str) -> Value {
    let list = d.ok("x", "sessions", json!({}));
    list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == name)
        .map(|s| s["info"].clone())
        .unwrap_or_else(|| panic!("{name} is not listed: {list}"))
}

fn names(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| !s.contains("State:\tZ"))
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < until, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_sessions_share_a_browser_and_nothing_else() {
    let d = Daemon::start().expect("daemon");
    let a = SessionGuard::new(&d, "ctx-a");
    let b = SessionGuard::new(&d, "ctx-b");
    a.ok("goto", json!({ "url": web().url("login") }));
    b.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let (ia, ib) = (info(&d, "ctx-a"), info(&d, "ctx-b"));
    assert_eq!(ia["pid"], ib["pid"], "one shared browser: {ia} {ib}");
    assert!(
        ia["context"].is_string() && ia["context"] != ib["context"],
        "{ia} {ib}"
    );

    // Cookies and local storage: A's only.
    assert!(names(&a.ok("cookies", json!({})), "cookies").contains(&"sid".to_string()));
    a.ok(
        "storage",
        json!({ "area": "local", "op": "set", "key": "cart", "value": "3 items" }),
    );
    // B, on the same site's other page, has none of A's cookies.
    b.ok("goto", json!({ "url": web().url("nav/b.html") }));
    let b_cookies = names(&b.ok("cookies", json!({})), "cookies");
    assert!(
        !b_cookies.contains(&"sid".to_string()),
        "B sees A's login: {b_cookies:?}"
    );
    a.ok("cookies_set", json!({ "name": "only_a", "value": "1" }));
    assert!(
        !names(&b.ok("cookies", json!({})), "cookies").contains(&"only_a".to_string()),
        "B sees A's cookie"
    );
    let got = b.ok(
        "storage",
        json!({ "area": "local", "op": "get", "key": "cart" }),
    );
    assert_eq!(got["items"], json!({}), "B sees A's storage: {got}");

    // Routes: A's route answers A's fetches only.
    a.ok(
        "route",
        json!({ "pattern": "*/devtools/data.json*", "json": "{\"mocked\": true}", "status": 201 }),
    );
    a.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    b.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let status = |s: &SessionGuard| {
        s.ok(
            "eval",
            json!({ "script": "fetch('/devtools/data.json').then(r => r.status)" }),
        )["value"]
            .clone()
    };
    assert_eq!(status(&a), 201);
    assert_eq!(status(&b), 200, "A's route reached B");

    // Downloads: into A's folder, listed by A only.
    let got = a.ok("click", json!({ "target": "#dl", "download": true }));
    let path = got["value"]["path"].as_str().expect("a path").to_string();
    assert!(path.contains("/downloads/ctx-a/"), "{path}");
    assert_eq!(b.ok("downloads", json!({}))["downloads"], json!([]));

    // A popup of A's page becomes A's tab, never B's.
    a.ok("goto", json!({ "url": web().url("snap/popup.html") }));
    a.ok("click", json!({ "target": "#blank" }));
    wait_until("A adopts its popup", || {
        a.ok("tabs", json!({}))["tabs"]
            .as_array()
            .is_some_and(|t| t.len() == 2)
    });
    let b_tabs = b.ok("tabs", json!({}));
    assert_eq!(b_tabs["tabs"].as_array().map(Vec::len), Some(1), "{b_tabs}");

    // Closing A leaves B and the shared browser running.
    let pid = ia["pid"].as_u64().expect("pid");
    a.ok("close", json!({}));
    assert!(alive(pid));
    assert_eq!(b.ok("title", json!({}))["title"], "Devtools fixture");
    // The last context closes the shared browser.
    b.ok("close", json!({}));
    wait_until("the shared browser exits with its last context", || {
        !alive(pid)
    });
}

#[test]
fn a_crash_of_the_shared_browser_loses_every_context_and_the_next_command_starts_afresh() {
    let d = Daemon::start().expect("daemon");
    let a = SessionGuard::new(&d, "crash-a");
    let b = SessionGuard::new(&d, "crash-b");
    let own = SessionGuard::new(&d, "crash-own");
    a.ok("goto", json!({ "url": web().url("nav/a.html") }));
    b.ok("goto", json!({ "url": web().url("nav/b.html") }));
    let own_pid = own.ok("launch", json!({ "own_browser": true }))["session"]["pid"]
        .as_u64()
        .expect("pid");
    own.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let pid = info(&d, "crash-a")["pid"].as_u64().expect("pid");
    assert_ne!(pid, own_pid, "--own-browser is a browser apart");

    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    for s in [&a, &b] {
        // Told once, whether the loss is found before the command or
        // while it runs.
        s.err("title", json!({}), "browser_gone");
        let i = info(&d, &s.name);
        assert_eq!(i["browser"], "gone", "{i}");
        assert!(
            i["lost"]
                .as_str()
                .unwrap_or_default()
                .contains("shared browser"),
            "sessions says which were lost: {i}"
        );
    }
    // The browser of its own never noticed.
    assert_eq!(own.ok("title", json!({}))["title"], "Page A");
    assert!(alive(own_pid));

    // The next command relaunches the shared browser, in a fresh context.
    assert_eq!(
        a.ok("goto", json!({ "url": web().url("nav/b.html") }))["title"],
        "Page B"
    );
    let fresh = info(&d, "crash-a");
    assert_ne!(fresh["pid"], json!(pid), "a new shared browser: {fresh}");
    assert_eq!(fresh["browser"], "launched", "{fresh}");
    assert_eq!(fresh["lost"], Value::Null, "{fresh}");
    assert_eq!(
        b.ok("goto", json!({ "url": web().url("nav/a.html") }))["title"],
        "Page A"
    );
    assert_eq!(info(&d, "crash-b")["pid"], fresh["pid"]);
}

#[test]
fn twenty_sessions_on_one_browser_each_see_only_their_own() {
    let d = Daemon::start().expect("daemon");
    let sessions: Vec<SessionGuard> = (0..20)
        .map(|i| SessionGuard::new(&d, &format!("many-{i:02}")))
        .collect();
    // Four at a time, as agents would.
    std::thread::scope(|scope| {
        for chunk in sessions.chunks(5) {
            scope.spawn(move || {
                for s in chunk {
                    s.ok("goto", json!({ "url": web().url("login") }));
                    s.ok("cookies_set", json!({ "name": "who", "value": s.name }));
                    let snap = s.snapshot(json!({}));
                    assert!(snap.contains("Logged in"), "{snap}");
                }
            });
        }
    });
    let pids: std::collections::BTreeSet<String> = sessions
        .iter()
        .map(|s| info(&d, &s.name)["pid"].to_string())
        .collect();
    assert_eq!(pids.len(), 1, "one shared browser: {pids:?}");
    for s in &sessions {
        let c = s.ok("cookies", json!({ "reveal": true }));
        let who: Vec<&Value> = c["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["name"] == "who")
            .map(|c| &c["value"])
            .collect();
        assert_eq!(who, [&json!(s.name)], "{}: {c}", s.name);
        let tabs = s.ok("tabs", json!({}));
        assert_eq!(tabs["tabs"].as_array().map(Vec::len), Some(1), "{tabs}");
    }
}
