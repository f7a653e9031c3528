//! Ranking references against the brief: the brief's significant words are
//! looked up in each page's title, its design (font families and their
//! kind, colour words of its palette, shapes) and its text. Deterministic:
//! ties keep the order the references were given in.

use crate::color::{self, Rgb};
use crate::tokens::Tokens;
use std::collections::BTreeSet;

/// Where a brief word was found, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Title,
    Design,
    Text,
}

impl Place {
    pub fn name(self) -> &'static str {
        match self {
            Place::Title => "title",
            Place::Design => "design",
            Place::Text => "text",
        }
    }

    /// Points a word earns when found here.
    fn weight(self) -> u32 {
        match self {
            Place::Title => 3,
            Place::Design => 3,
            Place::Text => 1,
        }
    }
}

/// One brief word a reference matched, and everywhere it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    pub word: String,
    pub places: Vec<Place>,
}

/// A reference's standing against the brief.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// Position of the reference in the input (0-based).
    pub index: usize,
    pub score: u32,
    pub matched: Vec<Match>,
}

const STOP: &[&str] = &[
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "but", "by", "can",
    "color", "design", "each", "feel", "font", "for", "from", "has", "have", "in", "into", "is",
    "it", "its", "like", "look", "more", "much", "my", "new", "no", "not", "of", "on", "or", "our",
    "page", "site", "so", "some", "style", "that", "the", "their", "this", "to", "type", "very",
    "want", "we", "website", "with", "without", "you", "your",
];

/// A word reduced so that plural and spelling variants meet
/// (colours → color, greys → gray, monospaced → monospace).
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    match w.as_str() {
        "colour" | "colours" | "colors" | "coloured" | "colored" => "color".to_string(),
        "grey" | "greys" => "gray".to_string(),
        "mono" | "monospaced" => "monospace".to_string(),
        _ if w.len() > 4 && w.ends_with("ies") => format!("{}y", &w[..w.len() - 3]),
        _ if w.len() > 3
            && w.ends_with('s')
            && !w.ends_with("ss")
            && !w.ends_with("us")
            && !w.ends_with("is")
            && w != "sans" =>
        {
            w[..w.len() - 1].to_string()
        }
        _ => w,
    }
}

/// The stemmed words of `text` ("sans-serif" is one word: `sans`).
pub fn words(text: &str) -> Vec<String> {
    let text = text
        .to_lowercase()
        .replace("sans-serif", "sans")
        .replace("sans serif", "sans");
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(stem)
        .collect()
}

/// The brief's significant words, once each, in order.
pub fn brief_words(brief: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(brief) {
        if w.chars().count() >= 3 && !STOP.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Words for a font stack: its names and its kind (serif, sans, monospace).
pub fn font_words(family: &str) -> Vec<String> {
    let mut out = words(family);
    let lower = family.to_lowercase();
    let kind = if lower.contains("mono") || lower.contains("courier") || lower.contains("consolas")
    {
        "monospace"
    } else if lower.contains("sans")
        || ["helvetica", "arial", "inter", "roboto", "system-ui"]
            .iter()
            .any(|f| lower.contains(f))
    {
        "sans"
    } else if lower.contains("serif")
        || ["georgia", "times", "garamond", "baskerville"]
            .iter()
            .any(|f| lower.contains(f))
    {
        "serif"
    } else {
        ""
    };
    if !kind.is_empty() {
        out.push(kind.to_string());
    }
    out
}

/// Words the design itself suggests: fonts, colour words of the palette's
/// main colours, shapes (rounded or square corners, shadows or glow).
pub fn design_words(t: &Tokens) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in t.fonts.iter().take(3) {
        out.extend(font_words(&f.family));
    }
    let white = Rgb(255, 255, 255);
    let colours = t.palette.iter().take(8).map(|s| s.color.as_str());
    for c in colours.chain([t.background.as_str()]) {
        if let Some(rgb) = color::parse(c, white) {
            out.extend(color::words(rgb).into_iter().map(String::from));
        }
    }
    if let Some(bg) = color::parse(&t.background, white) {
        out.insert(if bg.hcl().2 < 0.3 { "dark" } else { "light" }.to_string());
    }
    let shape: &[&str] = match t.radii.iter().filter(|r| **r < 999).max() {
        None => &["square", "sharp", "hard"],
        Some(r) if *r >= 16 => &["rounded", "round", "soft"],
        Some(_) => &["rounded"],
    };
    out.extend(shape.iter().map(|s| s.to_string()));
    if t.shadows.iter().any(|s| s.contains(" 0px 0px ")) {
        out.insert("glow".into());
    }
    if !t.shadows.is_empty() {
        out.insert("shadow".into());
    }
    out
}

/// One page as the ranking sees it.
pub struct Page<'a> {
    pub title: &'a str,
    pub text: &'a str,
    pub tokens: &'a Tokens,
}

/// Scores one page: each brief word earns the points of the strongest
/// place it was found in (title 3, design 3, text 1).
pub fn standing(index: usize, brief: &[String], page: &Page) -> Standing {
    let title: BTreeSet<String> = words(page.title).into_iter().collect();
    let text: BTreeSet<String> = words(page.text).into_iter().collect();
    let design = design_words(page.tokens);
    let mut matched = Vec::new();
    let mut score = 0;
    for w in brief {
        let places: Vec<Place> = [
            (Place::Title, title.contains(w)),
            (Place::Design, design.contains(w)),
            (Place::Text, text.contains(w)),
        ]
        .into_iter()
        .filter_map(|(p, found)| found.then_some(p))
        .collect();
        if let Some(best) = places.iter().map(|p| p.weight()).max() {
            score += best;
            matched.push(Match {
                word: w.clone(),
                places,
            });
        }
    }
    Standing {
        index,
        score,
        matched,
    }
}

/// Every page's standing, best first (ties in input order).
pub fn rank(brief: &str, pages: &[Page]) -> Vec<Standing> {
    let words = brief_words(brief);
    let mut out: Vec<Standing> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| standing(i, &words, p))
        .collect();
    out.sort_by(|a, b| b.score.cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}

/// Merge weights for the ranked references: the top three, by score
/// relative to the best (those under a third of it left out); when the
/// brief matched nothing, 1, ½, ¼ in rank order.
pub fn weights(ranked: &[Standing]) -> Vec<f64> {
    let best = ranked.first().map_or(0, |s| s.score);
    ranked
        .iter()
        .enumerate()
        .map(|(i, s)| match i {
            3.. => 0.0,
            _ if best == 0 => 0.5f64.powi(i as i32),
            _ => {
                let w = s.score as f64 / best as f64;
                if w >= 1.0 / 3.0 { w } else { 0.0 }
            }
        })
        .collect()
}

/// Why a reference ranked where it did, e.g. `calm (title, text), serif (design)`.
pub fn why(s: &Standing) -> String {
    if s.matched.is_empty() {
        return "no word of the brief found".into();
    }
    s.matched
        .iter()
        .map(|m| {
            let places: Vec<&str> = m.places.iter().map(|p| p.name()).collect();
            format!("{} ({})", m.word, places.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "rank_tests.rs"]
mod tests;
