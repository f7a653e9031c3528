//! Where dates come from, and what an old date does to a record.

use super::{doc, fetched_record, hit, params, prose};
use crate::dates;
use crate::rank;
use crate::records::{self, DateSource, Kind};
use crate::terms::topic_terms;
use webrig_workflow_sdk::serde_json::json;

const ARTICLE: &str = "https://bytecode.example/2023/11/wasm-sandbox-escapes";

#[test]
fn a_link_post_never_dates_the_article_it_links() {
    // A Reddit post from two days ago links a three-year-old article.
    let h = hit(
        "community",
        "community",
        ARTICLE,
        "A brief history of WebAssembly sandbox escapes",
        Some("2026-11-29T18:20:00Z"),
        &[
            ("score", "412"),
            ("comments", "150"),
            (
                "discussion_url",
                "https://www.reddit.com/r/rust/comments/1qa0b7c/x/",
            ),
        ],
    );
    let mut r = records::from_hit(&h, 0, 0);
    assert_eq!(r.kind, Kind::Page);
    assert_eq!(r.published, None, "not fetched, not the content: no date");
    assert_eq!(r.date_source, DateSource::None);
    let page = doc(
        ARTICLE,
        "A brief history of WebAssembly sandbox escapes",
        &prose(900),
        Some("2023-11-20T10:00:00Z"),
        &[],
    );
    records::apply_document(&mut r, &page);
    assert_eq!(r.published.as_deref(), Some("2023-11-20T10:00:00Z"));
    assert_eq!(r.date_source, DateSource::Page);
    // Engagement stays: the discussion is about this article.
    assert_eq!((r.score, r.comments), (412, 150));
}

#[test]
fn a_fetched_page_without_a_date_stays_undated() {
    let h = hit(
        "web",
        "web",
        ARTICLE,
        "Explainer",
        Some("2026-11-29T00:00:00.0000000Z"),
        &[],
    );
    let mut r = records::from_hit(&h, 0, 0);
    records::apply_document(&mut r, &doc(ARTICLE, "Explainer", &prose(700), None, &[]));
    assert_eq!(
        r.published, None,
        "the search engine's date is not the page's"
    );
    assert_eq!(r.date_source, DateSource::None);
    assert_eq!(r.date_source.confidence(), "low");
}

#[test]
fn discussions_and_posts_carry_their_own_date() {
    let ask = hit(
        "community",
        "community",
        "https://news.ycombinator.com/item?id=46150010",
        "Ask HN: How do you sandbox untrusted WebAssembly plugins?",
        Some("2026-11-26T17:40:00.000Z"),
        &[
            (
                "discussion_url",
                "https://news.ycombinator.com/item?id=46150010",
            ),
            ("score", "88"),
            ("comments", "61"),
        ],
    );
    let r = records::from_hit(&ask, 0, 0);
    assert_eq!(r.kind, Kind::Discussion);
    assert_eq!(r.date_source, DateSource::Post);
    assert_eq!(r.date_source.confidence(), "medium");
    let toot = hit(
        "social",
        "social",
        "https://hachyderm.example/@ada/1",
        "Epochs on",
        Some("2026-11-28T08:12:00.000Z"),
        &[
            ("favourites", "40"),
            ("reblogs", "12"),
            ("replies", "5"),
            ("author", "ada@hachyderm.example"),
        ],
    );
    let r = records::from_hit(&toot, 1, 0);
    assert_eq!((r.kind, r.date_source), (Kind::Post, DateSource::Post));
    assert_eq!((r.score, r.comments), (52, 5));
    assert_eq!(r.domain, "hachyderm.example");
    // Unreadable dates are no dates.
    let junk = hit(
        "social",
        "social",
        "https://x.example/@a/2",
        "x",
        Some("last week"),
        &[],
    );
    assert_eq!(records::from_hit(&junk, 2, 0).published, None);
}

#[test]
fn a_three_year_old_article_is_never_recent() {
    let p = params(json!({"topic": "webassembly sandboxing", "days": 3650}));
    let topic = topic_terms(&p.topic);
    let old = fetched_record(
        ARTICLE,
        &doc(
            ARTICLE,
            "A brief history of WebAssembly sandbox escapes",
            &prose(900),
            Some("2023-11-20T10:00:00Z"),
            &[],
        ),
        0,
    );
    let mut old = old;
    old.score = 412;
    old.comments = 150;
    let fresh_url = "https://runtime.example/fuel";
    let fresh = fetched_record(
        fresh_url,
        &doc(
            fresh_url,
            "Fuel and epochs for WebAssembly sandboxing",
            &prose(900),
            Some("2026-11-27T16:00:00Z"),
            &[],
        ),
        1,
    );
    let f_old = rank::factors(&old, &topic, &p.timebox, p.now);
    assert_eq!(f_old.in_timebox, Some(true), "inside a ten-year timebox");
    assert!(!f_old.recent);
    assert_eq!(f_old.age_days, Some(1107));
    let ranked = rank::rank(vec![old, fresh], &topic, &p.timebox, p.now);
    assert_eq!(
        ranked[0].0.url, fresh_url,
        "engagement does not make an old article recent"
    );
    assert!(ranked[0].1.recent);
    // In the default 30-day timebox it is outside.
    let p30 = params(json!({"topic": "webassembly sandboxing"}));
    assert_eq!(
        rank::factors(&ranked[1].0, &topic, &p30.timebox, p30.now).in_timebox,
        Some(false)
    );
}

#[test]
fn undated_records_rank_below_dated_ones_of_the_same_worth() {
    let p = params(json!({"topic": "webassembly sandboxing"}));
    let topic = topic_terms(&p.topic);
    let text = prose(800);
    let dated = fetched_record(
        "https://a.example/1",
        &doc(
            "https://a.example/1",
            "WebAssembly sandboxing basics",
            &text,
            Some("2026-11-20"),
            &[],
        ),
        0,
    );
    let undated = fetched_record(
        "https://b.example/1",
        &doc(
            "https://b.example/1",
            "WebAssembly sandboxing basics, again",
            &text,
            None,
            &[],
        ),
        1,
    );
    let fd = rank::factors(&dated, &topic, &p.timebox, p.now);
    let fu = rank::factors(&undated, &topic, &p.timebox, p.now);
    assert_eq!(fu.in_timebox, None);
    assert!(fd.score > fu.score, "{fd:?} vs {fu:?}");
    assert_eq!(
        dates::display_day(dated.published.as_deref().expect("present")).as_deref(),
        Some("2026-11-20")
    );
}
