//! `report.md`: topic, timebox, gate, themes with cited claims, numbered
//! sources, confidence, limitations and failures. Sources are numbered by
//! rank (`[1]` is the top record) and every claim cites the records it
//! comes from.

use crate::dates;
use crate::gate::{Verdict, plural};
use crate::input::Params;
use crate::pipeline::Research;
use crate::records::{DateSource, Record};
use crate::themes::Theme;
use std::collections::BTreeSet;

/// Claims shown per theme.
pub const CLAIMS_PER_THEME: usize = 3;
/// Longest claim sentence, in characters.
pub const CLAIM_CHARS: usize = 240;

/// One statement taken from a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub text: String,
    /// Source numbers (1-based ranks).
    pub cites: Vec<usize>,
    pub confidence: &'static str,
}

/// The record's lead: its description, else the first sentence of its
/// text, else its title; at most [`CLAIM_CHARS`] characters.
pub fn lead_sentence(r: &Record) -> String {
    let desc = r.description.as_deref().map(str::trim).unwrap_or_default();
    // Page text often opens with the headline: skip it. (A post's title is
    // the start of its text, which must stay.)
    let body = r.body().trim_start();
    let title = r.title.trim();
    let body = match body.strip_prefix(title) {
        Some(rest) if r.fetched && !title.is_empty() && rest.starts_with(char::is_whitespace) => {
            rest
        }
        _ => body,
    };
    let s = if desc.chars().count() >= 30 {
        desc.to_string()
    } else {
        first_sentence(body).unwrap_or_else(|| r.title.clone())
    };
    truncate(&s, CLAIM_CHARS)
}

pub fn first_sentence(text: &str) -> Option<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() < 30 {
        return None;
    }
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '?' | '!') && text[..i].chars().count() >= 30 {
            let next = text[i + c.len_utf8()..].chars().next();
            if next.is_none_or(char::is_whitespace) {
                end = i + c.len_utf8();
                break;
            }
        }
    }
    Some(text[..end].to_string())
}

/// At most `max` characters, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// The claims of a theme: the leads of its top records, each citing it.
pub fn claims(theme: &Theme, research: &Research) -> Vec<Claim> {
    let domains: BTreeSet<&str> = theme
        .members
        .iter()
        .filter_map(|&i| research.ranked.get(i))
        .map(|(r, _)| r.domain.as_str())
        .collect();
    theme
        .members
        .iter()
        .take(CLAIMS_PER_THEME)
        .filter_map(|&i| research.ranked.get(i).map(|(r, _)| (i, r)))
        .map(|(i, r)| Claim {
            text: lead_sentence(r),
            cites: vec![i + 1],
            confidence: claim_confidence(r, domains.len()),
        })
        .collect()
}

/// `high`: a page-dated article of substance in a theme that spans two
/// domains or more; `medium`: dated or substantial; `low` otherwise.
pub fn claim_confidence(r: &Record, theme_domains: usize) -> &'static str {
    let substantial = r.text_chars() >= crate::rank::SUBSTANTIAL;
    match r.date_source {
        DateSource::Page if substantial && theme_domains >= 2 => "high",
        DateSource::Page | DateSource::Post => "medium",
        DateSource::None if substantial => "medium",
        DateSource::None => "low",
    }
}

/// `2026-11-24 (page date, high confidence)` or `undated (low confidence)`.
pub fn date_label(r: &Record) -> String {
    match r.published.as_deref().and_then(dates::display_day) {
        Some(d) => format!(
            "{d} ({} date, {} confidence)",
            r.date_source.name(),
            r.date_source.confidence()
        ),
        None => format!("undated ({} confidence)", r.date_source.confidence()),
    }
}

fn engagement(r: &Record) -> String {
    match (r.score, r.comments) {
        (0, 0) => String::new(),
        (s, c) => format!(
            " · {s} point{}, {c} comment{}",
            plural(s as usize),
            plural(c as usize)
        ),
    }
}

fn md_escape(s: &str) -> String {
    s.replace('[', "\\[").replace(']', "\\]")
}

/// The whole report.
pub fn report(params: &Params, research: &Research, verdict: &Verdict) -> String {
    let mut md = format!("# Research: {}\n\n", params.topic);
    let tb = &params.timebox;
    let how = match tb.given {
        "default" => "default".to_string(),
        g => format!("from {g}"),
    };
    md.push_str(&format!(
        "- **Timebox:** {} ({} days, {how}; reference time {})\n",
        tb.label(),
        tb.span_days(),
        params.now_text
    ));
    let searched: Vec<String> = research
        .hits_by_source
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    md.push_str(&format!(
        "- **Searched:** {} hits ({}); fetched {} of {} pages\n",
        research.hits,
        if searched.is_empty() {
            "none".into()
        } else {
            searched.join(", ")
        },
        research.fetch_ok,
        research.fetch_attempted
    ));
    md.push_str(&format!(
        "- **Evidence gate:** **{}** — {}\n",
        verdict.status.name(),
        verdict.reason
    ));
    md.push_str(&format!(
        "- **Kept:** {} records; {} dropped; {} duplicates folded\n\n",
        research.ranked.len(),
        research.dropped.len(),
        research.deduped
    ));

    md.push_str("## Themes\n\n");
    for theme in &research.themes {
        let cites: Vec<String> = theme
            .members
            .iter()
            .map(|i| format!("[{}]", i + 1))
            .collect();
        md.push_str(&format!(
            "### {} ({} source{}: {})\n\n",
            theme.name,
            theme.members.len(),
            plural(theme.members.len()),
            cites.join("")
        ));
        for c in claims(theme, research) {
            let cites: String = c.cites.iter().map(|n| format!("[{n}]")).collect();
            md.push_str(&format!(
                "- {} {cites} — {} confidence\n",
                c.text, c.confidence
            ));
        }
        md.push('\n');
    }

    md.push_str("## Sources\n\n");
    for (i, (r, f)) in research.ranked.iter().enumerate() {
        let read = if r.fetched {
            format!("read, {} characters", r.text_chars())
        } else {
            format!("{} (not fetched: search snippet only)", r.kind.name())
        };
        md.push_str(&format!(
            "[{}] [{}]({}) — {} · {} · {read}{} · via {} · rank score {:.3}\n",
            i + 1,
            md_escape(&r.title),
            r.url,
            r.domain,
            date_label(r),
            engagement(r),
            r.providers.join(", "),
            f.score
        ));
    }
    md.push('\n');

    md.push_str("## Confidence\n\n");
    let by_source = |ds: DateSource| {
        research
            .ranked
            .iter()
            .filter(|(r, _)| r.date_source == ds)
            .count()
    };
    md.push_str(&format!(
        "- Dates: {} from the page itself (high), {} from the post that is the content (medium), {} undated (low).\n",
        by_source(DateSource::Page),
        by_source(DateSource::Post),
        by_source(DateSource::None)
    ));
    md.push_str(&format!(
        "- {} of {} records were read in full; the others rest on a search snippet.\n\n",
        research.ranked.iter().filter(|(r, _)| r.fetched).count(),
        research.ranked.len()
    ));

    md.push_str("## Limitations\n\n");
    md.push_str(&limitations(research));
    md.push_str("\n## Failures\n\n");
    if research.failures.is_empty() {
        md.push_str("None.\n");
    }
    for f in &research.failures {
        md.push_str(&format!("- {}: {} — {}\n", f.provider, f.code, f.message));
    }
    md
}

fn limitations(research: &Research) -> String {
    let mut out = String::new();
    let cite = |pred: &dyn Fn(&Record) -> bool| -> Vec<String> {
        research
            .ranked
            .iter()
            .enumerate()
            .filter(|(_, (r, _))| pred(r))
            .map(|(i, _)| format!("[{}]", i + 1))
            .collect()
    };
    let undated = cite(&|r| r.published.is_none());
    if !undated.is_empty() {
        out.push_str(&format!(
            "- Undated, so not known to fall in the timebox: {}.\n",
            undated.join("")
        ));
    }
    let snippets = cite(&|r| !r.fetched && r.kind == crate::records::Kind::Page);
    if !snippets.is_empty() {
        out.push_str(&format!(
            "- Pages not fetched (snippet only, no page date): {}.\n",
            snippets.join("")
        ));
    }
    for d in &research.dropped {
        out.push_str(&format!(
            "- Dropped ({}): {} — {}\n",
            d.reason.replace('_', " "),
            d.url,
            d.why
        ));
    }
    if out.is_empty() {
        out.push_str("None noted.\n");
    }
    out
}
