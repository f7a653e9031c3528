//! design-brief.md: the brief, the references ranked and why, the proposed
//! palette, type, spacing and radii with their values, and each
//! reference's own tokens. Page-derived text is escaped for Markdown.

use crate::color::{self, Rgb};
use crate::study::{Study, clip, label, pct};
use crate::tokens::System;
use crate::{fonts, rank};
use std::fmt::Write;

/// Page text as inert Markdown on one line: every ASCII punctuation
/// character that Markdown or HTML could read is backslash-escaped.
pub fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.split_whitespace().collect::<Vec<_>>().join(" ").chars() {
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '['
                | ']'
                | '<'
                | '>'
                | '|'
                | '#'
                | '!'
                | '&'
                | '('
                | ')'
                | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `s` with its first letter in upper case.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// What a proposed colour is for: background, text or accent (or nothing).
pub fn role(value: &str, s: &System) -> &'static str {
    let near = |other: &str| {
        let white = Rgb(255, 255, 255);
        match (color::parse(value, white), color::parse(other, white)) {
            (Some(a), Some(b)) => a.distance(b) <= 24.0,
            _ => false,
        }
    };
    if near(&s.background) {
        "background"
    } else if near(&s.foreground) {
        "text"
    } else if s.accent.as_deref() == Some(value) {
        "accent"
    } else {
        ""
    }
}

fn px_list(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    let s: Vec<String> = v.iter().map(u32::to_string).collect();
    format!("{} px", s.join(", "))
}

/// Renders design-brief.md.
pub fn render(study: &Study) -> String {
    let mut md = String::from("# Design brief\n\n");
    let _ = writeln!(md, "> {}\n", md_text(&study.brief));
    let _ = writeln!(
        md,
        "{} of {} references read. The proposed system merges the best-matching references, weighted by how well they match the brief.\n",
        study.ranked.len(),
        study.given
    );

    md.push_str("## References, ranked\n\n");
    for (i, r) in study.ranked.iter().enumerate() {
        let reference = &r.reference;
        let _ = writeln!(
            md,
            "{}. **{}** (score {}, weight {:.2})  \n   {}  \n   Matched: {}  ",
            i + 1,
            md_text(&label(reference)),
            r.standing.score,
            r.weight,
            md_text(&clip(&reference.url, 300)),
            md_text(&rank::why(&r.standing)),
        );
        if let Some(why) = &reference.unstyled {
            let _ = writeln!(
                md,
                "   **{}**; weighted out of the proposed system.  ",
                md_text(&capitalized(&clip(why, 300)))
            );
        }
        if let Some(shot) = &reference.screenshot {
            let _ = writeln!(md, "   Screenshot: `{shot}`");
        }
    }
    if !study.duplicates.is_empty() {
        let list: Vec<String> = study
            .duplicates
            .iter()
            .map(|u| md_text(&clip(u, 300)))
            .collect();
        let _ = writeln!(
            md,
            "\nGiven more than once, read once: {}.",
            list.join(", ")
        );
    }
    let unread: Vec<_> = study.unread().collect();
    if !unread.is_empty() {
        md.push_str("\n### Not read\n\n");
        for p in unread {
            let _ = writeln!(
                md,
                "- {} ({}: {}: {})",
                md_text(&clip(&p.url, 300)),
                p.step,
                p.code,
                md_text(&clip(&p.message, 300))
            );
        }
    }

    let s = &study.system;
    md.push_str("\n## Proposed system\n\n");
    let from: Vec<String> = study
        .ranked
        .iter()
        .filter(|r| r.weight > 0.0)
        .map(|r| format!("{} ({:.2})", md_text(&label(&r.reference)), r.weight))
        .collect();
    let _ = writeln!(md, "Weighted from: {}.\n", from.join(", "));
    let out: Vec<String> = study
        .unstyled()
        .map(|r| md_text(&label(&r.reference)))
        .collect();
    if !out.is_empty() {
        let _ = writeln!(
            md,
            "Left out (rendered with default styles): {}.\n",
            out.join(", ")
        );
    }
    let _ = writeln!(
        md,
        "Background `{}`, text `{}`{}.\n",
        s.background,
        s.foreground,
        s.accent
            .as_ref()
            .map(|a| format!(", accent `{a}`"))
            .unwrap_or_default()
    );
    md.push_str("### Palette\n\n| Colour | Share | Role |\n|---|---|---|\n");
    for c in &s.palette {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} |",
            c.value,
            md_text(&pct(c.share)),
            role(&c.value, s)
        );
    }
    md.push_str("\n### Type\n\n");
    for f in &s.fonts {
        let _ = writeln!(
            md,
            "- {} ({}; generic fallback: {})",
            md_text(&f.value),
            md_text(&pct(f.share)),
            fonts::generic(&f.value)
        );
    }
    let _ = writeln!(md, "\nScale: {}\n", px_list(&s.type_scale));
    let _ = writeln!(md, "### Spacing\n\n{}\n", px_list(&s.spacing));
    let _ = writeln!(md, "### Radii\n\n{}\n", px_list(&s.radii));
    if !s.shadows.is_empty() {
        md.push_str("### Shadows\n\n");
        for sh in &s.shadows {
            let _ = writeln!(md, "- {}", md_text(sh));
        }
        md.push('\n');
    }

    md.push_str("## Each reference\n");
    for (i, r) in study.ranked.iter().enumerate() {
        let t = &r.reference.tokens;
        let total: f64 = t.palette.iter().map(|p| p.area).sum::<f64>().max(1.0);
        let palette: Vec<String> = t
            .palette
            .iter()
            .map(|p| format!("`{}` {}", p.color, md_text(&pct(p.area / total))))
            .collect();
        let fonts: Vec<String> = t.fonts.iter().map(|f| md_text(&f.family)).collect();
        let _ = writeln!(
            md,
            "\n### {}. {}\n\n- Background `{}`, text `{}`\n- Palette: {}\n- Fonts: {}\n- Type scale: {}\n- Spacing: {}\n- Radii: {}\n- Shadows: {}",
            i + 1,
            md_text(&label(&r.reference)),
            t.background,
            t.foreground,
            palette.join(", "),
            if fonts.is_empty() {
                "none".into()
            } else {
                fonts.join("; ")
            },
            px_list(&t.type_scale),
            px_list(&t.spacing),
            px_list(&t.radii),
            t.shadows.len(),
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::tests::{problem, study};

    #[test]
    fn renders_the_ranking_and_the_system_with_values() {
        let md = render(&study());
        assert!(
            md.starts_with("# Design brief\n\n> calm editorial serif with warm natural colours\n")
        );
        assert!(md.contains("3 of 4 references read"));
        let calm = md.find("1. **Fernleaf Journal").expect("calm first");
        assert!(md[calm..].contains("Matched: calm \\(title, text\\)"));
        assert!(md[calm..].contains("Screenshot: `screenshots/ref-1.png`"));
        assert!(md.contains("| `#f6f0e1` | "));
        assert!(md.contains("| background |"));
        assert!(md.contains("accent `#2f5d3a`"));
        assert!(md.contains("Georgia, \"Times New Roman\", serif"));
        assert!(md.contains("Scale: 14, 16, 18, 20, 28, 56 px"));
        assert!(md.contains("### Radii\n\n24, 32, 999 px"));
        assert!(
            md.contains("### Not read\n\n- http://127.0.0.1:9/private.html (open: policy_blocked:")
        );
        assert!(md.contains("- Radii: none"), "brutal has no radii");
    }

    #[test]
    fn page_text_cannot_inject_markdown_or_html() {
        assert_eq!(
            md_text("<script>x</script> *[a](javascript:b)*\n# h"),
            "\\<script\\>x\\</script\\> \\*\\[a\\]\\(javascript:b\\)\\* \\# h"
        );
        let mut s = study();
        s.problems.push(problem(9, "<img src=x onerror=alert(1)>"));
        let md = render(&s);
        assert!(md.contains("\\<img src=x onerror=alert\\(1\\)\\>"));
        let bare = md
            .match_indices('<')
            .filter(|(i, _)| !md[..*i].ends_with('\\'));
        assert_eq!(bare.count(), 0, "{md}");
    }

    #[test]
    fn default_styled_references_are_flagged_and_left_out() {
        let md = render(&crate::study::tests::studio_study());
        assert!(
            md.contains("2. **Warm orange studio with clean sans type** (score 15, weight 0.00)"),
            "{md}"
        );
        assert!(md.contains(
            "   **Rendered with default styles: none of its 2 stylesheets loaded \\(first: http://127.0.0.1:9/design/missing/broken.css\\)**; weighted out of the proposed system."
        ), "{md}");
        assert!(md.contains("Weighted from: Kiln \\& Co — a ceramics studio (1.00)."));
        assert!(md.contains("Left out (rendered with default styles): Warm orange studio with clean sans type, Warm orange notes."));
        assert!(md.contains("accent `#d9480f`"));
        assert!(md.contains("- \"Helvetica Neue\", Helvetica, Arial, sans-serif (62%; generic fallback: sans-serif)"), "{md}");
        assert!(md.contains("- Georgia, serif ("));
        assert!(md.contains(
            "Given more than once, read once: http://127.0.0.1:9/design/studio.html\\#again."
        ));
        assert!(md.contains("### Spacing\n\n8, 12, 16, 24, 32, 48, 64 px\n"));
    }
}
