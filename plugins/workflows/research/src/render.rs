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
    /// How far the source's *date* can be trusted ([`date_label`]): a
    /// label about the date, not about the claim.
    pub date: String,
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
    theme
        .members
        .iter()
        .take(CLAIMS_PER_THEME)
        .filter_map(|&i| research.ranked.get(i).map(|(r, _)| (i, r)))
        .map(|(i, r)| Claim {
            text: lead_sentence(r),
            cites: vec![i + 1],
            date: date_label(r),
        })
        .collect()
}

/// `2026-11-24 (date from the page; date confidence high)` or `undated
/// (date confidence low)`. The day is the one the page wrote, in its own
/// offset.
pub fn date_label(r: &Record) -> String {
    let from = match r.date_source {
        DateSource::Page => "date from the page",
        DateSource::Post => "date of the post",
        DateSource::None => "no date",
    };
    match r.published.as_deref().and_then(dates::display_day) {
        Some(d) => format!(
            "{d} ({from}; date confidence {})",
            r.date_source.confidence()
        ),
        None => format!("undated (date confidence {})", r.date_source.confidence()),
    }
}

/// `Bytecode Weekly (bytecodeweekly.example)`, or the host alone when
/// the page names no publisher.
pub fn publisher_label(r: &Record) -> String {
    let name = r.publisher();
    if name == r.domain {
        name
    } else {
        format!("{name} ({})", r.domain)
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
        "- **Kept:** {} records from {} host{}; {} dropped; {} duplicates folded; {} failure{}\n\n",
        research.ranked.len(),
        research.domains(),
        plural(research.domains()),
        research.drops().count(),
        research.deduped,
        research.failures.len(),
        plural(research.failures.len())
    ));

    md.push_str("## Themes\n\n");
    for theme in &research.themes {
        let cites: Vec<String> = theme
            .members
            .iter()
            .map(|i| format!("[{}]", i + 1))
            .collect();
        let n = theme.members.len();
        if theme.is_unrelated() {
            md.push_str(&format!(
                "### Unrelated ({n} source{}: {})\n\nThese share no key phrase with another source.\n\n",
                plural(n),
                cites.join("")
            ));
        } else {
            md.push_str(&format!(
                "### {} ({n} source{}: {})\n\n",
                theme.name,
                plural(n),
                cites.join("")
            ));
            let also = match theme.terms.get(1) {
                Some(t) => format!("; also shared: “{t}”"),
                None => String::new(),
            };
            md.push_str(&format!(
                "Key phrase in every source: “{}”{also}.\n\n",
                theme.name
            ));
        }
        for c in claims(theme, research) {
            let cites: String = c.cites.iter().map(|n| format!("[{n}]")).collect();
            md.push_str(&format!("- {} {cites} — {}\n", c.text, c.date));
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
        let by = match &r.author {
            Some(a) => format!(" · by {a}"),
            None => String::new(),
        };
        md.push_str(&format!(
            "[{}] [{}]({}) — {}{by} · {} · {read}{} · via {} · rank score {:.3}\n",
            i + 1,
            md_escape(&r.title),
            r.url,
            publisher_label(r),
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
        "- Date confidence: {} dated by the page itself (high), {} by the post that is the content (medium), {} undated (low). Dates are shown as the page wrote them, in its own offset.\n",
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
    let unread = research.dropped.iter().filter(|d| d.failed_read).count();
    if unread > 0 {
        md.push_str(&format!(
            "\n{unread} page{} could not be read; {} not among the sources or themes.\n",
            plural(unread),
            if unread == 1 { "it is" } else { "they are" }
        ));
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
    for d in research.drops() {
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
