//! Ranking: which pages to fetch, and the order records are reported in.
//!
//! A record's score adds, in this order of weight:
//! * timebox: 3 when its date is inside, 1 when undated (unknown), 0 else;
//! * relevance to the topic words (0..=1) × 2;
//! * recency: 2 × ½^(age/30 days) — a fixed half-life, whatever the
//!   timebox, so an article three years old scores ~0 here even in a
//!   ten-year timebox and is never "recent";
//! * engagement (points + 2 × comments, summed over the discussions that
//!   link it): 1.5 × ln(1+e)/ln(1001), at most 1.5;
//! * date confidence: page 1, post 0.5, none 0;
//! * substance: 1 for a fetched page with ≥ 500 characters of text.
//!
//! Ties go to the newer date, then the URL key, so the order is stable.

use crate::input::Timebox;
use crate::records::{DateSource, Kind, Record};
use crate::{canon, shells, terms};
use std::cmp::Ordering;

/// Text a record needs to count as substantial (also the evidence gate's).
pub const SUBSTANTIAL: usize = 500;
/// "Recent" means at most this many days old.
pub const RECENT_DAYS: i64 = 30;

/// Why a record ranks where it does.
#[derive(Debug, Clone, PartialEq)]
pub struct Factors {
    /// `None`: undated, so unknown.
    pub in_timebox: Option<bool>,
    pub age_days: Option<i64>,
    pub recent: bool,
    pub relevance: f64,
    pub engagement: f64,
    pub score: f64,
}

/// Scores one record.
pub fn factors(rec: &Record, topic: &[String], timebox: &Timebox, now: i64) -> Factors {
    let in_timebox = rec.day().map(|d| timebox.contains_day(d));
    let age_days = rec.age_days(now);
    let recent = age_days.is_some_and(|a| (0..=RECENT_DAYS).contains(&a));
    let relevance = terms::relevance(topic, &rec.title, rec.body());
    let e = (rec.score + 2 * rec.comments).max(0) as f64;
    let engagement = ((1.0 + e).ln() / 1001f64.ln()).min(1.0);
    let recency = match age_days {
        Some(a) if a >= 0 => 2.0 * 0.5f64.powf(a as f64 / 30.0),
        _ => 0.0,
    };
    let confidence = match rec.date_source {
        DateSource::Page => 1.0,
        DateSource::Post => 0.5,
        DateSource::None => 0.0,
    };
    let substance = if rec.fetched && rec.text_chars() >= SUBSTANTIAL {
        1.0
    } else {
        0.0
    };
    let timebox_points = match in_timebox {
        Some(true) => 3.0,
        None => 1.0,
        Some(false) => 0.0,
    };
    let score =
        timebox_points + 2.0 * relevance + recency + 1.5 * engagement + confidence + substance;
    Factors {
        in_timebox,
        age_days,
        recent,
        relevance: round3(relevance),
        engagement: round3(engagement),
        score: round3(score),
    }
}

/// Rounds to three decimals, so scores print and compare the same
/// everywhere.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Records in rank order with their factors.
pub fn rank(
    records: Vec<Record>,
    topic: &[String],
    timebox: &Timebox,
    now: i64,
) -> Vec<(Record, Factors)> {
    let mut scored: Vec<(Record, Factors)> = records
        .into_iter()
        .map(|r| {
            let f = factors(&r, topic, timebox, now);
            (r, f)
        })
        .collect();
    scored.sort_by(|(ra, fa), (rb, fb)| {
        fb.score
            .partial_cmp(&fa.score)
            .unwrap_or(Ordering::Equal)
            .then_with(|| rb.day().cmp(&ra.day()))
            .then_with(|| ra.key.cmp(&rb.key))
    });
    scored
}

/// The pages worth fetching, best first, at most `n`: records that link
/// somewhere (not posts or discussions, whose hit is the content), with a
/// distinct URL key and title, not shells by title or URL. Promise is
/// relevance × 3 + mentions + engagement + a bonus for ranking high in
/// its provider's answer; never the date of the post that linked it.
/// Records in `skip` (already read) are not picked again, nor are titles
/// they share.
pub fn pick_fetch(records: &[Record], topic: &[String], n: usize, skip: &[usize]) -> Vec<usize> {
    let mut candidates: Vec<(f64, usize)> = records
        .iter()
        .enumerate()
        .filter(|(i, r)| r.kind == Kind::Page && !r.fetched && !skip.contains(i))
        .filter(|(_, r)| r.url.starts_with("http://") || r.url.starts_with("https://"))
        .filter(|(_, r)| shells::detect(&r.url, &r.title, "", false).is_none())
        .map(|(i, r)| {
            let relevance = terms::relevance(topic, &r.title, &r.snippet);
            let e = (r.score + 2 * r.comments).max(0) as f64;
            let engagement = (1.0 + e).ln() / 1001f64.ln();
            let position = 1.0 / (1.0 + r.position as f64 / 5.0);
            let promise = 3.0 * relevance + f64::from(r.mentions) + engagement + position;
            (promise, i)
        })
        .collect();
    candidates.sort_by(|(pa, ia), (pb, ib)| {
        pb.partial_cmp(pa)
            .unwrap_or(Ordering::Equal)
            .then(records[*ia].order.cmp(&records[*ib].order))
    });
    let mut titles: Vec<String> = skip
        .iter()
        .filter_map(|&i| records.get(i))
        .map(|r| canon::title_key(&r.title))
        .collect();
    let mut picked = Vec::new();
    for (_, i) in candidates {
        if picked.len() >= n {
            break;
        }
        let title = canon::title_key(&records[i].title);
        if title.split(' ').count() >= 3 && titles.contains(&title) {
            continue;
        }
        titles.push(title);
        picked.push(i);
    }
    picked
}
