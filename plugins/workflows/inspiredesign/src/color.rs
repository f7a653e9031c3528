//! Colour helpers: normalizing what pages report to `#rrggbb`, distances for
//! merging near-identical colours, and plain-English colour words ("cream",
//! "forest", "neon", "warm") so a brief's words can match a page's palette.

/// An sRGB colour, 0..=255 per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Lowercase `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// Euclidean distance in RGB space (0..=441).
    pub fn distance(self, other: Rgb) -> f64 {
        let d = |a: u8, b: u8| (a as f64 - b as f64).powi(2);
        (d(self.0, other.0) + d(self.1, other.1) + d(self.2, other.2)).sqrt()
    }

    /// Hue in degrees (0..360), chroma (max − min, 0..1) and lightness
    /// ((max + min) / 2, 0..1).
    pub fn hcl(self) -> (f64, f64, f64) {
        let (r, g, b) = (
            self.0 as f64 / 255.0,
            self.1 as f64 / 255.0,
            self.2 as f64 / 255.0,
        );
        let max = r.max(g).max(b);
        let min = r.min(g).min(b);
        let c = max - min;
        let l = (max + min) / 2.0;
        let h = if c == 0.0 {
            0.0
        } else if max == r {
            60.0 * ((g - b) / c).rem_euclid(6.0)
        } else if max == g {
            60.0 * ((b - r) / c + 2.0)
        } else {
            60.0 * ((r - g) / c + 4.0)
        };
        (h, c, l)
    }
}

/// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` (alpha ignored) or `rgb()`/`rgba()`
/// with comma or space syntax. Colours with alpha near zero are `None`;
/// other translucent ones are blended on `under` (the page background).
pub fn parse(value: &str, under: Rgb) -> Option<Rgb> {
    let v = value.trim().to_ascii_lowercase();
    if let Some(hex) = v.strip_prefix('#') {
        return parse_hex(hex);
    }
    let inner = v
        .strip_prefix("rgba(")
        .or_else(|| v.strip_prefix("rgb("))?
        .strip_suffix(')')?;
    let parts: Vec<&str> = inner
        .split([',', ' ', '/'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 3 || parts.len() > 4 {
        return None;
    }
    let channel = |p: &str| -> Option<f64> {
        let n: f64 = match p.strip_suffix('%') {
            Some(pct) => pct.parse::<f64>().ok()? * 2.55,
            None => p.parse().ok()?,
        };
        n.is_finite().then(|| n.clamp(0.0, 255.0))
    };
    let (r, g, b) = (channel(parts[0])?, channel(parts[1])?, channel(parts[2])?);
    let alpha = match parts.get(3) {
        Some(a) => match a.strip_suffix('%') {
            Some(pct) => pct.parse::<f64>().ok()? / 100.0,
            None => a.parse::<f64>().ok()?,
        },
        None => 1.0,
    };
    if !alpha.is_finite() || alpha < 0.02 {
        return None;
    }
    let alpha = alpha.min(1.0);
    let mix = |c: f64, u: u8| (c * alpha + u as f64 * (1.0 - alpha)).round() as u8;
    Some(Rgb(mix(r, under.0), mix(g, under.1), mix(b, under.2)))
}

fn parse_hex(hex: &str) -> Option<Rgb> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |s: &str| u8::from_str_radix(s, 16).ok();
    match hex.len() {
        3 | 4 => {
            let d = |i: usize| byte(&hex[i..i + 1]).map(|n| n * 17);
            Some(Rgb(d(0)?, d(1)?, d(2)?))
        }
        6 | 8 => Some(Rgb(byte(&hex[0..2])?, byte(&hex[2..4])?, byte(&hex[4..6])?)),
        _ => None,
    }
}

/// A colour string as lowercase `#rrggbb`, or None when it is not one
/// (blended on white when translucent).
pub fn normalize(value: &str) -> Option<String> {
    parse(value, Rgb(255, 255, 255)).map(Rgb::hex)
}

/// Words a person might use for this colour: its hue name, lightness,
/// temperature and character (cream, forest, neon, earthy, …).
pub fn words(c: Rgb) -> Vec<&'static str> {
    let (h, chroma, l) = c.hcl();
    let mut out = Vec::new();
    if l < 0.2 {
        out.push("dark");
    } else if l > 0.8 {
        out.push("light");
    }
    if chroma < 0.06 {
        out.push(if l < 0.12 {
            "black"
        } else if l > 0.92 {
            "white"
        } else {
            "gray"
        });
        if l > 0.9 && (20.0..70.0).contains(&h) && chroma > 0.02 {
            out.extend(["cream", "warm"]);
        }
        return out;
    }
    out.push(match h {
        h if !(15.0..335.0).contains(&h) => "red",
        h if h < 45.0 => "orange",
        h if h < 70.0 => "yellow",
        h if h < 165.0 => "green",
        h if h < 200.0 => "cyan",
        h if h < 255.0 => "blue",
        h if h < 290.0 => "purple",
        _ => "magenta",
    });
    let warm = !(70.0..330.0).contains(&h);
    if warm {
        out.push("warm");
    } else if (165.0..290.0).contains(&h) {
        out.push("cool");
    }
    if (20.0..70.0).contains(&h) && l > 0.8 && chroma < 0.3 {
        out.extend(["cream", "beige", "natural"]);
    }
    if (10.0..50.0).contains(&h) && l < 0.5 && chroma < 0.6 {
        out.extend(["brown", "earthy", "natural"]);
    }
    if (70.0..165.0).contains(&h) && l < 0.45 && chroma < 0.5 {
        out.extend(["forest", "earthy", "natural"]);
    }
    if (290.0..335.0).contains(&h) && l > 0.5 {
        out.push("pink");
    }
    if chroma > 0.7 && (0.35..=0.7).contains(&l) {
        out.extend(["vivid", "bright", "neon"]);
    } else if chroma < 0.3 && (0.25..0.85).contains(&l) {
        out.push("muted");
    }
    if l > 0.75 && (0.15..0.6).contains(&chroma) {
        out.push("pastel");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgb = Rgb(255, 255, 255);

    #[test]
    fn normalizes_what_computed_styles_report() {
        assert_eq!(normalize("#ABC").as_deref(), Some("#aabbcc"));
        assert_eq!(normalize("#2F5D3A").as_deref(), Some("#2f5d3a"));
        assert_eq!(normalize("#2f5d3aff").as_deref(), Some("#2f5d3a"));
        assert_eq!(normalize("rgb(47, 93, 58)").as_deref(), Some("#2f5d3a"));
        assert_eq!(
            normalize("rgb(47 93 58 / 100%)").as_deref(),
            Some("#2f5d3a")
        );
        assert_eq!(normalize("rgba(0, 0, 0, 0)"), None);
        assert_eq!(normalize("rgba(0, 0, 0, 0.01)"), None);
        assert_eq!(normalize("transparent"), None);
        assert_eq!(normalize("#12345"), None);
        assert_eq!(normalize("#gg0000"), None);
        assert_eq!(normalize("rgb(1, 2)"), None);
    }

    #[test]
    fn translucent_colours_are_blended_on_the_page_background() {
        let dark = Rgb(11, 7, 22);
        assert_eq!(
            parse("rgba(255, 255, 255, 0.04)", dark).map(Rgb::hex),
            Some("#15111f".into())
        );
        assert_eq!(
            parse("rgba(0, 128, 255, 0.5)", WHITE).map(Rgb::hex),
            Some("#80c0ff".into())
        );
    }

    #[test]
    fn hue_chroma_lightness() {
        let (h, c, l) = Rgb(255, 0, 0).hcl();
        assert_eq!((h, c, l), (0.0, 1.0, 0.5));
        let (h, _, _) = Rgb(0, 240, 255).hcl();
        assert!((180.0..190.0).contains(&h), "{h}");
        assert!(Rgb(0, 0, 0).distance(WHITE) > 441.0);
    }

    #[test]
    fn colour_words_describe_the_fixture_palettes() {
        let w = |hex: &str| words(parse(hex, WHITE).expect("present"));
        let cream = w("#f6f0e1");
        assert!(
            cream.contains(&"cream") && cream.contains(&"warm"),
            "{cream:?}"
        );
        let forest = w("#2f5d3a");
        assert!(
            forest.contains(&"green") && forest.contains(&"natural"),
            "{forest:?}"
        );
        assert!(w("#a0643c").contains(&"earthy"));
        let magenta = w("#ff2bd6");
        assert!(
            magenta.contains(&"magenta") && magenta.contains(&"neon"),
            "{magenta:?}"
        );
        assert!(w("#00f0ff").contains(&"cyan"));
        assert!(w("#0b0716").contains(&"dark"));
        assert_eq!(w("#000000"), ["dark", "black"]);
        assert_eq!(w("#ffffff"), ["light", "white"]);
        assert!(w("#ffe600").contains(&"yellow"));
    }
}
