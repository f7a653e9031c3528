//! The extension relay: the user's own Chromium with the unpacked webrig
//! extension, paired through its popup; the session drives it through the
//! extension only (webrig never sees its DevTools port). The door's attack
//! cases (a stranger on the port, forged origins, replays, a daemon asking
//! for tabs it was not given) are in `relay_door`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webrig_tests::user_browser::{UserBrowser, extension_id};

use crate::{Daemon, web};

/// A daemon and a user browser whose extension is paired and connected.
pub(crate) fn paired() -> (Daemon, UserBrowser) {
    let d = Daemon::start().expect("daemon");
    let user = UserBrowser::start();
    let code = d.ok("default", "pair", json!({}));
    user.pair(d.port(), code["code"].as_str().expect("code"));
    wait_connected(&d);
    (d, user)
}

pub(crate) fn wait_connected(d: &Daemon) -> Value {
    wait_connected_within(d, Duration::from_secs(20))
}

pub(crate) fn wait_connected_within(d: &Daemon, within: Duration) -> Value {
    let until = Instant::now() + within;
    loop {
        let s = d.ok("default", "extension_status", json!({}));
        if s["connected"] == true {
            return s;
        }
        assert!(Instant::now() < until, "the extension did not connect: {s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_paired_extension_carries_the_session_into_the_users_browser() {
    let (d, user) = paired();
    let s = "relay";
    let started = d.ok(s, "connect", json!({ "extension": true }));
    assert_eq!(
        started["tabs"],
        json!([]),
        "the user's tabs stay invisible: {started}"
    );
    // A tab of the session's own, in its tab group; the browser layer runs
    // unchanged over the relay.
    d.ok(s, "tab_new", json!({}));
    d.ok(s, "goto", json!({ "url": web().url("snap/basic.html") }));
    let snap = d.ok(s, "snapshot", json!({}));
    assert!(
        snap["text"].as_str().unwrap_or_default().contains("@e"),
        "{snap}"
    );
    let v = d.ok(s, "eval", json!({ "script": "1 + 1" }));
    assert_eq!(v["value"], 2, "{v}");
    let shot = d.ok(s, "screenshot", json!({}));
    assert!(
        shot.to_string().contains("png") || shot["bytes"].as_u64() > Some(100),
        "{shot}"
    );

    // Borrow a tab the user opened and lent in the popup; release gives it
    // back, still open.
    let (target, mine) = user.open(&web().url("form.html"));
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !d.ok("default", "extension_status", json!({}))["tabs"]
            .to_string()
            .contains("form.html"),
        "a tab the user did not lend is invisible"
    );
    user.lend("form.html");
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let st = d.ok("default", "extension_status", json!({}));
        if st["tabs"].to_string().contains("form.html") {
            break;
        }
        assert!(Instant::now() < until, "the user's tab never showed: {st}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let b = d.ok(s, "borrow", json!({ "url_match": "form.html" }));
    let tab = b["tab"].as_str().expect("tab").to_string();
    // Borrowing makes it the active tab: the fill lands in the user's tab.
    d.ok(
        s,
        "fill",
        json!({ "target": "#email", "text": "grace@example.test" }),
    );
    assert_eq!(
        user.eval(&mine, "document.querySelector('#email').value"),
        "grace@example.test"
    );
    let r = d.ok(s, "release", json!({ "tab": tab }));
    assert_eq!(r["released"], json!([tab]));
    let targets = user.call(None, "Target.getTargets", json!({}));
    assert!(
        targets.to_string().contains(&target),
        "the borrowed tab is still open: {targets}"
    );

    // The door: only the paired origin, only a caller that proves it holds
    // the token, one connection (relay_door has the attack cases).
    let origin = format!("chrome-extension://{}", extension_id());
    let mut stranger =
        super::relay_door::raw_connect(&d, &origin, "webrig.v2").expect("101 before any proof");
    let out = super::relay_door::prove(&mut stranger, &d.token(), d.port());
    assert!(out.daemon_ok, "the daemon proves itself");
    assert_eq!(
        out.after,
        super::relay_door::After::Closed(4009),
        "proved, but this browser is connected already"
    );
    assert_eq!(
        super::relay_door::raw_connect(
            &d,
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
            "webrig.v2"
        )
        .err(),
        Some(403)
    );
    assert_eq!(
        d.ok("default", "extension_status", json!({}))["connected"],
        true
    );
    d.ok(s, "close", json!({}));
}

#[test]
fn cross_origin_frames_are_stitched_in_through_the_relay() {
    let s = crate::relay_session("relay-frames");
    s.ok("goto", json!({ "url": web().url("snap/frames.html") }));
    let snap = s.until("snapshot", json!({}), |v| {
        v["text"]
            .as_str()
            .is_some_and(|t| t.matches("button \"Press me\"").count() == 2)
    });
    let text = snap["text"].as_str().unwrap_or_default().to_string();
    // Both frames, the cross-site one through its own child session.
    assert!(
        text.contains("iframe \"cross\"") && text.contains("@f2"),
        "{text}"
    );
    let same = text
        .lines()
        .find(|l| l.contains("@f1") && l.contains("Press me"))
        .and_then(|l| l.split_whitespace().next())
        .expect("a ref in the same-site frame")
        .to_string();
    s.ok("click", json!({ "target": same }));
    let after = s.ok("snapshot", json!({}))["text"].to_string();
    assert!(after.contains("Clicked in same"), "{after}");
}

#[test]
fn the_manifest_asks_for_no_host_permissions() {
    let text =
        std::fs::read_to_string(webrig_tests::user_browser::extension_dir().join("manifest.json"))
            .expect("manifest");
    let m: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(m["manifest_version"], 3);
    assert_eq!(
        m["permissions"],
        json!(["debugger", "tabs", "tabGroups", "storage", "alarms"]),
        "{m}"
    );
    for key in [
        "host_permissions",
        "optional_host_permissions",
        "content_scripts",
        "externally_connectable",
        "web_accessible_resources",
        "optional_permissions",
    ] {
        assert!(m.get(key).is_none(), "{key} in {m}");
    }
    assert!(!text.contains("<all_urls>"));
}

#[test]
fn a_dropped_relay_answers_outcome_unknown_and_the_extension_comes_back() {
    let (d, user) = paired();
    let s = "drop";
    d.ok(s, "connect", json!({ "extension": true }));
    d.ok(s, "tab_new", json!({}));
    d.ok(s, "goto", json!({ "url": web().url("index.html") }));
    // A command in flight when the extension's worker is stopped (the
    // WebSocket goes with it).
    let slow = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            d.cmd(
                s,
                "eval",
                json!({ "script": "document.title = 'in flight'; new Promise(r => setTimeout(() => r(1), 10000))" }),
            )
        });
        // Until the page runs the eval (its title says so): the call is
        // then in flight through the extension.
        let until = Instant::now() + Duration::from_secs(20);
        while !user
            .call(None, "Target.getTargets", json!({}))
            .to_string()
            .contains("in flight")
        {
            assert!(Instant::now() < until, "the eval never reached the page");
            std::thread::sleep(Duration::from_millis(20));
        }
        let (_, page) = user.open("about:blank");
        user.call(Some(&page), "ServiceWorker.enable", json!({}));
        user.call(Some(&page), "ServiceWorker.stopAllWorkers", json!({}));
        waiting.join().expect("join")
    });
    assert_eq!(slow["error"]["code"], "outcome_unknown", "{slow}");
    // The worker is revived (alarm or wake) and connects again by itself.
    let until = Instant::now() + Duration::from_secs(45);
    loop {
        let st = d.ok("default", "extension_status", json!({}));
        if st["connected"] == true {
            break;
        }
        assert!(
            Instant::now() < until,
            "the extension never came back: {st}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Only new commands run: a fresh binding works.
    let s2 = "after";
    d.ok(s2, "connect", json!({ "extension": true }));
    d.ok(s2, "tab_new", json!({}));
    let v = d.ok(s2, "eval", json!({ "script": "2 + 2" }));
    assert_eq!(v["value"], 4);
}

#[test]
fn the_extension_reconnects_to_a_restarted_daemon() {
    let (mut d, _user) = paired();
    d.crash_and_restart().expect("restart");
    // Same token, same paired origin (both kept in the home).
    let st = wait_connected(&d);
    assert_eq!(
        st["paired"],
        format!("chrome-extension://{}", extension_id())
    );
    let s = "back";
    // `launch --extension` is the same binding as `connect --extension`.
    d.ok(s, "launch", json!({ "extension": true }));
    d.ok(s, "tab_new", json!({}));
    d.ok(s, "goto", json!({ "url": web().url("index.html") }));
}

#[test]
fn a_borrowed_tab_the_user_closes_is_not_found() {
    let (d, user) = paired();
    let s = "closed";
    d.ok(s, "connect", json!({ "extension": true }));
    let (target, _) = user.open(&web().url("form.html"));
    user.lend("form.html");
    let until = Instant::now() + Duration::from_secs(10);
    while !d.ok("default", "extension_status", json!({}))["tabs"]
        .to_string()
        .contains("form.html")
    {
        assert!(Instant::now() < until, "the user's tab never showed");
        std::thread::sleep(Duration::from_millis(100));
    }
    d.ok(s, "borrow", json!({ "url_match": "form.html" }));
    user.call(None, "Target.closeTarget", json!({ "targetId": target }));
    let until = Instant::now() + Duration::from_secs(10);
    let e = loop {
        let r = d.cmd(s, "title", json!({}));
        if r["ok"] == false {
            break r;
        }
        assert!(Instant::now() < until, "the closed tab still answers: {r}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(e["error"]["code"], "not_found", "{e}");
}
