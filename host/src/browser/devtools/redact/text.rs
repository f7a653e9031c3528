//! Masking secrets in free text (console messages, exception text and
//! stacks, non-credential header values, bodies that are neither JSON,
//! forms nor multipart).
//!
//! One left-to-right pass that looks only at word starts, each rule
//! reading at most the word and the value it masks, so the cost is linear
//! in the text (a page controls this text; no backtracking regex). What it
//! masks: URLs as [`url`] does, `Bearer`/`Basic` credentials, JWTs, keys
//! with a well-known prefix (`ghp_`, `AKIA`, `sk-`, `xoxb-`, `AIza`…),
//! `name=value` and `name: value` where the name carries a credential, and
//! cookie strings (`a=1; b=2`, what `document.cookie` reads).

use super::MASK;
use super::names::{credential_prefix, is_jwt, is_secret_label, is_secret_name};
use super::urls::url;

/// `s` with its secrets masked (see the module header).
pub fn text(s: &str) -> String {
    scan(s, true)
}

/// A non-credential header value: the same rules but cookie strings,
/// which `Content-Type: a; x=1; y=2`-style parameters would look like.
pub(super) fn header_text(s: &str) -> String {
    scan(s, false)
}

fn scan(s: &str, cookie_lists: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let prev = s[..i].chars().next_back();
        let at_word_start = !prev.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let word_len = if at_word_start { word_len(rest) } else { 0 };
        if at_word_start && starts_with_url_scheme(rest) {
            let end = url_end(rest);
            out.push_str(&url_keeping_position(&rest[..end]));
            i += end;
        } else if word_len == 0 {
            // Every rule starts with an ASCII byte, so `i` stays on a char
            // boundary; `rest` is not empty.
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        } else if let Some(used) = masked(rest, word_len, prev, cookie_lists, &mut out) {
            i += used;
        } else {
            out.push_str(&rest[..word_len]);
            i += word_len;
        }
    }
    out
}

/// Letters, digits, `_` and `-` (ASCII: every rule's names and keys).
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn word_len(rest: &str) -> usize {
    rest.bytes().take_while(|b| is_word_byte(*b)).count()
}

/// The rules that start at a word: on a match, writes the masked text to
/// `out` and returns how many bytes of `rest` it covered.
fn masked(
    rest: &str,
    word_len: usize,
    prev: Option<char>,
    cookie_lists: bool,
    out: &mut String,
) -> Option<usize> {
    let word = &rest[..word_len];
    if word.starts_with("eyJ") {
        // At most three segments: a JWT has two dots, and a longer run
        // must not be read again from each of its words.
        let mut dots = 0;
        let len = rest
            .bytes()
            .take_while(|b| {
                dots += usize::from(*b == b'.');
                is_word_byte(*b) || (*b == b'.' && dots <= 2)
            })
            .count();
        let candidate = rest[..len].trim_end_matches('.');
        if is_jwt(candidate) {
            out.push_str(MASK);
            return Some(candidate.len());
        }
    }
    if let Some(keep) = credential_prefix(word) {
        out.push_str(&word[..keep]);
        out.push_str(MASK);
        return Some(word_len);
    }
    if let Some((prefix, token)) = auth_scheme(rest, word) {
        out.push_str(&rest[..prefix]);
        out.push_str(MASK);
        return Some(prefix + token);
    }
    assignment(rest, word_len, prev, cookie_lists, out)
}

/// `Bearer <token>` or `Basic <base64>` at the start of `rest`: the length
/// of the scheme with its spaces, and of the token. Prose is told apart by
/// the token: at least 8 characters, and for `Bearer` not only lowercase
/// letters ("the bearer of bad news"), for `Basic` a digit, a base64 sign
/// or an inner capital ("Basic Authentication" stays).
fn auth_scheme(rest: &str, word: &str) -> Option<(usize, usize)> {
    let bearer = word.eq_ignore_ascii_case("bearer");
    if !bearer && !word.eq_ignore_ascii_case("basic") {
        return None;
    }
    let after_word = &rest[word.len()..];
    let after = after_word.trim_start_matches([' ', '\t']);
    let prefix = word.len() + after_word.len() - after.len();
    let token = after
        .find(|c: char| !is_token_char(c))
        .unwrap_or(after.len());
    let t = &after[..token];
    let shaped = if bearer {
        !t.bytes().all(|b| b.is_ascii_lowercase())
    } else {
        t.bytes()
            .skip(1)
            .any(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b"+/=".contains(&b))
    };
    (prefix > word.len() && token >= 8 && shaped).then_some((prefix, token))
}

/// RFC 6750 `b64token` characters.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '=')
}

/// `name=value`, `name: value`, `"name": "value"` (also JSON escaped
/// inside a string, `\"name\":\"value\"`) and cookie strings.
fn assignment(
    rest: &str,
    word_len: usize,
    prev: Option<char>,
    cookie_lists: bool,
    out: &mut String,
) -> Option<usize> {
    let b = rest.as_bytes();
    let word = &rest[..word_len];
    let mut j = word_len;
    // The closing quote of a quoted name, maybe escaped.
    if let Some(q) = prev.filter(|c| matches!(c, '"' | '\'')) {
        let q = q as u8;
        if b.get(j) == Some(&q) {
            j += 1;
        } else if b.get(j) == Some(&b'\\') && b.get(j + 1) == Some(&q) {
            j += 2;
        }
    }
    while b.get(j).is_some_and(|c| matches!(c, b' ' | b'\t')) {
        j += 1;
    }
    let sep = *b.get(j)?;
    // `password == x` compares, it does not assign.
    if !matches!(sep, b'=' | b':') || b.get(j + 1) == Some(&b'=') {
        return None;
    }
    if sep == b'='
        && cookie_lists
        && j == word_len
        && let Some(used) = cookie_list(rest, out)
    {
        return Some(used);
    }
    let secret = if sep == b'=' {
        is_secret_name(word)
    } else {
        is_secret_label(word)
    };
    if !secret {
        return None;
    }
    j += 1;
    while b.get(j).is_some_and(|c| matches!(c, b' ' | b'\t')) {
        j += 1;
    }
    let (start, end) = value_span(b, j);
    let value = &rest[start..end];
    // `Authorization: Bearer x`: the scheme rule masks it and keeps the scheme.
    if end == start || value.eq_ignore_ascii_case("bearer") || value.eq_ignore_ascii_case("basic") {
        return None;
    }
    out.push_str(&rest[..start]);
    out.push_str(MASK);
    Some(end)
}

/// Where the value starting at `j` lies: inside its quotes (`"…"`, `'…'`,
/// or JSON-escaped `\"…\"`) up to the closing quote or the end of the
/// line, else up to whitespace or a delimiter.
fn value_span(b: &[u8], j: usize) -> (usize, usize) {
    match (b.get(j), b.get(j + 1)) {
        (Some(&q @ (b'"' | b'\'')), _) => {
            // One walk to the closing quote or the line's end, whichever
            // comes first (looking for the line's end apart would read the
            // rest of the text at every quoted value).
            let start = j + 1;
            let mut k = start;
            while k < b.len() && b[k] != q && b[k] != b'\n' && b[k] != b'\r' {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            let end = k.min(b.len());
            // An escape just before a multi-byte character or the end.
            let end = (start..=end)
                .rev()
                .find(|e| *e == b.len() || b[*e] < 0x80 || b[*e] >= 0xC0)
                .unwrap_or(start);
            (start, end)
        }
        (Some(b'\\'), Some(b'"' | b'\'')) => {
            let start = j + 2;
            let len = b[start.min(b.len())..]
                .iter()
                .take_while(|c| !matches!(c, b'\\' | b'\n' | b'\r' | b'"' | b'\''))
                .count();
            (start, start + len)
        }
        _ => {
            let len = b[j.min(b.len())..]
                .iter()
                .take_while(|c| {
                    !c.is_ascii_whitespace()
                        && !matches!(
                            c,
                            b';' | b'&'
                                | b','
                                | b'"'
                                | b'\''
                                | b'<'
                                | b'>'
                                | b')'
                                | b']'
                                | b'}'
                                | b'\\'
                        )
                })
                .count();
            (j, j + len)
        }
    }
}

/// `a=1; b=2; …` (at least two pairs joined by `; `, as `document.cookie`
/// reads): every value masked. A value ends at `;`, `,`, whitespace, a
/// quote or an `=` that is not trailing padding, so a failed attempt reads
/// only its first pair and the scan stays linear.
fn cookie_list(rest: &str, out: &mut String) -> Option<usize> {
    let b = rest.as_bytes();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut pos = 0;
    loop {
        let name = b[pos..]
            .iter()
            .take_while(|c| is_word_byte(**c) || **c == b'.')
            .count();
        if name == 0 || b.get(pos + name) != Some(&b'=') {
            break;
        }
        let start = pos + name + 1;
        let mut end = start
            + b[start..]
                .iter()
                .take_while(|c| {
                    !c.is_ascii_whitespace() && !matches!(c, b';' | b',' | b'"' | b'\'' | b'=')
                })
                .count();
        end += b[end..].iter().take_while(|c| **c == b'=').count();
        pairs.push((start, end));
        if b[end..].starts_with(b"; ") {
            pos = end + 2;
        } else {
            break;
        }
    }
    if pairs.len() < 2 {
        return None;
    }
    let mut from = 0;
    for (start, end) in &pairs {
        out.push_str(&rest[from..*start]);
        if end > start {
            out.push_str(MASK);
        }
        from = *end;
    }
    Some(from)
}

fn starts_with_url_scheme(rest: &str) -> bool {
    ["https://", "http://", "wss://", "ws://"].iter().any(|p| {
        rest.get(..p.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(p))
    })
}

/// Where a URL in free text ends: at whitespace, a quote or angle bracket,
/// minus trailing sentence punctuation (`see https://x/?a=1.`).
fn url_end(rest: &str) -> usize {
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | '\\'))
        .unwrap_or(rest.len());
    rest[..end]
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}'])
        .len()
}

/// A URL as stack frames and initiators write it, `URL:LINE:COL`: the
/// position is kept apart so a masked query value does not swallow it.
pub(super) fn url_keeping_position(u: &str) -> String {
    if !u.contains(['?', '#']) {
        return url(u);
    }
    let mut head = u;
    for _ in 0..2 {
        match head.rsplit_once(':') {
            Some((h, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head = h,
            _ => break,
        }
    }
    format!("{}{}", url(head), &u[head.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

    fn m(s: &str) -> String {
        s.replace("{M}", MASK)
    }

    #[test]
    fn text_masks_urls_bearer_tokens_and_jwts() {
        assert_eq!(
            text("GET https://api.test/v1?api_key=k1&page=2 failed."),
            m("GET https://api.test/v1?api_key={M}&page=2 failed.")
        );
        assert_eq!(
            text("(see \"https://x.test/?token=a\")"),
            m("(see \"https://x.test/?token={M}\")")
        );
        assert_eq!(
            text("sent Authorization: Bearer abc.def-ghi to server"),
            m("sent Authorization: Bearer {M} to server")
        );
        assert_eq!(text("bearer  xyz12345"), m("bearer  {M}"));
        assert_eq!(text("BEARER Abcdefghij"), m("BEARER {M}"));
        assert_eq!(text(&format!("token was {JWT}.")), m("token was {M}."));
        assert_eq!(text(&format!("jwt={JWT}")), m("jwt={M}"));
    }

    #[test]
    fn text_leaves_ordinary_prose_alone() {
        for s in [
            "Uncaught TypeError: x is undefined at app.js:10:5",
            "the bearer of bad news",
            "Bearer instruments are negotiable",
            "Bearer abc",
            "Bearer",
            "eyJ is not a token",
            "see https://example.test/docs?page=2.",
            "unbearer token",
            "héllo wörld ✓ ключ",
            "",
        ] {
            assert_eq!(text(s), s);
        }
    }

    #[test]
    fn text_survives_odd_input() {
        for s in [
            "http://",
            "https://?token=",
            "Bearer \u{0}",
            "eyJ",
            "eyJ.",
            "ws://ä@",
        ] {
            let _ = text(s);
        }
        let long = "x ".repeat(100_000) + "Bearer tok3n-abcdef";
        assert!(text(&long).ends_with(&m("Bearer {M}")));
    }

    #[test]
    fn text_masks_basic_credentials_but_not_the_phrase() {
        assert_eq!(
            text("sent Authorization: Basic dXNlcjpodW50ZXIy"),
            m("sent Authorization: Basic {M}")
        );
        assert_eq!(text("basic   YWxhZGRpbjpvcGVu=="), m("basic   {M}"));
        for s in ["Basic Authentication is old", "basic usage", "Basic abc"] {
            assert_eq!(text(s), s);
        }
    }

    #[test]
    fn text_masks_credential_assignments_and_labels() {
        assert_eq!(
            text("login password=hunter2 ok"),
            m("login password={M} ok")
        );
        assert_eq!(text("pwd=abc&user=ann"), m("pwd={M}&user=ann"));
        assert_eq!(text("passwd = 'a b c' done"), m("passwd = '{M}' done"));
        assert_eq!(text("token=abc123 and more"), m("token={M} and more"));
        assert_eq!(text("session_token=XyZ"), m("session_token={M}"));
        assert_eq!(text("password: hunter2"), m("password: {M}"));
        assert_eq!(text("X-Api-Key: k-123"), m("X-Api-Key: {M}"));
        assert_eq!(
            text(r#"{"user":"ann","password":"hun\"ter2","n":1}"#),
            m(r#"{"user":"ann","password":"{M}","n":1}"#)
        );
        assert_eq!(
            text(r#"body {\"password\":\"hunter2\"}"#),
            m(r#"body {\"password\":\"{M}\"}"#)
        );
        // A label keeps the scheme for the scheme rule.
        assert_eq!(
            text("Authorization: Bearer abcdef123456"),
            m("Authorization: Bearer {M}")
        );
    }

    #[test]
    fn text_leaves_ordinary_assignments_and_labels() {
        for s in [
            "error code: 404",
            "key: Enter",
            "session: expired",
            "x=1 y=2",
            "if (password == other) {}",
            "token: ",
            "width=100;height=200",
            "charset=utf-8",
        ] {
            assert_eq!(text(s), s);
        }
    }

    #[test]
    fn text_masks_cookie_strings() {
        assert_eq!(
            text("cookies: theme=dark; sid=abc123; lang=en"),
            m("cookies: theme={M}; sid={M}; lang={M}")
        );
        assert_eq!(text("a=b==; c=d"), m("a={M}; c={M}"));
        // A single pair is a cookie string only when its name is a secret.
        assert_eq!(text("theme=dark"), "theme=dark");
        // Headers such as Content-Type carry `; x=1; y=2` parameters.
        assert_eq!(
            header_text("text/plain; charset=utf-8; format=flowed"),
            "text/plain; charset=utf-8; format=flowed"
        );
    }

    #[test]
    fn text_masks_well_known_key_prefixes() {
        for (secret, kept) in [
            ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_"),
            ("AKIAIOSFODNN7EXAMPLE", "AKIA"),
            ("sk-proj-Abc123def456ghi789jkl0", "sk-"),
            ("xoxb-123456789012-abcdefABCDEF", "xoxb-"),
            ("AIzaSyA-1234567890abcdefghijklmnopqrs", "AIza"),
        ] {
            assert_eq!(
                text(&format!("key {secret}, then")),
                m(&format!("key {kept}{{M}}, then")),
                "{secret}"
            );
        }
        for s in ["pip install sk-learn", "AKIA is a prefix", "ghost_town"] {
            assert_eq!(text(s), s);
        }
    }

    #[test]
    fn text_keeps_stack_positions_after_a_masked_url() {
        assert_eq!(
            text("at f (http://x.test/a.js?session_token=abc:12:5)"),
            m("at f (http://x.test/a.js?session_token={M}:12:5)")
        );
        assert_eq!(
            text("see http://x.test:8080 now"),
            "see http://x.test:8080 now"
        );
    }

    /// Linear work takes well under a second here even in a debug build
    /// on a busy machine; a quadratic rule (the first draft of quoted values
    /// was one) takes minutes.
    #[test]
    fn text_stays_linear_on_hostile_input() {
        for unit in [
            "a=",
            "a=b=",
            "a=x.",
            "eyJ.",
            "password=\"",
            "x; ",
            "Bearer ",
            "https://",
        ] {
            let s = unit.repeat(100_000);
            let start = std::time::Instant::now();
            let _ = text(&s);
            assert!(
                start.elapsed() < std::time::Duration::from_secs(5),
                "{unit:?} took {:?}",
                start.elapsed()
            );
        }
    }
}
