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
        has(v, "entries", "message", "nobody caught me") && has(v, "entries", "message", "boom")
    });
    let messages = texts(&v, "entries", "message");
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
    assert!(has(&v, "entries", "stack", "devtools/index.html"), "{v}");
    let last = v["last"].as_u64().expect("last");
    assert_eq!(
        s.ok("errors", json!({ "since": last }))["entries"],
        json!([])
    );
}

#[test]
fn network_records_requests_masks_secrets_and_serves_bodies() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#fetch" }));
    let v = s.until("network", json!({ "type": "fetch" }), |v| {
        v["entries"].as_array().is_some_and(|r| {
            r.iter()
                .any(|r| r["status"] == 200 && r["pending"] == false)
        })
    });
    let r = &v["entries"][0];
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
    assert!(has(&doc, "entries", "url", "devtools/index.html"), "{doc}");
    let none = s.ok("network", json!({ "filter": "no-such-thing" }));
    assert_eq!(none["entries"], json!([]));
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
        has(v, "entries", "url", "/status/404/x")
    });
    assert_eq!(failed["entries"][0]["status"], 404);
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
    assert_eq!(n["entries"].as_array().map(Vec::len), Some(10), "{n}");
    assert!(!has(&n, "entries", "url", "index.html"), "{n}");
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
        v["entries"][0]["pending"] == false
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

#[test]
fn a_download_lands_complete_owner_only_and_never_overwrites() {
    use std::os::unix::fs::PermissionsExt;
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let first = s.ok("click", json!({ "target": "#dl", "download": true }));
    assert!(
        first.get("navigated").is_none(),
        "a download is no navigation: {first}"
    );
    let path = std::path::PathBuf::from(first["value"]["path"].as_str().expect("a path"));
    assert_eq!(
        path.file_name().and_then(|n| n.to_str()),
        Some("report.csv")
    );
    let bytes = std::fs::read(&path).expect("the file");
    assert_eq!(bytes.len(), 5000);
    assert!(bytes.starts_with(b"abcdefghijklmnopqrstuvwxyz"));
    let meta = std::fs::metadata(&path).expect("meta");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let folder = path.parent().expect("folder");
    let dir_mode = std::fs::metadata(folder)
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    assert!(folder.starts_with(s.daemon.home()), "{}", folder.display());

    // The same name again: a new file beside it; the first is untouched.
    let second = s.ok("click", json!({ "target": "#dl", "download": true }));
    let path2 = second["value"]["path"].as_str().expect("a path");
    assert!(path2.ends_with("report (1).csv"), "{path2}");
    assert_eq!(std::fs::read(&path).expect("the file").len(), 5000);

    // A plain click on a download link returns at once; the download it
    // starts was not asked for, so it is refused (`[devtools] downloads`).
    let plain = s.ok("click", json!({ "target": "#dl" }));
    assert!(plain.get("navigated").is_none(), "{plain}");
    let list = s.until("downloads", json!({}), |v| {
        texts(v, "downloads", "state") == ["completed", "completed", "refused"]
    });
    assert!(!has(&list, "downloads", "path", "report (2).csv"), "{list}");
    // A click that downloads nothing says so.
    let r = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 1500,
        "args": { "target": "#log", "download": true },
    }));
    assert_eq!(r["error"]["code"], "timeout", "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    // How long it waited is what was left of the 1.5 s deadline after the
    // click itself (less on a loaded machine): only the reason is checked.
    assert!(message.contains("no download within"), "{r}");
}

#[test]
fn cookies_and_storage_survive_state_save_into_a_new_session() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("login.json");
    {
        let s = webrig_tests::SessionGuard::new(crate::daemon(), "state-a");
        s.ok("goto", json!({ "url": web().url("login") }));
        let c = s.ok("cookies", json!({}));
        let names = texts(&c, "cookies", "name");
        assert!(
            names.contains(&"sid".to_string()) && names.contains(&"theme".to_string()),
            "{c}"
        );
        assert!(!c.to_string().contains("s3cr3t"), "values masked: {c}");
        let shown = s.ok("cookies", json!({ "reveal": true }));
        assert!(
            shown.to_string().contains("s3cr3t-session-value"),
            "{shown}"
        );
        let sid = shown["cookies"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["name"] == "sid")
            .cloned()
            .unwrap_or_default();
        assert_eq!(sid["http_only"], true, "{sid}");

        s.ok("cookies_set", json!({ "name": "lang", "value": "fr" }));
        s.ok(
            "storage",
            json!({ "area": "local", "op": "set", "key": "cart", "value": "3 items" }),
        );
        s.ok(
            "storage",
            json!({ "area": "session", "op": "set", "key": "tmp", "value": "x" }),
        );
        let got = s.ok(
            "storage",
            json!({ "area": "local", "op": "get", "key": "cart" }),
        );
        assert_eq!(got["items"], json!({ "cart": "3 items" }));

        let saved = s.ok("state_save", json!({ "path": file }));
        assert_eq!(saved["cookies"], 3, "{saved}");
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // Saving over it needs --overwrite.
        s.err("state_save", json!({ "path": file }), "invalid_argument");
    }
    let s = webrig_tests::SessionGuard::new(crate::daemon(), "state-b");
    // Loaded on a blank page, before any page of that origin is open.
    let loaded = s.ok("state_load", json!({ "path": file }));
    assert_eq!(
        loaded["origins"],
        json!([web().url("").trim_end_matches('/')]),
        "{loaded}"
    );
    // The throwaway tab that wrote the storage is gone.
    assert_eq!(
        s.ok("tabs", json!({}))["tabs"].as_array().map(Vec::len),
        Some(1)
    );
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let c = s.ok("cookies", json!({ "reveal": true }));
    assert!(c.to_string().contains("s3cr3t-session-value"), "{c}");
    let local = s.ok("storage", json!({ "area": "local", "op": "get" }));
    assert_eq!(local["items"]["cart"], "3 items", "{local}");
    // The server sees the restored login.
    let echoed = s.ok(
        "eval",
        json!({ "script": "fetch('/echo-headers').then(r => r.json()).then(h => h.cookie)" }),
    );
    assert!(
        echoed["value"]
            .as_str()
            .is_some_and(|c| c.contains("sid=s3cr3t")),
        "{echoed}"
    );

    // Clearing: the page's cookies, then storage.
    let cleared = s.ok("cookies_clear", json!({ "name": "lang" }));
    assert_eq!(cleared["removed"], 1);
    s.ok("storage", json!({ "area": "local", "op": "clear" }));
    assert_eq!(
        s.ok("storage", json!({ "area": "local", "op": "get" }))["items"],
        json!({})
    );
}

#[test]
fn bad_state_files_and_cookie_input_are_refused_and_nothing_applies() {
    use std::os::unix::fs::PermissionsExt;
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str, mode: u32| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
        p
    };
    let good_cookie = r#"{"name":"a","value":"1","domain":"127.0.0.1","path":"/"}"#;
    for (file, needle) in [
        (
            write("shape.json", r#"{"cookies": []}"#, 0o600),
            "not a webrig state file",
        ),
        (
            write("notjson.json", "nope", 0o600),
            "not a webrig state file",
        ),
        (
            write(
                "version.json",
                r#"{"webrig_state": 9, "cookies": [], "origins": []}"#,
                0o600,
            ),
            "format 9",
        ),
        (
            write(
                "origin.json",
                &format!(
                    r#"{{"webrig_state": 1, "cookies": [{good_cookie}], "origins": [{{"origin": "file:///etc", "local_storage": {{}}}}]}}"#
                ),
                0o600,
            ),
            "not an http(s) origin",
        ),
        (
            write(
                "open.json",
                &format!(r#"{{"webrig_state": 1, "cookies": [{good_cookie}], "origins": []}}"#),
                0o666,
            ),
            "others may write it",
        ),
        (dir.path().join("missing.json"), "missing.json"),
    ] {
        let e = s.err("state_load", json!({ "path": file }), "invalid_argument");
        assert!(
            e["message"].as_str().unwrap_or_default().contains(needle),
            "{needle}: {e}"
        );
    }
    // A file owned by someone else (needs root to make one).
    let theirs = write(
        "theirs.json",
        &format!(r#"{{"webrig_state": 1, "cookies": [{good_cookie}], "origins": []}}"#),
        0o600,
    );
    if std::process::Command::new("chown")
        .args(["65534", theirs.to_str().unwrap_or_default()])
        .status()
        .is_ok_and(|st| st.success())
    {
        let e = s.err("state_load", json!({ "path": theirs }), "invalid_argument");
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains("owned by uid 65534"),
            "{e}"
        );
    }
    // Nothing of the refused files was applied.
    assert_eq!(
        s.ok("cookies", json!({ "all": true }))["cookies"],
        json!([])
    );

    for args in [
        json!({ "name": "", "value": "x" }),
        json!({ "name": "a b", "value": "x" }),
        json!({ "name": "a", "value": "x;y" }),
        json!({ "name": "a", "value": "x", "url": "ftp://x/" }),
        json!({ "name": "a", "value": "x", "expires": -5.0 }),
    ] {
        s.err("cookies_set", args, "invalid_argument");
    }
    s.err(
        "storage",
        json!({ "area": "local", "op": "set", "key": "k" }),
        "invalid_argument",
    );
    s.err(
        "storage",
        json!({ "area": "local", "op": "clear", "key": "k" }),
        "invalid_argument",
    );
    s.ok("goto", json!({ "url": "about:blank" }));
    s.err(
        "storage",
        json!({ "area": "local", "op": "get" }),
        "invalid_argument",
    );
    s.err("cookies", json!({}), "invalid_argument");
}

#[test]
fn emulation_applies_to_every_tab_and_new_ones() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let eval = |script: &str| s.ok("eval", json!({ "script": script }))["value"].clone();

    s.ok(
        "set_viewport",
        json!({ "width": 500, "height": 400, "scale": 2.0 }),
    );
    assert_eq!(
        eval("[innerWidth, innerHeight, devicePixelRatio]"),
        json!([500, 400, 2])
    );

    let d = s.ok("set_device", json!({ "name": "iphone-14" }));
    assert_eq!(d["emulation"]["device"], "iPhone 14", "{d}");
    assert!(
        eval("navigator.userAgent")
            .as_str()
            .is_some_and(|ua| ua.contains("iPhone"))
    );
    // A mobile page without a viewport tag lays out at 980 px, as phones do.
    assert_eq!(eval("[screen.width, innerWidth]"), json!([390, 980]));
    assert_eq!(eval("navigator.maxTouchPoints > 0"), true);
    let e = s.err(
        "set_device",
        json!({ "name": "iPhone 99 Ultra" }),
        "invalid_argument",
    );
    assert!(
        e["message"].as_str().unwrap_or_default().contains("iPhone"),
        "suggests: {e}"
    );
    let list = s.ok("set_device", json!({ "list": true }));
    assert!(
        list["devices"].as_array().is_some_and(|d| d.len() >= 20),
        "{list}"
    );

    s.ok("set_media", json!({ "scheme": "dark" }));
    assert_eq!(
        eval("matchMedia('(prefers-color-scheme: dark)').matches"),
        true
    );
    s.ok("set_timezone", json!({ "timezone": "Asia/Tokyo" }));
    assert_eq!(
        eval("Intl.DateTimeFormat().resolvedOptions().timeZone"),
        "Asia/Tokyo"
    );
    s.ok("set_locale", json!({ "locale": "de-DE" }));
    assert_eq!(eval("navigator.language"), "de-DE");
    assert_eq!(eval("(1234.5).toLocaleString()"), "1.234,5");
    s.ok(
        "set_headers",
        json!({ "json": "{\"X-Webrig-Test\": \"yes\"}" }),
    );
    let h = eval("fetch('/echo-headers').then(r => r.json())");
    assert_eq!(h["x-webrig-test"], "yes", "{h}");
    assert!(
        h["accept-language"]
            .as_str()
            .is_some_and(|l| l.starts_with("de-DE")),
        "{h}"
    );
    s.ok("set_user-agent", json!({ "user_agent": "WebrigBot/1.0" }));
    assert_eq!(eval("navigator.userAgent"), "WebrigBot/1.0");
    s.ok(
        "set_geo",
        json!({ "latitude": 48.8584, "longitude": 2.2945 }),
    );
    let pos = eval(
        "new Promise((ok, no) => navigator.geolocation.getCurrentPosition(\
           p => ok([p.coords.latitude, p.coords.longitude]), e => no(new Error(e.message))))",
    );
    assert_eq!(pos, json!([48.8584, 2.2945]));

    // A new tab gets all of it.
    s.ok(
        "tab_new",
        json!({ "url": web().url("devtools/index.html") }),
    );
    assert_eq!(eval("navigator.userAgent"), "WebrigBot/1.0");
    assert_eq!(eval("screen.width"), 390);
    assert_eq!(
        eval("Intl.DateTimeFormat().resolvedOptions().timeZone"),
        "Asia/Tokyo"
    );
    assert_eq!(
        eval("matchMedia('(prefers-color-scheme: dark)').matches"),
        true
    );

    s.ok("set_offline", json!({ "state": "on" }));
    assert_eq!(
        eval("fetch('/devtools/data.json').then(() => 'online', () => 'offline')"),
        "offline"
    );
    s.ok("set_offline", json!({ "state": "off" }));
    assert_eq!(
        eval("fetch('/devtools/data.json').then(() => 'online', () => 'offline')"),
        "online"
    );
}

#[test]
fn bad_emulation_is_refused_and_changes_nothing() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    let eval = |script: &str| s.ok("eval", json!({ "script": script }))["value"].clone();
    let zone = eval("Intl.DateTimeFormat().resolvedOptions().timeZone");
    for (command, args) in [
        ("set_viewport", json!({ "width": 0, "height": 100 })),
        (
            "set_viewport",
            json!({ "width": 100, "height": 100, "scale": 0.0 }),
        ),
        ("set_geo", json!({ "latitude": 95.0, "longitude": 0.0 })),
        ("set_media", json!({ "scheme": "sepia" })),
        ("set_timezone", json!({ "timezone": "Mars/Olympus" })),
        ("set_timezone", json!({ "timezone": "../../etc" })),
        ("set_locale", json!({ "locale": "klingon!" })),
        ("set_headers", json!({ "json": "[1, 2]" })),
        ("set_headers", json!({ "json": "{\"Bad Name\": \"x\"}" })),
        ("set_user-agent", json!({ "user_agent": "" })),
    ] {
        s.err(command, args, "invalid_argument");
    }
    assert_eq!(
        eval("Intl.DateTimeFormat().resolvedOptions().timeZone"),
        zone
    );
    assert_eq!(eval("innerWidth"), 1280);
    let i = s.ok("inspect", json!({}));
    assert_eq!(i["emulation"], json!({ "offline": false }), "{i}");
}

#[test]
fn inspect_and_debug_bundle_tell_what_happened() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.ok("click", json!({ "target": "#throw" }));
    s.ok(
        "eval",
        json!({ "script": "fetch('/status/500/x?token=abcdef1234567890abcdef').then(() => 1)" }),
    );
    s.until("network", json!({ "failed": true }), |v| {
        v["entries"][0]["status"] == 500
    });
    s.until("errors", json!({}), |v| v["last"].as_u64() >= Some(1));
    let i = s.ok("inspect", json!({}));
    let h = &i["health"][0];
    assert_eq!(h["errors"], 1, "{i}");
    assert_eq!(h["failed_requests"], 1, "{i}");
    assert!(
        h["last_actions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a == "click #throw → ok")),
        "{i}"
    );
    assert!(
        !i.to_string().contains("abcdef1234567890abcdef"),
        "masked: {i}"
    );
    let text = String::from_utf8_lossy(&s.daemon.cli(&["--session", &s.name, "inspect"]).stdout)
        .to_string();
    assert!(text.contains("1 page errors, 1 failed requests"), "{text}");

    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("bundle");
    let b = s.ok("debug_bundle", json!({ "path": out }));
    let files = texts(
        &json!({ "f": b["files"].as_array().map(|f| f.iter().map(|n| json!({ "n": n })).collect::<Vec<_>>()) }),
        "f",
        "n",
    );
    for f in [
        "page.json",
        "snapshot.txt",
        "screenshot.png",
        "console.json",
        "errors.json",
        "network.json",
    ] {
        assert!(files.contains(&f.to_string()), "{f}: {b}");
        assert!(out.join(f).is_file(), "{f}");
    }
    let snap = std::fs::read_to_string(out.join("snapshot.txt")).expect("snapshot");
    assert!(snap.contains("Devtools fixture"), "{snap}");
    let png = std::fs::read(out.join("screenshot.png")).expect("png");
    assert!(png.starts_with(b"\x89PNG"));
    let network = std::fs::read_to_string(out.join("network.json")).expect("network");
    assert!(network.contains("/status/500/x") && !network.contains("abcdef1234567890abcdef"));
    // An existing folder is refused.
    s.err("debug_bundle", json!({ "path": out }), "invalid_argument");
}

// The same capture and routes through the user's own browser (the
// extension relay): chrome.debugger carries Runtime, Log, Network and Fetch.
crate::both_transports!(console_network_and_routes_on_both_transports, |s| {
    s.ok(
        "route",
        json!({ "pattern": "*/devtools/data.json*", "json": "{\"via\": \"route\"}" }),
    );
    s.ok("goto", json!({ "url": web().url("devtools/index.html") }));
    s.until("console", json!({}), |v| {
        has(v, "entries", "text", "boot app ready")
    });
    s.ok("click", json!({ "target": "#fetch" }));
    s.until("text", json!({ "target": "#out" }), |v| {
        v["text"] == r#"{"via":"route"}"#
    });
    let n = s.until("network", json!({ "type": "fetch" }), |v| {
        v["entries"][0]["status"] == 200 && v["entries"][0]["pending"] == false
    });
    assert!(!n.to_string().contains("sekret-token-1"), "masked: {n}");
    s.ok("click", json!({ "target": "#reject" }));
    s.until("errors", json!({}), |v| {
        has(v, "entries", "message", "nobody caught me")
    });
    let i = s.ok("inspect", json!({}));
    assert_eq!(i["routes"], 1, "{i}");
    s.ok("unroute", json!({ "all": true }));
});
