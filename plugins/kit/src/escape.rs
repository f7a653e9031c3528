//! Page-derived text made inert where workflows write it: Markdown reports
//! and self-contained HTML reports.

/// Text for Markdown: CommonMark's markup characters backslash-escaped
/// (CommonMark allows it for any ASCII punctuation), `&` only where it could
/// start an entity, line breaks as spaces.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '&' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '#') =>
            {
                out.push_str("\\&");
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text for HTML content and quoted attribute values.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_inert() {
        assert_eq!(
            markdown("*a* [b](c) &amp; x & y\nz"),
            "\\*a\\* \\[b\\](c) \\&amp; x & y z"
        );
        assert_eq!(html("<script>'\"&"), "&lt;script&gt;&#39;&quot;&amp;");
    }
}
