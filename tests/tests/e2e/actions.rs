//! Actions: each with success and failure cases, actionability errors that
//! name the reason, and trusted input.

use serde_json::json;

use crate::{SessionGuard, both_transports, session, web};

fn open(s: &SessionGuard) {
    s.ok("goto", json!({ "url": web().url("snap/actions.html") }));
}

fn log(s: &SessionGuard) -> String {
    s.ok("text", json!({ "target": "#log" }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn click_reports_the_covering_element_and_never_clicks_it() {
    let s = session!();
    open(&s);
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 1200, "args": { "target": "#under" }
    }));
    assert_eq!(resp["error"]["code"], "timeout", "{resp}");
    let msg = resp["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("\"#under\" is covered by") && msg.contains("Accept cookies"),
        "{msg}"
    );
    assert_eq!(log(&s), "none", "nothing was clicked");
    s.ok("click", json!({ "target": "#accept" }));
    s.ok("click", json!({ "target": "#under" }));
    assert_eq!(log(&s), "under");
}

#[test]
fn click_waits_for_a_disabled_button_to_become_enabled() {
    let s = session!();
    open(&s);
    s.ok("click", json!({ "target": "#accept" }));
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 700, "args": { "target": "#later" }
    }));
    assert_eq!(resp["error"]["code"], "timeout", "{resp}");
    assert!(
        resp["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("is disabled"),
        "{resp}"
    );
    s.ok("click", json!({ "target": "#enabler" }));
    s.ok("click", json!({ "target": "#later" }));
    assert_eq!(log(&s), "later");
}

both_transports!(
    click_reaches_offscreen_moving_rotated_and_wrapped_targets,
    |s| {
        open(&s);
        s.ok("click", json!({ "target": "#accept" }));
        for (target, expect) in [
            ("#deep", "deep"),
            ("#mover", "mover"),
            ("#rotated", "rotated"),
            ("#wrapped", "wrapped"),
        ] {
            s.ok("click", json!({ "target": target }));
            assert_eq!(log(&s), expect, "{target}");
        }
    }
);

#[test]
fn click_refuses_hidden_and_missing_targets_precisely() {
    let s = session!();
    open(&s);
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 600, "args": { "target": "#nothing-here" }
    }));
    assert_eq!(resp["error"]["code"], "not_found", "{resp}");
    s.ok(
        "eval",
        json!({ "script": "document.getElementById('enabler').style.visibility = 'hidden'" }),
    );
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 600, "args": { "target": "#enabler" }
    }));
    assert!(
        resp["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("is not visible"),
        "{resp}"
    );
    s.err(
        "click",
        json!({ "target": "#accept", "count": 9 }),
        "invalid_argument",
    );
    s.err(
        "click",
        json!({ "target": "#accept", "modifiers": ["Hyper"] }),
        "invalid_argument",
    );
    s.err("click", json!({ "target": "a[" }), "invalid_argument");
}

both_transports!(
    check_and_uncheck_work_through_labels_and_zero_size_inputs,
    |s| {
        open(&s);
        s.ok("click", json!({ "target": "#accept" }));
        assert_eq!(s.ok("check", json!({ "target": "#terms" }))["value"], true);
        assert_eq!(
            s.ok("check", json!({ "target": "#terms" }))["value"],
            true,
            "no-op when checked"
        );
        assert_eq!(
            s.ok("uncheck", json!({ "target": "#terms" }))["value"],
            false
        );
        assert_eq!(
            s.ok("check", json!({ "target": "#ghost" }))["value"],
            true,
            "zero-size input via its label"
        );
        s.err("check", json!({ "target": "#name" }), "invalid_argument");
    }
);

both_transports!(fill_type_and_press_produce_real_input, |s| {
    open(&s);
    s.ok("click", json!({ "target": "#accept" }));
    assert_eq!(
        s.ok("fill", json!({ "target": "#name", "text": "Ada" }))["value"],
        "Ada"
    );
    assert_eq!(
        s.ok("type", json!({ "target": "#name", "text": " L." }))["value"],
        "Ada L."
    );
    assert_eq!(
        s.ok("fill", json!({ "target": "#name", "text": "" }))["value"],
        ""
    );
    s.err(
        "fill",
        json!({ "target": "#size", "text": "x" }),
        "invalid_argument",
    );
    s.ok("press", json!({ "key": "Control+a", "target": "#keys" }));
    assert_eq!(log(&s), "key:Ctrl+a");
    s.ok("press", json!({ "key": "Enter" }));
    assert_eq!(log(&s), "key:Enter");
    s.err("press", json!({ "key": "Banana" }), "invalid_argument");
});

#[test]
fn select_by_value_by_label_and_several() {
    let s = session!();
    open(&s);
    assert_eq!(
        s.ok("select", json!({ "target": "#size", "values": ["l"] }))["value"],
        json!(["l"])
    );
    assert_eq!(
        s.ok("select", json!({ "target": "#size", "values": ["Medium"] }))["value"],
        json!(["m"])
    );
    assert_eq!(s.ok("value", json!({ "target": "#size" }))["value"], "m");
    assert_eq!(
        s.ok(
            "select",
            json!({ "target": "#multi", "values": ["a", "Gamma"] })
        )["value"],
        json!(["a", "c"])
    );
    let e = s.err(
        "select",
        json!({ "target": "#size", "values": ["Huge"] }),
        "not_found",
    );
    assert!(
        e["hint"].as_str().unwrap_or_default().contains("Medium"),
        "{e}"
    );
    s.err(
        "select",
        json!({ "target": "#size", "values": ["s", "m"] }),
        "invalid_argument",
    );
    s.err(
        "select",
        json!({ "target": "#name", "values": ["x"] }),
        "invalid_argument",
    );
}

#[test]
fn upload_sets_files_and_refuses_missing_ones() {
    let s = session!();
    open(&s);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, b"hello").expect("write");
    s.ok("upload", json!({ "target": "#file", "files": [file] }));
    assert_eq!(log(&s), "file:notes.txt");
    let e = s.err(
        "upload",
        json!({ "target": "#file", "files": [dir.path().join("missing.txt")] }),
        "not_found",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("missing.txt"),
        "{e}"
    );
    s.err(
        "upload",
        json!({ "target": "#name", "files": [file] }),
        "invalid_argument",
    );
}

#[test]
fn hover_focus_scroll_and_drag() {
    let s = session!();
    open(&s);
    s.ok("click", json!({ "target": "#accept" }));
    s.ok("focus", json!({ "target": "#name" }));
    assert_eq!(
        s.ok("eval", json!({ "script": "document.activeElement.id" }))["value"],
        "name"
    );
    s.ok("hover", json!({ "target": "#enabler" }));
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "document.querySelector('#enabler:hover') !== null" })
        )["value"],
        true
    );
    let out = s.ok("scroll", json!({ "dy": 300 }));
    assert_eq!(out["value"], json!([0, 300]));
    s.ok("scroll", json!({ "target": "#deep" }));
    s.err("scroll", json!({}), "invalid_argument");
    s.ok("scroll", json!({ "dy": -1000 }));
    s.ok("drag", json!({ "from": "#drag", "to": "#drop" }));
    assert_eq!(log(&s), "dropped");
}

both_transports!(actions_by_ref_use_the_snapshot_refs, |s| {
    open(&s);
    s.ok("snapshot", json!({}));
    let text = s.ok("snapshot", json!({ "interactive": true }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let accept = text
        .lines()
        .find(|l| l.contains("\"Accept cookies\""))
        .expect("accept line");
    let r = accept.trim_start().split(' ').next().expect("ref");
    let out = s.ok("click", json!({ "target": r, "snapshot_after": "diff" }));
    let diff = out["snapshot"].as_str().unwrap_or_default();
    assert!(
        diff.contains("- ") && diff.contains("Accept cookies"),
        "{diff}"
    );
});

both_transports!(dialogs_are_reported_block_nothing_and_are_answered, |s| {
    s.ok("goto", json!({ "url": web().url("snap/dialogs.html") }));
    let out = s.ok("click", json!({ "target": "#confirm" }));
    assert_eq!(out["dialog"]["kind"], "confirm", "{out}");
    assert_eq!(out["dialog"]["message"], "Delete it?");
    // The page runs nothing while the dialog is open: commands say so at once.
    let start = std::time::Instant::now();
    let e = s.err("title", json!({}), "busy");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Delete it?"),
        "{e}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
    s.ok("dialog_accept", json!({}));
    assert_eq!(s.ok("text", json!({ "target": "#out" }))["text"], "deleted");

    s.ok("click", json!({ "target": "#confirm" }));
    s.ok("dialog_dismiss", json!({}));
    assert_eq!(s.ok("text", json!({ "target": "#out" }))["text"], "kept");

    s.ok("click", json!({ "target": "#prompt" }));
    s.ok("dialog_accept", json!({ "text": "Grace" }));
    assert_eq!(s.ok("text", json!({ "target": "#out" }))["text"], "Grace");

    s.err("dialog_accept", json!({}), "not_found");
});

#[test]
fn a_dialog_opening_during_a_wait_ends_the_wait_at_once() {
    let s = session!();
    s.ok(
        "goto",
        json!({ "url": web().url("snap/dialogs.html#late") }),
    );
    let start = std::time::Instant::now();
    let resp = s.daemon.request(json!({
        "session": s.name, "command": "wait", "timeout_ms": 10000, "args": { "text": "never" }
    }));
    assert_eq!(resp["error"]["code"], "busy", "{resp}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    s.ok("dialog_dismiss", json!({}));
    assert_eq!(s.ok("title", json!({}))["title"], "Dialogs");
}

/// A click with a short deadline, so a wrong refusal fails fast.
fn click_within(s: &SessionGuard, target: &str, ms: u64) -> serde_json::Value {
    s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": ms, "args": { "target": target }
    }))
}

// Issue 9, item 1: a `<span>` inside a role=button whose wrapper takes no
// pointer events was reported as "covered by button" after 30 s.
#[test]
fn click_on_a_part_of_a_control_goes_to_the_control_that_takes_it() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/retarget.html") }));
    for (target, expect) in [
        ("#rb-text", "rb"),
        ("#open-text", "link"),
        ("#card-text", "card"),
        ("#xb-text", "shadow"),
    ] {
        let resp = click_within(&s, target, 2000);
        assert_eq!(resp["ok"], true, "{target}: {resp}");
        assert_eq!(log(&s), expect, "{target}");
    }
    // The drawn box over a custom checkbox belongs to the input's label.
    let resp = click_within(&s, "#remember", 2000);
    assert_eq!(resp["ok"], true, "{resp}");
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "document.getElementById('remember').checked" })
        )["value"],
        true
    );
    assert_eq!(
        s.ok("uncheck", json!({ "target": "#remember" }))["value"],
        false
    );
}

#[test]
fn click_reports_a_cover_inside_or_outside_the_target_s_control_precisely() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/retarget.html") }));
    // Another control drawn over the target inside the same role=button
    // would take the click: a cover, named as such.
    let resp = click_within(&s, "#chip-text", 800);
    assert_eq!(resp["error"]["code"], "timeout", "{resp}");
    let msg = resp["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("\"#chip-text\" is covered by button \"Remove chip\""),
        "{msg}"
    );
    // A focusable container is not a control: a veil inside it is a cover.
    let resp = click_within(&s, "#panel-text", 800);
    let msg = resp["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("\"#panel-text\" is covered by"), "{resp}");
    // Something outside the target's control is a cover too.
    let resp = click_within(&s, "#toasted-text", 800);
    let msg = resp["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("\"#toasted-text\" is covered by") && msg.contains("Undo"),
        "{resp}"
    );
    assert_eq!(log(&s), "none", "nothing was clicked");
}

// Issue 9, item 6: the settle contract (see `settle` in page/settle.js). A snapshot
// taken right after a click shows what the click's handlers rendered, whether
// they render at once, in a microtask, in a zero-delay timer, in the next
// animation frame, in a frame after a timer or a timer after a frame, or over
// two frames.
#[test]
fn a_snapshot_right_after_a_click_shows_what_the_click_rendered() {
    let s = session!();
    for mode in [
        "sync",
        "microtask",
        "timeout",
        "raf",
        "timeout-raf",
        "raf-timeout",
        "raf-raf",
    ] {
        s.ok(
            "goto",
            json!({ "url": web().url(&format!("todo.html?render={mode}")) }),
        );
        // Tasks 2, 3, 5, 6, … start undone; 26 of 40 are left.
        let mut left = 26;
        for id in [2, 3, 5, 6, 8, 9] {
            let target = format!("li[data-id=\"{id}\"] input");
            if id % 2 == 0 {
                s.ok("click", json!({ "target": target }));
            } else {
                let out = s.ok(
                    "click",
                    json!({ "target": target, "snapshot_after": "full" }),
                );
                left -= 1;
                let snap = out["snapshot"].as_str().unwrap_or_default();
                assert!(
                    snap.contains(&format!("{left} items left")),
                    "{mode}, task {id}, --snapshot-after: {snap}"
                );
                continue;
            }
            left -= 1;
            let snap = s.ok("snapshot", json!({}))["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(
                snap.contains(&format!("{left} items left")),
                "{mode}, task {id}: {snap}"
            );
        }
    }
}

both_transports!(a_drag_inside_a_cross_site_frame_lands_there, |s| {
    s.ok("goto", json!({ "url": web().url("snap/drag-frame.html") }));
    // The cross-site frame loads on its own: wait until its card shows.
    let shows = |v: &serde_json::Value| {
        let t = v["text"].as_str().unwrap_or_default();
        t.contains("button \"Card\"") && t.contains("button \"Done lane\"")
    };
    let snap = s.until("snapshot", json!({}), shows);
    let text = snap["text"].as_str().unwrap_or_default().to_string();
    let ref_of = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .and_then(|l| l.split_whitespace().find(|w| w.starts_with("@f")))
            .unwrap_or_else(|| panic!("no frame ref for {needle}: {text}"))
            .to_string()
    };
    let (card, lane) = (ref_of("button \"Card\""), ref_of("button \"Done lane\""));
    s.ok("drag", json!({ "from": card, "to": lane }));
    let after = s.ok("snapshot", json!({}));
    assert!(
        after["text"]
            .as_str()
            .is_some_and(|t| t.contains("Card dropped in the lane")),
        "{after}"
    );
});
