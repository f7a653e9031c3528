//! Inputs that take their value or say why not, and actions that notice
//! what changed under them: native date/time/color/range fills, end states
//! read back (fill, select, check), a field disabled by a popup as it takes
//! focus, covers that appear as a click lands, `type` and `press` into the
//! focused element, and clicks on a smooth-scrolling page.

use serde_json::{Value, json};

use crate::{SessionGuard, both_transports, web};

fn open(s: &SessionGuard, page: &str) {
    s.ok(
        "goto",
        json!({ "url": web().url(&format!("inputs/{page}")) }),
    );
}

fn text(s: &SessionGuard, target: &str) -> String {
    s.ok("text", json!({ "target": target }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn value(s: &SessionGuard, target: &str) -> Value {
    s.ok("value", json!({ "target": target }))["value"].clone()
}

/// Runs `command` with a short deadline and asserts it fails with `code`;
/// returns the error's message.
fn fails(s: &SessionGuard, command: &str, args: Value, ms: u64, code: &str) -> String {
    let resp = s.daemon.request(json!({
        "session": s.name, "command": command, "timeout_ms": ms, "args": args
    }));
    assert_eq!(resp["ok"], false, "{command} {args} should fail: {resp}");
    assert_eq!(resp["error"]["code"], code, "{command} {args}: {resp}");
    resp["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

both_transports!(fill_sets_native_date_time_color_and_range_inputs, |s| {
    open(&s, "native.html");
    for (target, given, kept) in [
        ("#date", "2026-10-09", "2026-10-09"),
        ("#time", "09:30", "09:30"),
        ("#time", "21:05:30", "21:05:30"),
        ("#dtl", "2026-10-09T14:45", "2026-10-09T14:45"),
        ("#month", "2026-10", "2026-10"),
        ("#week", "2026-W41", "2026-W41"),
        ("#color", "#FF8800", "#ff8800"),
        ("#range", "35", "35"),
    ] {
        let out = s.ok("fill", json!({ "target": target, "text": given }));
        assert_eq!(out["value"], kept, "{target} {given}: {out}");
        assert_eq!(value(&s, target), kept, "{target} read back");
    }
    // The page's own listeners saw input and change for each.
    let events = text(&s, "#events");
    for id in ["date", "time", "dtl", "month", "week", "color", "range"] {
        assert!(
            events.contains(&format!("input:{id} change:{id}")),
            "{id}: {events}"
        );
    }
});

both_transports!(fill_refuses_malformed_values_naming_the_format, |s| {
    open(&s, "native.html");
    s.ok("fill", json!({ "target": "#date", "text": "2026-10-09" }));
    for (target, given, message) in [
        (
            "#date",
            "10/09/2026",
            "\"#date\" is type=date: give YYYY-MM-DD",
        ),
        (
            "#time",
            "9.30",
            "\"#time\" is type=time: give HH:MM or HH:MM:SS",
        ),
        (
            "#dtl",
            "2026-10-09 14:45",
            "\"#dtl\" is type=datetime-local: give YYYY-MM-DDTHH:MM",
        ),
        (
            "#month",
            "October",
            "\"#month\" is type=month: give YYYY-MM",
        ),
        ("#week", "2026-41", "\"#week\" is type=week: give YYYY-Www"),
        ("#color", "orange", "\"#color\" is type=color: give #rrggbb"),
        (
            "#range",
            "60",
            "\"#range\" is type=range: give a number from 0 to 50 in steps of 5",
        ),
        (
            "#range",
            "12",
            "\"#range\" is type=range: give a number from 0 to 50 in steps of 5",
        ),
        (
            "#count",
            "twelve",
            "\"#count\" is type=number: give a number",
        ),
    ] {
        let err = s.err(
            "fill",
            json!({ "target": target, "text": given }),
            "invalid_argument",
        );
        assert_eq!(err["message"], message, "{target} {given}: {err}");
    }
    // A refused value leaves the field as it was.
    assert_eq!(value(&s, "#date"), "2026-10-09");
    assert_eq!(value(&s, "#range"), "10");
});

both_transports!(fill_reads_back_text_fields_and_names_what_they_show, |s| {
    open(&s, "native.html");
    assert_eq!(
        s.ok("fill", json!({ "target": "#notes", "text": "one\ntwo" }))["value"],
        "one\ntwo"
    );
    assert_eq!(
        s.ok("fill", json!({ "target": "#bio", "text": "Hello there" }))["value"],
        "Hello there"
    );
    // A number field takes the number without spaces, as in Playwright.
    assert_eq!(
        s.ok("fill", json!({ "target": "#count", "text": " 12.5 " }))["value"],
        "12.5"
    );
    // A page that formats what is entered keeps it: that is a fill.
    assert_eq!(
        s.ok("fill", json!({ "target": "#phone", "text": "5551234567" }))["value"],
        "(555) 123-4567"
    );
    // A field that keeps less than was asked is not.
    let err = s.err(
        "fill",
        json!({ "target": "#code", "text": "123456" }),
        "invalid_argument",
    );
    assert_eq!(
        err["message"], "\"#code\" shows \"1234\" after filling \"123456\"",
        "{err}"
    );
    assert_eq!(err["hint"], "it takes at most 4 characters", "{err}");
});

both_transports!(select_and_check_fail_when_the_page_undoes_them, |s| {
    open(&s, "native.html");
    assert_eq!(
        s.ok("select", json!({ "target": "#size", "values": ["Medium"] }))["value"],
        json!(["m"])
    );
    let err = s.err(
        "select",
        json!({ "target": "#size", "values": ["Extra large"] }),
        "invalid_argument",
    );
    assert_eq!(
        err["message"], "\"#size\" shows \"Choose a size\" after selecting \"Extra large\"",
        "{err}"
    );
    assert_eq!(value(&s, "#size"), "");

    assert_eq!(s.ok("check", json!({ "target": "#news" }))["value"], true);
    // A switch renamed by its own click ("Wi-Fi off" to "Wi-Fi on") checks:
    // its ref no longer resolves to read back, and that is not a failure.
    let snap = s.ok("snapshot", json!({}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let wifi = snap
        .lines()
        .find(|l| l.contains("Wi-Fi off"))
        .and_then(|l| l.split_whitespace().find(|w| w.starts_with("@e")))
        .unwrap_or_else(|| panic!("no ref for the switch in\n{snap}"))
        .to_string();
    s.ok("check", json!({ "target": wifi }));
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "document.querySelector('#wifi').getAttribute('aria-checked')" })
        )["value"],
        "true"
    );
    for target in ["#sticky", "#later"] {
        let err = s.err("check", json!({ "target": target }), "invalid_argument");
        assert_eq!(
            err["message"],
            format!("\"{target}\" is unchecked after checking it"),
            "{err}"
        );
        assert_eq!(
            s.ok(
                "eval",
                json!({ "script": format!("document.querySelector('{target}').checked") })
            )["value"],
            false
        );
    }
});

/// A failed fill's message: caught as the field took focus (when the page
/// has the window's focus, its focus handlers run at once) or in the
/// read-back (when they run as the text arrives). Either names what changed.
fn one_of(msg: &str, label: &str, text: &str, why: &str) {
    let early = format!("{label} was not filled: as it took focus, {why}");
    let late = format!("{label} shows \"\" after filling {text:?}: {why}");
    assert!(msg == early || msg == late, "{msg}");
}

both_transports!(
    fill_fails_when_a_popup_disables_the_field_as_it_takes_focus,
    |s| {
        open(&s, "popup.html");
        let msg = fails(
            &s,
            "fill",
            json!({ "target": "#arrival", "text": "2026-10-09" }),
            5000,
            "timeout",
        );
        one_of(
            &msg,
            "\"#arrival\"",
            "2026-10-09",
            "a dialog opened: dialog \"Pick a date\"; \"#arrival\" became disabled",
        );
        assert_eq!(value(&s, "#arrival"), "", "no value was claimed or set");

        let msg = fails(
            &s,
            "fill",
            json!({ "target": "#guests", "text": "2" }),
            5000,
            "timeout",
        );
        one_of(&msg, "\"#guests\"", "2", "focus moved to button \"Today\"");
        assert_eq!(value(&s, "#guests"), "");

        // Emptied by a script right after the edit: the read-back after the
        // settle sees it.
        let err = s.err(
            "fill",
            json!({ "target": "#departure", "text": "Friday" }),
            "invalid_argument",
        );
        assert_eq!(
            err["message"], "\"#departure\" shows \"\" after filling \"Friday\"",
            "{err}"
        );
    }
);

both_transports!(click_fails_when_a_cover_appears_as_it_lands, |s| {
    open(&s, "cover.html");
    let msg = fails(
        &s,
        "click",
        json!({ "target": "#hovered" }),
        6000,
        "timeout",
    );
    assert!(
        msg.starts_with("\"#hovered\" is covered by") && msg.contains("Hold on"),
        "{msg}"
    );
    assert_eq!(
        text(&s, "#log"),
        "none",
        "the covered button's handler never ran"
    );
    // The veil takes clicks: remove it and press the next.
    s.ok(
        "eval",
        json!({ "script": "document.querySelectorAll('.veil').forEach(v => v.remove())" }),
    );
    let msg = fails(
        &s,
        "click",
        json!({ "target": "#pressed" }),
        6000,
        "timeout",
    );
    assert!(
        msg.starts_with("\"#pressed\" is covered by") && msg.contains("Hold on"),
        "{msg}"
    );
    assert_eq!(
        text(&s, "#log"),
        "none",
        "the covered button's handler never ran"
    );
    s.ok(
        "eval",
        json!({ "script": "document.querySelectorAll('.veil').forEach(v => v.remove())" }),
    );
    // Nothing left armed: a plain click goes through, once.
    s.ok("click", json!({ "target": "#plain" }));
    assert_eq!(text(&s, "#log"), "plain");
});

both_transports!(type_goes_to_the_focused_element_without_clicking_it, |s| {
    open(&s, "keys.html");
    let msg = fails(&s, "type", json!({ "text": "x" }), 5000, "invalid_argument");
    assert_eq!(msg, "nothing on the page has focus to type into");
    s.ok("focus", json!({ "target": "#first" }));
    assert_eq!(s.ok("type", json!({ "text": "Ada" }))["value"], "Ada");
    assert_eq!(value(&s, "#first"), "Ada");

    // A date field with focus is typed into where its focus is, unclicked
    // (a click at its centre would land in the year).
    s.ok("focus", json!({ "target": "#when" }));
    s.ok("type", json!({ "target": "#when", "text": "10092026" }));
    assert_eq!(text(&s, "#downs"), "0", "the field was not clicked");
    assert_eq!(value(&s, "#when"), "2026-10-09");
    // Without focus it is clicked first, as before.
    s.ok("type", json!({ "target": "#second", "text": "B" }));
    assert_eq!(value(&s, "#second"), "B");
});

both_transports!(press_takes_a_sequence_and_text, |s| {
    open(&s, "keys.html");
    s.ok("fill", json!({ "target": "#first", "text": "a" }));
    s.ok("press", json!({ "keys": ["Tab"] }));
    s.ok("press", json!({ "text": "0909" }));
    assert_eq!(value(&s, "#second"), "0909");
    s.ok("focus", json!({ "target": "#first" }));
    s.ok("press", json!({ "keys": ["Tab", "Tab", "Enter"] }));
    assert_eq!(text(&s, "#log"), "submitted a|0909");
    assert_eq!(
        s.ok("eval", json!({ "script": "document.activeElement.id" }))["value"],
        "go",
        "focus moved twice"
    );
    // The older one-key form still works.
    s.ok("press", json!({ "key": "Escape" }));
    // Hostile or empty sequences are refused before any key is pressed.
    s.err("press", json!({}), "invalid_argument");
    s.err(
        "press",
        json!({ "keys": ["Tab"], "text": "x" }),
        "invalid_argument",
    );
    s.err(
        "press",
        json!({ "keys": vec!["Tab"; 65] }),
        "invalid_argument",
    );
    s.ok("focus", json!({ "target": "#first" }));
    s.err(
        "press",
        json!({ "keys": ["Tab", "Banana"] }),
        "invalid_argument",
    );
    assert_eq!(
        s.ok("eval", json!({ "script": "document.activeElement.id" }))["value"],
        "first",
        "no key of a refused sequence was pressed"
    );
});

both_transports!(click_on_a_smooth_scrolling_page_lands_first_time, |s| {
    open(&s, "smooth.html");
    // Behind another tab the page draws no frames, so a smooth scroll never
    // moves: a click that waited for one would time out as covered.
    let first = s.ok("tabs", json!({}))["tabs"][0]["id"].clone();
    s.ok("tab_new", json!({}));
    for (target, logged) in [("#far", "far"), ("#inner", "inner")] {
        let resp = s.daemon.request(json!({
            "session": s.name, "tab": first, "command": "click", "timeout_ms": 3000,
            "args": { "target": target }
        }));
        assert_eq!(resp["ok"], true, "{target}: {resp}");
        let log = s.daemon.request(json!({
            "session": s.name, "tab": first, "command": "text", "args": { "target": "#log" }
        }));
        assert_eq!(log["result"]["text"], logged, "{log}");
    }
    s.ok("tab_select", json!({ "id": first }));
    // scroll is instant too: the position it reports is where the page is.
    let out = s.ok("scroll", json!({ "dy": -500 }));
    let y = s.ok("eval", json!({ "script": "scrollY" }))["value"].clone();
    assert_eq!(out["value"][1], y, "{out}");
});
