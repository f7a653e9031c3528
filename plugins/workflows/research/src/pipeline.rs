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
    /// `login_wall`, `consent`, …, `not_found`, `out_of_timebox`.
    pub reason: String,
    pub why: String,
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
                // A page that is gone, or refuses readers, is no evidence;
                // other failures (timeouts, …) leave the hit as a snippet.
                let reason = match f.code.as_str() {
                    "not_found" => Some("not_found"),
                    "auth" => Some("login_wall"),
                    _ => None,
                };
                if let Some(reason) = reason {
                    gone[i] = true;
                    dropped.push(Dropped {
                        url: rec.url.clone(),
                        title: rec.title.clone(),
                        reason: reason.into(),
                        why: format!("{} could not read it: {}", f.provider, f.message),
                    });
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
                });
            }
            _ => in_box.push(rec),
        }
    }
    let topic = terms::topic_terms(&params.topic);
    let ranked = rank::rank(in_box, &topic, tb, params.now);
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
    /// Drops per reason, sorted by reason.
    pub fn dropped_by_reason(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for d in &self.dropped {
            *m.entry(d.reason.clone()).or_default() += 1;
        }
        m
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
