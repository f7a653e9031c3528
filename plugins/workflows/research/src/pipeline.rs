//! The research steps between the runtime calls, as pure functions so they
//! run natively in tests: hits → records (merged by URL) → which pages to
//! fetch → fetched pages applied → shells dropped → duplicates folded →
//! timebox applied → ranked → themes.
//!
//! Duplicates are folded *before* the timebox is applied: an undated copy
//! of an old article must not survive because the dated original fell out.

use crate::canon;
use crate::dates;
use crate::input::Params;
use crate::rank::{self, Factors};
use crate::records::{self, Record};
use crate::shells;
use crate::terms;
use crate::themes::{self, Theme};
use std::collections::BTreeMap;
use webrig_workflow_sdk::types::{Error, Failure, Fetched, SearchOutcome};

/// A record left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub url: String,
    pub title: String,
    /// `login_wall`, `consent`, …, `out_of_timebox`, `off_topic`; a page
    /// that could not be read is `not_found`, `login_wall` or `unread`
    /// with `failed_read` set.
    pub reason: String,
    pub why: String,
    /// A read that failed: its failure is in `Research::failures`, and it
    /// is counted there, once, not as a drop.
    pub failed_read: bool,
    /// The record's day (in its own offset) when it was dropped for it.
    pub day: Option<i64>,
}

/// What the searches gave.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// One record per distinct URL, in first-seen order.
    pub records: Vec<Record>,
    pub failures: Vec<Failure>,
    /// Hits per source (web, community, social).
    pub hits_by_source: BTreeMap<String, usize>,
    pub hits: usize,
    /// Hits folded into another with the same URL.
    pub merged_by_url: usize,
}

/// The runtime failure code for a WIT error.
pub use webrig_workflow_sdk::failure_code as error_code;

/// Gathers the searches' answers (`(source, outcome)` in order) into
/// records; a search that failed as a whole is a failure of that source.
pub fn collect(outcomes: Vec<(String, Result<SearchOutcome, Error>)>) -> Found {
    let mut found = Found::default();
    let mut all = Vec::new();
    for (source, outcome) in outcomes {
        match outcome {
            Ok(o) => {
                found.failures.extend(o.failures);
                let mut position: BTreeMap<String, usize> = BTreeMap::new();
                for hit in o.hits {
                    let p = position.entry(hit.provider.clone()).or_default();
                    *found.hits_by_source.entry(hit.source.clone()).or_default() += 1;
                    all.push(records::from_hit(&hit, all.len(), *p));
                    *p += 1;
                }
            }
            Err(e) => found.failures.push(Failure {
                provider: source,
                code: error_code(&e).into(),
                message: webrig_workflow_sdk::error_message(&e).into(),
            }),
        }
    }
    found.hits = all.len();
    let (records, merged) = canon::dedupe(all, false);
    found.records = records;
    found.merged_by_url = merged;
    found
}

/// Everything the report is made of.
#[derive(Debug, Clone)]
pub struct Research {
    pub ranked: Vec<(Record, Factors)>,
    pub themes: Vec<Theme>,
    pub dropped: Vec<Dropped>,
    /// Records folded into another (same URL or canonical URL or title).
    pub deduped: usize,
    pub failures: Vec<Failure>,
    pub hits_by_source: BTreeMap<String, usize>,
    pub hits: usize,
    pub fetch_attempted: usize,
    pub fetch_ok: usize,
}

/// Applies the fetched pages (`(record index, answer)`) and runs the steps
/// after fetching.
pub fn finish(
    params: &Params,
    found: Found,
    fetched: Vec<(usize, Result<Fetched, Failure>)>,
) -> Research {
    let Found {
        mut records,
        mut failures,
        hits_by_source,
        hits,
        merged_by_url,
    } = found;
    let mut dropped = Vec::new();
    let mut gone = vec![false; records.len()];
    let fetch_attempted = fetched.len();
    let mut fetch_ok = 0;
    for (i, answer) in fetched {
        let Some(rec) = records.get_mut(i) else {
            continue;
        };
        match answer {
            Ok(f) => {
                fetch_ok += 1;
                records::apply_document(rec, &f.document);
            }
            Err(f) => {
                // A page that could not be read is no evidence: not a
                // source, not in a theme. It is reported once, as a
                // failure naming its URL.
                let reason = match f.code.as_str() {
                    "not_found" => "not_found",
                    "auth" => "login_wall",
                    _ => "unread",
                };
                gone[i] = true;
                dropped.push(Dropped {
                    url: rec.url.clone(),
                    title: rec.title.clone(),
                    reason: reason.into(),
                    why: format!("{} could not read it: {}", f.provider, f.message),
                    failed_read: true,
                    day: None,
                });
                let mut f = f;
                if !f.message.contains(&rec.url) {
                    f.message = format!("{}: {}", rec.url, f.message);
                }
                failures.push(f);
            }
        }
    }
    let mut kept = Vec::new();
    for (rec, gone) in records.into_iter().zip(gone) {
        if gone {
            continue;
        }
        match shells::detect(&rec.url, &rec.title, &rec.text, rec.fetched) {
            Some(shell) => dropped.push(Dropped {
                url: rec.url.clone(),
                title: rec.title.clone(),
                reason: shell.kind.name().into(),
                why: shell.why,
                failed_read: false,
                day: None,
            }),
            None => kept.push(rec),
        }
    }
    let (kept, folded) = canon::dedupe(kept, true);
    let tb = &params.timebox;
    let mut in_box = Vec::new();
    for rec in kept {
        match rec.day() {
            Some(day) if !tb.contains_day(day) => {
                let side = if day < tb.from { "before" } else { "after" };
                let edge = if day < tb.from { tb.from } else { tb.to };
                dropped.push(Dropped {
                    url: rec.url.clone(),
                    title: rec.title.clone(),
                    reason: "out_of_timebox".into(),
                    why: format!(
                        "published {} ({} date), {side} {}",
                        dates::format_day(day),
                        rec.date_source.name(),
                        dates::format_day(edge)
                    ),
                    failed_read: false,
                    day: Some(day),
                });
            }
            _ => in_box.push(rec),
        }
    }
    let topic = terms::topic_terms(&params.topic);
    let mut ranked = Vec::new();
    for (rec, f) in rank::rank(in_box, &topic, tb, params.now) {
        // A hit that shares no word with the topic is off it, however
        // the search engine ranked it.
        if f.relevance <= 0.0 && !topic.is_empty() {
            dropped.push(Dropped {
                url: rec.url.clone(),
                title: rec.title.clone(),
                reason: "off_topic".into(),
                why: format!(
                    "relevance 0: no word of {:?} in its title or {}",
                    params.topic,
                    if rec.fetched { "text" } else { "snippet" }
                ),
                failed_read: false,
                day: None,
            });
        } else {
            ranked.push((rec, f));
        }
    }
    let inputs: Vec<themes::Input> = ranked
        .iter()
        .map(|(r, _)| themes::Input {
            title: r.title.clone(),
            description: r.description.clone().unwrap_or_default(),
            text: r.body().to_string(),
        })
        .collect();
    let themes = themes::cluster(&inputs, &topic);
    Research {
        ranked,
        themes,
        dropped,
        deduped: merged_by_url + folded,
        failures,
        hits_by_source,
        hits,
        fetch_attempted,
        fetch_ok,
    }
}

impl Research {
    /// Drops per reason, sorted by reason (failed reads are failures,
    /// not drops).
    pub fn dropped_by_reason(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for d in self.drops() {
            *m.entry(d.reason.clone()).or_default() += 1;
        }
        m
    }

    /// Records left out on judgement (shells, out of the timebox, off
    /// topic), not for a failed read.
    pub fn drops(&self) -> impl Iterator<Item = &Dropped> {
        self.dropped.iter().filter(|d| !d.failed_read)
    }

    /// Ranked records dated inside the timebox.
    pub fn in_range(&self) -> usize {
        self.ranked
            .iter()
            .filter(|(_, f)| f.in_timebox == Some(true))
            .count()
    }

    /// True when pages were found dated, but none inside the timebox:
    /// what is left (undated snippets) is no answer for that time.
    pub fn timebox_empty(&self) -> bool {
        self.in_range() == 0 && self.dropped.iter().any(|d| d.reason == "out_of_timebox")
    }

    /// The message of the NotFound error for an empty timebox: what was
    /// found outside it, and the `days` or `from` that would take it in.
    pub fn nothing_in_range(&self, params: &Params) -> String {
        let tb = &params.timebox;
        let outside: Vec<&Dropped> = self
            .dropped
            .iter()
            .filter(|d| d.reason == "out_of_timebox")
            .collect();
        let mut msg = format!(
            "nothing dated in {} for {:?}: {} read page{} fell outside it",
            tb.label(),
            params.topic,
            outside.len(),
            if outside.len() == 1 { "" } else { "s" }
        );
        let listed: Vec<String> = outside
            .iter()
            .take(5)
            .map(|d| format!("{} ({})", d.title, d.why))
            .collect();
        msg.push_str(&format!(": {}", listed.join("; ")));
        if outside.len() > 5 {
            msg.push_str(&format!("; and {} more", outside.len() - 5));
        }
        let days: Vec<i64> = outside.iter().filter_map(|d| d.day).collect();
        let today = params.now.div_euclid(dates::DAY);
        if let Some(&oldest) = days.iter().min() {
            let newest = days.iter().copied().max().unwrap_or(oldest);
            let need = |day: i64| (today - day).clamp(1, crate::input::MAX_DAYS);
            msg.push_str(&format!(
                ". To include them, widen the timebox: days {} takes in the newest ({}), days {} all of them (or from {})",
                need(newest),
                dates::format_day(newest),
                need(oldest),
                dates::format_day(oldest)
            ));
        }
        if self.ranked.iter().any(|(r, _)| r.published.is_none()) {
            msg.push_str(&format!(
                "; {} undated snippet{} not shown as results",
                self.ranked.len(),
                if self.ranked.len() == 1 {
                    " was"
                } else {
                    "s were"
                }
            ));
        }
        msg
    }

    /// Distinct domains of the kept records.
    pub fn domains(&self) -> usize {
        let d: std::collections::BTreeSet<&str> =
            self.ranked.iter().map(|(r, _)| r.domain.as_str()).collect();
        d.len()
    }

    /// The message of the NotFound error when nothing is usable.
    pub fn nothing_usable(&self, topic: &str, timebox: &str) -> String {
        let mut msg = format!(
            "no usable record for {topic:?} in {timebox}: {} hits, {} dropped",
            self.hits,
            self.dropped.len()
        );
        let by_reason = self.dropped_by_reason();
        if !by_reason.is_empty() {
            let parts: Vec<String> = by_reason.iter().map(|(k, v)| format!("{k} {v}")).collect();
            msg.push_str(&format!(" ({})", parts.join(", ")));
        }
        if !self.failures.is_empty() {
            let parts: Vec<String> = self
                .failures
                .iter()
                .map(|f| format!("{} {}: {}", f.provider, f.code, f.message))
                .collect();
            msg.push_str(&format!("; failures: {}", parts.join("; ")));
        }
        msg
    }
}
