//! The domain policy (`launch|connect --allow/--block`, `[policy]`): a page
//! that tries every way out reaches the allowed sink by each of them and
//! the refused sink by none, on a launched browser and through the
//! extension relay. A refused navigation is `forbidden` naming the rule.

use std::time::Duration;

use serde_json::{Value, json};
use webrig_tests::sink::Sink;

use crate::{Daemon, SessionGuard, web};

/// What the escape page makes reach a sink it may reach.
const WAYS: &[&str] = &[
    "/img",
    "/iframe",
    "/refresh",
    "/redirect302",
    "/fetch",
    "/xhr",
    "ws:/ws",
    "ws:/frame-ws",
    "ws:/nested-ws",
    "ws:/proto-ws",
    "ws:/blob-ws",
    "/shared-fetch",
    "ws:/shared-ws",
    "/es",
    "/beacon",
    "/worker-fetch",
    "ws:/worker-ws",
    "/sw-fetch",
    "/popup",
    "/blank",
];

fn escape_page(ok: &Sink, bad: &Sink) -> String {
    web().url(&format!(
        "policy/escape.html?ok={}&bad={}",
        ok.url(),
        bad.url()
    ))
}

/// Opens the escape page, clicks what needs a person's click (popups, new
/// tabs, a link, a form), and checks every way reached `ok` and none `bad`.
fn every_way_out_is_held(s: &SessionGuard, ok: &Sink, bad: &Sink, ways: &[&str]) {
    s.ok("goto", json!({ "url": escape_page(ok, bad) }));
    for button in ["#open-ok", "#open-bad", "#blank-ok", "#blank-bad"] {
        s.ok("click", json!({ "target": button }));
    }
    // Refused in the page: nothing leaves, the tab stays.
    for refused in ["#link-bad", "#submit-bad"] {
        s.cmd("click", json!({ "target": refused }));
    }
    ok.wait_for(ways, Duration::from_secs(30));
    // Everything the page tried against `ok` it tried against `bad` at the
    // same moment; a last allowed round trip lets stragglers land.
    s.ok("eval", json!({ "script": "fetch(new URLSearchParams(location.search).get('ok') + '/last', {mode: 'no-cors'}).then(() => 1)" }));
    ok.wait_for(&["/last"], Duration::from_secs(10));
    assert_eq!(
        bad.hits(),
        Vec::<String>::new(),
        "the refused sink was reached"
    );
}

/// A command on a refused URL: `forbidden`, its message saying `says`.
fn refused(s: &SessionGuard, command: &str, url: impl Into<String>, says: &str) {
    let e = s.err(command, json!({ "url": url.into() }), "forbidden");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{says:?} in {e}");
}

fn allow(ok: &Sink) -> String {
    format!(
        "127.0.0.1:{port},localhost:{port},127.0.0.1:{}",
        ok.port(),
        port = web().port()
    )
}

#[test]
fn a_launched_session_holds_every_way_out_to_its_allowlist() {
    let d = Daemon::shared();
    let s = SessionGuard::new(d, "policy-launched");
    let (ok, bad) = (Sink::start(), Sink::start());
    let started = s.ok("launch", json!({ "allow": [allow(&ok)] }));
    assert_eq!(
        started["session"]["policy"]["layers"][0]["allow"],
        json!([
            format!("127.0.0.1:{}", web().port()),
            format!("localhost:{}", web().port()),
            format!("127.0.0.1:{}", ok.port())
        ]),
        "{started}"
    );
    every_way_out_is_held(&s, &ok, &bad, WAYS);

    // An agent's own navigations: refused before they start, naming the rule.
    refused(&s, "goto", format!("{}/goto", bad.url()), "allowlist");
    // A redirect to a refused host is refused where it lands.
    let hop = web().url(&format!("redirect?to={}/hop", bad.url()));
    refused(&s, "goto", hop, &bad.url());
    refused(&s, "tab_new", format!("{}/tab", bad.url()), "allowlist");
    assert_eq!(bad.hits(), Vec::<String>::new());
    // An allowed new tab opens and loads (new pages are not held back).
    let tab = s.ok("tab_new", json!({ "url": format!("{}/tab-ok", ok.url()) }));
    ok.wait_for(&["/tab-ok"], Duration::from_secs(10));
    s.ok(
        "tab_close",
        json!({ "id": tab["id"].as_str().unwrap_or_default() }),
    );

    // `network` shows what was refused, and why.
    s.ok("goto", json!({ "url": escape_page(&ok, &bad) }));
    let blocked = s.until("network", json!({}), |n| {
        n["entries"].as_array().is_some_and(|r| {
            r.iter().any(|r| {
                r["url"].as_str().unwrap_or_default().ends_with("/img") && r["blocked"].is_string()
            })
        })
    });
    let img: Vec<&Value> = blocked["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| {
            r["url"]
                .as_str()
                .unwrap_or_default()
                .starts_with(&bad.url())
        })
        .collect();
    assert!(
        img.iter().all(|r| r["blocked"]
            .as_str()
            .unwrap_or_default()
            .contains("allowlist")),
        "{img:?}"
    );
    // The policy shows in `sessions`.
    let list = d.ok("default", "sessions", json!({}));
    let me = list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == "policy-launched")
        .cloned()
        .unwrap_or_default();
    assert!(me["info"]["policy"]["layers"].is_array(), "{me}");
}

#[test]
fn a_blocklist_refuses_its_hosts_and_lets_the_rest_through() {
    let d = Daemon::shared();
    let s = SessionGuard::new(d, "policy-block");
    let (ok, bad) = (Sink::start(), Sink::start());
    s.ok(
        "launch",
        json!({ "block": [format!("127.0.0.1:{}", bad.port())] }),
    );
    every_way_out_is_held(&s, &ok, &bad, WAYS);
    refused(&s, "goto", bad.url(), "blocked by the rule");
}

#[test]
fn bad_rules_are_refused_and_a_running_session_keeps_its_policy() {
    let d = Daemon::shared();
    let s = SessionGuard::new(d, "policy-bad");
    for bad in [
        "http://example.com",
        "example.com/path",
        "*evil.com",
        "a.com:99999",
    ] {
        let e = s.err("launch", json!({ "allow": [bad] }), "invalid_argument");
        assert!(
            e["message"].as_str().unwrap_or_default().contains(bad),
            "{e}"
        );
    }
    // Nothing was started by the refused launches.
    let list = d.ok("default", "sessions", json!({}));
    assert!(
        !list["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["name"] == "policy-bad" && e["info"]["browser"] == "launched"),
        "{list}"
    );
    let ok = Sink::start();
    s.ok("launch", json!({ "allow": [allow(&ok)] }));
    // A running session's policy cannot be widened by a second connect.
    s.err(
        "connect",
        json!({ "endpoint": "http://127.0.0.1:9", "allow": ["*"] }),
        "invalid_argument",
    );
    s.err("goto", json!({ "url": "http://127.0.0.2:9/" }), "forbidden");
    // A size bomb of rules is a clear error, not a slow daemon.
    let many: Vec<String> = (0..300).map(|i| format!("h{i}.example.com")).collect();
    let s2 = SessionGuard::new(d, "policy-many");
    let e = s2.err(
        "launch",
        json!({ "allow": [many.join(",")] }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("more than"),
        "{e}"
    );
}

#[test]
fn the_users_browser_is_held_to_the_policy_through_the_relay() {
    let (d, _user) = crate::e2e::relay::paired();
    let s = SessionGuard::new(&d, "policy-relay");
    let (ok, bad) = (Sink::start(), Sink::start());
    s.ok(
        "connect",
        json!({ "extension": true, "allow": [allow(&ok)] }),
    );
    // On the user's browser the tab guards itself; its service workers and
    // the popups it opens are its own tabs' (see SECURITY.md), so the
    // relay's ways are the page's and its frames'.
    let ways: Vec<&str> = WAYS
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "/sw-fetch" | "/popup" | "/blank"))
        .collect();
    every_way_out_is_held(&s, &ok, &bad, &ways);
    refused(&s, "goto", format!("{}/goto", bad.url()), "allowlist");
    let hop = web().url(&format!("redirect?to={}/hop", bad.url()));
    s.err("goto", json!({ "url": hop }), "forbidden");
    assert_eq!(bad.hits(), Vec::<String>::new());
}

#[test]
fn a_connected_browser_is_held_to_the_policy_too() {
    let d = Daemon::shared();
    let user = webrig_tests::user_browser::UserBrowser::start();
    let s = SessionGuard::new(d, "policy-connected");
    let (ok, bad) = (Sink::start(), Sink::start());
    s.ok(
        "connect",
        json!({ "endpoint": user.ws(), "allow": [allow(&ok)] }),
    );
    every_way_out_is_held(&s, &ok, &bad, WAYS);
    refused(&s, "tab_new", format!("{}/tab", bad.url()), "allowlist");
    assert_eq!(bad.hits(), Vec::<String>::new());
}

/// A restarted daemon re-attaches a guarded session with its rules in
/// force before anything loads.
#[test]
fn a_restarted_daemon_keeps_a_sessions_policy() {
    let mut d = Daemon::start().expect("daemon");
    let (ok, bad) = (Sink::start(), Sink::start());
    d.ok("kept", "launch", json!({ "allow": [allow(&ok)] }));
    d.ok("kept", "goto", json!({ "url": web().url("index.html") }));
    d.crash_and_restart().expect("restart");
    let e = d.err(
        "kept",
        "goto",
        json!({ "url": format!("{}/after", bad.url()) }),
        "forbidden",
    );
    assert!(e.to_string().contains("allowlist"), "{e}");
    let listed = d.ok("x", "sessions", json!({}));
    let me = listed["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "kept")
        .cloned()
        .unwrap_or_default();
    assert!(me["info"]["policy"]["layers"].is_array(), "{me}");
    // The page's own requests are held too: the guard came back with it.
    d.ok(
        "kept",
        "eval",
        json!({ "script": format!("fetch('{}/late', {{mode: 'no-cors'}}).catch(() => 0).then(() => fetch('{}/late', {{mode: 'no-cors'}})).then(() => 1)", bad.url(), ok.url()) }),
    );
    ok.wait_for(&["/late"], Duration::from_secs(10));
    assert_eq!(bad.hits(), Vec::<String>::new());
    d.ok("kept", "close", json!({}));
}
