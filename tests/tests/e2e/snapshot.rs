//! snapshot: format, hidden content, frames, shadow roots, ref rules, diffs.

use serde_json::json;

use webrig_tests::outline::ref_of;

use crate::{both_transports, session, web};

#[test]
fn snapshot_of_a_form_page_matches_the_golden_file() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let text = &s
        .snapshot(json!({}))
        .replace(&web().port().to_string(), "PORT");
    // Ref numbers depend on what the tab saw before; this session saw nothing.
    insta::assert_snapshot!("basic", text);
}

both_transports!(hidden_and_aria_hidden_content_is_left_out, |s| {
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let text = &s.snapshot(json!({}));
    for absent in [
        "display none text",
        "visibility hidden text",
        "Hidden by aria",
        "hidden attribute text",
        "csrf",
    ] {
        assert!(!text.contains(absent), "{absent:?} leaked into\n{text}");
    }
    assert!(text.contains("but this child shows"), "{text}");
});

both_transports!(shadow_roots_are_stitched_in_and_their_buttons_work, |s| {
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let text = &s.snapshot(json!({}));
    let button = ref_of(text, "\"Shadow button\"");
    s.ok("click", json!({ "target": button }));
    let after = &s.snapshot(json!({}));
    assert!(after.contains("Shadow clicked"), "{after}");
});

#[test]
fn a_shadow_root_on_body_is_walked_by_snapshots_refs_and_selectors() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/shadow-body.html") }));
    let text = &s.snapshot(json!({}));
    for shown in [
        "heading \"App shell\" h1",
        "paragraph: Nothing pressed",
        "region \"Light content\"",
        "paragraph: Light paragraph",
        "link \"Slotted link\"",
        "button \"Deep button\"",
    ] {
        assert!(text.contains(shown), "{shown:?} missing from\n{text}");
    }
    let press = ref_of(text, "button \"Press\"");
    s.ok("click", json!({ "target": press }));
    assert!(&s.snapshot(json!({})).contains("Pressed once"));

    // Selectors reach into shadow roots, nested ones included.
    s.ok("click", json!({ "target": "#deep" }));
    assert_eq!(
        s.ok("text", json!({ "target": "#status" }))["text"],
        "Deep pressed"
    );
    // Light DOM first: a slotted element is found where the page has it.
    assert_eq!(
        s.ok("text", json!({ "target": "#light-link" }))["text"],
        "Slotted link"
    );
    s.err("click", json!({ "target": "#nowhere" }), "not_found");
    s.ok("wait", json!({ "selector": "#deep", "state": "visible" }));
    // The page's text as read includes what the shadow roots render, in
    // order, slotted light content where its slot is.
    let page = s.ok("text", json!({}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let order: Vec<Option<usize>> = [
        "App shell",
        "Deep pressed",
        "Press",
        "Light paragraph",
        "Deep button",
    ]
    .iter()
    .map(|w| page.find(w))
    .collect();
    assert!(order.iter().all(Option::is_some), "{page:?}");
    assert!(order[0] < order[1] && order[3] < order[4], "{page:?}");
    s.ok("wait", json!({ "text": "Deep pressed" }));
    // A light-DOM target without shadow roots reads as innerText does.
    assert_eq!(
        s.ok("text", json!({ "target": "#light" }))["text"],
        "Light paragraph"
    );

    // A ref inside the shadow root scopes a snapshot.
    let region = ref_of(text, "link \"Slotted link\"");
    let scoped = &s.snapshot(json!({ "scope": region }));
    assert_eq!(scoped.lines().count(), 2, "{scoped}");
}

#[test]
fn text_reads_as_rendered_with_spaces_and_block_separators() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/text-flow.html") }));
    let text = &s.snapshot(json!({}));
    for shown in [
        // A space between inline elements, across a comment.
        "paragraph: 3 items left",
        // <br> breaks a line; whitespace before it does not count twice.
        "paragraph: By Nathan Willis · March 25, 2015",
        // Block, flex-item and table-cell boxes are separate.
        "2192 · Shares",
        "Norway · 3",
        "Oslo · Bergen",
        "Left cell · Right cell · Next row",
        // An absolutely positioned (blockified) span, then a space.
        "Media caption · Mr Obama spoke",
        // A no-break space is a space.
        "GUI Oxyd",
        // What renders joined stays joined.
        "Tightly joined, inlineblock, contents and shown",
        // Names from content follow the same rules.
        "\"Name after break\"",
        "\"Labels\"",
    ] {
        assert!(text.contains(shown), "{shown:?} missing from\n{text}");
    }
    let page_text = s.ok("eval", json!({ "script": PAGE_TEXT }))["value"].clone();
    let glued = glued_words(
        text,
        page_text["inner"].as_str().unwrap_or_default(),
        page_text["alt"].as_str().unwrap_or_default(),
    );
    assert_eq!(glued, Vec::<String>::new(), "{text}");
    insta::assert_snapshot!("text_flow", text.replace(&web().port().to_string(), "PORT"));
}

both_transports!(
    same_and_cross_origin_iframes_are_stitched_in_and_clickable,
    |s| {
        s.ok("goto", json!({ "url": web().url("snap/frames.html") }));
        s.ok(
        "wait",
        json!({ "fn": "document.querySelectorAll('iframe')[1].getBoundingClientRect().width > 0" }),
    );
        // The cross-site frame loads on its own; wait until both children answer.
        let mut text = String::new();
        for _ in 0..50 {
            text = s.snapshot(json!({}));
            if text.matches("button \"Press me\"").count() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(text.matches("button \"Press me\"").count(), 2, "{text}");
        // One golden for both transports (its name from before they shared it).
        let mut settings = insta::Settings::clone_current();
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| {
            insta::assert_snapshot!(
                "e2e__e2e__snapshot__frames",
                text.replace(&web().port().to_string(), "PORT")
            )
        });
        let refs: Vec<String> = text
            .lines()
            .filter(|l| l.contains("\"Press me\""))
            .map(|l| {
                l.trim_start()
                    .split(' ')
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert!(
            refs.iter().all(|r| r.starts_with("@f")),
            "frame refs carry their frame: {refs:?}"
        );
        s.ok("click", json!({ "target": refs[0] }));
        s.ok("click", json!({ "target": refs[1] }));
        let after = &s.snapshot(json!({}));
        assert!(after.contains("Clicked in same"), "{after}");
        assert!(after.contains("Clicked in cross"), "{after}");
    }
);

both_transports!(
    refs_are_stable_across_snapshots_and_fail_closed_when_stale,
    |s| {
        s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
        let first = &s.snapshot(json!({}));
        let second = &s.snapshot(json!({}));
        assert_eq!(first, second, "same page, same refs");
        let more = ref_of(first, "\"More options\"");
        let email = ref_of(first, "\"Email\"");

        // A changed node gets a new ref, and the old one is refused.
        s.ok("eval", json!({ "script": "document.querySelector('[aria-expanded]').textContent = 'Fewer options'" }));
        let third = &s.snapshot(json!({}));
        let fewer = ref_of(third, "\"Fewer options\"");
        assert_ne!(fewer, more);
        assert_eq!(
            ref_of(third, "\"Email\""),
            email,
            "untouched nodes keep their ref"
        );
        let e = s.err("click", json!({ "target": more }), "not_found");
        assert!(
            e["message"].as_str().unwrap_or_default().contains("stale"),
            "{e}"
        );
        assert!(
            e["hint"].as_str().unwrap_or_default().contains("snapshot"),
            "{e}"
        );

        // A removed node's ref is refused, even if another node takes its place.
        s.ok("eval", json!({ "script": "const e = document.getElementById('email'); const n = e.cloneNode(); e.replaceWith(n)" }));
        s.err("fill", json!({ "target": email, "text": "x" }), "not_found");

        // Refs die on navigation; numbers are never reused, so an old ref cannot
        // land on the new page.
        s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
        s.err("click", json!({ "target": fewer }), "not_found");
        let fresh = &s.snapshot(json!({}));
        assert_ne!(ref_of(fresh, "\"Email\""), email);
        s.err("click", json!({ "target": "@e99999" }), "not_found");
        s.err(
            "click",
            json!({ "target": "@nonsense" }),
            "invalid_argument",
        );
    }
);

#[test]
fn snapshot_options_narrow_the_outline() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let full = &s.snapshot(json!({}));
    let interactive = &s.snapshot(json!({ "interactive": true }));
    // Refs only, each group of them under the line that says what it is
    // for (issue 22): a heading, a named group, a short text.
    let lines: Vec<&str> = interactive.lines().skip(1).map(str::trim_start).collect();
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with('@') {
            assert!(
                lines.get(i + 1).is_some_and(|n| n.starts_with('@')),
                "a context line is followed by a ref: {l:?} in\n{interactive}"
            );
        }
    }
    for context in [
        "heading \"Store\" h1",
        "form \"Checkout\"",
        "group \"Shipping\"",
    ] {
        assert!(lines.contains(&context), "{context} in\n{interactive}");
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with('@')).count(),
        full.lines()
            .filter(|l| l.trim_start().starts_with('@'))
            .count()
    );

    let form = ref_of(full, "\"More options\"");
    let _ = form;
    let shallow = &s.snapshot(json!({ "depth": 0 }));
    assert!(
        shallow.lines().skip(1).all(|l| !l.starts_with("  ")),
        "{shallow}"
    );

    let urls = &s.snapshot(json!({ "urls": true }));
    assert!(
        urls.contains("link \"Deals\" → http://127.0.0.1:"),
        "{urls}"
    );

    let out = s.ok("snapshot", json!({ "max_chars": 200 }));
    assert_eq!(out["truncated"], true);
    assert!(
        out["text"]
            .as_str()
            .unwrap_or_default()
            .contains("truncated")
    );
    s.err("snapshot", json!({ "max_chars": 0 }), "invalid_argument");
    s.err("snapshot", json!({ "scope": "main" }), "invalid_argument");
    s.err("snapshot", json!({ "scope": "@e424242" }), "not_found");
}

#[test]
fn scope_limits_the_outline_to_one_subtree() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/spa.html") }));
    let full = &s.snapshot(json!({}));
    let home = ref_of(full, "link \"Home\"");
    let scoped = &s.snapshot(json!({ "scope": home }));
    assert_eq!(scoped.lines().count(), 2, "{scoped}");
    assert!(scoped.contains("link \"Home\""));
}

#[test]
fn json_output_reports_counts_and_timing() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let out = s.ok("snapshot", json!({}));
    assert_eq!(out["title"], "Snapshot basics");
    assert_eq!(out["url"], web().url("snap/basic.html"));
    assert_eq!(out["refs"], 11);
    assert_eq!(out["truncated"], false);
    assert!(out["took_ms"].as_f64().is_some());
}

both_transports!(diff_returns_only_what_changed, |s| {
    s.ok("goto", json!({ "url": web().url("snap/basic.html") }));
    let full = &s.snapshot(json!({}));
    let same = &s.snapshot(json!({ "diff": true }));
    assert_eq!(same, "(no changes)");
    let save = ref_of(full, "\"Save my details\"");
    let out = s.ok(
        "uncheck",
        json!({ "target": save, "snapshot_after": "diff" }),
    );
    let diff = out["snapshot"].as_str().unwrap_or_default();
    assert_eq!(
        diff,
        format!(
            "-   {save} checkbox \"Save my details\" [checked]\n+   {save} checkbox \"Save my details\""
        )
    );
});

#[test]
fn a_client_side_route_change_is_visible_to_the_next_snapshot() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("snap/spa.html") }));
    let text = &s.snapshot(json!({}));
    let about = ref_of(text, "link \"About\"");
    s.ok("click", json!({ "target": about }));
    let after = &s.snapshot(json!({}));
    assert!(
        after.contains("About view") && after.contains("button \"Contact us\""),
        "{after}"
    );
    assert_eq!(
        s.ok("url", json!({}))["url"],
        web().url("snap/spa.html?view=about")
    );
}

/// The real-world pages of `../shared/corpus/readability`, sorted; None
/// (and the check skipped, said on stderr) when the corpus is absent.
fn corpus_pages(check: &str) -> Option<Vec<std::path::PathBuf>> {
    let corpus = std::env::var_os("WEBRIG_READABILITY_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/readability")
        });
    let Ok(entries) = std::fs::read_dir(&corpus) else {
        eprintln!(
            "corpus not found at {}: skipping the {check}",
            corpus.display()
        );
        return None;
    };
    let mut pages: Vec<_> = entries
        .flatten()
        .map(|e| e.path().join("source.html"))
        .filter(|p| p.is_file())
        .collect();
    pages.sort();
    Some(pages)
}

fn page_name(page: &std::path::Path) -> String {
    page.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The share of visible interactive elements (links, buttons, form fields)
/// that carry a ref, on the real-world pages in `../shared/corpus`.
#[test]
fn corpus_snapshots_ref_95_percent_of_visible_interactive_elements() {
    let Some(pages) = corpus_pages("coverage check") else {
        return;
    };
    let s = session!();
    const COUNT: &str = "[...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem]')]
        .filter(e => !e.closest('[aria-hidden=true], [inert]') && e.checkVisibility({visibilityProperty: true}) && [...e.getClientRects()].some(r => r.width > 0 || r.height > 0)).length";
    let mut report = Vec::new();
    for page in &pages {
        let url = format!("file://{}", page.display());
        if s.cmd("goto", json!({ "url": url, "until": "domcontentloaded" }))["ok"] != true {
            continue;
        }
        let visible = s.ok("eval", json!({ "script": COUNT }))["value"]
            .as_u64()
            .unwrap_or(0);
        let out = s.ok("snapshot", json!({}));
        let refs = out["refs"].as_u64().unwrap_or(0);
        let name = page_name(page);
        report.push(format!(
            "{name}: {refs} refs / {visible} visible, truncated={}",
            out["truncated"]
        ));
        if visible > 0 {
            let share = refs as f64 / visible as f64;
            assert!(
                share >= 0.95,
                "{name}: only {refs} of {visible} visible interactive elements have refs\n{}",
                report.join("\n")
            );
        }
        assert_eq!(out["truncated"], false, "{name} was truncated");
    }
    eprintln!("{}", report.join("\n"));
    assert!(!report.is_empty(), "no corpus page loaded");
}

/// Lowercased runs of letters and digits.
fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The words of a snapshot's names and text: the header line, refs and the
/// role after a ref or at a line's start are structure, not page text, and
/// a word cut short by clipping (`toget…`) is no word of the page.
fn snapshot_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let mut role_next = true;
        for tok in line.split_whitespace() {
            if tok.starts_with('@') {
                role_next = true;
                continue;
            }
            if std::mem::take(&mut role_next) && !tok.starts_with('"') {
                continue;
            }
            let mut ws: Vec<String> = words(tok).collect();
            if tok.trim_end_matches('"').ends_with('…') {
                ws.pop();
            }
            out.extend(ws);
        }
    }
    out
}

/// Snapshot words that the page's `inner_text` holds only as two words
/// (`Norway3` where the page reads `Norway 3`): text the snapshot glued
/// together. `alt_text` (alt, aria-label, title, placeholder attributes) is
/// text a snapshot shows that `innerText` does not: its words are known.
fn glued_words(snapshot: &str, inner_text: &str, alt_text: &str) -> Vec<String> {
    let known: std::collections::HashSet<String> =
        words(inner_text).chain(words(alt_text)).collect();
    let chunks: Vec<&str> = inner_text.split_whitespace().collect();
    let mut split = std::collections::HashSet::new();
    for pair in chunks.windows(2) {
        if let (Some(a), Some(b)) = (words(pair[0]).last(), words(pair[1]).next())
            && pair[0].ends_with(char::is_alphanumeric)
            && pair[1].starts_with(char::is_alphanumeric)
        {
            split.insert(format!("{a}{b}"));
        }
    }
    let mut glued: Vec<String> = snapshot_words(snapshot)
        .into_iter()
        .filter(|w| !known.contains(w) && split.contains(w))
        .collect();
    glued.sort();
    glued.dedup();
    glued
}

#[test]
fn glued_words_are_found_by_the_corpus_measure() {
    assert_eq!(
        glued_words(
            "page \"x\" u\n listitem: Norway3 · @e2 \"WillisMarch\"\n @e3 listitem \"ok\"\n \
             img \"homepage\"\n text: to get toget…",
            "Norway\t3\nWillis\nMarch list item, home page, to get",
            "homepage"
        ),
        ["norway3", "willismarch"]
    );
}

/// The page's `innerText` and the text of the attributes a snapshot shows.
const PAGE_TEXT: &str = "({ inner: document.body.innerText, alt: [...document.querySelectorAll('[alt], [aria-label], [title], [placeholder]')]
    .map(e => ['alt', 'aria-label', 'title', 'placeholder'].map(a => e.getAttribute(a) || '').join(' ')).join(' ') })";

/// Text as a person reads it, on real pages: no snapshot word is two words
/// of the page's `innerText` run together (`WillisMarch`, `2192Shares`).
#[test]
fn corpus_snapshots_never_glue_two_words_of_the_rendered_text() {
    let Some(pages) = corpus_pages("glued-word check") else {
        return;
    };
    let s = session!();
    let mut report = Vec::new();
    let mut total = 0;
    for page in &pages {
        let url = format!("file://{}", page.display());
        if s.cmd("goto", json!({ "url": url, "until": "domcontentloaded" }))["ok"] != true {
            continue;
        }
        let text = &s.snapshot(json!({}));
        let page_text = s.ok("eval", json!({ "script": PAGE_TEXT }))["value"].clone();
        let glued = glued_words(
            text,
            page_text["inner"].as_str().unwrap_or_default(),
            page_text["alt"].as_str().unwrap_or_default(),
        );
        total += glued.len();
        let sample: Vec<&str> = glued.iter().take(8).map(String::as_str).collect();
        report.push(format!(
            "{}: {} glued {sample:?}",
            page_name(page),
            glued.len()
        ));
    }
    eprintln!("{}\ntotal glued words: {total}", report.join("\n"));
    assert!(!report.is_empty(), "no corpus page loaded");
    assert_eq!(total, 0, "{}", report.join("\n"));
}

#[test]
fn a_snapshot_after_a_navigating_click_and_a_goto_sees_the_new_page() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let first = &s.snapshot(json!({ "interactive": true }));
    let buy = ref_of(first, "\"Buy\"");
    s.ok("click", json!({ "target": buy }));
    // The world the first snapshot used died with its document: the next
    // snapshots (after the click and after a goto) make new ones.
    let form = &s.snapshot(json!({}));
    assert!(form.contains("Email"), "{form}");
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let again = &s.snapshot(json!({ "interactive": true }));
    let buy_again = ref_of(again, "\"Buy\"");
    assert_ne!(buy_again, buy);
    s.ok("click", json!({ "target": buy_again }));
}
