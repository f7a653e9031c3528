//! Masking request and response bodies by their content type: JSON by its
//! keys (at any depth), forms and multipart forms by their field names, and
//! anything else as free text. Every parser here is tolerant (a body cut at
//! the capture cap, or lying about its type, is still masked as far as it
//! goes) and single-pass, and keeps every byte it does not mask.

use super::names::{is_secret_key, looks_like_token};
use super::urls::params_masked;
use super::{MASK, text};

/// `body` with its secrets masked, read as `content_type` says (the
/// `Content-Type` header value, parameters included) or, without one, as
/// what it looks like.
pub fn body(content_type: Option<&str>, body: &str) -> String {
    let ct = content_type.unwrap_or("").trim();
    let mime = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let start = body.trim_start();
    let looks_json = start.starts_with('{') || start.starts_with('[');
    if mime == "application/json" || mime.ends_with("+json") || mime.ends_with("/json") {
        json(body)
    } else if mime == "application/x-www-form-urlencoded" {
        params_masked(body)
    } else if mime == "multipart/form-data" || (mime.is_empty() && start.starts_with("--")) {
        multipart(boundary(ct), body)
    } else if looks_json && (mime.is_empty() || mime.starts_with("text/plain")) {
        json(body)
    } else if mime.is_empty() && !body.contains(char::is_whitespace) && body.contains('=') {
        // What a form posts when the type header was not captured.
        params_masked(body)
    } else {
        text(body)
    }
}

/// The `boundary=` parameter of a multipart content type.
fn boundary(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
            .filter(|b| !b.is_empty())
    })
}

/// JSON masked without parsing it into a tree (which would reorder keys
/// and refuse a body cut short): a value whose key is secret
/// ([`is_secret_key`]) becomes `"‹redacted›"` whatever it was (string,
/// number, object, array; `true`/`false`/`null` stay), and every other
/// string is masked as free text, or wholly when it looks like a token.
pub fn json(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let masked_value = format!("\"{MASK}\"");
    let mut key_secret = false;
    let mut value_secret = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i);
                let literal = &s[i..end];
                let mut j = end;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if value_secret {
                    out.push_str(&masked_value);
                    value_secret = false;
                } else if b.get(j) == Some(&b':') {
                    key_secret = is_secret_key(&decoded(literal));
                    out.push_str(literal);
                } else {
                    out.push_str(&string_masked(literal));
                }
                i = end;
            }
            b':' => {
                out.push(':');
                value_secret = key_secret;
                key_secret = false;
                i += 1;
            }
            b'{' | b'[' if value_secret => {
                out.push_str(&masked_value);
                value_secret = false;
                i = container_end(b, i);
            }
            c if value_secret && (c == b'-' || c.is_ascii_digit()) => {
                out.push_str(&masked_value);
                value_secret = false;
                i += b[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                    .count();
            }
            c if c.is_ascii_whitespace() => {
                out.push(c as char);
                i += 1;
            }
            _ => {
                // Structure, literals, or bytes that are not JSON at all.
                value_secret = false;
                let c = s[i..].chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The index after the string literal starting at `start` (a `"`), or the
/// end of the text when it is not closed.
fn string_end(b: &[u8], start: usize) -> usize {
    let mut k = start + 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

/// The index after the object or array starting at `start`, strings
/// skipped; the end of the text when it is not closed.
fn container_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut k = start;
    while k < b.len() {
        match b[k] {
            b'"' => {
                k = string_end(b, k);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    b.len()
}

/// A string literal's text (escapes decoded); the raw inside when it does
/// not decode (cut short).
fn decoded(literal: &str) -> String {
    serde_json::from_str::<String>(literal).unwrap_or_else(|_| {
        literal
            .trim_start_matches('"')
            .trim_end_matches('"')
            .to_string()
    })
}

/// A string value: the literal as it was when nothing in it is secret, or
/// re-encoded with its secrets masked.
fn string_masked(literal: &str) -> String {
    let raw = decoded(literal);
    let shown = text(&raw);
    let masked = if shown == raw && looks_like_token(&raw) {
        MASK.to_string()
    } else {
        shown
    };
    if masked == raw {
        literal.to_string()
    } else {
        serde_json::to_string(&masked).unwrap_or_else(|_| format!("\"{MASK}\""))
    }
}

/// `multipart/form-data`: a field whose name is secret has its content
/// masked, the others are masked by their own content type; the part
/// headers, boundaries and file names are kept. Without a boundary in the
/// type it is taken from the first line; without one at all the body is
/// free text.
fn multipart(boundary: Option<&str>, body: &str) -> String {
    let first_line = body.lines().next().unwrap_or("").trim_end();
    let delimiter = match boundary {
        Some(b) => format!("--{b}"),
        None if first_line.starts_with("--") && first_line.len() > 2 => first_line.to_string(),
        None => return text(body),
    };
    if !body.contains(&delimiter) {
        return text(body);
    }
    let mut pieces = body.split(delimiter.as_str());
    let mut out = pieces.next().map(text).unwrap_or_default();
    for piece in pieces {
        out.push_str(&delimiter);
        out.push_str(&part_masked(piece));
    }
    out
}

/// One part after its delimiter: `\r\nheaders\r\n\r\ncontent\r\n` (or the
/// closing `--`).
fn part_masked(piece: &str) -> String {
    let Some((head_len, sep_len)) = piece
        .find("\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| piece.find("\n\n").map(|i| (i, 2)))
    else {
        return text(piece);
    };
    let head = &piece[..head_len];
    let content_start = head_len + sep_len;
    let content = &piece[content_start..];
    // The content ends with the line break before the next delimiter.
    let trimmed = content
        .strip_suffix("\r\n")
        .or_else(|| content.strip_suffix('\n'))
        .unwrap_or(content);
    let tail = &content[trimmed.len()..];
    let field = part_header(head, "content-disposition")
        .and_then(disposition_name)
        .unwrap_or_default();
    let masked = if is_secret_key(&field) {
        if trimmed.is_empty() {
            String::new()
        } else {
            MASK.to_string()
        }
    } else {
        match part_header(head, "content-type") {
            Some(ct) if !ct.to_ascii_lowercase().starts_with("multipart/") => {
                body(Some(ct), trimmed)
            }
            _ => text(trimmed),
        }
    };
    format!("{}{masked}{tail}", &piece[..content_start])
}

fn part_header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// `form-data; name="password"; filename="x"` → `password`.
fn disposition_name(disposition: &str) -> Option<String> {
    disposition.split(';').find_map(|p| {
        let (n, v) = p.split_once('=')?;
        n.trim()
            .eq_ignore_ascii_case("name")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> String {
        s.replace("{M}", MASK)
    }

    #[test]
    fn json_masks_secret_keys_at_any_depth_and_keeps_the_rest_byte_for_byte() {
        let plain = r#"{"items": [1, 2, 3], "source": "fixture",  "n": -1.5e3}"#;
        assert_eq!(json(plain), plain);
        assert_eq!(
            json(r#"{"user":"ann","password":"hunter2","deep":{"list":[{"access_token":"t1"}]}}"#),
            m(r#"{"user":"ann","password":"{M}","deep":{"list":[{"access_token":"{M}"}]}}"#)
        );
        assert_eq!(
            json(r#"{"pin_password": 1234, "credentials": {"a": [1, {"b": 2}]}, "ok": true}"#),
            m(r#"{"pin_password": "{M}", "credentials": "{M}", "ok": true}"#)
        );
        assert_eq!(
            json(r#"{"apiKey": null, "secret": false}"#),
            r#"{"apiKey": null, "secret": false}"#
        );
        // Escaped keys are compared decoded.
        assert_eq!(
            json(r#"{"pass\u0077ord": "x"}"#),
            m(r#"{"pass\u0077ord": "{M}"}"#)
        );
    }

    #[test]
    fn json_masks_token_shapes_in_ordinary_strings() {
        assert_eq!(
            json(
                r#"{"note": "use Bearer abcdef123456 here", "k": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}"#
            ),
            m(r#"{"note": "use Bearer {M} here", "k": "ghp_{M}"}"#)
        );
        assert_eq!(
            json(r#"["a8F3kQ9zL2mX7pR4tV1wY6bN0cD5", "plain"]"#),
            m(r#"["{M}", "plain"]"#)
        );
    }

    #[test]
    fn json_cut_short_or_broken_is_still_masked() {
        assert_eq!(
            json(r#"{"a": 1, "token": "abc"#),
            m(r#"{"a": 1, "token": "{M}""#)
        );
        assert_eq!(
            json(r#"{"password": {"x": [1, 2"#),
            m(r#"{"password": "{M}""#)
        );
        for s in [
            "",
            "\"",
            "{",
            "{\"",
            ":",
            "\"\\",
            "{\"a\":",
            "ü{\"é\":\"ö\"}",
        ] {
            let _ = json(s);
        }
        let deep = format!(
            "{}\"password\":{}",
            "[".repeat(100_000),
            "[".repeat(100_000)
        );
        let _ = json(&deep);
    }

    #[test]
    fn bodies_are_read_by_content_type() {
        assert_eq!(
            body(Some("application/json; charset=utf-8"), r#"{"token":"t"}"#),
            m(r#"{"token":"{M}"}"#)
        );
        assert_eq!(
            body(Some("application/vnd.api+json"), r#"{"secret":"s"}"#),
            m(r#"{"secret":"{M}"}"#)
        );
        assert_eq!(
            body(
                Some("application/x-www-form-urlencoded"),
                "user=ann&password=hunter2"
            ),
            m("user=ann&password={M}")
        );
        assert_eq!(
            body(None, "user=ann&password=x"),
            m("user=ann&password={M}")
        );
        assert_eq!(
            body(None, r#" {"password": "x"}"#),
            m(r#" {"password": "{M}"}"#)
        );
        assert_eq!(
            body(Some("text/plain"), "password=hunter2 and more"),
            m("password={M} and more")
        );
        assert_eq!(body(Some("text/html"), "<p>hello</p>"), "<p>hello</p>");
    }

    #[test]
    fn multipart_masks_secret_fields_and_keeps_the_frame() {
        let form = "------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n\
             ------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n\
             ------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"api_key\":\"k1\"}\r\n\
             ------WebKitFormBoundaryAbC123--\r\n";
        let want = m("------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n\
             ------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"password\"\r\n\r\n{M}\r\n\
             ------WebKitFormBoundaryAbC123\r\n\
             Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"api_key\":\"{M}\"}\r\n\
             ------WebKitFormBoundaryAbC123--\r\n");
        let ct = "multipart/form-data; boundary=----WebKitFormBoundaryAbC123";
        assert_eq!(body(Some(ct), form), want);
        // The boundary is found without the header too.
        assert_eq!(body(None, form), want);
        // A body that does not hold its boundary is free text.
        assert_eq!(
            body(Some("multipart/form-data; boundary=zz"), "password=x y"),
            m("password={M} y")
        );
    }
}
