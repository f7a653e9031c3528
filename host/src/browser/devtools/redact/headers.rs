//! Masking header values: a credential header loses its value (keeping
//! the auth scheme and cookie names), a URL-valued header goes through the
//! URL redactor, and any other header through the free-text one, so a
//! token in `Referer`, `Location` or a custom header is caught too.

use super::Header;
use super::{MASK, text, url};

/// Headers whose value is a credential, by name (any case).
///
/// Beyond the standard four (`Authorization`, `Proxy-Authorization`,
/// `Cookie`, `Set-Cookie`), a name is a credential header when it contains
/// `auth` as a word or `authoriz`/`authentic` anywhere (`X-Authorization`,
/// `Authentication`, `X-Auth-User`), `token`, `secret`, `passw`,
/// `credential`, `jwt`, `session`, `csrf`/`xsrf`, `cookie` or `signature`,
/// or when one of its words ends in `key` (`X-Api-Key`, `X-Functions-Key`,
/// `Ocp-Apim-Subscription-Key`, `apikey`) or is `sig`. A false positive
/// only hides a value, a false negative leaks one. The challenges
/// `WWW-Authenticate`/`Proxy-Authenticate` name a scheme, not a secret,
/// and stay readable; so does h2's `:authority` (the host).
pub fn is_sensitive_header(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "authoriz",
        "authentic",
        "token",
        "secret",
        "passw",
        "credential",
        "jwt",
        "session",
        "csrf",
        "xsrf",
        "cookie",
        "signature",
        "api-key",
        "api_key",
    ];
    const CHALLENGES: &[&str] = &["www-authenticate", "proxy-authenticate"];
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() || CHALLENGES.contains(&name.as_str()) {
        return false;
    }
    PARTS.iter().any(|p| name.contains(p))
        || name
            .split(['-', '_', '.', ':'])
            .any(|word| word == "auth" || word == "sig" || word.ends_with("key"))
}

/// Headers whose whole value is one URL (absolute or relative).
fn is_url_header(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "referer",
        "location",
        "content-location",
        "origin",
        "access-control-allow-origin",
    ];
    let name = name.trim().to_ascii_lowercase();
    EXACT.contains(&name.as_str())
        || ["-url", "_url", "-uri", "_uri"]
            .iter()
            .any(|s| name.ends_with(s))
}

/// The value to show for header `name`.
///
/// A credential header: `Authorization` keeps its scheme (`Bearer
/// ‹redacted›`), `Cookie` its cookie names, `Set-Cookie` its name and
/// attributes; the others are wholly masked. A URL header is masked as a
/// URL, any other as free text. CDP joins repeated headers with `\n`, so
/// each line is masked on its own.
pub fn header_value(name: &str, value: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let line: fn(&str) -> String = if is_sensitive_header(&lower) {
        match lower.as_str() {
            "authorization" | "proxy-authorization" => auth_line,
            "cookie" => cookie_line,
            "set-cookie" => set_cookie_line,
            _ => whole_line,
        }
    } else if is_url_header(&lower) {
        url
    } else {
        text::header_text
    };
    value.split('\n').map(line).collect::<Vec<_>>().join("\n")
}

/// Masks every header of `list` in place (see [`header_value`]).
pub fn headers(list: &mut [Header]) {
    for header in list {
        header.value = header_value(&header.name, &header.value);
    }
}

fn whole_line(line: &str) -> String {
    if line.trim().is_empty() {
        line.to_string()
    } else {
        MASK.to_string()
    }
}

/// `Bearer abc` → `Bearer ‹redacted›`; a bare token, or a "scheme" that is
/// not an auth-scheme token, is wholly masked.
fn auth_line(line: &str) -> String {
    let trimmed = line.trim_start();
    let lead = &line[..line.len() - trimmed.len()];
    match trimmed.split_once([' ', '\t']) {
        Some((scheme, rest))
            if !rest.trim().is_empty()
                && scheme.len() <= 32
                && scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            format!("{lead}{scheme} {MASK}")
        }
        _ => whole_line(line),
    }
}

/// `a=1; b=2` → `a=‹redacted›; b=‹redacted›`, spacing kept.
fn cookie_line(line: &str) -> String {
    line.split(';')
        .map(|pair| {
            if pair.trim().is_empty() {
                pair.to_string()
            } else {
                name_masked(pair)
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `sid=xyz; Path=/; HttpOnly` → `sid=‹redacted›; Path=/; HttpOnly`.
fn set_cookie_line(line: &str) -> String {
    match line.split_once(';') {
        Some((pair, attributes)) => format!("{};{attributes}", name_masked(pair)),
        None => name_masked(line),
    }
}

/// `name=value` → `name=‹redacted›`; without `=` the whole pair is the
/// value (leading whitespace kept).
fn name_masked(pair: &str) -> String {
    match pair.split_once('=') {
        Some((name, _)) => format!("{name}={MASK}"),
        None => {
            let trimmed = pair.trim_start();
            format!("{}{MASK}", &pair[..pair.len() - trimmed.len()])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> String {
        s.replace("{M}", MASK)
    }

    #[test]
    fn sensitive_headers_are_recognised_in_any_case() {
        for name in [
            "Authorization",
            "PROXY-AUTHORIZATION",
            "cookie",
            "Set-Cookie",
            "X-Api-Key",
            "x-auth-token",
            "X-CSRF-Token",
            "x-xsrf-token",
            "X-Amz-Security-Token",
            "x-goog-api-key",
            "X-Client-Secret",
            "X-Refresh-Token",
            " cookie ",
        ] {
            assert!(is_sensitive_header(name), "{name}");
        }
        for name in [
            "content-type",
            "accept",
            "www-authenticate",
            "user-agent",
            "location",
            "x-request-id",
            "",
        ] {
            assert!(!is_sensitive_header(name), "{name}");
        }
    }

    #[test]
    fn authorization_keeps_its_scheme() {
        assert_eq!(header_value("Authorization", "Bearer abc"), m("Bearer {M}"));
        assert_eq!(
            header_value("authorization", "Basic dXNlcjpwYXNz"),
            m("Basic {M}")
        );
        assert_eq!(
            header_value("Authorization", r#"Digest username="a", response="b""#),
            m("Digest {M}")
        );
        assert_eq!(
            header_value("Proxy-Authorization", "Negotiate YII="),
            m("Negotiate {M}")
        );
        // A bare token or a scheme with odd characters leaks nothing either.
        assert_eq!(header_value("Authorization", "abc123"), MASK);
        assert_eq!(header_value("Authorization", "a=b c"), MASK);
        assert_eq!(header_value("Authorization", "Bearer "), MASK);
        assert!(!header_value("Authorization", "Bearer abc").contains("abc"));
    }

    #[test]
    fn cookie_keeps_names_and_spacing() {
        assert_eq!(header_value("Cookie", "a=1; b=2"), m("a={M}; b={M}"));
        assert_eq!(
            header_value("cookie", "sid=x=y;theme=dark"),
            m("sid={M};theme={M}")
        );
        assert_eq!(header_value("Cookie", "lonely"), MASK);
        assert_eq!(header_value("Cookie", "a=1; "), m("a={M}; "));
        assert_eq!(header_value("Cookie", ""), "");
    }

    #[test]
    fn set_cookie_keeps_name_and_attributes_line_by_line() {
        assert_eq!(
            header_value("Set-Cookie", "sid=xyz; Path=/; HttpOnly"),
            m("sid={M}; Path=/; HttpOnly")
        );
        assert_eq!(
            header_value(
                "set-cookie",
                "sid=xyz; Path=/; Secure\ncsrf=abc; SameSite=Strict\nplain=1"
            ),
            m("sid={M}; Path=/; Secure\ncsrf={M}; SameSite=Strict\nplain={M}")
        );
        assert_eq!(header_value("Set-Cookie", "novalue"), MASK);
    }

    #[test]
    fn other_sensitive_headers_are_wholly_masked_and_others_untouched() {
        assert_eq!(header_value("X-Api-Key", "k-123"), MASK);
        assert_eq!(header_value("X-CSRF-Token", "abc"), MASK);
        assert_eq!(
            header_value("Content-Type", "text/html; charset=utf-8"),
            "text/html; charset=utf-8"
        );
        assert_eq!(header_value("Location", "/next?x=1"), "/next?x=1");
    }

    #[test]
    fn headers_masks_in_place_and_keeps_order() {
        let mut list = vec![
            Header {
                name: "Accept".into(),
                value: "*/*".into(),
            },
            Header {
                name: "Cookie".into(),
                value: "a=1".into(),
            },
            Header {
                name: "Authorization".into(),
                value: "Bearer t".into(),
            },
        ];
        headers(&mut list);
        assert_eq!(list[0].value, "*/*");
        assert_eq!(list[1].value, m("a={M}"));
        assert_eq!(list[2].value, m("Bearer {M}"));
        assert_eq!(list[1].name, "Cookie");
    }
}
