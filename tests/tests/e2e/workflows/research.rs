//! The research workflow end to end on the small web and the reef fixture set.

use super::*;

#[test]
fn research_reads_dates_from_the_pages_drops_shells_dedupes_and_passes_the_gate() {
    let d = small_daemon(&[], &["research"]);
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all", "fetch": 20}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    assert_eq!(out["status"], "pass", "{out}");
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let run_id = out["run_id"].as_str().expect("run id");
    let records = read_json(&bundle.join("records.json"));
    let list = records["records"]
        .as_array()
        .or(records.as_array())
        .expect("records")
        .clone();
    assert_eq!(list.len(), 10, "{records}");
    // No record is dated "now", and the article from 2023 is out of the
    // 30-day timebox, not ranked as recent.
    let text = records.to_string();
    assert!(
        !text.contains("2026-12-01T12:00"),
        "a record dated at retrieval: {text}"
    );
    assert!(!text.contains("2023-"), "{text}");
    let meta = read_json(&bundle.join("meta.json"));
    assert!(
        meta["concurrency"]["provider_calls_max"].as_u64() >= Some(2),
        "{meta}"
    );
    for p in ["web", "community", "social"] {
        assert!(
            meta["providers"][p]["calls"].as_u64() >= Some(1),
            "{p}: {meta}"
        );
    }
    insta::assert_snapshot!(
        "research_summary",
        redacted(out["summary"].as_str().unwrap_or_default(), run_id)
    );
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    insta::assert_snapshot!("research_report", redacted(&report, run_id));

    // Over ten years the 2023 article is back, and never ranked as recent.
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "days": 3650, "fetch": 20, "sources": "all"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let bundle = PathBuf::from(r["result"]["bundle"].as_str().expect("bundle"));
    let records = read_json(&bundle.join("records.json"));
    let list = records["records"]
        .as_array()
        .or(records.as_array())
        .expect("records")
        .clone();
    let old = list
        .iter()
        .position(|r| r.to_string().contains("2023-"))
        .expect("the 2023 article is in a ten-year timebox");
    assert_eq!(list[old]["recent"], false, "{}", list[old]);
    for above in &list[..old] {
        assert_eq!(
            above["recent"], true,
            "only recent records rank above it: {above}"
        );
    }
}

#[test]
fn research_timebox_edges_are_invalid_input() {
    let d = small_daemon(&[], &["research"]);
    for params in [
        json!({"topic": "x", "days": 0}),
        json!({"topic": "x", "from": "2026-11-20", "to": "2026-11-10"}),
        json!({"topic": "x", "to": "2026-12-02"}),
        json!({"topic": "x", "days": 3, "from": "2026-11-01"}),
    ] {
        let e = run(&d, "research", json!({"params": params, "now": NOW}));
        assert_eq!(e["error"]["code"], "invalid_argument", "{params}: {e}");
    }
}

#[test]
fn research_with_a_failing_and_a_slow_provider_still_reports_and_names_them() {
    let base = web().url("small");
    let slow = web().url("delay/20000/small");
    let d = small_daemon(
        &[
            (
                "community",
                format!(
                    "[plugins.community]\nhn_url = \"{}/news/hn\"\nreddit_url = \"{}/news/reddit\"\n",
                    web().url("status/500/small"),
                    web().url("status/500/small")
                ),
            ),
            (
                "social",
                format!("[plugins.social]\nbase_url = \"{slow}/news/mastodon\"\n"),
            ),
            (
                "web",
                format!("[plugins.web]\nbase_url = \"{base}/news/ddg\"\n"),
            ),
        ],
        &["research"],
    );
    let started = std::time::Instant::now();
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let out = &r["result"];
    let failures = out["failures"].to_string();
    assert!(
        failures.contains("community") && failures.contains("social"),
        "{failures}"
    );
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    assert!(
        report.contains("community") && report.contains("social"),
        "failures named in the report: {report}"
    );

    // Every provider down: an error naming each, no complete bundle.
    let dead = "http://127.0.0.1:9".to_string();
    let d = small_daemon(
        &[
            ("web", format!("[plugins.web]\nbase_url = \"{dead}\"\n")),
            (
                "community",
                format!("[plugins.community]\nhn_url = \"{dead}\"\nreddit_url = \"{dead}\"\n"),
            ),
            (
                "social",
                format!("[plugins.social]\nbase_url = \"{dead}\"\n"),
            ),
        ],
        &["research"],
    );
    let e = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all"}, "now": NOW}),
    );
    assert_eq!(e["ok"], false, "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("web") && msg.contains("community") && msg.contains("social"),
        "{e}"
    );
    let runs = d.ok("default", "artifacts_list", json!({}));
    assert!(
        runs.as_array()
            .expect("runs")
            .iter()
            .all(|r| r["complete"] == false),
        "{runs}"
    );
}

/// The web provider on the research fixture web (tests/fixtures/web/
/// research: seven pages found for "coral reef bleaching").
fn reef_daemon() -> Daemon {
    let base = web().url("research");
    small_daemon(
        &[("web", format!("[plugins.web]\nbase_url = \"{base}/ddg\"\n"))],
        &["research"],
    )
}

#[test]
fn research_reef_report_has_key_phrase_themes_visible_titles_and_page_offset_dates() {
    let d = reef_daemon();
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "coral reef bleaching", "sources": "web", "fetch": 10}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    assert_eq!(out["status"], "pass", "{out}");
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    let report = report.replace(&web().port().to_string(), "PORT");
    for line in [
        "- **Kept:** 6 records from 6 hosts; 1 dropped; 0 duplicates folded; 0 failures",
        "### marine heatwave (3 sources: ",
        "Key phrase in every source: “marine heatwave”",
        "[Marine heatwave pushes Great Barrier Reef into fifth mass bleaching](http://127.0.0.1:PORT/research/articles/reeftimes/2026/11/fifth-mass-bleaching.html) — Reef Times (reeftimes.example) · by Mara Okoye · 2026-11-30 (date from the page; date confidence high) · read, ",
        "[List of coral bleaching events](http://127.0.0.1:PORT/research/articles/wiki/List_of_coral_bleaching_events.html) — Wikimedia Foundation, Inc. (en.wikipedia.example) · undated (date confidence low)",
        "- Dropped (off topic): http://127.0.0.1:PORT/research/articles/devpulse/gitlab-survey-2026.html",
        "## Failures\n\nNone.",
    ] {
        assert!(report.contains(line), "{line:?} in:\n{report}");
    }
    for absent in [
        "Wikimedia list article",
        "GitLab survey",
        "high confidence",
        "2026-12-01 (date",
    ] {
        assert!(!report.contains(absent), "{absent:?} in:\n{report}");
    }
    let records = read_json(&bundle.join("records.json"));
    let list = records.as_array().expect("records");
    let reef = list
        .iter()
        .find(|r| r["domain"] == "reeftimes.example")
        .expect("reef times");
    assert_eq!(reef["date"], "2026-11-30", "{reef}");
    assert_eq!(reef["published"], "2026-11-30T22:30:00-05:00", "{reef}");
    assert_eq!(reef["publisher"], "Reef Times", "{reef}");
    assert_eq!(reef["author"], "Mara Okoye", "{reef}");
}

#[test]
fn research_an_empty_timebox_is_not_found_and_says_how_to_widen_it() {
    let d = reef_daemon();
    let e = run(
        &d,
        "research",
        json!({"params": {"topic": "coral reef bleaching", "sources": "web", "fetch": 3,
            "from": "2025-01-01", "to": "2025-06-30"}, "now": NOW}),
    );
    assert_eq!(e["ok"], false, "{e}");
    assert_eq!(e["error"]["code"], "not_found", "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("nothing dated in 2025-01-01 → 2025-06-30 for \"coral reef bleaching\""),
        "{msg}"
    );
    assert!(
        msg.contains("widen the timebox: days 1 takes in the newest (2026-11-30)"),
        "{msg}"
    );
    assert!(!msg.contains("GitLab"), "{msg}");
}
