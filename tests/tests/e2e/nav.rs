//! goto, back, forward, reload, wait.

use serde_json::json;

use crate::{session, web};

#[test]
fn goto_loads_the_page_and_reports_title_and_url() {
    let s = session!();
    let out = s.ok("goto", json!({ "url": web().url("index.html") }));
    assert_eq!(out["title"], "Fixture Shop — Home");
    assert_eq!(out["url"], web().url("index.html"));
}

#[test]
fn goto_refuses_malformed_urls() {
    let s = session!();
    for bad in ["http://", "javascript:alert(1)", "ftp://example.test/x", ""] {
        let e = s.err("goto", json!({ "url": bad }), "invalid_argument");
        assert!(!e["message"].as_str().unwrap_or_default().is_empty());
    }
}

#[test]
fn goto_an_unreachable_host_is_navigation_failed() {
    let s = session!();
    let closed = webrig_tests::free_port();
    let e = s.err(
        "goto",
        json!({ "url": format!("http://127.0.0.1:{closed}/") }),
        "navigation_failed",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("ERR_CONNECTION_REFUSED"),
        "{e}"
    );
}

#[test]
fn goto_past_the_deadline_times_out_and_the_session_goes_on() {
    let s = session!();
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "goto", "timeout_ms": 400,
        "args": { "url": web().url("slow?ms=3000") }
    }));
    assert_eq!(resp["ok"], false, "{resp}");
    let code = resp["error"]["code"].as_str().unwrap_or_default();
    assert!(code == "timeout" || code == "outcome_unknown", "{resp}");
    let out = s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    assert_eq!(out["title"], "Page A");
}

#[test]
fn goto_until_domcontentloaded_does_not_wait_for_slow_images() {
    let s = session!();
    // The browser's launch is not what is measured.
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let start = std::time::Instant::now();
    s.ok(
        "goto",
        json!({ "url": web().url("slow-image.html"), "until": "domcontentloaded" }),
    );
    // The image takes 3 s to arrive.
    assert!(start.elapsed().as_millis() < 2500, "waited for the image");
    let text = s.ok("text", json!({ "target": "#text" }));
    assert_eq!(text["text"], "Text is here before the image.");
    // The default (load) waits for it.
    s.ok("goto", json!({ "url": web().url("slow-image.html") }));
    let complete = s.ok("eval", json!({ "script": "document.readyState" }));
    assert_eq!(complete["value"], "complete");
}

#[test]
fn back_and_forward_walk_the_history() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    s.ok("goto", json!({ "url": web().url("nav/b.html") }));
    assert_eq!(s.ok("back", json!({}))["title"], "Page A");
    assert_eq!(s.ok("forward", json!({}))["title"], "Page B");
    let e = s.err("forward", json!({}), "invalid_argument");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("forward")
    );
}

#[test]
fn back_with_no_history_is_refused() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    s.ok("back", json!({}));
    s.err("back", json!({}), "invalid_argument");
}

#[test]
fn reload_loads_the_document_again() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("counter.html") }));
    assert_eq!(s.ok("text", json!({ "target": "#loads" }))["text"], "1");
    s.ok("reload", json!({}));
    assert_eq!(s.ok("text", json!({ "target": "#loads" }))["text"], "2");
}

#[test]
fn wait_for_text_selector_url_and_script() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("delayed.html?ms=300") }));
    s.ok("wait", json!({ "text": "Done" }));
    s.ok("wait", json!({ "text_gone": "Loading" }));
    s.ok("wait", json!({ "selector": "#later", "state": "visible" }));
    s.ok("wait", json!({ "target": "#later" }));
    s.ok("wait", json!({ "selector": "#nope", "state": "detached" }));
    s.ok("wait", json!({ "url": "*#ready" }));
    s.ok("wait", json!({ "fn": "document.title === 'Delayed'" }));
    s.ok("wait", json!({ "load": "load" }));
    let waited = s.ok("wait", json!({ "ms": 50 }));
    assert!(waited["waited_ms"].as_u64().unwrap_or(0) >= 50);
    s.ok("wait", json!({ "target": "20" }));
}

#[test]
fn wait_for_a_hidden_element_to_show() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("delayed.html?ms=400") }));
    s.ok("wait", json!({ "selector": "#later", "state": "hidden" }));
    s.ok("wait", json!({ "selector": "#later" }));
}

#[test]
fn wait_that_never_holds_times_out() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "wait", "timeout_ms": 300,
        "args": { "text": "never appears" }
    }));
    assert_eq!(resp["error"]["code"], "timeout", "{resp}");
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "wait", "timeout_ms": 300, "args": { "ms": 5000 }
    }));
    assert_eq!(resp["error"]["code"], "timeout", "{resp}");
}

#[test]
fn wait_refuses_bad_conditions() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    s.err("wait", json!({}), "invalid_argument");
    s.err("wait", json!({ "text": "a", "ms": 5 }), "invalid_argument");
    s.err("wait", json!({ "selector": "###" }), "invalid_argument");
    s.err(
        "wait",
        json!({ "fn": "throw new Error('nope')" }),
        "invalid_argument",
    );
    s.err(
        "wait",
        json!({ "state": "sideways", "selector": "a" }),
        "invalid_argument",
    );
}

/// Opens a `kind` dialog on the session's tab and waits until the daemon
/// sees it (page calls answer `busy` naming it).
fn open_dialog(s: &crate::SessionGuard<'_>, kind: &str, text: &str) {
    // The dialog may open while the eval's answer is on its way: then the
    // eval itself answers `busy` naming it, which is what we are after.
    let asked = s.cmd(
        "eval",
        json!({ "script": format!("window.ask({kind:?}, {text:?})") }),
    );
    let opened_early = asked["error"]["code"] == "busy"
        && asked["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(text);
    assert!(asked["ok"] == true || opened_early, "{asked}");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let resp = s.cmd("title", json!({}));
        if resp["error"]["code"] == "busy" {
            assert!(
                resp["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(text),
                "{resp}"
            );
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "no dialog opened: {resp}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn leaving_a_page_answers_its_open_dialog_and_says_so() {
    let s = session!();
    let dialogs = web().url("nav/dialogs.html");
    s.ok("goto", json!({ "url": dialogs }));
    open_dialog(&s, "alert", "hello");
    // Other commands keep failing fast with the hint.
    let e = s.err("text", json!({ "target": "p" }), "busy");
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("dialog accept"),
        "{e}"
    );
    let out = s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    assert_eq!(out["title"], "Page A");
    assert_eq!(out["dismissed_dialog"]["kind"], "alert", "{out}");
    assert_eq!(out["dismissed_dialog"]["message"], "hello", "{out}");

    s.ok("goto", json!({ "url": dialogs }));
    open_dialog(&s, "confirm", "sure?");
    let out = s.ok("back", json!({}));
    assert_eq!(out["title"], "Page A");
    assert_eq!(out["dismissed_dialog"]["kind"], "confirm", "{out}");
    let out = s.ok("forward", json!({}));
    assert_eq!(out["title"], "Dialogs");
    assert!(
        out.get("dismissed_dialog").is_none(),
        "none was open: {out}"
    );

    open_dialog(&s, "prompt", "name?");
    let out = s.ok("reload", json!({}));
    assert_eq!(out["title"], "Dialogs");
    assert_eq!(out["dismissed_dialog"]["kind"], "prompt", "{out}");

    // tab close on a tab with a dialog, then close on the session.
    s.ok("tab_new", json!({ "url": dialogs }));
    open_dialog(&s, "alert", "closing");
    let out = s.ok("tab_close", json!({}));
    assert_eq!(out["dismissed_dialog"]["message"], "closing", "{out}");
    open_dialog(&s, "alert", "bye");
    let out = s.ok("close", json!({}));
    assert_eq!(
        out["dismissed_dialogs"][0]["dialog"]["message"], "bye",
        "{out}"
    );
}

#[test]
fn goto_returns_a_usable_page_when_load_never_fires() {
    let s = session!();
    let url = web().url("nav/never-loads.html");
    let started = std::time::Instant::now();
    let out = s.ok("goto", json!({ "url": url }));
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(8), "took {took:?}");
    assert_eq!(out["title"], "Never loads");
    let pending: Vec<&str> = out["pending"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str())
        .collect();
    assert!(
        pending.iter().any(|p| p.contains("what=script")),
        "the hanging script is reported: {out}"
    );
    assert!(pending.iter().any(|p| p.contains("slow.png")), "{out}");
    // The page is usable: read it and act on it.
    s.ok("click", json!({ "target": "button" }));
    assert_eq!(
        s.ok("text", json!({ "target": "button" }))["text"],
        "clicked"
    );
    // A page that loads fully reports nothing pending.
    let out = s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    assert!(out.get("pending").is_none(), "{out}");
    // --until load keeps the strict wait.
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "goto", "timeout_ms": 1500,
        "args": { "url": url, "until": "load" }
    }));
    let code = resp["error"]["code"].as_str().unwrap_or_default();
    assert!(code == "timeout" || code == "outcome_unknown", "{resp}");
}
