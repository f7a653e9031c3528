//! The copy, derived from the facts by fixed rules (no language model):
//! a headline, three taglines and the script, whose timing marks are the
//! storyboard's shots.

use crate::facts::{self, Product};
use crate::storyboard::{self, Shot};

/// Page-derived text made inert in Markdown.
pub use webrig_workflow_sdk::kit::escape::markdown as escape;

/// A URL Markdown may link: http(s) only, with the characters that could
/// end an autolink encoded.
pub fn link(url: &str) -> Option<String> {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| {
        url.replace(' ', "%20")
            .replace('<', "%3C")
            .replace('>', "%3E")
    })
}

/// Upper-cases the first letter.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Lower-cases the first letter unless the word looks like a name or unit
/// (all caps, or a digit).
fn lowered(s: &str) -> String {
    let first_word = s.split_whitespace().next().unwrap_or_default();
    if first_word.chars().filter(|c| c.is_uppercase()).count() > 1
        || first_word.starts_with(|c: char| c.is_ascii_digit())
    {
        return s.to_string();
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// "Ridgeline Trail Runner 2: sticky 4 mm lugs bite on loose ground" —
/// the name and its first feature (or the first sentence of the
/// description) when that is short enough, else the name.
pub fn headline(p: &Product) -> String {
    let hook = p
        .features
        .first()
        .cloned()
        .or_else(|| {
            p.description
                .split(". ")
                .next()
                .map(|s| s.trim_end_matches('.').to_string())
        })
        .filter(|h| !h.is_empty() && h.chars().count() <= 70);
    match hook {
        Some(h) => format!("{}: {}", p.name, lowered(&h)),
        None => p.name.clone(),
    }
}

/// Three distinct taglines: a feature, the specs, the offer (price and
/// rating); the brand, the seller and the name fill in when facts are few
/// (a seller by name, never a bare host).
pub fn taglines(p: &Product) -> Vec<String> {
    let mut candidates = Vec::new();
    if let Some(f) = p.features.get(1).or(p.features.first()) {
        candidates.push(format!("{}.", capitalized(f)));
    }
    if !p.specs.is_empty() {
        let s: Vec<String> = p
            .specs
            .iter()
            .take(2)
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        candidates.push(format!("{}.", s.join(". ")));
    }
    let rating = p.rating.map(|r| match p.reviews {
        Some(n) => format!("rated {r:.1}/5 by {n} reviewers"),
        None => format!("rated {r:.1}/5"),
    });
    match (facts::price_words(p), rating) {
        (Some(price), Some(r)) => candidates.push(format!("{price}, {r}.")),
        (Some(price), None) => candidates.push(format!("Yours for {price}.")),
        (None, Some(r)) => candidates.push(format!("{}.", capitalized(&r))),
        (None, None) => {}
    }
    if let Some(f) = p.features.get(2) {
        candidates.push(format!("{}.", capitalized(f)));
    }
    if let Some(b) = &p.brand {
        candidates.push(format!("From {b}."));
    }
    if let Some(seller) = facts::seller_name(p) {
        candidates.push(facts::full_stop(&format!("Sold by {seller}")));
    }
    candidates.push(format!("The {}.", p.name));
    let mut out: Vec<String> = Vec::new();
    for c in candidates {
        if !out.contains(&c) && out.len() < 3 {
            out.push(c);
        }
    }
    out
}

/// copy.md: headline, taglines, and the script with timing marks.
pub fn copy_md(p: &Product, shots: &[Shot], seconds: u32) -> String {
    let mut md = format!("# {}\n\n", escape(&headline(p)));
    md.push_str("## Taglines\n\n");
    for (i, t) in taglines(p).iter().enumerate() {
        md.push_str(&format!("{}. {}\n", i + 1, escape(t)));
    }
    md.push_str(&format!("\n## Script ({seconds} s)\n\n"));
    for s in shots {
        md.push_str(&format!(
            "**[{}–{}]** {} — on screen: {}{}  \nVO: \"{}\"\n\n",
            storyboard::clock(s.start),
            storyboard::clock(s.start + s.duration),
            s.kind,
            escape(&s.caption),
            s.image
                .as_ref()
                .map(|i| format!(" (image {})", escape(i)))
                .unwrap_or_default(),
            escape(&s.voiceover)
        ));
    }
    if let Some(u) = link(&p.url) {
        md.push_str(&format!("Source: <{u}>\n"));
    }
    md
}
