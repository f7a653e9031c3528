//! The pipeline on tests/fixtures/web/research (a search for "coral reef
//! bleaching" over seven pages read with the kit's reader, as the web
//! provider reads them): themes that share a key phrase, a category
//! headline, dates in the page's offset, publishers and authors, an
//! off-topic hit, and a timebox nothing falls in.

use super::fixture::{self, ORIGIN};
use super::params;
use crate::gate::judge;
use crate::pipeline::{self, Research};
use crate::rank::pick_fetch;
use crate::terms::topic_terms;
use crate::{output, render};
use webrig_workflow_sdk::serde_json::{Value, json};

const RESULTS: &str = "research/ddg/html/index.html";

/// search → read → finish (→ read more when the timebox is empty), as
/// `run` does.
fn run(input: Value) -> (crate::input::Params, Research) {
    let p = params(input);
    let found = pipeline::collect(vec![(
        "web".into(),
        Ok(fixture::outcome("web", fixture::ddg_at(RESULTS))),
    )]);
    let topic = topic_terms(&p.topic);
    let picks = pick_fetch(&found.records, &topic, p.fetch as usize, &[]);
    let read = |idx: &[usize]| -> Vec<_> {
        idx.iter()
            .map(|&i| (i, fixture::fetch_readable(&found.records[i].url)))
            .collect()
    };
    let mut fetched = read(&picks);
    let mut research = pipeline::finish(&p, found.clone(), fetched.clone());
    if research.timebox_empty() {
        let more = pick_fetch(&found.records, &topic, p.fetch as usize, &picks);
        fetched.extend(read(&more));
        research = pipeline::finish(&p, found, fetched);
    }
    (p, research)
}

fn path(url: &str) -> &str {
    url.strip_prefix(ORIGIN)
        .unwrap_or(url)
        .trim_start_matches("/research/articles/")
}

#[test]
fn reef_research_groups_by_key_phrase_and_reports_right() {
    let (p, r) = run(json!({"topic": "coral reef bleaching", "sources": "web", "fetch": 10}));
    let titles: Vec<&str> = r.ranked.iter().map(|(rec, _)| rec.title.as_str()).collect();
    // The category headline lost to the visible title; suffixes are gone.
    assert!(
        titles.contains(&"List of coral bleaching events"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Why marine heatwaves are getting longer"),
        "{titles:?}"
    );
    assert!(titles.iter().all(|t| !t.contains(" | ")), "{titles:?}");
    // The off-topic hit is dropped and said to be.
    let off: Vec<(&str, &str)> = r
        .drops()
        .map(|d| (d.reason.as_str(), path(&d.url)))
        .collect();
    assert_eq!(off, [("off_topic", "devpulse/gitlab-survey-2026.html")]);
    assert!(titles.iter().all(|t| !t.contains("GitLab")));

    // Themes: the three heatwave pages share "marine heatwave", the two
    // restoration pages a phrase of their own; each member holds it.
    let by_path = |i: usize| path(&r.ranked[i].0.url);
    let themes: Vec<(String, Vec<&str>)> = r
        .themes
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.members.iter().map(|&i| by_path(i)).collect(),
            )
        })
        .collect();
    let heat = themes
        .iter()
        .find(|(n, _)| n == "marine heatwave")
        .unwrap_or_else(|| panic!("{themes:#?}"));
    let mut heat_members = heat.1.clone();
    heat_members.sort_unstable();
    assert_eq!(
        heat_members,
        [
            "keysweekly/2026/11/15/keys-corals-bleach-early.html",
            "oceandesk/marine-heatwaves-longer.html",
            "reeftimes/2026/11/fifth-mass-bleaching.html",
        ],
        "{themes:#?}"
    );
    let restore = themes
        .iter()
        .find(|(_, m)| m.contains(&"reefrestore/nurseries-one-fragment-at-a-time.html"))
        .unwrap_or_else(|| panic!("{themes:#?}"));
    assert!(
        restore
            .1
            .contains(&"marinelab/2026/11/heat-tolerant-outplanting.html"),
        "{themes:#?}"
    );
    for t in r.themes.iter().filter(|t| !t.is_unrelated()) {
        for &m in &t.members {
            let (rec, _) = &r.ranked[m];
            let input = crate::themes::Input {
                title: rec.title.clone(),
                description: rec.description.clone().unwrap_or_default(),
                text: rec.body().to_string(),
            };
            assert!(
                super::theme_corpus::holds_phrase(&input, &t.terms[0]),
                "{} lacks {:?}",
                rec.title,
                t.terms[0]
            );
        }
    }

    // Dates in the page's own offset: 22:30 at -05:00 on the 30th is the
    // 1st in UTC, and the page said the 30th.
    let reeftimes = r
        .ranked
        .iter()
        .find(|(rec, _)| rec.url.contains("reeftimes"))
        .map(|(rec, _)| rec)
        .expect("reeftimes");
    assert_eq!(
        reeftimes.published.as_deref(),
        Some("2026-11-30T22:30:00-05:00")
    );
    assert_eq!(reeftimes.publisher(), "Reef Times");
    assert_eq!(reeftimes.domain, "reeftimes.example");
    assert_eq!(reeftimes.author.as_deref(), Some("Mara Okoye"));

    let verdict = judge(r.ranked.iter().map(|(rec, _)| rec));
    let md = render::report(&p, &r, &verdict);
    println!("{md}");
    for line in [
        "- **Kept:** 6 records from 6 hosts; 1 dropped; 0 duplicates folded; 0 failures",
        "### marine heatwave (3 sources: ",
        "Key phrase in every source: “marine heatwave”",
        "— Reef Times (reeftimes.example) · by Mara Okoye · 2026-11-30 (date from the page; date confidence high) · read, ",
        "[List of coral bleaching events](http://127.0.0.1:8080/research/articles/wiki/List_of_coral_bleaching_events.html) — Wikimedia Foundation, Inc. (en.wikipedia.example) · undated (date confidence low)",
        "- Date confidence: 5 dated by the page itself (high), 0 by the post that is the content (medium), 1 undated (low).",
        "- Dropped (off topic): http://127.0.0.1:8080/research/articles/devpulse/gitlab-survey-2026.html — relevance 0: no word of \"coral reef bleaching\" in its title or text",
    ] {
        assert!(md.contains(line), "{line:?} in:\n{md}");
    }
    assert!(!md.contains("high confidence"), "{md}");
    assert!(!md.contains("2026-12-01 (date"), "{md}");
    let summary = output::summary(&p, &r, &verdict);
    assert!(
        summary.starts_with(
            "coral reef bleaching — 2026-11-01 → 2026-12-01 — gate pass: 6 records from 6 hosts"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("— Reef Times, 2026-11-30 (page)"),
        "{summary}"
    );
}

#[test]
fn the_host_count_is_the_same_with_and_without_reading() {
    let (_, read) = run(json!({"topic": "coral reef bleaching", "sources": "web", "fetch": 10}));
    let (_, unread) = run(json!({"topic": "coral reef bleaching", "sources": "web", "fetch": 0}));
    assert_eq!(read.domains(), 6);
    assert!(unread.ranked.iter().all(|(rec, _)| !rec.fetched));
    // Every record counts for the same host read or not (the unread run
    // drops one more off-topic hit: a snippet without the topic's words).
    for (rec, _) in &unread.ranked {
        let same = read
            .ranked
            .iter()
            .find(|(r, _)| r.url == rec.url)
            .map(|(r, _)| r.domain.as_str());
        assert_eq!(same, Some(rec.domain.as_str()), "{}", rec.url);
    }
    assert_eq!(unread.domains(), unread.ranked.len());
}

#[test]
fn an_empty_timebox_reads_more_then_says_what_lay_outside() {
    let (p, r) = run(json!({
        "topic": "coral reef bleaching", "sources": "web", "fetch": 3,
        "from": "2025-01-01", "to": "2025-06-30"
    }));
    // Three pages read, all outside; three more read; still nothing.
    assert_eq!(r.fetch_attempted, 6);
    assert!(r.timebox_empty(), "{:?}", r.ranked);
    let m = r.nothing_in_range(&p);
    assert!(
        m.starts_with("nothing dated in 2025-01-01 → 2025-06-30 for \"coral reef bleaching\": "),
        "{m}"
    );
    assert!(m.contains("Marine heatwave pushes Great Barrier Reef into fifth mass bleaching (published 2026-11-30 (page date), after 2025-06-30)"), "{m}");
    assert!(
        m.contains("widen the timebox: days 1 takes in the newest (2026-11-30)"),
        "{m}"
    );
    assert!(m.contains("undated snippet"), "{m}");
}
