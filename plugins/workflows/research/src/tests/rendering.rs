//! Report rendering: claims cite sources that exist; outputs stay small.

use super::small_web;
use crate::gate::judge;
use crate::output;
use crate::render::{self, first_sentence, truncate};

#[test]
fn every_citation_points_at_a_listed_source() {
    let (p, research) = small_web::run(webrig_workflow_sdk::serde_json::json!({
        "topic": "webassembly sandboxing", "sources": "all", "fetch": 20
    }));
    let verdict = judge(research.ranked.iter().map(|(r, _)| r));
    let md = render::report(&p, &research, &verdict);
    let sources = research.ranked.len();
    let (_, after_sources) = md.split_once("## Sources").expect("sources section");
    for n in 1..=sources {
        assert!(
            after_sources.contains(&format!("\n[{n}] [")),
            "source [{n}] listed:\n{md}"
        );
    }
    // Every [n] anywhere in the report is a listed source.
    let mut cited = 0;
    for part in md.split('[').skip(1) {
        if let Some((num, _)) = part.split_once(']')
            && let Ok(n) = num.parse::<usize>()
        {
            assert!((1..=sources).contains(&n), "[{n}] cites nothing:\n{md}");
            cited += 1;
        }
    }
    assert!(cited > sources, "claims cite sources");
    let (head, _) = md.split_once("## Sources").expect("present");
    let (_, themes) = head.split_once("## Themes").expect("themes section");
    let claim_lines: Vec<&str> = themes.lines().filter(|l| l.starts_with("- ")).collect();
    assert!(!claim_lines.is_empty());
    assert!(
        claim_lines
            .iter()
            .all(|l| l.contains("] — ") && l.contains("date confidence ") && l.ends_with(')')),
        "{claim_lines:#?}"
    );
    for needle in [
        "# Research: webassembly sandboxing",
        "**Timebox:** 2026-11-01 → 2026-12-01",
        "**Evidence gate:** **pass**",
        "## Limitations",
        "## Failures",
        "web: not_found",
    ] {
        assert!(md.contains(needle), "{needle:?} in:\n{md}");
    }
}

#[test]
fn summary_and_context_stay_small() {
    let (p, research) = small_web::run(webrig_workflow_sdk::serde_json::json!({
        "topic": "webassembly sandboxing", "sources": "all", "fetch": 20
    }));
    let verdict = judge(research.ranked.iter().map(|(r, _)| r));
    let summary = output::summary(&p, &research, &verdict);
    assert!(summary.lines().count() <= 10, "{summary}");
    assert!(
        summary.starts_with("webassembly sandboxing — 2026-11-01 → 2026-12-01 — gate pass"),
        "{summary}"
    );
    let context = output::context(&p, &research, &verdict).to_string();
    assert!(context.len() < 4096, "{} bytes", context.len());
    let records = output::records_json(&research);
    assert_eq!(
        records.as_array().map(Vec::len),
        Some(research.ranked.len())
    );
    assert_eq!(records[0]["n"], 1);
}

#[test]
fn leads_and_truncation() {
    assert_eq!(truncate("abcdef", 4), "abc…");
    assert_eq!(truncate("abc", 4), "abc");
    assert_eq!(
        first_sentence("Fuel metering counts instructions exactly. Epochs are cheaper."),
        Some("Fuel metering counts instructions exactly.".to_string())
    );
    assert_eq!(first_sentence("short"), None);
    // Version numbers do not end a sentence.
    assert_eq!(
        first_sentence("WASI 0.2 takes that idea to the system interface. More."),
        Some("WASI 0.2 takes that idea to the system interface.".to_string())
    );
}
