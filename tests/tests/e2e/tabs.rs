//! tabs, tab new, tab select, tab close, and --tab targeting.

use serde_json::json;

use crate::{session, web};

fn ids(list: &serde_json::Value) -> Vec<String> {
    list["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn active(list: &serde_json::Value) -> String {
    list["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["active"] == true)
        .and_then(|t| t["id"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn tabs_open_select_and_close() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let first = active(&s.ok("tabs", json!({})));
    let created = s.ok("tab_new", json!({ "url": web().url("nav/b.html") }));
    assert_eq!(created["title"], "Page B");
    let second = created["id"].as_str().unwrap_or_default().to_string();
    let list = s.ok("tabs", json!({}));
    assert_eq!(ids(&list), vec![first.clone(), second.clone()]);
    assert_eq!(active(&list), second);
    assert_eq!(s.ok("title", json!({}))["title"], "Page B");

    let list = s.ok("tab_select", json!({ "id": first }));
    assert_eq!(active(&list), first);
    assert_eq!(s.ok("title", json!({}))["title"], "Page A");

    let list = s.ok("tab_close", json!({ "id": second }));
    assert_eq!(ids(&list), vec![first.clone()]);
    assert_eq!(active(&list), first);
}

#[test]
fn closing_the_active_tab_activates_another() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let second = s.ok("tab_new", json!({}))["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let list = s.ok("tab_close", json!({}));
    assert!(!ids(&list).contains(&second));
    assert_eq!(s.ok("title", json!({}))["title"], "Page A");
}

#[test]
fn unknown_tabs_are_not_found() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let e = s.err("tab_select", json!({ "id": "t99" }), "not_found");
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("webrig tabs")
    );
    s.err("tab_close", json!({ "id": "t99" }), "not_found");
    let resp = s
        .daemon
        .request(json!({ "session": s.name, "tab": "t99", "command": "title" }));
    assert_eq!(resp["error"]["code"], "not_found", "{resp}");
    s.err("tab_new", json!({ "url": "http://" }), "invalid_argument");
}

#[test]
fn a_request_can_target_a_tab_that_is_not_active() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let first = active(&s.ok("tabs", json!({})));
    s.ok("tab_new", json!({ "url": web().url("nav/b.html") }));
    let resp = s
        .daemon
        .request(json!({ "session": s.name, "tab": first, "command": "title" }));
    assert_eq!(resp["result"]["title"], "Page A", "{resp}");
    assert_eq!(s.ok("title", json!({}))["title"], "Page B");
}

#[test]
fn a_tab_closed_by_the_page_disappears_from_the_list() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    // A tab with one history entry may close itself.
    let second = s.ok("tab_new", json!({}))["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    s.ok("eval", json!({ "script": "window.close()" }));
    // window.close() is asynchronous in the browser.
    let mut list = s.ok("tabs", json!({}));
    for _ in 0..50 {
        if !ids(&list).contains(&second) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        list = s.ok("tabs", json!({}));
    }
    assert!(!ids(&list).contains(&second), "{list}");
    assert_eq!(s.ok("title", json!({}))["title"], "Page A");
}

#[test]
fn pages_the_page_opens_become_tabs() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/popup.html") }));
    s.ok("click", json!({ "target": "#blank" }));
    s.ok("click", json!({ "target": "#open" }));
    let mut list = s.ok("tabs", json!({}));
    for _ in 0..50 {
        if list["tabs"].as_array().map(Vec::len) == Some(3) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        list = s.ok("tabs", json!({}));
    }
    let urls: Vec<String> = list["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["url"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(urls.len(), 3, "{list}");
    assert!(
        urls.contains(&web().url("nav/b.html")) && urls.contains(&web().url("nav/a.html")),
        "{urls:?}"
    );
    assert_eq!(active(&list), ids(&list)[0], "the opener stays active");
    let popup = ids(&list)[1].clone();
    let resp = s
        .daemon
        .request(json!({ "session": s.name, "tab": popup, "command": "snapshot" }));
    assert_eq!(resp["ok"], true, "{resp}");
}
