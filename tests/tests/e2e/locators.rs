//! Locators (`text=`, `role=`, `label=`, … chained with `>>`) as action and
//! read targets, across frames and shadow roots, and the `find` command.

use serde_json::{Value, json};

use crate::{SessionGuard, both_transports, session, web};

fn open(s: &SessionGuard) {
    s.ok("goto", json!({ "url": web().url("locate/page.html") }));
}

/// What was clicked last (an input's value: not text a locator could match).
fn log(s: &SessionGuard) -> String {
    s.ok("value", json!({ "target": "#log" }))["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn click(s: &SessionGuard, target: &str) -> String {
    s.ok("click", json!({ "target": target }));
    log(s)
}

/// A command that must fail, with a short deadline; returns the error.
fn fails(s: &SessionGuard, command: &str, args: Value, ms: u64, code: &str) -> Value {
    let resp = s.daemon.request(json!({
        "session": s.name, "command": command, "timeout_ms": ms, "args": args
    }));
    assert_eq!(resp["ok"], false, "{command} {args} should fail: {resp}");
    assert_eq!(resp["error"]["code"], code, "{command} {args}: {resp}");
    resp["error"].clone()
}

fn message(e: &Value) -> String {
    e["message"].as_str().unwrap_or_default().to_string()
}

both_transports!(text_locators_match_exact_or_substring_and_retarget, |s| {
    open(&s);
    // Exact: the span's text, retargeted to the button around it.
    assert_eq!(click(&s, "text=\"Stop\""), "stop");
    assert_eq!(click(&s, "\"Stop all\""), "stop-all");
    // A substring, case-insensitive, with whitespace collapsed.
    assert_eq!(click(&s, "text=stop   ALL"), "stop-all");
    assert_eq!(click(&s, "text=Flight 2 >> text=Details"), "details-2");
    // Exact is case-sensitive.
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=\"stop\"" }),
        2000,
        "not_found",
    );
    assert_eq!(message(&e), "no element matches text=\"stop\"", "{e}");
});

both_transports!(role_label_placeholder_testid_alt_and_title_locators, |s| {
    open(&s);
    assert_eq!(
        click(&s, "role=menuitem[name=\"Close window\"]"),
        "menu-close"
    );
    assert_eq!(click(&s, "role=menuitem[name=open]"), "menu-open");
    assert_eq!(click(&s, "role=menuitemcheckbox[checked]"), "menu-wrap");
    assert_eq!(
        click(&s, "role=menuitemcheckbox[checked=false]"),
        "menu-ruler"
    );
    assert_eq!(click(&s, "testid=save-btn"), "save");
    assert_eq!(click(&s, "alt=company logo"), "logo");
    assert_eq!(click(&s, "title=\"Pause playback\""), "pause");

    s.ok(
        "fill",
        json!({ "target": "label=Email", "text": "a@b.example" }),
    );
    s.ok(
        "fill",
        json!({ "target": "placeholder=Search flights", "text": "GRB" }),
    );
    s.ok(
        "fill",
        json!({ "target": "label=Promo code", "text": "X1" }),
    );
    assert_eq!(
        s.ok("value", json!({ "target": "#email" }))["value"],
        "a@b.example"
    );
    assert_eq!(
        s.ok("value", json!({ "target": "input[name=q]" }))["value"],
        "GRB"
    );
    assert_eq!(s.ok("value", json!({ "target": "#promo" }))["value"], "X1");
    // Reads take locators too.
    assert_eq!(
        s.ok(
            "value",
            json!({ "target": "placeholder=\"Search flights\"" })
        )["value"],
        "GRB"
    );
    assert_eq!(
        s.ok(
            "attr",
            json!({ "target": "role=link[name=\"Back to top\"]", "name": "href" })
        )["value"],
        "#top"
    );
    // check/uncheck resolve once: the checkbox found as unchecked is the
    // one read back as checked.
    s.ok(
        "check",
        json!({ "target": "role=checkbox[name=\"Remember me\"][checked=false]" }),
    );
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "document.getElementById('remember').checked" })
        )["value"],
        true
    );
    assert_eq!(
        s.ok(
            "text",
            json!({ "target": "role=heading[level=2] >> nth=1" })
        )["text"],
        "Results"
    );
});

both_transports!(chains_nth_and_shadow_roots, |s| {
    open(&s);
    assert_eq!(
        click(&s, "css=#results >> text=Details >> nth=0"),
        "details-1"
    );
    assert_eq!(
        click(&s, "#results li >> role=button >> nth=-1"),
        "details-3"
    );
    assert_eq!(click(&s, "text=Details >> nth=1"), "details-2");
    // Inside an open shadow root.
    assert_eq!(click(&s, "text=Shadow action"), "shadow");
    assert_eq!(click(&s, "#card >> role=button"), "shadow");
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=Details >> nth=3" }),
        2000,
        "not_found",
    );
    assert!(
        message(&e).contains("picks match 3, but 3 visible elements match"),
        "{e}"
    );
});

both_transports!(css_selectors_with_equals_signs_still_work, |s| {
    open(&s);
    assert_eq!(click(&s, "button[data-testid=\"save-btn\"]"), "save");
    assert_eq!(click(&s, "a[href=\"#top\"]"), "top");
    s.ok("fill", json!({ "target": "input[name=q]", "text": "MSP" }));
    assert_eq!(
        s.ok("value", json!({ "target": "input[name=q]" }))["value"],
        "MSP"
    );
});

both_transports!(ambiguous_locators_fail_at_once_listing_refs, |s| {
    open(&s);
    let started = std::time::Instant::now();
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=Details" }),
        10_000,
        "invalid_argument",
    );
    assert!(
        started.elapsed().as_millis() < 5_000,
        "an ambiguous locator does not wait"
    );
    let msg = message(&e);
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines[0], "text=Details matches 3 elements:", "{msg}");
    assert_eq!(lines.len(), 4, "{msg}");
    for l in &lines[1..] {
        let l = l.trim();
        assert!(
            l.starts_with("@e") && l.ends_with(" button \"Details\""),
            "{l}"
        );
    }
    assert_eq!(e["hint"], "add >> nth=N, narrow it, or use a ref");
    // The listed refs work as targets.
    let second = lines[2].split_whitespace().next().unwrap_or_default();
    assert_eq!(click(&s, second), "details-2");
    assert_eq!(log(&s), "details-2");
    assert_eq!(log(&s), "details-2", "nothing else was clicked");
});

both_transports!(hidden_only_matches_say_so, |s| {
    open(&s);
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=Secret door" }),
        2000,
        "not_found",
    );
    let msg = message(&e);
    assert!(
        msg.starts_with("text=Secret door matches only hidden elements (1):"),
        "{msg}"
    );
    assert!(msg.contains("button \"Secret door\""), "{msg}");
    let e = fails(
        &s,
        "click",
        json!({ "target": "role=button[name=\"Ghost door\"]" }),
        2000,
        "not_found",
    );
    assert!(message(&e).contains("matches only hidden elements"), "{e}");
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=Nowhere at all" }),
        2000,
        "not_found",
    );
    assert_eq!(message(&e), "no element matches text=Nowhere at all");
    assert_eq!(log(&s), "none");
});

both_transports!(a_locator_waits_for_an_element_that_appears_later, |s| {
    open(&s);
    s.ok("click", json!({ "target": "#arm" }));
    // The button comes 700 ms after the click, past what a click settles
    // for, so the locator itself waits (the deadline is roomy: the
    // suite loads two cores, and the wait is what is tested, not its speed).
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 20000,
        "args": { "target": "role=button[name=\"Late arrival\"]" }
    }));
    assert_eq!(resp["ok"], true, "{resp}");
    assert_eq!(log(&s), "late");
});

both_transports!(locators_reach_same_and_cross_origin_frames, |s| {
    s.ok("goto", json!({ "url": web().url("locate/frames.html") }));
    // The cross-site frame loads on its own: wait until both answer.
    let mut found = Value::Null;
    for _ in 0..100 {
        found = s.ok("find", json!({ "query": "text=Press in" }));
        if found["count"] == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(found["count"], 2, "{found}");
    let refs: Vec<&str> = found["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["ref"].as_str())
        .collect();
    assert!(refs.iter().all(|r| r.starts_with("@f")), "{refs:?}");
    s.ok("click", json!({ "target": "text=\"Press in cross\"" }));
    s.ok(
        "click",
        json!({ "target": "role=button[name=\"Press in same\"]" }),
    );
    let snap = s.ok("snapshot", json!({}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(snap.contains("Clicked in same"), "{snap}");
    assert!(snap.contains("Clicked in cross"), "{snap}");
    // Across frames, a locator matching in both is ambiguous.
    let e = fails(
        &s,
        "click",
        json!({ "target": "text=Press in" }),
        2000,
        "invalid_argument",
    );
    assert!(message(&e).contains("matches 2 elements"), "{e}");
});

#[test]
fn find_lists_refs_with_context_and_caps_the_list() {
    let s = session!();
    open(&s);
    let found = s.ok("find", json!({ "query": "Details" }));
    assert_eq!(found["locator"], "text=Details");
    assert_eq!(found["count"], 3);
    let contexts: Vec<&str> = found["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["context"].as_str())
        .collect();
    assert_eq!(
        contexts,
        [
            "listitem \"Flight 1 · 2h 10m Details\"",
            "listitem \"Flight 2 · 3h 45m Details\"",
            "listitem \"Flight 3 · 1h 05m Details\""
        ]
    );
    let m = &found["matches"][0];
    assert!(
        m["line"].as_str().is_some_and(
            |l| l == format!("{} button \"Details\"", m["ref"].as_str().unwrap_or("?"))
        ),
        "{m}"
    );
    // The heading above is the context when there is no item around.
    let found = s.ok("find", json!({ "query": "label=Email" }));
    assert_eq!(
        found["matches"][0]["context"], "heading \"Search form\"",
        "{found}"
    );
    // A ref from find is a target.
    let r = found["matches"][0]["ref"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    s.ok("fill", json!({ "target": r, "text": "x@y.example" }));
    assert_eq!(
        s.ok("value", json!({ "target": "#email" }))["value"],
        "x@y.example"
    );
    // Hidden matches are counted, not listed.
    let found = s.ok("find", json!({ "query": "door" }));
    assert_eq!(found["count"], 0);
    assert_eq!(found["hidden"], 2);

    // The cap: 50 listed, the rest counted.
    s.ok(
        "eval",
        json!({ "script": "for (let i = 0; i < 70; i++) { const b = document.createElement('button'); b.textContent = 'Many ' + i; document.body.append(b); } 1" }),
    );
    let found = s.ok("find", json!({ "query": "text=Many" }));
    assert_eq!(found["count"], 70);
    assert_eq!(found["matches"].as_array().map(Vec::len), Some(50));
    // nth= past the listed 50 still picks.
    let found = s.ok("find", json!({ "query": "text=Many >> nth=65" }));
    assert_eq!(found["count"], 1);
    assert!(
        found["matches"][0]["line"]
            .as_str()
            .is_some_and(|l| l.ends_with("button \"Many 65\"")),
        "{found}"
    );
    assert_eq!(
        found["matches"][0]["context"], "heading \"Later\"",
        "{found}"
    );
    let out = s.daemon.cli(&["--session", &s.name, "find", "Many"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 51, "{text}");
    assert!(
        lines[0].starts_with("@e") && lines[0].contains("button \"Many 0\""),
        "{text}"
    );
    assert!(lines[50].starts_with("… 20 more"), "{text}");
}

#[test]
fn snapshot_scope_takes_a_locator() {
    let s = session!();
    open(&s);
    let text = s.ok("snapshot", json!({ "scope": "role=list" }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(body.len(), 4, "{text}");
    assert_eq!(body[0].trim(), "list");
    assert!(
        body[1].trim().starts_with("listitem: Flight 1 · 2h 10m @e"),
        "{text}"
    );
    assert!(!text.contains("Stop"), "{text}");
    // css= names one element; an ambiguous one fails, a plain selector is
    // refused as before (it says to write css=).
    let text = s.ok(
        "snapshot",
        json!({ "scope": "css=#results li:nth-child(2)" }),
    )["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains("Flight 2") && !text.contains("Flight 1"),
        "{text}"
    );
    s.err(
        "snapshot",
        json!({ "scope": "css=#results li" }),
        "invalid_argument",
    );
    let e = s.err(
        "snapshot",
        json!({ "scope": "#results" }),
        "invalid_argument",
    );
    assert_eq!(e["hint"], "as a CSS selector: --scope 'css=#results'");
}

#[test]
fn hostile_locators_are_invalid_arguments() {
    let s = session!();
    open(&s);
    let huge = format!("text={}", "a".repeat(100_000));
    let many = vec!["text=a"; 50].join(" >> ");
    for bad in [
        huge.as_str(),
        many.as_str(),
        "text=\"unclosed",
        "role=button[name=\"x\"",
        "text=a\u{1}b",
        "role=button[bogus]",
        "nth=0",
        "text=a >> nth=zz",
        "css=:::nope",
        "text=a >> css=[[",
    ] {
        let e = fails(
            &s,
            "click",
            json!({ "target": bad }),
            2000,
            "invalid_argument",
        );
        assert!(!message(&e).is_empty(), "{bad:.40}");
        let e = fails(
            &s,
            "find",
            json!({ "query": bad }),
            2000,
            "invalid_argument",
        );
        assert!(!message(&e).is_empty(), "{bad:.40}");
    }
    // The daemon is still there and the page untouched.
    assert_eq!(log(&s), "none");
}

#[test]
fn wait_takes_a_locator() {
    let s = session!();
    open(&s);
    s.ok("click", json!({ "target": "#arm" }));
    s.ok("wait", json!({ "target": "text=\"Late arrival\"" }));
    assert_eq!(click(&s, "text=\"Late arrival\""), "late");
    s.ok(
        "wait",
        json!({ "selector": "text=Secret door", "state": "hidden" }),
    );
    s.ok(
        "wait",
        json!({ "selector": "text=Secret door", "state": "attached" }),
    );
    let e = fails(
        &s,
        "wait",
        json!({ "target": "text=Nowhere at all" }),
        600,
        "timeout",
    );
    assert_eq!(
        message(&e),
        "waited for text=Nowhere at all to be visible in vain"
    );
    fails(
        &s,
        "wait",
        json!({ "target": "role=button[bogus]" }),
        600,
        "invalid_argument",
    );
}
