//! JSX text: React's whitespace rules, entity decoding, and escaping text
//! so that it reads back as the same text.

/// A JSX text's raw source as React renders it (Babel's
/// `cleanJSXElementLiteralChild`): tabs become spaces; every line but the
/// first loses its leading spaces and every line but the last its
/// trailing ones; non-empty lines are joined by one space. Whitespace
/// with a line break thus vanishes; `" "` between two tags stays.
pub fn clean(raw: &str) -> String {
    let lines: Vec<&str> = split_lines(raw);
    let last_non_empty = lines
        .iter()
        .rposition(|l| l.chars().any(|c| c != ' ' && c != '\t'))
        .unwrap_or(0);
    let mut out = String::new();
    let n = lines.len();
    for (i, line) in lines.iter().enumerate() {
        let spaced = line.replace('\t', " ");
        let mut t: &str = &spaced;
        if i != 0 {
            t = t.trim_start_matches(' ');
        }
        if i != n - 1 {
            t = t.trim_end_matches(' ');
        }
        if !t.is_empty() {
            out.push_str(t);
            if i != last_non_empty {
                out.push(' ');
            }
        }
    }
    out
}

fn split_lines(raw: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let b = raw.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        if b[i] == b'\n' || b[i] == b'\r' {
            lines.push(&raw[start..i]);
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    lines.push(&raw[start..]);
    lines
}

/// `s` with `&name;`, `&#N;` and `&#xH;` decoded, as HTML (and so JSX)
/// reads them: the markup crate's table, shared by every adapter. An
/// unknown name stays as written (and so reads back the same).
pub fn decode_entities(s: &str) -> String {
    webrig_adapter_markup::entities::decode(s)
}

/// `text` as JSX text that reads back as `text`, on one line: markup
/// characters and braces as entities (`{"{"}` would read back as an
/// expression child, not text), line breaks and tabs as numeric entities
/// so whitespace rules keep them.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '{' => out.push_str("&#123;"),
            '}' => out.push_str("&#125;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `text`, escaped, may stand on a line of its own (between line
/// breaks and indentation) and still read back as itself.
pub fn fits_own_line(text: &str) -> bool {
    !text.is_empty() && !text.starts_with([' ', '\t']) && !text.ends_with([' ', '\t'])
}

/// `value` as a JSX attribute value: `"…"` when it can be written plainly
/// (JSX strings have no escapes, but entities are decoded), else a JS
/// string in braces.
pub fn attribute_value(value: &str) -> String {
    if !value.contains(['"', '&', '\n', '\r', '\t', '{', '}']) {
        return format!("\"{value}\"");
    }
    format!("{{{}}}", js_string(value))
}

/// A double-quoted JS string literal for `s`.
pub fn js_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_with_line_breaks_vanishes() {
        assert_eq!(clean("\n    \n  "), "");
        assert_eq!(clean("\n    Hello\n  "), "Hello");
        assert_eq!(clean("\n  Hello\n  world  \n"), "Hello world");
        assert_eq!(clean(" "), " ");
        assert_eq!(clean("  a  b "), "  a  b ");
        assert_eq!(clean("a\t\n b"), "a b");
    }

    #[test]
    fn entities_decode_and_unknown_ones_stay() {
        assert_eq!(
            decode_entities("a &amp; b &#123;&#x7D; &nope; &"),
            "a & b {} &nope; &"
        );
    }

    #[test]
    fn escaped_text_cleans_and_decodes_back() {
        for t in ["a {b} <c> & d", "line\nbreak\ttab", "  spaced  "] {
            assert_eq!(decode_entities(&clean(&escape(t))), t);
        }
    }
}
