//! A page's design tokens as the host's `design.tokens` reports them, read
//! leniently (pages are guest data: a bad entry is skipped, not fatal), and
//! the merge of several references' tokens into one proposed system.

use crate::color::{self, Rgb};
use crate::{defaults, fonts};
use webrig_workflow_sdk::serde_json::{Value, json};

/// One colour and the pixels painted with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Swatch {
    pub color: String,
    pub area: f64,
}

/// One font-family stack and the text area set in it.
#[derive(Clone, Debug, PartialEq)]
pub struct FontUse {
    pub family: String,
    pub area: f64,
}

/// What one page's computed styles say about its design.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tokens {
    pub palette: Vec<Swatch>,
    pub fonts: Vec<FontUse>,
    pub type_scale: Vec<u32>,
    pub spacing: Vec<u32>,
    pub radii: Vec<u32>,
    pub shadows: Vec<String>,
    pub background: String,
    pub foreground: String,
    /// The document's HTTP status (0 when the page could not tell).
    pub status: u16,
    pub stylesheets: Stylesheets,
}

/// The page's linked stylesheets and those that failed to load.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stylesheets {
    pub linked: usize,
    /// Their URLs (at most 8).
    pub failed: Vec<String>,
}

/// Longest font stack or shadow kept from a page.
const MAX_CSS: usize = 200;

impl Tokens {
    /// Reads the JSON the host returns; entries that are not what the WIT
    /// documents are left out. Errors only when it is not a JSON object.
    pub fn parse(text: &str) -> Result<Tokens, String> {
        let v: Value = webrig_workflow_sdk::serde_json::from_str(text)
            .map_err(|e| format!("the design tokens are not JSON: {e}"))?;
        if !v.is_object() {
            return Err("the design tokens are not a JSON object".into());
        }
        let background = v["background"]
            .as_str()
            .and_then(color::normalize)
            .unwrap_or_else(|| "#ffffff".into());
        let under = color::parse(&background, Rgb(255, 255, 255)).unwrap_or(Rgb(255, 255, 255));
        let area = |e: &Value| e["area"].as_f64().filter(|a| a.is_finite() && *a > 0.0);
        let mut palette: Vec<Swatch> = Vec::new();
        for e in v["palette"].as_array().into_iter().flatten() {
            let (Some(c), Some(a)) = (e["color"].as_str(), area(e)) else {
                continue;
            };
            let Some(c) = color::parse(c, under).map(Rgb::hex) else {
                continue;
            };
            match palette.iter_mut().find(|s| s.color == c) {
                Some(s) => s.area += a,
                None => palette.push(Swatch { color: c, area: a }),
            }
        }
        palette.sort_by(|a, b| b.area.total_cmp(&a.area).then(a.color.cmp(&b.color)));
        let fonts = v["fonts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let family = e["family"].as_str()?.trim();
                let area = area(e)?;
                (!family.is_empty() && family.len() <= MAX_CSS).then(|| FontUse {
                    family: family.to_string(),
                    area,
                })
            })
            .collect();
        let foreground = v["foreground"]
            .as_str()
            .and_then(|c| color::parse(c, under))
            .map(Rgb::hex)
            .unwrap_or_else(|| "#000000".into());
        Ok(Tokens {
            palette,
            fonts,
            type_scale: pixels(&v["type_scale"]),
            spacing: pixels(&v["spacing"]),
            radii: pixels(&v["radii"]),
            shadows: v["shadows"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str())
                .filter(|s| !s.is_empty() && s.len() <= MAX_CSS)
                .map(str::to_string)
                .collect(),
            background,
            foreground,
            status: v["status"]
                .as_u64()
                .and_then(|n| u16::try_from(n).ok())
                .unwrap_or(0),
            stylesheets: Stylesheets {
                linked: v["stylesheets"]["linked"]
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .unwrap_or(0),
                failed: v["stylesheets"]["failed"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .take(8)
                    .map(|u| u.chars().take(MAX_CSS * 2).collect())
                    .collect(),
            },
        })
    }

    /// As JSON, in the shape the host reported it.
    pub fn to_json(&self) -> Value {
        json!({
            "palette": self.palette.iter().map(|s| json!({"color": s.color, "area": s.area.round()})).collect::<Vec<_>>(),
            "fonts": self.fonts.iter().map(|f| json!({"family": f.family, "area": f.area.round()})).collect::<Vec<_>>(),
            "type_scale": self.type_scale,
            "spacing": self.spacing,
            "radii": self.radii,
            "shadows": self.shadows,
            "background": self.background,
            "foreground": self.foreground,
            "status": self.status,
            "stylesheets": {"linked": self.stylesheets.linked, "failed": self.stylesheets.failed},
        })
    }
}

/// Distinct positive whole pixels, sorted.
fn pixels(v: &Value) -> Vec<u32> {
    let mut out: Vec<u32> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .filter(|n| n.is_finite() && *n > 0.0 && *n < 100_000.0)
        .map(|n| n.round() as u32)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A colour of the proposed palette and its weighted share (0..1).
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    pub value: String,
    pub share: f64,
}

/// The proposed design system merged from the weighted references.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct System {
    pub palette: Vec<Share>,
    pub background: String,
    pub foreground: String,
    /// The colour with the most share × chroma that is neither background
    /// nor text (a little vivid colour beats a lot of a muted one).
    pub accent: Option<String>,
    pub fonts: Vec<Share>,
    pub type_scale: Vec<u32>,
    pub spacing: Vec<u32>,
    pub radii: Vec<u32>,
    pub shadows: Vec<String>,
}

/// Colours in the proposed palette.
const PALETTE: usize = 8;

/// Colours closer than this (RGB distance) are merged into the heavier one.
const SAME_COLOR: f64 = 24.0;

/// Merges `(weight, tokens)` pairs, heaviest reference first: palette and
/// fonts by weighted share of painted area; type, spacing and radius values
/// kept when the weights of the references using them reach half the top
/// weight; background and text colour from the heaviest reference.
pub fn merge(refs: &[(f64, &Tokens)]) -> System {
    let Some((_, first)) = refs.first() else {
        return System::default();
    };
    let top = refs.iter().map(|(w, _)| *w).fold(0.0, f64::max);
    let mut colors: Vec<(Rgb, f64)> = Vec::new();
    let mut weighted: Vec<(Rgb, f64)> = Vec::new();
    for (w, t) in refs {
        let total: f64 = t.palette.iter().map(|s| s.area).sum();
        for s in &t.palette {
            if let Some(c) = color::parse(&s.color, Rgb(255, 255, 255)) {
                weighted.push((c, w * s.area / total.max(1.0)));
            }
        }
    }
    weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.hex().cmp(&b.0.hex())));
    for (c, w) in weighted {
        match colors.iter_mut().find(|(k, _)| k.distance(c) <= SAME_COLOR) {
            Some((_, sum)) => *sum += w,
            None => colors.push((c, w)),
        }
    }
    let all = shares(
        colors.into_iter().map(|(c, w)| (c.hex(), w)).collect(),
        usize::MAX,
    );

    let mut fonts: Vec<(String, f64)> = Vec::new();
    for (w, t) in refs {
        let total: f64 = t.fonts.iter().map(|f| f.area).sum();
        for f in &t.fonts {
            let add = w * f.area / total.max(1.0);
            match fonts.iter_mut().find(|(k, _)| *k == f.family) {
                Some((_, sum)) => *sum += add,
                None => fonts.push((f.family.clone(), add)),
            }
        }
    }
    // Each proposed stack names the generic it falls back to.
    let fonts: Vec<Share> = shares(fonts, 3)
        .into_iter()
        .map(|f| Share {
            value: fonts::with_generic(&f.value),
            share: f.share,
        })
        .collect();

    let near = |a: &str, b: &str| match (
        color::parse(a, Rgb(255, 255, 255)),
        color::parse(b, Rgb(255, 255, 255)),
    ) {
        (Some(a), Some(b)) => a.distance(b) <= SAME_COLOR * 2.0,
        _ => false,
    };
    // The accent: share × chroma, so a little vivid colour can beat a lot
    // of a muted one; never a colour the browser paints by default (link
    // blue, button grey), which no design chose.
    let accent = all
        .iter()
        .filter(|s| !near(&s.value, &first.background) && !near(&s.value, &first.foreground))
        .filter(|s| !defaults::is_default_accent(&s.value))
        .filter_map(|s| {
            let chroma = color::parse(&s.value, Rgb(255, 255, 255))?.hcl().1;
            (chroma >= 0.15).then_some((s, s.share * chroma))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.value.cmp(&a.0.value)))
        .map(|(s, _)| s.value.clone());
    // The eight heaviest colours, the accent among them.
    let mut kept: Vec<(String, f64)> = all.iter().map(|s| (s.value.clone(), s.share)).collect();
    kept.truncate(PALETTE);
    if let Some(a) = &accent
        && !kept.iter().any(|(v, _)| v == a)
        && let Some(s) = all.iter().find(|s| &s.value == a)
    {
        kept.pop();
        kept.push((a.clone(), s.share));
    }
    let palette = shares(kept, PALETTE);

    let mut shadows: Vec<String> = Vec::new();
    for (w, t) in refs {
        if *w >= top / 2.0 {
            for s in &t.shadows {
                if !shadows.contains(s) && shadows.len() < 4 {
                    shadows.push(s.clone());
                }
            }
        }
    }
    System {
        palette,
        background: first.background.clone(),
        foreground: first.foreground.clone(),
        accent,
        fonts,
        type_scale: scale(refs, top, |t| &t.type_scale, 1, 10),
        spacing: scale(refs, top, |t| &t.spacing, 2, 10),
        radii: scale(refs, top, |t| &t.radii, 2, 6),
        shadows,
    }
}

/// Weighted values as shares of their sum, heaviest first, at most `cap`.
fn shares(mut items: Vec<(String, f64)>, cap: usize) -> Vec<Share> {
    items.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    items.truncate(cap);
    let total: f64 = items.iter().map(|(_, w)| w).sum();
    items
        .into_iter()
        .map(|(value, w)| Share {
            value,
            share: if total > 0.0 { w / total } else { 0.0 },
        })
        .collect()
}

/// Values whose references weigh at least half of `top`; values within
/// `tolerance` px of a heavier one are folded into it. Sorted, at most `cap`.
fn scale(
    refs: &[(f64, &Tokens)],
    top: f64,
    values: impl Fn(&Tokens) -> &Vec<u32>,
    tolerance: u32,
    cap: usize,
) -> Vec<u32> {
    let mut weights: Vec<(u32, f64)> = Vec::new();
    for (w, t) in refs {
        for v in values(t) {
            match weights.iter_mut().find(|(k, _)| k == v) {
                Some((_, sum)) => *sum += w,
                None => weights.push((*v, *w)),
            }
        }
    }
    weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut kept: Vec<u32> = Vec::new();
    for (v, w) in weights {
        if w + 1e-9 < top / 2.0 || kept.len() >= cap {
            break;
        }
        if kept.iter().all(|k| k.abs_diff(v) > tolerance) {
            kept.push(v);
        }
    }
    kept.sort_unstable();
    kept
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
pub(crate) mod tests;
