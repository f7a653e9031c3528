//! The storyboard: ordered shots whose whole-second durations sum to the
//! requested length, each with a caption, a voice-over line, an image
//! (only files actually downloaded into the bundle) and the transition
//! into the next shot.
//!
//! Shots, in order: intro (the name), one per feature, the specs, the
//! price, the rating, the outro (who sells it — a seller's or shop's name,
//! never a bare host). The intro says what the product does (the
//! description's first sentence). When the length leaves
//! fewer slots than that (at least 4 s a shot), the intro, outro, price,
//! first feature, specs and rating win, then the other features.

use crate::facts::{self, Product};

/// Seconds a shot gets at least (while there are enough seconds).
pub const MIN_SHOT: u32 = 4;

#[derive(Debug, Clone, PartialEq)]
pub struct Shot {
    /// intro, feature, specs, price, rating or outro.
    pub kind: &'static str,
    pub start: u32,
    pub duration: u32,
    pub caption: String,
    pub voiceover: String,
    /// Bundle-relative image file, when one was downloaded.
    pub image: Option<String>,
    /// Into the next shot: cut or crossfade; fade-out after the last.
    pub transition: &'static str,
}

/// A shot before timing: its order on screen and its priority for a slot.
struct Draft {
    kind: &'static str,
    caption: String,
    voiceover: String,
    priority: u32,
}

fn drafts(p: &Product) -> Vec<Draft> {
    let voiceover = match facts::lead(p) {
        Some(lead) => format!("Meet the {}: {}.", p.name, lowered_article(&lead)),
        None => format!("Meet the {}.", p.name),
    };
    let mut out = vec![Draft {
        kind: "intro",
        caption: p.name.clone(),
        voiceover,
        priority: 0,
    }];
    for (i, f) in p.features.iter().enumerate() {
        out.push(Draft {
            kind: "feature",
            caption: f.clone(),
            voiceover: format!("{f}."),
            priority: if i == 0 { 3 } else { 10 + i as u32 },
        });
    }
    if !p.specs.is_empty() {
        let shown: Vec<String> = p
            .specs
            .iter()
            .take(3)
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        out.push(Draft {
            kind: "specs",
            caption: shown.join(" · "),
            voiceover: format!("{}.", shown.join(", ")),
            priority: 4,
        });
    }
    if let Some(price) = facts::price_words(p) {
        let stock = match p.availability.as_deref() {
            Some("in_stock") => ", in stock now",
            Some("limited") => ", while stock lasts",
            Some("pre_order") => ", available to pre-order",
            Some("back_order") => ", on back-order",
            Some("out_of_stock") => ", back soon",
            _ => "",
        };
        out.push(Draft {
            kind: "price",
            caption: format!("{price}{stock}"),
            voiceover: format!("All for {price}{stock}."),
            priority: 2,
        });
    }
    if let Some(r) = p.rating {
        let by = p
            .reviews
            .map(|n| format!(" from {n} reviews"))
            .unwrap_or_default();
        out.push(Draft {
            kind: "rating",
            caption: format!("Rated {r:.1}/5{by}"),
            voiceover: format!("Rated {r:.1} out of 5{by}."),
            priority: 5,
        });
    }
    let brand = p
        .brand
        .as_ref()
        .filter(|b| !p.name.to_lowercase().contains(&b.to_lowercase()))
        .map(|b| format!("{b} "))
        .unwrap_or_default();
    let (caption, voiceover) = match facts::seller_name(p) {
        Some(seller) => (
            format!("{brand}{} — {seller}", p.name),
            facts::full_stop(&format!("The {brand}{}. Find it at {seller}", p.name)),
        ),
        None => (
            format!("{brand}{}", p.name),
            format!("The {brand}{}.", p.name),
        ),
    };
    out.push(Draft {
        kind: "outro",
        caption,
        voiceover,
        priority: 1,
    });
    out
}

/// "A light trail shoe" → "a light trail shoe" after "Meet the X:"; other
/// first words (names, "Ridgeline's") stay as written.
fn lowered_article(s: &str) -> String {
    for article in ["A ", "An ", "The "] {
        if let Some(rest) = s.strip_prefix(article) {
            return format!("{}{rest}", article.to_lowercase());
        }
    }
    s.to_string()
}

/// Whole seconds for `n` shots summing to `total`: equal shares, the
/// first shots one second longer when it does not divide.
pub fn split(total: u32, n: usize) -> Vec<u32> {
    if n == 0 {
        return Vec::new();
    }
    let n32 = n as u32;
    (0..n32)
        .map(|i| total / n32 + u32::from(i < total % n32))
        .collect()
}

/// Plans the shots for `seconds`; `images` are the downloaded files in
/// page order, given to the shots in turn.
pub fn plan(p: &Product, images: &[String], seconds: u32) -> Vec<Shot> {
    let mut all = drafts(p);
    let slots = ((seconds / MIN_SHOT) as usize).max(1);
    if all.len() > slots {
        let mut by_priority: Vec<usize> = (0..all.len()).collect();
        by_priority.sort_by_key(|&i| (all[i].priority, i));
        let mut keep = vec![false; all.len()];
        for &i in by_priority.iter().take(slots) {
            keep[i] = true;
        }
        let mut k = keep.into_iter();
        all.retain(|_| k.next().unwrap_or(false));
    }
    let durations = split(seconds, all.len());
    let last = all.len().saturating_sub(1);
    let mut start = 0;
    all.into_iter()
        .zip(durations)
        .enumerate()
        .map(|(i, (d, duration))| {
            let shot = Shot {
                kind: d.kind,
                start,
                duration,
                caption: d.caption,
                voiceover: d.voiceover,
                image: (!images.is_empty()).then(|| images[i % images.len()].clone()),
                transition: if i == last {
                    "fade-out"
                } else if i % 2 == 0 {
                    "crossfade"
                } else {
                    "cut"
                },
            };
            start += duration;
            shot
        })
        .collect()
}

/// `0:05`.
pub fn clock(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}
