//! Generic fallbacks for font stacks: a type specimen or a proposed font
//! names the generic family it falls back to (serif, sans-serif, monospace),
//! so the system still says what kind of type it is where the named fonts
//! are not installed.

/// CSS generic family keywords.
const GENERICS: &[&str] = &[
    "serif",
    "sans-serif",
    "monospace",
    "cursive",
    "fantasy",
    "system-ui",
    "ui-serif",
    "ui-sans-serif",
    "ui-monospace",
    "ui-rounded",
    "math",
    "emoji",
    "fangsong",
];

/// Families known to be serif or monospace (anything else falls back to
/// sans-serif, the web's most common kind).
const SERIFS: &[&str] = &[
    "times",
    "georgia",
    "garamond",
    "baskerville",
    "palatino",
    "cambria",
    "merriweather",
    "playfair",
    "lora",
    "caslon",
    "didot",
    "bodoni",
    "charter",
    "iowan",
    "fraunces",
];
const MONOS: &[&str] = &["mono", "courier", "consolas", "menlo", "monaco", "code"];

fn names(stack: &str) -> impl Iterator<Item = String> + '_ {
    stack
        .split(',')
        .map(|f| f.trim().trim_matches(['"', '\'']).to_ascii_lowercase())
        .filter(|f| !f.is_empty())
}

/// The generic family a stack falls back to: its own generic keyword,
/// else the kind of its first named family.
pub fn generic(stack: &str) -> &'static str {
    if let Some(g) = names(stack).find_map(|n| GENERICS.iter().find(|g| **g == n)) {
        return g;
    }
    let first = names(stack).next().unwrap_or_default();
    if MONOS.iter().any(|m| first.contains(m)) {
        "monospace"
    } else if first.contains("sans") {
        "sans-serif"
    } else if first.contains("serif") || SERIFS.iter().any(|s| first.contains(s)) {
        "serif"
    } else {
        "sans-serif"
    }
}

/// The stack with its generic fallback last (unchanged when it names one).
pub fn with_generic(stack: &str) -> String {
    let stack = stack.trim().trim_end_matches(',').trim();
    if names(stack).any(|n| GENERICS.contains(&n.as_str())) {
        return stack.to_string();
    }
    let g = generic(stack);
    if stack.is_empty() {
        g.to_string()
    } else {
        format!("{stack}, {g}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_without_a_generic_gets_the_one_its_first_font_implies() {
        assert_eq!(
            with_generic("\"Helvetica Neue\", Helvetica, Arial"),
            "\"Helvetica Neue\", Helvetica, Arial, sans-serif"
        );
        assert_eq!(with_generic("Georgia"), "Georgia, serif");
        assert_eq!(
            with_generic("\"Times New Roman\""),
            "\"Times New Roman\", serif"
        );
        assert_eq!(
            with_generic("\"JetBrains Mono\""),
            "\"JetBrains Mono\", monospace"
        );
        assert_eq!(
            with_generic("\"IBM Plex Sans\""),
            "\"IBM Plex Sans\", sans-serif"
        );
        assert_eq!(with_generic(""), "sans-serif");
    }

    #[test]
    fn a_stack_that_names_its_generic_is_kept() {
        let calm = "Georgia, \"Times New Roman\", serif";
        assert_eq!(with_generic(calm), calm);
        assert_eq!(generic(calm), "serif");
        assert_eq!(generic("\"Courier New\", Courier, monospace"), "monospace");
        assert_eq!(generic("Inter, system-ui"), "system-ui");
    }
}
