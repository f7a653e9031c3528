//! The JSON outputs: `records.json` (the ranked records), the compact
//! `context` (also `context.json`), the ≤ 10-line summary and the `meta`
//! figures, all built from a finished [`Research`].

use crate::dates;
use crate::gate::{Verdict, plural};
use crate::input::Params;
use crate::pipeline::Research;
use crate::render;
use webrig_workflow_sdk::serde_json::{Value, json};

/// Lines of ranked records in the summary (plus a header and a failure line).
pub const SUMMARY_RECORDS: usize = 8;
/// Records listed in the context.
pub const CONTEXT_RECORDS: usize = 8;

/// `records.json`: every kept record in rank order.
pub fn records_json(research: &Research) -> Value {
    let theme_of = |i: usize| {
        research
            .themes
            .iter()
            .find(|t| t.members.contains(&i))
            .map(|t| t.name.clone())
    };
    Value::Array(
        research
            .ranked
            .iter()
            .enumerate()
            .map(|(i, (r, f))| {
                json!({
                    "n": i + 1,
                    "title": r.title,
                    "url": r.url,
                    "canonical_key": r.key,
                    "domain": r.domain,
                    "publisher": r.publisher(),
                    "site_name": r.site_name,
                    "kind": r.kind.name(),
                    "source": r.source,
                    "providers": r.providers,
                    "fetched": r.fetched,
                    "published": r.published,
                    "date": day(r),
                    "date_source": r.date_source.name(),
                    "date_confidence": r.date_source.confidence(),
                    "age_days": f.age_days,
                    "in_timebox": f.in_timebox,
                    "recent": f.recent,
                    "relevance": f.relevance,
                    "engagement": {"score": r.score, "comments": r.comments},
                    "mentions": r.mentions,
                    "rank_score": f.score,
                    "theme": theme_of(i),
                    "author": r.author,
                    "description": r.description,
                    "text_chars": r.text_chars(),
                    "excerpt": render::truncate(r.body(), 400),
                    "also_at": r.also_at,
                })
            })
            .collect(),
    )
}

fn day(r: &crate::records::Record) -> Option<String> {
    r.published.as_deref().and_then(dates::display_day)
}

/// The compact context for an agent (kept well under 4 KB).
pub fn context(params: &Params, research: &Research, verdict: &Verdict) -> Value {
    let top: Vec<Value> = research
        .ranked
        .iter()
        .take(CONTEXT_RECORDS)
        .enumerate()
        .map(|(i, (r, _))| {
            json!({
                "n": i + 1,
                "title": render::truncate(&r.title, 90),
                "url": r.url,
                "domain": r.domain,
                "publisher": r.publisher(),
                "author": r.author,
                "date": day(r),
                "date_source": r.date_source.name(),
            })
        })
        .collect();
    let themes: Vec<Value> = research
        .themes
        .iter()
        .map(|t| json!({"name": t.name, "key_phrases": t.terms, "sources": t.members.iter().map(|i| i + 1).collect::<Vec<_>>()}))
        .collect();
    let failures: Vec<String> = research
        .failures
        .iter()
        .map(|f| format!("{}: {}", f.provider, f.code))
        .collect();
    json!({
        "topic": params.topic,
        "timebox": {
            "from": dates::format_day(params.timebox.from),
            "to": dates::format_day(params.timebox.to),
        },
        "status": verdict.status.name(),
        "records": research.ranked.len(),
        "domains": research.domains(),
        "themes": themes,
        "top": top,
        "dropped": research.dropped_by_reason(),
        "failures": failures,
        "report": "report.md",
        "data": "records.json",
    })
}

/// The compact rendering: a header line, the top records, failures.
pub fn summary(params: &Params, research: &Research, verdict: &Verdict) -> String {
    let mut lines = vec![format!(
        "{} — {} — gate {}: {} record{} from {} host{}",
        params.topic,
        params.timebox.label(),
        verdict.status.name(),
        research.ranked.len(),
        plural(research.ranked.len()),
        research.domains(),
        plural(research.domains()),
    )];
    for (i, (r, _)) in research.ranked.iter().take(SUMMARY_RECORDS).enumerate() {
        let when = match day(r) {
            Some(d) => format!("{d} ({})", r.date_source.name()),
            None => "undated".into(),
        };
        lines.push(format!(
            "{}. {} — {}, {when}",
            i + 1,
            render::truncate(&r.title, 80),
            r.publisher()
        ));
    }
    if !research.failures.is_empty() {
        let f: Vec<String> = research
            .failures
            .iter()
            .map(|f| format!("{} {}", f.provider, f.code))
            .collect();
        lines.push(format!(
            "failures: {}",
            render::truncate(&f.join(", "), 120)
        ));
    }
    lines.join("\n")
}

/// Stage figures for `meta.json`.
pub fn meta(research: &Research) -> Value {
    let in_timebox = research
        .ranked
        .iter()
        .filter(|(_, f)| f.in_timebox == Some(true))
        .count();
    let dropped_items: Vec<Value> = research
        .drops()
        .map(|d| json!({"url": d.url, "title": d.title, "reason": d.reason, "why": d.why}))
        .collect();
    let unread: Vec<Value> = research
        .dropped
        .iter()
        .filter(|d| d.failed_read)
        .map(|d| json!({"url": d.url, "title": d.title, "reason": d.reason, "why": d.why}))
        .collect();
    json!({
        "searched": {"hits": research.hits, "by_source": research.hits_by_source},
        "fetched": {"attempted": research.fetch_attempted, "ok": research.fetch_ok, "failed": unread},
        "dropped": research.dropped_by_reason(),
        "dropped_items": dropped_items,
        "deduped": research.deduped,
        "in_timebox": in_timebox,
        "undated": research.ranked.iter().filter(|(r, _)| r.published.is_none()).count(),
        "records": research.ranked.len(),
        "themes": research.themes.len(),
    })
}
