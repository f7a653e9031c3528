//! The study of a brief's references: what was read from each page, the
//! ranking, the merged system, what failed — and its JSON renderings
//! (tokens.json, references.json, the run's summary and context).

use crate::defaults;
use crate::rank::{self, Page, Standing};
use crate::tokens::{self, System, Tokens};
use webrig_workflow_sdk::serde_json::{Value, json};

/// One reference page that was read.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Its position among the given URLs, from 1.
    pub number: usize,
    pub url: String,
    pub title: String,
    /// Its visible text (for ranking; not kept in the outputs).
    pub text: String,
    pub tokens: Tokens,
    /// Why it rendered with the browser's default styles (then it is
    /// weighted out of the merge), or None.
    pub unstyled: Option<String>,
    /// Its screenshot (PNG), until written; empty when none was taken.
    pub png: Vec<u8>,
    /// The bundle name of its screenshot, `screenshots/ref-<rank>.png`,
    /// given once ranked.
    pub screenshot: Option<String>,
}

/// Something that went wrong with one reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub number: usize,
    pub url: String,
    /// What was being done: open, tokens, screenshot, text.
    pub step: String,
    /// A runtime failure code (policy_blocked, timeout, …).
    pub code: String,
    pub message: String,
    /// Whether the reference was left out because of it.
    pub fatal: bool,
}

/// A read reference with its standing and merge weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    pub reference: Reference,
    pub standing: Standing,
    pub weight: f64,
}

/// Everything the outputs are rendered from.
#[derive(Clone, Debug, PartialEq)]
pub struct Study {
    pub brief: String,
    /// Best first.
    pub ranked: Vec<Ranked>,
    pub system: System,
    pub problems: Vec<Problem>,
    /// How many distinct URLs were given.
    pub given: usize,
    /// URLs given again (read once).
    pub duplicates: Vec<String>,
}

impl Study {
    /// Ranks the references against the brief and merges their tokens.
    /// References that rendered with default styles rank after every
    /// styled one and weigh nothing; screenshots are named by rank.
    pub fn new(brief: &str, refs: Vec<Reference>, problems: Vec<Problem>, given: usize) -> Study {
        let pages: Vec<Page> = refs
            .iter()
            .map(|r| Page {
                title: &r.title,
                text: &r.text,
                tokens: &r.tokens,
            })
            .collect();
        let (styled, unstyled): (Vec<Standing>, Vec<Standing>) = rank::rank(brief, &pages)
            .into_iter()
            .partition(|s| refs.get(s.index).is_some_and(|r| r.unstyled.is_none()));
        let mut weights = rank::weights(&styled);
        weights.resize(styled.len() + unstyled.len(), 0.0);
        let mut slots: Vec<Option<Reference>> = refs.into_iter().map(Some).collect();
        let ranked: Vec<Ranked> = styled
            .into_iter()
            .chain(unstyled)
            .zip(weights)
            .filter_map(|(standing, weight)| {
                let reference = slots.get_mut(standing.index)?.take()?;
                Some(Ranked {
                    reference,
                    standing,
                    weight,
                })
            })
            .enumerate()
            .map(|(i, mut r)| {
                r.reference.screenshot =
                    (!r.reference.png.is_empty()).then(|| format!("screenshots/ref-{}.png", i + 1));
                r
            })
            .collect();
        let pairs: Vec<(f64, &Tokens)> = ranked
            .iter()
            .filter(|r| r.weight > 0.0)
            .map(|r| (r.weight, &r.reference.tokens))
            .collect();
        let system = tokens::merge(&pairs);
        Study {
            brief: brief.to_string(),
            ranked,
            system,
            problems,
            given,
            duplicates: Vec::new(),
        }
    }

    /// "pass" when nothing failed, else "partial".
    pub fn status(&self) -> &'static str {
        if self.problems.is_empty() {
            "pass"
        } else {
            "partial"
        }
    }

    /// The problems that left references out.
    pub fn unread(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.fatal)
    }

    /// The read references that rendered with default styles.
    pub fn unstyled(&self) -> impl Iterator<Item = &Ranked> {
        self.ranked
            .iter()
            .filter(|r| r.reference.unstyled.is_some())
    }
}

/// Whether a read page rendered with the browser's default styles (the
/// reason), and the problems its styles make: a page of defaults, or
/// stylesheets that failed while others loaded.
pub fn styles(number: usize, url: &str, tokens: &Tokens) -> (Option<String>, Vec<Problem>) {
    let unstyled = defaults::unstyled(tokens);
    let problems = unstyled
        .iter()
        .cloned()
        .chain(defaults::partly_unstyled(tokens))
        .map(|message| Problem {
            number,
            url: url.to_string(),
            step: "styles".into(),
            code: "upstream".into(),
            message,
            fatal: false,
        })
        .collect();
    (unstyled, problems)
}

/// The proposed system as JSON.
pub fn system_json(s: &System) -> Value {
    let shares = |v: &[tokens::Share], key: &str| -> Vec<Value> {
        v.iter()
            .map(|x| json!({key: x.value, "share": (x.share * 1000.0).round() / 1000.0}))
            .collect()
    };
    json!({
        "background": s.background,
        "foreground": s.foreground,
        "accent": s.accent,
        "palette": shares(&s.palette, "color"),
        "fonts": shares(&s.fonts, "family"),
        "type_scale": s.type_scale,
        "spacing": s.spacing,
        "radii": s.radii,
        "shadows": s.shadows,
    })
}

/// tokens.json: the proposed system, then each reference's own tokens.
pub fn tokens_json(study: &Study) -> Value {
    json!({
        "brief": study.brief,
        "proposed": system_json(&study.system),
        "weights": study.ranked.iter().filter(|r| r.weight > 0.0).map(|r| json!({
            "url": r.reference.url, "weight": (r.weight * 1000.0).round() / 1000.0,
        })).collect::<Vec<_>>(),
        "references": study.ranked.iter().enumerate().map(|(i, r)| json!({
            "rank": i + 1,
            "url": r.reference.url,
            "tokens": r.reference.tokens.to_json(),
        })).collect::<Vec<_>>(),
    })
}

/// references.json: every given URL in rank order, unread ones last with
/// why.
pub fn references_json(study: &Study) -> Value {
    let mut out: Vec<Value> = study
        .ranked
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "number": r.reference.number,
                "rank": i + 1,
                "url": r.reference.url,
                "title": r.reference.title,
                "score": r.standing.score,
                "why": rank::why(&r.standing),
                "matched": r.standing.matched.iter().map(|m| json!({
                    "word": m.word,
                    "places": m.places.iter().map(|p| p.name()).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "weight": (r.weight * 1000.0).round() / 1000.0,
                "screenshot": r.reference.screenshot,
                "status": if r.reference.unstyled.is_some() { "default_styles" } else { "read" },
                "default_styles": r.reference.unstyled,
                "problems": problems_of(study, r.reference.number),
            })
        })
        .collect();
    for p in study.unread() {
        out.push(json!({
            "number": p.number,
            "url": p.url,
            "status": "failed",
            "problems": problems_of(study, p.number),
        }));
    }
    Value::Array(out)
}

fn problems_of(study: &Study, number: usize) -> Vec<Value> {
    study
        .problems
        .iter()
        .filter(|p| p.number == number)
        .map(|p| json!({"step": p.step, "code": p.code, "message": p.message}))
        .collect()
}

/// At most `n` characters of `s` on one line, with an ellipsis when cut.
pub fn clip(s: &str, n: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n {
        return one;
    }
    let mut out: String = one.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A share (0..1) as a whole percentage; "<1%" for a sliver.
pub fn pct(share: f64) -> String {
    if share > 0.0 && share < 0.005 {
        "<1%".into()
    } else {
        format!("{:.0}%", share * 100.0)
    }
}

/// What a reference is called: its title, else its URL.
pub fn label(r: &Reference) -> String {
    if r.title.trim().is_empty() {
        clip(&r.url, 80)
    } else {
        clip(&r.title, 80)
    }
}

fn px(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    let s: Vec<String> = v.iter().map(u32::to_string).collect();
    format!("{} px", s.join(" "))
}

/// The compact rendering: at most 10 lines.
pub fn summary(study: &Study) -> String {
    let mut lines = vec![format!(
        "Design brief \"{}\": {} of {} references read",
        clip(&study.brief, 60),
        study.ranked.len(),
        study.given
    )];
    for (i, r) in study.ranked.iter().take(4).enumerate() {
        lines.push(format!(
            "{}. {} (score {}{}) {}",
            i + 1,
            label(&r.reference),
            r.standing.score,
            if r.reference.unstyled.is_some() {
                "; default styles, weighted out"
            } else {
                ""
            },
            clip(&r.reference.url, 60)
        ));
    }
    if study.ranked.len() > 4 {
        lines.push(format!("   … {} more", study.ranked.len() - 4));
    }
    let s = &study.system;
    let palette: Vec<String> = s
        .palette
        .iter()
        .take(6)
        .map(|c| format!("{} {}", c.value, pct(c.share)))
        .collect();
    lines.push(format!("Palette: {}", palette.join(", ")));
    if let Some(f) = s.fonts.first() {
        lines.push(format!(
            "Type: {}; {}",
            clip(&f.value, 50),
            px(&s.type_scale)
        ));
    }
    lines.push(format!(
        "Spacing: {}; radii: {}",
        px(&s.spacing),
        px(&s.radii)
    ));
    if !study.problems.is_empty() {
        lines.push(format!(
            "Failures: {}, {} of {} references not read, {} with default styles; see references.json",
            study.problems.len(),
            study.unread().count(),
            study.given,
            study.unstyled().count()
        ));
    }
    if !study.duplicates.is_empty() {
        lines.push(format!(
            "{} duplicate URL(s) read once",
            study.duplicates.len()
        ));
    }
    lines.truncate(10);
    lines.join("\n")
}

/// The small JSON value for an agent's context.
pub fn context(study: &Study) -> Value {
    let s = &study.system;
    json!({
        "brief": clip(&study.brief, 300),
        "references": study.ranked.iter().map(|r| json!({
            "url": clip(&r.reference.url, 200),
            "title": clip(&r.reference.title, 80),
            "score": r.standing.score,
        })).collect::<Vec<_>>(),
        "proposed": {
            "background": s.background,
            "foreground": s.foreground,
            "accent": s.accent,
            "palette": s.palette.iter().map(|c| c.value.clone()).collect::<Vec<_>>(),
            "fonts": s.fonts.iter().map(|f| clip(&f.value, 100)).collect::<Vec<_>>(),
            "type_scale": s.type_scale,
            "spacing": s.spacing,
            "radii": s.radii,
        },
        "failures": study.problems.len(),
        "default_styles": study.unstyled().map(|r| clip(&r.reference.url, 200)).collect::<Vec<_>>(),
        "duplicates": study.duplicates.len(),
        "files": ["design-brief.md", "tokens.json", "references.json", "report.html"],
    })
}

#[cfg(test)]
#[path = "study_tests.rs"]
pub(crate) mod tests;
