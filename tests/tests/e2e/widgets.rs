//! Real widgets, as an agent meets them (issue 22): every clickable thing
//! has a ref and a name, separately clickable things are never merged,
//! clickable list items (autocomplete suggestions, menu items, tree
//! folders) have refs, text is never shortened silently, `-i` keeps the line
//! that says what a group of refs is for, and settling waits for what an
//! action set off (a hover menu's delay). The fixtures use the unmodified
//! jQuery UI build from npm (`widgets/vendor`) and pages of our own.

use serde_json::json;

use webrig_tests::outline::{line, ref_of};

use crate::{SessionGuard, both_transports, web};

fn open(s: &SessionGuard, page: &str) -> String {
    s.ok(
        "goto",
        json!({ "url": web().url(&format!("widgets/{page}")) }),
    );
    s.snapshot(json!({}))
}

fn log(s: &SessionGuard) -> String {
    s.ok("text", json!({ "target": "#log" }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

both_transports!(icon_only_controls_get_refs_and_the_best_name, |s| {
    let page = open(&s, "icons.html");
    // Icon-font spans with click listeners: a ref each, named from the class
    // and marked as a hint.
    assert_eq!(
        page.matches("clickable \"reply\" (from class)").count(),
        2,
        "{page}"
    );
    for name in [
        "clickable \"arrow left\" (from class)",
        "clickable \"paper plane\" (from class)",
        "clickable \"send\" (from icon)",
        "clickable \"Attach file\"",
        "clickable \"Insert emoji\"",
        "clickable \"Schedule for later\"",
        "clickable \"Discard draft\"",
        "clickable \"bookmark\" (from icon)",
        "clickable \"back to the start\"",
        "clickable \"use the inline handler\"",
    ] {
        assert!(page.contains(name), "{name} in\n{page}");
    }
    // The back and send icons are told apart without a screenshot.
    assert_ne!(
        ref_of(&page, "\"arrow left\""),
        ref_of(&page, "\"paper plane\"")
    );
    // The second post's reply, found by its order, reaches the second post.
    let second = page
        .lines()
        .flat_map(|l| l.split(" @"))
        .filter(|t| t.contains("clickable \"reply\""))
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .map(|r| format!("@{}", r.trim_start_matches('@')))
        .expect("two reply icons");
    s.ok("click", json!({ "target": second }));
    assert_eq!(log(&s), "p2 reply");
    let send = ref_of(&page, "\"send\" (from icon)");
    s.ok("click", json!({ "target": send }));
    assert_eq!(log(&s), "material-icons");
    let nohref = ref_of(&page, "\"back to the start\"");
    s.ok("click", json!({ "target": nohref }));
    assert_eq!(log(&s), "nohref");
});

both_transports!(separately_clickable_things_are_never_merged, |s| {
    let page = open(&s, "icons.html");
    assert!(!page.contains("Reply Forward"), "{page}");
    let reply = ref_of(&page, "clickable \"Reply\"");
    let forward = ref_of(&page, "clickable \"Forward\"");
    assert_ne!(reply, forward);
    s.ok("click", json!({ "target": forward }));
    assert_eq!(log(&s), "forward");
    s.ok("click", json!({ "target": reply }));
    assert_eq!(log(&s), "reply");
    // A six-item dropdown: six refs, not one holding every label; the list
    // itself (one delegated listener) is a container, not a control.
    for item in ["Open", "Rename", "Duplicate", "Move", "Share", "Delete"] {
        assert_eq!(
            line(&page, &format!("\"{item}\"")),
            format!(
                "{} listitem \"{item}\"",
                ref_of(&page, &format!("\"{item}\""))
            )
        );
    }
    assert!(!page.contains("\"Open Rename"), "{page}");
    s.ok("click", json!({ "target": ref_of(&page, "\"Share\"") }));
    assert_eq!(log(&s), "menu Share");
    // A clickable card is named by its heading and keeps its content and
    // its own link; a delegation root around six links is no control.
    let card = line(&page, "\"Flight UA 12\"");
    assert!(
        card.starts_with('@') && card.contains("clickable \"Flight UA 12\""),
        "{page}"
    );
    assert!(page.contains("link \"Details\""), "{page}");
    assert!(page.contains("Leaves 09:10 from SFO"), "{page}");
    // A framework's root (listening for every event type) is no control:
    // its button is a ref, its text is text.
    assert_eq!(
        line(&page, "A framework root"),
        "paragraph: A framework root listens for every event of the little app in it."
    );
    let inc = page
        .lines()
        .position(|l| l.contains("button \"Add one\""))
        .expect("Add one");
    assert!(
        page.lines().nth(inc).is_some_and(|l| l.starts_with(" @")),
        "at top level, not under a clickable root\n{page}"
    );
    let one = page
        .lines()
        .position(|l| l.contains("link \"One\""))
        .expect("One");
    let before = page.lines().nth(one - 1).unwrap_or_default();
    assert!(
        !before.trim_start().starts_with('@') || before.contains("link"),
        "{page}"
    );
});

both_transports!(jquery_ui_datepicker_autocomplete_and_menu, |s| {
    let page = open(&s, "jqui.html");
    // Datepicker: Prev and Next (<a> without href, jQuery listeners) have
    // refs, and -i keeps the month title above the day links.
    let next = ref_of(&page, "clickable \"Next\"");
    assert!(page.contains("clickable \"Prev\""), "{page}");
    let brief = &s.snapshot(json!({ "interactive": true }));
    let lines: Vec<&str> = brief.lines().map(str::trim_start).collect();
    let title = lines
        .iter()
        .position(|l| *l == "text: October 2026")
        .unwrap_or_else(|| panic!("no month title in\n{brief}"));
    // The day links, a week a line (a row keeps its cells together).
    assert!(
        lines[title + 1].starts_with("row: ") && lines[title + 1].contains("link \"1\""),
        "{brief}"
    );
    assert!(lines.contains(&"group \"When\""), "{brief}");
    assert!(lines.contains(&"heading \"Calendar\" h2"), "{brief}");
    let moved = s.ok("click", json!({ "target": next, "snapshot_after": "diff" }));
    assert!(
        moved["snapshot"]
            .as_str()
            .unwrap_or_default()
            .contains("text: November 2026"),
        "{moved}"
    );
    let page = &s.snapshot(json!({}));
    s.ok("click", json!({ "target": ref_of(page, "link \"12\"") }));
    assert_eq!(log(&s), "date 11/12/2026");

    // Autocomplete: each suggestion is a ref, and picking one fills the field.
    let city = ref_of(page, "textbox \"From\"");
    let typed = s.ok(
        "type",
        json!({ "target": city, "text": "Gre", "snapshot_after": "diff" }),
    );
    let diff = typed["snapshot"].as_str().unwrap_or_default().to_string();
    for suggestion in [
        "Green Bay, WI (GRB)",
        "Greensboro, NC (GSO)",
        "Greenville, SC (GSP)",
    ] {
        assert!(
            line(&diff, suggestion)
                .trim_start_matches("+ ")
                .trim_start()
                .starts_with('@'),
            "{suggestion} has a ref in\n{diff}"
        );
    }
    s.ok("click", json!({ "target": ref_of(&diff, "Greensboro") }));
    assert_eq!(log(&s), "city Greensboro, NC (GSO)");
    assert_eq!(
        s.ok("value", json!({ "target": "#city" }))["value"],
        "Greensboro, NC (GSO)"
    );

    // Menu: the submenu opens 300 ms after the hover (jQuery UI's delay);
    // the hover's own snapshot shows it.
    let page = &s.snapshot(json!({}));
    let export = ref_of(page, "menuitem \"Export\"");
    let hovered = s.ok(
        "hover",
        json!({ "target": export, "snapshot_after": "diff" }),
    );
    let diff = hovered["snapshot"].as_str().unwrap_or_default().to_string();
    assert!(diff.contains("menuitem \"As CSV\""), "{hovered}");
    s.ok("click", json!({ "target": ref_of(&diff, "\"As CSV\"") }));
    assert_eq!(log(&s), "menu As CSV");
});

both_transports!(tree_folders_open_by_their_refs, |s| {
    let page = open(&s, "tree.html");
    assert_eq!(
        line(&page, "\"src\""),
        format!("listitem: {} clickable \"src\"", ref_of(&page, "\"src\""))
    );
    assert!(
        !page.contains("main.rs"),
        "closed folders hide their files\n{page}"
    );
    let opened = s.ok(
        "click",
        json!({ "target": ref_of(&page, "\"src\""), "snapshot_after": "diff" }),
    );
    let diff = opened["snapshot"].as_str().unwrap_or_default().to_string();
    assert!(diff.contains("clickable \"main.rs\""), "{diff}");
    assert!(diff.contains("clickable \"browser\""), "{diff}");
    assert_eq!(log(&s), "toggled src");
    // One listener on the list, the folder names styled as clickable.
    let assets = ref_of(&page, "\"assets\"");
    let opened = s.ok(
        "click",
        json!({ "target": assets, "snapshot_after": "diff" }),
    );
    assert!(
        opened["snapshot"]
            .as_str()
            .unwrap_or_default()
            .contains("logo.svg"),
        "{opened}"
    );
});

both_transports!(text_is_never_shortened_silently, |s| {
    // A small page: every word of every result, durations included.
    let page = open(&s, "flights.html");
    for i in 0..12 {
        assert!(
            page.contains(&format!("Duration {} h {} min", 5 + i % 4, 10 + i)),
            "{page}"
        );
    }
    assert!(page.contains("#engine") && page.contains("#navy"), "{page}");
    assert!(!page.contains('…'), "{page}");

    // A page with more text than the budget: long lines are shortened, and
    // each says how much is left and where to read it.
    let long = open(&s, "long-text.html");
    let first = line(&long, "Item 0.");
    assert!(first.contains('…'), "{first}");
    let marker = first.rsplit(" (+").next().unwrap_or_default();
    let (count, rest) = marker.split_once(" chars: text ").expect(first);
    let count: usize = count.parse().expect(first);
    let at = rest.trim_end_matches(')');
    assert!(at.starts_with("@e"), "{first}");
    let whole = s.ok("text", json!({ "target": at }))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        whole.starts_with("Item 0.") && whole.ends_with("end of item 0."),
        "{whole}"
    );
    assert!(
        count > 100 && count < whole.len(),
        "{count} of {}",
        whole.len()
    );
    // Every ref survives shortening.
    for i in 0..40 {
        assert!(long.contains(&format!("\"reference {i}\"")), "{long}");
    }
    // --max-chars raises the limit: nothing is shortened within it.
    let roomy = &s.snapshot(json!({ "max_chars": 100000 }));
    assert!(
        !roomy.contains('…') && !roomy.contains(" chars: text "),
        "{roomy}"
    );
    assert!(roomy.contains("and the end of item 39."), "{roomy}");
});

both_transports!(non_text_inputs_show_their_type, |s| {
    let page = open(&s, "types.html");
    for expected in [
        "date \"Date\" value=\"\"",
        "time \"Time\" value=\"09:30\"",
        "color \"Color\" value=\"#000000\"",
        "month \"Month\" value=\"\"",
        "textbox \"Name\"",
    ] {
        assert!(
            line(&page, expected).starts_with('@'),
            "{expected} in\n{page}"
        );
    }
});

both_transports!(settling_waits_for_what_the_action_set_off, |s| {
    let page = open(&s, "hover.html");
    // The submenu opens 150 ms after the pointer arrives, then fades in.
    let hovered = s.ok(
        "hover",
        json!({ "target": ref_of(&page, "link \"File\""), "snapshot_after": "diff" }),
    );
    let diff = hovered["snapshot"].as_str().unwrap_or_default();
    assert!(diff.contains("link \"New window\""), "{hovered}");
    let clicked = s.ok(
        "click",
        json!({ "target": ref_of(&page, "\"Reveal after 250 ms\""), "snapshot_after": "diff" }),
    );
    assert!(
        clicked["snapshot"]
            .as_str()
            .unwrap_or_default()
            .contains("button \"Appeared\""),
        "{clicked}"
    );
    // What the hooks count, asked in the page's own world as settling asks:
    // a fresh short timer set while an action runs is counted; the page's
    // clock (a callback it scheduled before) and a long timer are not.
    let probe = r#"(() => {
        const ask = () => { let r = null; const f = (e) => { r = e.detail; };
          document.addEventListener('__webrig_hooks_reply', f);
          document.dispatchEvent(new CustomEvent('__webrig_hooks_timers'));
          document.removeEventListener('__webrig_hooks_reply', f); return Number(r); };
        const watch = (on) => document.dispatchEvent(new CustomEvent('__webrig_hooks_watch', { detail: on ? 'on' : 'off' }));
        watch(true);
        setTimeout(tick, 200);
        setTimeout(() => {}, 5000);
        const idle = ask();
        const fresh = setTimeout(() => {}, 200);
        const counted = ask();
        clearTimeout(fresh);
        const cleared = ask();
        watch(false);
        return [idle, counted > 150 && counted <= 200, cleared];
      })()"#;
    assert_eq!(
        s.ok("eval", json!({ "script": probe }))["value"],
        json!([-1, true, -1])
    );

    // An endless chain of fresh short timers holds a click to the settle's
    // bound (1 s), not to the command's timeout.
    let storm = s.daemon.request(json!({
        "session": s.name, "command": "click", "timeout_ms": 15000, "args": { "target": "#storm" }
    }));
    assert_eq!(storm["ok"], true, "{storm}");
    s.ok("text", json!({ "target": "#clock" }));
});

both_transports!(tables_read_a_row_a_line_and_sort_by_their_headers, |s| {
    let page = open(&s, "table.html");
    // Rows of plain cells print on one line; clickable headers have refs.
    let rows: Vec<&str> = page
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("row: "))
        .collect();
    assert_eq!(rows.len(), 4, "{page}");
    assert!(
        rows[0].ends_with("columnheader \"Customer\" | Total"),
        "{page}"
    );
    assert_eq!(
        &rows[1..],
        [
            "row: 1003 | Grace | $30",
            "row: 1001 | Ada | $10",
            "row: 1002 | Alan | $20"
        ]
    );
    let sorted = s.ok(
        "click",
        json!({ "target": ref_of(&page, "columnheader \"Order\""), "snapshot_after": "full" }),
    );
    let after = sorted["snapshot"].as_str().unwrap_or_default();
    let order: Vec<&str> = after
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("row: 10"))
        .collect();
    assert_eq!(
        order,
        [
            "row: 1001 | Ada | $10",
            "row: 1002 | Alan | $20",
            "row: 1003 | Grace | $30"
        ]
    );
    // A dialog's close glyph is a ref of its own.
    s.ok(
        "click",
        json!({ "target": ref_of(&page, "clickable \"×\"") }),
    );
    assert!(!&s.snapshot(json!({})).contains("dialog \"Notice\""));
});
