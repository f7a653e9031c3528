//! Character references: decoding what the source says (`&amp;`, `&#123;`,
//! `&#x7B;`) and escaping what the emitter prints. Only the named
//! references a hand-written page is likely to use are known; an unknown
//! one (or one without its `;`) stays literal text, as browsers mostly do.

/// Named references this crate decodes.
const NAMED: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", "\u{a0}"),
    ("copy", "\u{a9}"),
    ("reg", "\u{ae}"),
    ("trade", "\u{2122}"),
    ("hellip", "\u{2026}"),
    ("mdash", "\u{2014}"),
    ("ndash", "\u{2013}"),
    ("lsquo", "\u{2018}"),
    ("rsquo", "\u{2019}"),
    ("ldquo", "\u{201c}"),
    ("rdquo", "\u{201d}"),
    ("laquo", "\u{ab}"),
    ("raquo", "\u{bb}"),
    ("middot", "\u{b7}"),
    ("bull", "\u{2022}"),
    ("times", "\u{d7}"),
    ("divide", "\u{f7}"),
    ("euro", "\u{20ac}"),
    ("pound", "\u{a3}"),
    ("yen", "\u{a5}"),
    ("cent", "\u{a2}"),
    ("sect", "\u{a7}"),
    ("deg", "\u{b0}"),
    ("plusmn", "\u{b1}"),
    ("para", "\u{b6}"),
    ("larr", "\u{2190}"),
    ("rarr", "\u{2192}"),
    ("uarr", "\u{2191}"),
    ("darr", "\u{2193}"),
    ("hearts", "\u{2665}"),
    ("check", "\u{2713}"),
    ("lbrace", "{"),
    ("rbrace", "}"),
];

/// `raw` with its character references decoded.
pub fn decode(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match reference(rest) {
            Some((text, len)) => {
                out.push_str(&text);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reference at the start of `s` (which starts with `&`): its text and
/// its length in bytes.
fn reference(s: &str) -> Option<(String, usize)> {
    let semi = s[1..].find(';').map(|i| i + 1)?;
    if semi > 33 {
        return None;
    }
    let body = &s[1..semi];
    let text = if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        // NUL and invalid scalars become U+FFFD, as in browsers.
        let c = char::from_u32(code)
            .filter(|&c| c != '\0')
            .unwrap_or('\u{fffd}');
        c.to_string()
    } else {
        NAMED.iter().find(|(n, _)| *n == body)?.1.to_string()
    };
    Some((text, semi + 1))
}

/// Text as it may stand between tags: `&`, `<`, `>` escaped, and each of
/// `braces` (the characters that open an expression in the dialect).
pub fn escape_text(text: &str, braces: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // Invisible in source: written as a reference so a reader sees it.
            '\u{a0}' => out.push_str("&nbsp;"),
            c if braces.contains(&c) => out.push_str(&format!("&#{};", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// An attribute value as it may stand between double quotes.
pub fn escape_attr(value: &str, braces: &[char]) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c if braces.contains(&c) => out.push_str(&format!("&#{};", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_named_and_numeric_references() {
        assert_eq!(
            decode("a &amp; b &lt;&#123;&#x7D;&copy;"),
            "a & b <{}\u{a9}"
        );
        assert_eq!(decode("&unknown; &amp &#xZZ; &"), "&unknown; &amp &#xZZ; &");
        assert_eq!(decode("&#0;&#x110000;"), "\u{fffd}\u{fffd}");
    }

    #[test]
    fn escapes_round_trip() {
        let s = "if a < b && c > d { \"q\" }";
        assert_eq!(decode(&escape_text(s, &['{'])), s);
        assert_eq!(decode(&escape_attr(s, &['{'])), s);
        assert!(!escape_text(s, &['{']).contains('{'));
    }
}
