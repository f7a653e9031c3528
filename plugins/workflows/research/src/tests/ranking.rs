//! Ranking order and the choice of pages to fetch.

use super::{doc, fetched_record, hit, params, prose};
use crate::rank::{self, pick_fetch};
use crate::records;
use crate::terms::topic_terms;
use webrig_workflow_sdk::serde_json::json;

#[test]
fn ranks_by_timebox_date_engagement_and_relevance() {
    let p = params(json!({"topic": "webassembly sandboxing"}));
    let topic = topic_terms(&p.topic);
    let article = |url: &str, title: &str, date: Option<&str>, chars: usize| {
        fetched_record(url, &doc(url, title, &prose(chars), date, &[]), 0)
    };
    let fresh = article(
        "https://a.example/fresh",
        "WebAssembly sandboxing with capabilities",
        Some("2026-11-28T09:00:00Z"),
        1200,
    );
    let mut discussed = article(
        "https://b.example/discussed",
        "Sandboxing WebAssembly plugins",
        Some("2026-11-10T09:00:00Z"),
        1200,
    );
    discussed.score = 300;
    discussed.comments = 120;
    let off_topic = article(
        "https://c.example/gc",
        "Garbage collection in JavaScript engines",
        Some("2026-11-28T09:00:00Z"),
        1200,
    );
    let undated = article(
        "https://d.example/explainer",
        "What is a WebAssembly sandbox?",
        None,
        800,
    );
    let toot = records::from_hit(
        &hit(
            "social",
            "social",
            "https://m.example/@a/1",
            "webassembly sandboxing: epochs are cheap",
            Some("2026-11-29T08:00:00Z"),
            &[("favourites", "3")],
        ),
        4,
        0,
    );
    let ranked = rank::rank(
        vec![undated, off_topic, toot, discussed, fresh],
        &topic,
        &p.timebox,
        p.now,
    );
    let order: Vec<&str> = ranked.iter().map(|(r, _)| r.url.as_str()).collect();
    assert_eq!(
        order,
        [
            "https://b.example/discussed",
            "https://a.example/fresh",
            "https://m.example/@a/1",
            "https://c.example/gc",
            "https://d.example/explainer",
        ],
        "{ranked:#?}"
    );
    // Scores are rounded and non-increasing.
    assert!(ranked.windows(2).all(|w| w[0].1.score >= w[1].1.score));
    assert_eq!(ranked[1].1.relevance, 1.0);
    assert!(ranked[1].1.recent && !ranked[4].1.recent);
}

#[test]
fn ties_are_broken_by_date_then_url() {
    let p = params(json!({"topic": "wasm"}));
    let topic = topic_terms(&p.topic);
    let same =
        |url: &str| fetched_record(url, &doc(url, "wasm", "short", Some("2026-11-20"), &[]), 0);
    let ranked = rank::rank(
        vec![same("https://z.example/"), same("https://a.example/")],
        &topic,
        &p.timebox,
        p.now,
    );
    assert_eq!(ranked[0].0.url, "https://a.example/");
}

#[test]
fn picks_promising_distinct_destination_pages() {
    let topic = topic_terms("webassembly sandboxing");
    let web = |url: &str, title: &str, pos: usize| {
        records::from_hit(&hit("web", "web", url, title, None, &[]), pos, pos)
    };
    let mut linked = web(
        "https://a.example/wasi",
        "How WASI capabilities sandbox WebAssembly components",
        4,
    );
    linked.mentions = 2;
    linked.score = 214;
    let recs = vec![
        web("https://x.example/cooking", "Ten pasta recipes", 0),
        linked,
        web(
            "https://copy.example/wasi",
            "How WASI capabilities sandbox WebAssembly components - Syndicate",
            1,
        ),
        web(
            "https://dev.example/search/?q=webassembly",
            "Search results for webassembly",
            2,
        ),
        web(
            "https://b.example/fuel",
            "Fuel, epochs and deadlines: bounding untrusted WebAssembly",
            3,
        ),
        records::from_hit(
            &hit(
                "community",
                "community",
                "https://news.ycombinator.com/item?id=1",
                "Ask HN: sandboxing WebAssembly?",
                Some("2026-11-26T00:00:00Z"),
                &[("discussion_url", "https://news.ycombinator.com/item?id=1")],
            ),
            5,
            0,
        ),
        records::from_hit(
            &hit(
                "social",
                "social",
                "https://m.example/@a/1",
                "WebAssembly sandboxing",
                Some("2026-11-26T00:00:00Z"),
                &[],
            ),
            6,
            0,
        ),
    ];
    let picked: Vec<&str> = pick_fetch(&recs, &topic, 10, &[])
        .iter()
        .map(|&i| recs[i].url.as_str())
        .collect();
    assert_eq!(
        picked,
        [
            "https://a.example/wasi",
            "https://b.example/fuel",
            "https://x.example/cooking"
        ]
    );
    let two: Vec<usize> = pick_fetch(&recs, &topic, 2, &[]);
    assert_eq!(two.len(), 2);
    assert!(pick_fetch(&recs, &topic, 0, &[]).is_empty());
}
