//! Signals: coherence warnings, site health, challenges and the yield to a
//! person (`needs_human`, `resume`), against the fixture web's refusing and
//! challenging pages (`/signals/...`) in a real Chromium.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{session, web};

/// A key no other test (or earlier run of this one) uses.
fn key(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{name}-{}-{nanos}", std::process::id())
}

fn fixture(path: &str) -> String {
    ureq::get(&web().url(path))
        .call()
        .expect("the fixture answers")
        .into_body()
        .read_to_string()
        .expect("a text answer")
}

fn hits(key: &str) -> u32 {
    fixture(&format!("signals/hits/{key}"))
        .parse()
        .expect("a count")
}

fn kinds(warnings: &Value) -> Vec<String> {
    warnings
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| w["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The fixture web's row of `inspect`'s site health.
fn site(inspect: &Value) -> Value {
    inspect["signals"]["health"]["sites"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["site"] == "127.0.0.1")
        .cloned()
        .unwrap_or(Value::Null)
}

fn listed_warnings(session: &str) -> Value {
    let list = crate::daemon().ok("x", "sessions", json!({}));
    list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == session)
        .map(|e| e["warnings"].clone())
        .unwrap_or_else(|| panic!("session {session} is listed: {list}"))
}

#[test]
fn a_timezone_against_the_locale_is_warned_and_a_coherent_one_is_not() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    s.ok("set_locale", json!({ "locale": "de-DE" }));
    let set = s.ok("set_timezone", json!({ "timezone": "Asia/Tokyo" }));
    assert_eq!(kinds(&set["warnings"]), ["timezone_locale"], "{set}");

    let v = s.ok("inspect", json!({}));
    let warnings = &v["signals"]["warnings"];
    assert_eq!(kinds(warnings), ["timezone_locale"], "{v}");
    let message = warnings[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Asia/Tokyo") && message.contains("de-DE"),
        "{message}"
    );
    assert_eq!(kinds(&listed_warnings(&s.name)), ["timezone_locale"]);

    let set = s.ok("set_timezone", json!({ "timezone": "Europe/Berlin" }));
    assert!(set.get("warnings").is_none(), "{set}");
    let v = s.ok("inspect", json!({}));
    assert_eq!(v["signals"]["warnings"], json!([]), "{v}");
    assert_eq!(listed_warnings(&s.name), json!([]));
}

#[test]
fn a_windows_agent_on_a_linux_browser_is_warned() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let platform = s.ok("eval", json!({ "script": "navigator.platform" }));
    let ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
    let set = s.ok("set_user-agent", json!({ "user_agent": ua }));
    if platform["value"]
        .as_str()
        .is_some_and(|p| p.starts_with("Linux"))
    {
        assert_eq!(kinds(&set["warnings"]), ["platform"], "{set}");
        let v = s.ok("inspect", json!({}));
        assert_eq!(kinds(&v["signals"]["warnings"]), ["platform"], "{v}");
    }
}

#[test]
fn a_429_then_a_challenge_yields_to_a_person_after_the_bounded_attempts() {
    let s = session!();
    let k = key("flaky");
    let started = Instant::now();
    let e = s.err(
        "goto",
        json!({ "url": web().url(&format!("signals/flaky/{k}")) }),
        "needs_human",
    );
    // The first load met a 429 (Retry-After: 1): one reload after a
    // second; the second met a challenge: one wait for it to clear. Two
    // attempts, the default bound; the fixture was asked twice.
    assert_eq!(hits(&k), 2, "{e}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    let message = e["message"].as_str().unwrap_or_default();
    for part in [
        "tab t",
        "/signals/flaky/",
        "Just a moment...",
        "js_challenge",
        "2 automatic attempts",
    ] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    // Headless: the hint says how to get a person in.
    let hint = e["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("--headed") && hint.contains("connect --extension"),
        "{hint}"
    );
    assert!(hint.contains("webrig resume"), "{hint}");

    let v = s.ok("inspect", json!({}));
    let row = site(&v);
    assert_eq!(row["429"], 1, "{v}");
    assert_eq!(row["403"], 1, "{v}");
    assert_eq!(row["challenges"], 1, "{v}");
    assert!(row["score"].as_u64().unwrap_or(100) < 50, "{v}");
    let tab = &v["health"][0];
    assert_eq!(tab["challenge"]["kind"], "js_challenge", "{v}");
    assert!(s.ok("sessions", json!({})).is_object());

    // An action on the page that was yielded on says what it is, and fails nothing.
    let pressed = s.ok("press", json!({ "key": "Tab" }));
    assert_eq!(pressed["challenge"]["kind"], "js_challenge", "{pressed}");
    assert_eq!(hits(&k), 2, "an action does not reload");
}

#[test]
fn a_lasting_429_is_retried_within_the_bound_and_reported() {
    let s = session!();
    let k = key("always");
    let out = s.ok(
        "goto",
        json!({ "url": web().url(&format!("signals/flaky/{k}?always=true")) }),
    );
    assert_eq!(hits(&k), 3, "the first load and 2 reloads: {out}");
    assert_eq!(out["challenge"]["kind"], "rate_limited", "{out}");
    assert_eq!(out["challenge"]["status"], 429, "{out}");
    let row = site(&s.ok("inspect", json!({})));
    assert_eq!(row["429"], 3, "{row}");
    assert_eq!(row["score"], 0, "{row}");
}

#[test]
fn resume_carries_on_once_the_challenge_is_gone() {
    let s = session!();
    let k = key("captcha");
    let url = web().url(&format!("signals/captcha/{k}"));
    let e = s.err("goto", json!({ "url": url }), "needs_human");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("captcha"),
        "{e}"
    );
    // Nobody but a person solves a captcha: no automatic attempt.
    assert_eq!(hits(&k), 1, "{e}");
    let again = s.err("resume", json!({}), "needs_human");
    assert!(
        again["message"]
            .as_str()
            .unwrap_or_default()
            .contains("still there"),
        "{again}"
    );

    fixture(&format!("signals/solve/{k}"));
    s.ok("wait", json!({ "text": "The real page." }));
    let ok = s.ok("resume", json!({}));
    assert!(
        ok["title"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Welcome"),
        "{ok}"
    );
    assert!(ok["url"].as_str().unwrap_or_default().ends_with(&k), "{ok}");
    let v = s.ok("inspect", json!({}));
    assert!(v["health"][0].get("challenge").is_none(), "{v}");
}

#[test]
fn a_one_time_code_login_needs_a_person() {
    let s = session!();
    let e = s.err(
        "goto",
        json!({ "url": web().url("signals/mfa.html") }),
        "needs_human",
    );
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("one-time code") && message.contains("[mfa]"),
        "{message}"
    );
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("enter the code"),
        "{e}"
    );
}

#[test]
fn a_redirect_loop_is_reported() {
    let s = session!();
    let e = s.err(
        "goto",
        json!({ "url": web().url("signals/loop/a") }),
        "navigation_failed",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("REDIRECT"),
        "{e}"
    );
    let v = s.until("inspect", json!({}), |v| site(v)["redirect_loops"] == 1);
    assert!(site(&v)["score"].as_u64().unwrap_or(100) < 100, "{v}");
}

#[test]
fn an_ordinary_page_is_healthy_and_carries_no_challenge() {
    let s = session!();
    let out = s.ok("goto", json!({ "url": web().url("index.html") }));
    assert!(out.get("challenge").is_none(), "{out}");
    let clicked = s.ok("press", json!({ "key": "Tab" }));
    assert!(clicked.get("challenge").is_none(), "{clicked}");
    let v = s.until("inspect", json!({}), |v| site(v)["documents"] == 1);
    let row = site(&v);
    assert_eq!(row["score"], 100, "{v}");
    assert_eq!(row["challenges"], 0, "{v}");
    assert_eq!(v["signals"]["health"]["score"], 100, "{v}");
    assert!(v["health"][0].get("challenge").is_none(), "{v}");
}

/// Real pages (`../shared/corpus/readability`, beside the checkout) are
/// not challenges. The corpus is optional: without it this says so and
/// checks nothing else.
#[test]
fn no_corpus_page_is_taken_for_a_challenge() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/readability");
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("no corpus at {}: skipping the corpus check", root.display());
        return;
    };
    let mut pages: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().join("source.html").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    assert!(!pages.is_empty(), "an empty corpus at {}", root.display());
    let corpus = webrig_tests::FixtureWeb::start_on(root, 0);
    let s = session!();
    for page in &pages {
        let r = s.cmd(
            "goto",
            json!({ "url": corpus.url(&format!("{page}/source.html")), "until": "domcontentloaded" }),
        );
        assert_eq!(r["ok"], true, "{page}: {r}");
        assert!(r["result"].get("challenge").is_none(), "{page}: {r}");
    }
    let v = s.ok("inspect", json!({}));
    assert_eq!(v["signals"]["health"]["challenges"], 0, "{v}");
}
