//! A study of the three fixture pages plus one URL the host refused, and
//! its JSON renderings.

use super::*;
use crate::tokens::tests::{brutal, calm, neon};
use webrig_workflow_sdk::kit::html::Document;

const ORIGIN: &str = "http://127.0.0.1:9";

fn reference(number: usize, name: &str, html: &str, tokens: Tokens) -> Reference {
    let doc = Document::parse(html);
    Reference {
        number,
        url: format!("{ORIGIN}/design/{name}.html"),
        title: doc.find("title").map(|t| doc.text(t)).unwrap_or_default(),
        text: doc.find("body").map(|b| doc.text(b)).unwrap_or_default(),
        tokens,
        unstyled: None,
        png: b"\x89PNG".to_vec(),
        screenshot: None,
    }
}

/// A reference the host would not open.
pub fn problem(number: usize, message: &str) -> Problem {
    Problem {
        number,
        url: format!("{ORIGIN}/private.html"),
        step: "open".into(),
        code: "policy_blocked".into(),
        message: message.into(),
        fatal: true,
    }
}

/// brutal (1), neon (2), calm (3) read; 4 refused.
pub fn study() -> Study {
    let refs = vec![
        reference(
            1,
            "brutal",
            include_str!("../../../../tests/fixtures/web/small/design/brutal.html"),
            brutal(),
        ),
        reference(
            2,
            "neon",
            include_str!("../../../../tests/fixtures/web/small/design/neon.html"),
            neon(),
        ),
        reference(
            3,
            "calm",
            include_str!("../../../../tests/fixtures/web/small/design/calm.html"),
            calm(),
        ),
    ];
    Study::new(
        "calm editorial serif with warm natural colours",
        refs,
        vec![problem(4, "the host is not granted")],
        4,
    )
}

#[test]
fn ranks_merges_and_keeps_the_failures() {
    let s = study();
    let numbers: Vec<usize> = s.ranked.iter().map(|r| r.reference.number).collect();
    assert_eq!(numbers[0], 3, "calm first");
    assert_eq!(s.ranked[0].weight, 1.0);
    // The others barely match this brief: left out of the merge.
    assert!(s.ranked[1..].iter().all(|r| r.weight == 0.0));
    assert_eq!(s.system.background, "#f6f0e1");
    assert_eq!(s.system.radii, [24, 32, 999]);
    assert_eq!(s.status(), "partial");
    assert_eq!(s.unread().count(), 1);
}

#[test]
fn references_json_lists_every_url() {
    let v = references_json(&study());
    let list = v.as_array().expect("present");
    assert_eq!(list.len(), 4);
    assert_eq!(list[0]["number"], 3);
    assert_eq!(list[0]["rank"], 1);
    assert_eq!(
        list[0]["screenshot"], "screenshots/ref-1.png",
        "named by rank"
    );
    assert_eq!(list[0]["matched"][0]["word"], "calm");
    assert_eq!(list[3]["status"], "failed");
    assert_eq!(list[3]["problems"][0]["code"], "policy_blocked");
}

#[test]
fn tokens_json_has_the_system_and_each_reference() {
    let v = tokens_json(&study());
    assert_eq!(v["proposed"]["background"], "#f6f0e1");
    assert_eq!(v["proposed"]["accent"], "#2f5d3a");
    assert_eq!(v["proposed"]["palette"][0]["color"], "#f6f0e1");
    assert_eq!(v["weights"].as_array().expect("present").len(), 1);
    assert_eq!(v["references"].as_array().expect("present").len(), 3);
    assert_eq!(v["references"][0]["tokens"]["radii"][2], 999);
}

#[test]
fn summary_and_context_stay_small() {
    let s = study();
    let text = summary(&s);
    assert!(text.lines().count() <= 10, "{text}");
    assert!(text.starts_with("Design brief \"calm editorial serif"));
    assert!(text.contains("3 of 4 references read"));
    assert!(text.contains("1. Fernleaf Journal"));
    assert!(text.contains("Palette: #f6f0e1"));
    assert!(text.contains("radii: 24 32 999 px"));
    assert!(text.contains("Failures: 1, 1 of 4 references not read"));
    let c = context(&s).to_string();
    assert!(c.len() < 4096, "{}", c.len());

    // Eight references still give ten lines at most.
    let mut many = s.clone();
    let extra = many.ranked[0].clone();
    many.ranked.extend(std::iter::repeat_n(extra, 5));
    assert!(summary(&many).lines().count() <= 10);
}

#[test]
fn percentages_show_slivers() {
    assert_eq!(pct(0.0), "0%");
    assert_eq!(pct(0.001), "<1%");
    assert_eq!(pct(0.567), "57%");
}

#[test]
fn clip_cuts_on_characters() {
    assert_eq!(clip("  a \n b ", 10), "a b");
    assert_eq!(clip("ééééé", 3), "éé…");
}

/// The design/ fixtures: broken (the brief's own words in its title, but
/// its stylesheets 404), then studio (styled), then plain (no styles).
pub fn studio_study() -> Study {
    use crate::tokens::tests::{broken, plain, studio};
    let mut problems = Vec::new();
    let mut page = |number: usize, name: &str, html: &str, tokens: Tokens| {
        let mut r = reference(number, name, html, tokens);
        let (unstyled, found) = styles(number, &r.url, &r.tokens);
        r.unstyled = unstyled;
        problems.extend(found);
        r
    };
    let refs = vec![
        page(
            1,
            "broken",
            include_str!("../../../../tests/fixtures/web/design/broken.html"),
            broken(),
        ),
        page(
            2,
            "studio",
            include_str!("../../../../tests/fixtures/web/design/studio.html"),
            studio(),
        ),
        page(
            3,
            "plain",
            include_str!("../../../../tests/fixtures/web/design/plain.html"),
            plain(),
        ),
    ];
    let mut s = Study::new("warm orange studio with clean sans type", refs, problems, 3);
    s.duplicates = vec![format!("{ORIGIN}/design/studio.html#again")];
    s
}

#[test]
fn default_styled_references_rank_last_and_weigh_nothing() {
    let s = studio_study();
    let order: Vec<(usize, f64)> = s
        .ranked
        .iter()
        .map(|r| (r.reference.number, r.weight))
        .collect();
    // broken matches the brief best by its words, but shows no design.
    assert!(s.ranked[1].standing.score > s.ranked[0].standing.score);
    assert_eq!(order, [(2, 1.0), (1, 0.0), (3, 0.0)]);
    assert_eq!(s.system.background, "#fbf7f2");
    assert_eq!(s.system.accent.as_deref(), Some("#d9480f"));
    assert!(s.system.fonts.iter().all(|f| !f.value.contains("Times")));
    assert_eq!(s.unstyled().count(), 2);
}

#[test]
fn screenshots_are_numbered_in_rank_order() {
    let s = studio_study();
    let shots: Vec<(usize, Option<&str>)> = s
        .ranked
        .iter()
        .map(|r| (r.reference.number, r.reference.screenshot.as_deref()))
        .collect();
    assert_eq!(
        shots,
        [
            (2, Some("screenshots/ref-1.png")),
            (1, Some("screenshots/ref-2.png")),
            (3, Some("screenshots/ref-3.png")),
        ]
    );
    // No screenshot taken: no name.
    let mut refs: Vec<Reference> = s.ranked.iter().map(|r| r.reference.clone()).collect();
    refs[0].png.clear();
    let again = Study::new(&s.brief, refs, vec![], 3);
    assert_eq!(again.ranked[0].reference.screenshot, None);
    assert_eq!(
        again.ranked[1].reference.screenshot.as_deref(),
        Some("screenshots/ref-2.png")
    );
}

#[test]
fn outputs_flag_default_styles_and_duplicates() {
    let s = studio_study();
    let refs = references_json(&s);
    assert_eq!(refs[0]["status"], "read");
    assert_eq!(refs[1]["status"], "default_styles");
    assert!(
        refs[1]["default_styles"]
            .as_str()
            .expect("present")
            .contains("none of its 2 stylesheets loaded")
    );
    let text = summary(&s);
    assert!(
        text.contains(
            "2. Warm orange studio with clean sans type (score 15; default styles, weighted out)"
        ),
        "{text}"
    );
    assert!(text.contains("1 duplicate URL(s) read once"), "{text}");
    assert!(
        text.contains("Failures: 2, 0 of 3 references not read, 2 with default styles"),
        "{text}"
    );
    assert_eq!(s.status(), "partial");
    let c = context(&s);
    assert_eq!(c["default_styles"].as_array().expect("present").len(), 2);
    assert_eq!(c["duplicates"], 1);
}
