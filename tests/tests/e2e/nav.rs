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
    let start = std::time::Instant::now();
    s.ok(
        "goto",
        json!({ "url": web().url("slow-image.html"), "until": "domcontentloaded" }),
    );
    assert!(start.elapsed().as_millis() < 1400, "waited for the image");
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
