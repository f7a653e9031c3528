//! Character references (`&amp;`, `&#8217;`, `&#x2014;`) to text.
//!
//! The named table covers what real pages use in prose and titles, not the
//! full 2,231-entry HTML list: an unknown name is kept verbatim, which is
//! what browsers do with unknown references too.

/// Decodes character references in `s`.
pub fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match decode_one(rest) {
            Some((ch, used)) => {
                out.push_str(&ch);
                rest = &rest[used..];
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

/// Decodes the reference at the start of `s` (which starts with `&`);
/// returns the text and how many bytes it used.
fn decode_one(s: &str) -> Option<(String, usize)> {
    let body = &s[1..];
    if let Some(num) = body.strip_prefix('#') {
        let (digits, radix, prefix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16, 2),
            None => (num, 10, 1),
        };
        let len = digits
            .bytes()
            .take_while(|b| {
                if radix == 16 {
                    b.is_ascii_hexdigit()
                } else {
                    b.is_ascii_digit()
                }
            })
            .count();
        if len == 0 {
            return None;
        }
        // Over-long numbers are out of range anyway: replacement character.
        let code = if len > 8 {
            0xFFFD
        } else {
            u32::from_str_radix(&digits[..len], radix).unwrap_or(0xFFFD)
        };
        let ch = match code {
            0 => '\u{FFFD}',
            // Windows-1252 quotes and dashes, as browsers map them.
            0x80..=0x9F => cp1252(code),
            c => char::from_u32(c).unwrap_or('\u{FFFD}'),
        };
        let mut used = 1 + prefix + len;
        if digits[len..].starts_with(';') {
            used += 1;
        }
        return Some((ch.to_string(), used));
    }
    let len = body.bytes().take_while(u8::is_ascii_alphanumeric).count();
    let name = &body[..len];
    let value = named(name)?;
    if body[len..].starts_with(';') {
        return Some((value.to_string(), 1 + len + 1));
    }
    // Legacy references browsers accept without the semicolon.
    matches!(name, "amp" | "lt" | "gt" | "quot" | "nbsp" | "copy" | "reg")
        .then(|| (value.to_string(), 1 + len))
}

fn cp1252(code: u32) -> char {
    match code {
        0x80 => '€',
        0x85 => '…',
        0x91 => '‘',
        0x92 => '’',
        0x93 => '“',
        0x94 => '”',
        0x96 => '–',
        0x97 => '—',
        0x99 => '™',
        _ => '\u{FFFD}',
    }
}

fn named(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" | "AMP" => "&",
        "lt" | "LT" => "<",
        "gt" | "GT" => ">",
        "quot" | "QUOT" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "ensp" => "\u{2002}",
        "emsp" => "\u{2003}",
        "thinsp" => "\u{2009}",
        "zwnj" => "\u{200c}",
        "zwj" => "\u{200d}",
        "shy" => "\u{ad}",
        "ndash" => "–",
        "mdash" => "—",
        "hellip" => "…",
        "lsquo" => "‘",
        "rsquo" => "’",
        "sbquo" => "‚",
        "ldquo" => "“",
        "rdquo" => "”",
        "bdquo" => "„",
        "laquo" => "«",
        "raquo" => "»",
        "lsaquo" => "‹",
        "rsaquo" => "›",
        "bull" => "•",
        "middot" => "·",
        "prime" => "′",
        "Prime" => "″",
        "dagger" => "†",
        "Dagger" => "‡",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "deg" => "°",
        "plusmn" => "±",
        "times" => "×",
        "divide" => "÷",
        "frac12" => "½",
        "frac14" => "¼",
        "frac34" => "¾",
        "sup2" => "²",
        "sup3" => "³",
        "micro" => "µ",
        "para" => "¶",
        "sect" => "§",
        "euro" => "€",
        "pound" => "£",
        "yen" => "¥",
        "cent" => "¢",
        "curren" => "¤",
        "iexcl" => "¡",
        "iquest" => "¿",
        "larr" => "←",
        "rarr" => "→",
        "uarr" => "↑",
        "darr" => "↓",
        "harr" => "↔",
        "hearts" => "♥",
        "le" => "≤",
        "ge" => "≥",
        "ne" => "≠",
        "minus" => "−",
        "infin" => "∞",
        "asymp" => "≈",
        "Agrave" => "À",
        "Aacute" => "Á",
        "Acirc" => "Â",
        "Atilde" => "Ã",
        "Auml" => "Ä",
        "Aring" => "Å",
        "AElig" => "Æ",
        "Ccedil" => "Ç",
        "Egrave" => "È",
        "Eacute" => "É",
        "Ecirc" => "Ê",
        "Euml" => "Ë",
        "Igrave" => "Ì",
        "Iacute" => "Í",
        "Icirc" => "Î",
        "Iuml" => "Ï",
        "Ntilde" => "Ñ",
        "Ograve" => "Ò",
        "Oacute" => "Ó",
        "Ocirc" => "Ô",
        "Otilde" => "Õ",
        "Ouml" => "Ö",
        "Oslash" => "Ø",
        "Ugrave" => "Ù",
        "Uacute" => "Ú",
        "Ucirc" => "Û",
        "Uuml" => "Ü",
        "Yacute" => "Ý",
        "szlig" => "ß",
        "agrave" => "à",
        "aacute" => "á",
        "acirc" => "â",
        "atilde" => "ã",
        "auml" => "ä",
        "aring" => "å",
        "aelig" => "æ",
        "ccedil" => "ç",
        "egrave" => "è",
        "eacute" => "é",
        "ecirc" => "ê",
        "euml" => "ë",
        "igrave" => "ì",
        "iacute" => "í",
        "icirc" => "î",
        "iuml" => "ï",
        "ntilde" => "ñ",
        "ograve" => "ò",
        "oacute" => "ó",
        "ocirc" => "ô",
        "otilde" => "õ",
        "ouml" => "ö",
        "oslash" => "ø",
        "ugrave" => "ù",
        "uacute" => "ú",
        "ucirc" => "û",
        "uuml" => "ü",
        "yacute" => "ý",
        "yuml" => "ÿ",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_named_and_numeric() {
        assert_eq!(
            decode("Tom &amp; Jerry&#39;s &#x2014; caf&eacute;"),
            "Tom & Jerry's — café"
        );
        assert_eq!(decode("a &lt b"), "a < b");
        assert_eq!(decode("&#8217;&#146;"), "’’");
    }

    #[test]
    fn keeps_unknown_and_broken_references() {
        assert_eq!(
            decode("AT&T &bogus; &#; &#xZZ; &"),
            "AT&T &bogus; &#; &#xZZ; &"
        );
        assert_eq!(decode("&#99999999999;"), "\u{FFFD}");
    }
}
