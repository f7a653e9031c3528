//! Devtools: console, errors, network (bodies, HAR), routes, downloads,
//! cookies, storage, state, emulation, inspect and the debug bundle, against
//! the fixture web in a real Chromium.

use serde_json::{Value, json};

use crate::{session, web};

fn texts(v: &Value, list: &str, field: &str) -> Vec<String> {
    v[list]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| e[field].as_str().unwrap_or_default().to_string())
        .collect()
}

fn has(v: &Value, list: &str, field: &str, needle: &str) -> bool {
    texts(v, list, field).iter().any(|t| t.contains(needle))
}

#[test]
fn console_keeps_messages_by_level_and_masks_tokens() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let v = s.until("console", json!({}), |v| {
        has(v, "entries", "text", "boot app ready with 3 items")
    });
    // Format specifiers are applied; a token in a logged URL is masked.
    assert!(
        has(&v, "entries", "text", "access_token=‹redacted›&q=shoes"),
        "{v}"
    );
    assert!(!v.to_string().contains("abc123"), "{v}");
    let shown = s.ok("console", json!({ "reveal": true }));
    assert!(
        has(&shown, "entries", "text", "access_token=abc123"),
        "{shown}"
    );
    let last = v["last"].as_u64().expect("last");

    s.ok("click", json!({ "target": "#log" }));
    let v = s.until("console", json!({ "since": last }), |v| {
        has(v, "entries", "text", "broke: 42")
    });
    assert!(
        !has(&v, "entries", "text", "boot app"),
        "--since shows only newer: {v}"
    );
    assert!(has(&v, "entries", "text", "warned {a: 1}"), "{v}");
    let errors = s.ok("console", json!({ "since": last, "level": "error" }));
    assert_eq!(
        texts(&errors, "entries", "text"),
        vec!["broke: 42"],
        "{errors}"
    );
    let one = s.ok("console", json!({ "max": 1 }));
    assert_eq!(one["entries"].as_array().map(Vec::len), Some(1));
    assert!(one["more"].as_u64().unwrap_or(0) >= 2, "{one}");

    let e = s.err("console", json!({ "level": "loud" }), "invalid_argument");
    assert!(
        e["message"].as_str().unwrap_or_default().contains("loud"),
        "{e}"
    );
}

#[test]
fn errors_keep_uncaught_exceptions_and_rejections_with_stacks() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#throw" }));
    s.ok("click", json!({ "target": "#reject" }));
    let v = s.until("errors", json!({}), |v| {
        has(v, "errors", "message", "nobody caught me") && has(v, "errors", "message", "boom")
    });
    let messages = texts(&v, "errors", "message");
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Uncaught TypeError") && m.contains("boom")),
        "{v}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m == "Uncaught (in promise) Error: nobody caught me"),
        "{v}"
    );
    assert!(has(&v, "errors", "stack", "devtools/index.html"), "{v}");
    let last = v["last"].as_u64().expect("last");
    assert_eq!(
        s.ok("errors", json!({ "since": last }))["errors"],
        json!([])
    );
}

#[test]
fn network_records_requests_masks_secrets_and_serves_bodies() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#fetch" }));
    let v = s.until("network", json!({ "type": "fetch" }), |v| {
        v["requests"].as_array().is_some_and(|r| {
            r.iter()
                .any(|r| r["status"] == 200 && r["pending"] == false)
        })
    });
    let r = &v["requests"][0];
    assert_eq!(r["method"], "GET");
    assert!(
        r["url"]
            .as_str()
            .is_some_and(|u| u.contains("api_key=‹redacted›") && u.contains("page=2")),
        "{r}"
    );
    let auth = r["request_headers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("authorization"))
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(auth["value"], "Bearer ‹redacted›", "{r}");
    assert!(!v.to_string().contains("sekret-token-1"), "{v}");
    assert!(
        r["initiator"]
            .as_str()
            .is_some_and(|i| i.starts_with("script")),
        "{r}"
    );
    assert!(r["duration_ms"].as_f64().is_some(), "{r}");
    let shown = s.ok("network", json!({ "type": "fetch", "reveal": true }));
    assert!(shown.to_string().contains("sekret-token-1"), "{shown}");

    // The document itself, by type; the filter; bodies on demand.
    let doc = s.ok("network", json!({ "type": "document" }));
    assert!(has(&doc, "requests", "url", "devtools/index.html"), "{doc}");
    let none = s.ok("network", json!({ "filter": "no-such-thing" }));
    assert_eq!(none["requests"], json!([]));
    let id = r["id"].as_str().expect("id");
    let body = s.ok("network_body", json!({ "id": id }));
    assert_eq!(
        body["text"].as_str().map(str::trim),
        Some(r#"{"items": [1, 2, 3], "source": "fixture"}"#)
    );
    s.err(
        "network_body",
        json!({ "id": "no-such-request" }),
        "not_found",
    );

    // A failed load shows under --failed.
    s.ok(
        "eval",
        json!({ "script": "fetch('/status/404/x').then(() => 1)" }),
    );
    let failed = s.until("network", json!({ "failed": true }), |v| {
        has(v, "requests", "url", "/status/404/x")
    });
    assert_eq!(failed["requests"][0]["status"], 404);
    s.err(
        "network",
        json!({ "type": "carrier-pigeon" }),
        "invalid_argument",
    );
}

#[test]
fn rings_evict_their_oldest_entries_past_the_caps() {
    let d = webrig_tests::Daemon::start_with_config(
        "[devtools]\nconsole_entries = 10\nnetwork_entries = 10\n",
    )
    .expect("daemon");
    let s = webrig_tests::SessionGuard::new(&d, "rings");
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#many" }));
    let v = s.until("console", json!({}), |v| v["last"].as_u64() >= Some(32));
    let entries = v["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 10, "{v}");
    assert!(has(&v, "entries", "text", "line 29"), "{v}");
    assert!(
        !has(&v, "entries", "text", "boot app"),
        "the oldest went: {v}"
    );
    let n = s.until("network", json!({}), |v| v["last"].as_u64() >= Some(31));
    assert_eq!(n["requests"].as_array().map(Vec::len), Some(10), "{n}");
    assert!(!has(&n, "requests", "url", "index.html"), "{n}");
}

/// The HAR 1.2 fields every entry must have, by type.
fn check_har(doc: &Value) {
    let log = &doc["log"];
    assert_eq!(log["version"], "1.2");
    assert_eq!(log["creator"]["name"], "webrig");
    assert!(log["pages"].is_array() && log["entries"].is_array());
    for e in log["entries"].as_array().into_iter().flatten() {
        assert!(
            e["startedDateTime"]
                .as_str()
                .is_some_and(|t| t.ends_with('Z')),
            "{e}"
        );
        assert!(e["time"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
        for k in ["method", "url", "httpVersion"] {
            assert!(e["request"][k].is_string(), "request.{k}: {e}");
        }
        for k in ["cookies", "headers", "queryString"] {
            assert!(e["request"][k].is_array(), "request.{k}: {e}");
        }
        for k in ["headersSize", "bodySize"] {
            assert!(e["request"][k].is_i64(), "request.{k}: {e}");
            assert!(e["response"][k].is_i64(), "response.{k}: {e}");
        }
        assert!(e["response"]["status"].is_u64(), "{e}");
        for k in ["statusText", "httpVersion", "redirectURL"] {
            assert!(e["response"][k].is_string(), "response.{k}: {e}");
        }
        assert!(e["response"]["content"]["size"].is_i64(), "{e}");
        assert!(e["response"]["content"]["mimeType"].is_string(), "{e}");
        assert!(e["cache"].is_object(), "{e}");
        for k in ["send", "wait", "receive"] {
            assert!(
                e["timings"][k].as_f64().is_some_and(|t| t >= 0.0),
                "timings.{k}: {e}"
            );
        }
    }
}

#[test]
fn har_records_between_start_and_stop_and_validates() {
    let s = session!();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("run.har");
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("har_start", json!({}));
    s.err("har_start", json!({}), "invalid_argument");
    s.ok("click", json!({ "target": "#fetch" }));
    s.until("network", json!({ "type": "fetch" }), |v| {
        v["requests"][0]["pending"] == false
    });
    // A path that exists is refused, and the recording goes on.
    std::fs::write(&path, b"keep me").expect("write");
    let e = s.err("har_stop", json!({ "path": path }), "invalid_argument");
    assert!(
        e["message"].as_str().unwrap_or_default().contains("exists"),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).expect("read"), b"keep me");
    let out = s.ok("har_stop", json!({ "path": path, "overwrite": true }));
    assert_eq!(out["entries"], 1, "only what came after start: {out}");
    let doc: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("HAR is JSON");
    check_har(&doc);
    let entry = &doc["log"]["entries"][0];
    assert!(
        entry["request"]["url"]
            .as_str()
            .is_some_and(|u| u.contains("data.json"))
    );
    assert!(
        !doc.to_string().contains("sekret-token-1"),
        "masked by default"
    );
    assert!(
        entry["request"]["queryString"]
            .as_array()
            .is_some_and(|q| q.len() == 2)
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    s.err(
        "har_stop",
        json!({ "path": dir.path().join("again.har") }),
        "invalid_argument",
    );
}

#[test]
fn routes_answer_abort_and_follow_new_tabs() {
    let s = session!();
    // A route set before any page applies to the first tab too.
    s.ok(
        "route",
        json!({ "pattern": "*/devtools/data.json*", "json": "{\"mocked\": true}", "status": 201 }),
    );
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#fetch" }));
    s.until("text", json!({ "target": "#out" }), |v| {
        v["text"] == r#"{"mocked":true}"#
    });
    let routes = s.ok("routes", json!({}));
    assert_eq!(routes["routes"][0]["hits"], 1, "{routes}");

    // Abort: the page sees a network error.
    s.ok("route", json!({ "pattern": "*/abort-me*", "abort": true }));
    let v = s.ok(
        "eval",
        json!({ "script": "fetch('/abort-me').then(() => 'loaded', e => 'failed: ' + e.name)" }),
    );
    assert_eq!(v["value"], "failed: TypeError");

    // A tab opened later is routed too.
    s.ok(
        "tab_new",
        json!({ "url": web().url("devtools/index.html") }),
    );
    let v = s.ok(
        "eval",
        json!({ "script": "fetch('/devtools/data.json').then(r => r.status)" }),
    );
    assert_eq!(v["value"], 201);

    // Unroute: the real answer again.
    s.ok("unroute", json!({ "pattern": "*/devtools/data.json*" }));
    let v = s.ok(
        "eval",
        json!({ "script": "fetch('/devtools/data.json').then(r => r.json()).then(d => d.source)" }),
    );
    assert_eq!(v["value"], "fixture");
    s.err("unroute", json!({ "pattern": "*/never*" }), "not_found");
    s.ok("unroute", json!({ "all": true }));
    assert_eq!(s.ok("routes", json!({}))["routes"], json!([]));
}

#[test]
fn bad_routes_are_refused_and_change_nothing() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    for (args, needle) in [
        (json!({ "pattern": "" }), "empty"),
        (json!({ "pattern": "a b" }), "blank"),
        (json!({ "pattern": "*", "status": 42 }), "status"),
        (json!({ "pattern": "*", "json": "{nope" }), "JSON"),
        (
            json!({ "pattern": "*", "header": ["nocolon"] }),
            "NAME:VALUE",
        ),
        (
            json!({ "pattern": "*", "abort": true, "status": 200 }),
            "--abort",
        ),
        (
            json!({ "pattern": "*", "body": "/no/such/file" }),
            "/no/such/file",
        ),
    ] {
        let e = s.err("route", args.clone(), "invalid_argument");
        assert!(
            e["message"].as_str().unwrap_or_default().contains(needle),
            "{args}: {e}"
        );
    }
    assert_eq!(s.ok("routes", json!({}))["routes"], json!([]));
    // The page still loads normally.
    let v = s.ok(
        "eval",
        json!({ "script": "fetch('/devtools/data.json').then(r => r.status)" }),
    );
    assert_eq!(v["value"], 200);
}
