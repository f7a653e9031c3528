//! Browser defaults: what a page shows when its own styles are missing
//! (an error page, stylesheets that failed to load), and the verdict on a
//! reference that rendered with them, so it is weighted out of the merge
//! instead of passed off as a design.

use crate::tokens::Tokens;

/// Colours Chromium paints with when a page sets none: canvas and text,
/// unvisited, visited and active links, button face and border, field
/// border, disabled text.
pub const DEFAULT_COLORS: &[&str] = &[
    "#ffffff", "#000000", "#0000ee", "#551a8b", "#ff0000", "#efefef", "#767676", "#e9e9ed",
    "#858585", "#6d6d6d",
];

/// Colours that are browser defaults whatever the page: never an accent.
/// (Black, white and red can be chosen; these are the UA's own hues.)
pub const DEFAULT_ACCENTS: &[&str] = &["#0000ee", "#551a8b", "#efefef", "#767676", "#e9e9ed"];

/// Whether `hex` (`#rrggbb`) is a browser default that no design chose.
pub fn is_default_accent(hex: &str) -> bool {
    DEFAULT_ACCENTS.contains(&hex)
}

/// Whether a computed font stack is what the browser uses when a page sets
/// no font: Times New Roman (the standard font), or a bare generic.
pub fn is_default_font(family: &str) -> bool {
    let first = family
        .split(',')
        .next()
        .unwrap_or_default()
        .trim()
        .trim_matches(['"', '\''])
        .to_ascii_lowercase();
    matches!(
        first.as_str(),
        "" | "times new roman" | "times" | "serif" | "-webkit-standard"
    )
}

/// Why a read reference rendered with the browser's default styles, or
/// None when it shows a design of its own: every linked stylesheet failed
/// to load, or every token (main font and every colour) is a default.
pub fn unstyled(t: &Tokens) -> Option<String> {
    let failed = &t.stylesheets.failed;
    if !failed.is_empty() && failed.len() >= t.stylesheets.linked {
        let which = failed.first().map(String::as_str).unwrap_or_default();
        return Some(match failed.len() {
            1 => format!("rendered with default styles: its stylesheet did not load ({which})"),
            n => format!(
                "rendered with default styles: none of its {n} stylesheets loaded (first: {which})"
            ),
        });
    }
    let main_font = t
        .fonts
        .iter()
        .max_by(|a, b| a.area.total_cmp(&b.area))
        .map(|f| f.family.as_str())
        .unwrap_or_default();
    let colors_default = t
        .palette
        .iter()
        .all(|s| DEFAULT_COLORS.contains(&s.color.as_str()));
    (is_default_font(main_font) && colors_default).then(|| {
        "rendered with default styles: every token is a browser default (Times New Roman, #0000ee links, #efefef buttons)".to_string()
    })
}

/// Stylesheets that failed on a page that still loaded others: its tokens
/// may be incomplete, but it has a design of its own.
pub fn partly_unstyled(t: &Tokens) -> Option<String> {
    let failed = &t.stylesheets.failed;
    (!failed.is_empty() && failed.len() < t.stylesheets.linked).then(|| {
        format!(
            "{} of {} stylesheets did not load (first: {}); its tokens may be incomplete",
            failed.len(),
            t.stylesheets.linked,
            failed[0]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tests::{broken, brutal, calm, neon, plain, studio};

    #[test]
    fn failed_stylesheets_and_default_tokens_are_flagged() {
        let why = unstyled(&broken()).expect("broken is unstyled");
        assert_eq!(
            why,
            "rendered with default styles: none of its 2 stylesheets loaded (first: http://127.0.0.1:9/design/missing/broken.css)"
        );
        let why = unstyled(&plain()).expect("plain is unstyled");
        assert!(why.contains("every token is a browser default"), "{why}");
    }

    #[test]
    fn styled_pages_are_not_flagged() {
        for (name, t) in [
            ("studio", studio()),
            ("calm", calm()),
            ("brutal", brutal()),
            ("neon", neon()),
        ] {
            assert_eq!(unstyled(&t), None, "{name}");
            assert_eq!(partly_unstyled(&t), None, "{name}");
        }
    }

    #[test]
    fn one_failed_sheet_of_several_is_noted_not_weighted_out() {
        let mut t = studio();
        t.stylesheets.linked = 3;
        t.stylesheets.failed = vec!["http://x/fonts.css".into()];
        assert_eq!(unstyled(&t), None);
        assert_eq!(
            partly_unstyled(&t).as_deref(),
            Some(
                "1 of 3 stylesheets did not load (first: http://x/fonts.css); its tokens may be incomplete"
            )
        );
    }

    #[test]
    fn default_fonts_are_the_standard_font_or_a_bare_generic() {
        assert!(is_default_font("\"Times New Roman\""));
        assert!(is_default_font("serif"));
        assert!(!is_default_font("Georgia, \"Times New Roman\", serif"));
        assert!(!is_default_font("Arial"));
    }
}
