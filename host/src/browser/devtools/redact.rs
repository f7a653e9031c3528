//! Masking secrets in devtools output (headers, URLs, console text) unless
//! the user asked for `--reveal`.
//!
//! Owns what counts as a secret and how it is masked; it must not decide
//! *whether* to mask (the caller checks `--reveal`). Masking keeps what helps
//! debugging (header and parameter names, the auth scheme, cookie
//! attributes) and leaves every other byte as it was: URLs are not parsed by
//! a URL crate, whose round trip would re-encode and reorder them.

use super::entry::Header;

/// What replaces a secret. Not valid in a URL or a header token, so a masked
/// value can never be mistaken for (or replayed as) the real one.
pub const MASK: &str = "‹redacted›";

/// Headers whose value is a credential.
///
/// The four standard ones carry credentials or session state by definition.
/// The `x-…` ones are the de-facto API key, session token and CSRF token
/// headers (a CSRF token is tied to a session, so it is as good as one for
/// an attacker). Beyond the list, any name containing `token`, `secret`,
/// `password`, `api-key`/`apikey`, `credential` or `jwt` counts: a
/// false positive only hides a value, a false negative leaks one.
pub fn is_sensitive_header(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "x-auth-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-csrftoken",
        "x-session-id",
        "x-amz-security-token",
        "x-goog-api-key",
    ];
    const PARTS: &[&str] = &[
        "token",
        "secret",
        "password",
        "api-key",
        "api_key",
        "apikey",
        "credential",
        "jwt",
    ];
    let name = name.trim().to_ascii_lowercase();
    EXACT.contains(&name.as_str()) || PARTS.iter().any(|p| name.contains(p))
}

/// The value to show for header `name`: unchanged unless sensitive.
///
/// `Authorization` keeps its scheme (`Bearer ‹redacted›`), `Cookie` its
/// cookie names, `Set-Cookie` its name and attributes; other sensitive
/// headers are wholly masked. CDP joins repeated headers with `\n`, so each
/// line is masked on its own.
pub fn header_value(name: &str, value: &str) -> String {
    if !is_sensitive_header(name) {
        return value.to_string();
    }
    let name = name.trim().to_ascii_lowercase();
    let line: fn(&str) -> String = match name.as_str() {
        "authorization" | "proxy-authorization" => auth_line,
        "cookie" => cookie_line,
        "set-cookie" => set_cookie_line,
        _ => whole_line,
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

/// `url` with secrets masked: the password of `user:pw@`, query and
/// fragment parameters whose name is a credential name or whose value looks
/// like a token (a JWT, or a long opaque mix of letters and digits), and a
/// bare token as the whole fragment. Names and all other bytes are kept.
pub fn url(url: &str) -> String {
    let mut out = String::with_capacity(url.len() + 16);
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((head, fragment)) => (head, Some(fragment)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (before_fragment, None),
    };
    out.push_str(&userinfo_masked(base));
    if let Some(query) = query {
        out.push('?');
        out.push_str(&params_masked(query));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(&fragment_masked(fragment));
    }
    out
}

/// `https://user:pw@host/…` → `https://user:‹redacted›@host/…`.
fn userinfo_masked(base: &str) -> String {
    let Some(scheme_end) = base.find("://") else {
        return base.to_string();
    };
    let scheme = &base[..scheme_end];
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !is_scheme {
        return base.to_string();
    }
    let authority_start = scheme_end + 3;
    let authority_end = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    let authority = &base[authority_start..authority_end];
    let Some(at) = authority.rfind('@') else {
        return base.to_string();
    };
    let Some((user, password)) = authority[..at].split_once(':') else {
        return base.to_string();
    };
    if password.is_empty() {
        return base.to_string();
    }
    format!(
        "{}{user}:{MASK}{}",
        &base[..authority_start],
        &base[authority_start + at..]
    )
}

/// `a=1&token=x` → `a=1&token=‹redacted›`; empty pieces (`&&`) kept.
fn params_masked(query: &str) -> String {
    query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((name, value))
                if !value.is_empty() && (is_secret_name(name) || looks_like_token(value)) =>
            {
                format!("{name}={MASK}")
            }
            Some(_) => param.to_string(),
            None if looks_like_token(param) => MASK.to_string(),
            None => param.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Fragments carry OAuth implicit-flow tokens (`#access_token=…&id_token=…`)
/// and SPA routes with their own query (`#/cb?code=…`).
fn fragment_masked(fragment: &str) -> String {
    if let Some((route, query)) = fragment.split_once('?') {
        format!("{route}?{}", params_masked(query))
    } else if fragment.contains('=') {
        params_masked(fragment)
    } else if looks_like_token(fragment) {
        MASK.to_string()
    } else {
        fragment.to_string()
    }
}

/// Parameter names that carry credentials, compared lowercase with `-` and
/// `_` removed (so `access_token`, `access-token` and `accessToken` match).
/// `code` is OAuth's authorization code; `sig`/`signature` and the
/// `x-amz-*`/`x-goog-*` names make presigned URLs replayable.
fn is_secret_name(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "token",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "auth",
        "authorization",
        "key",
        "apikey",
        "accesskey",
        "privatekey",
        "secret",
        "clientsecret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "session",
        "sessionid",
        "sessid",
        "phpsessid",
        "jsessionid",
        "sid",
        "sig",
        "signature",
        "code",
        "jwt",
        "credential",
        "credentials",
        "xamzsignature",
        "xamzcredential",
        "xamzsecuritytoken",
        "xgoogsignature",
        "xgoogcredential",
        "otp",
        "assertion",
        "samlresponse",
    ];
    const SUFFIXES: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "signature",
        "apikey",
        "credential",
    ];
    let normalized: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    EXACT.contains(&normalized.as_str()) || SUFFIXES.iter().any(|s| normalized.ends_with(s))
}

/// A value that is a credential whatever its name: a JWT, or an opaque
/// string of at least 24 letters/digits (base64 or hex, `%XX` escapes and
/// `-_+/=` allowed) that mixes letters and digits with the frequent
/// letter/digit and case changes of random text. UUIDs are left alone: they
/// are usually record ids, and ids help debugging.
fn looks_like_token(value: &str) -> bool {
    is_jwt(value) || (is_opaque_token(value) && !is_uuid(value))
}

/// `eyJ…` header, payload and (possibly empty) signature, base64url.
fn is_jwt(value: &str) -> bool {
    let parts: Vec<&str> = value.split('.').collect();
    parts.len() == 3
        && value.starts_with("eyJ")
        && parts[0].len() >= 10
        && parts[1].len() >= 2
        && parts.iter().all(|p| {
            p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

fn is_opaque_token(value: &str) -> bool {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Upper,
        Lower,
        Digit,
    }
    let bytes = value.as_bytes();
    let (mut alnum, mut letters, mut digits, mut changes) = (0usize, 0usize, 0usize, 0usize);
    let mut last: Option<Class> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let class = if b.is_ascii_uppercase() {
            Class::Upper
        } else if b.is_ascii_lowercase() {
            Class::Lower
        } else if b.is_ascii_digit() {
            Class::Digit
        } else if matches!(b, b'-' | b'_' | b'+' | b'/' | b'=') {
            i += 1;
            continue;
        } else if b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            i += 3;
            continue;
        } else {
            return false;
        };
        alnum += 1;
        if class == Class::Digit {
            digits += 1;
        } else {
            letters += 1;
        }
        if last.is_some_and(|l| l != class) {
            changes += 1;
        }
        last = Some(class);
        i += 1;
    }
    // Words with a number ("summer_sale_2024") change class once or twice;
    // random base64 or hex changes on about half of its characters.
    alnum >= 24 && letters > 0 && digits > 0 && changes * 4 >= alnum
}

fn is_uuid(value: &str) -> bool {
    let groups: Vec<&str> = value.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Free text (console messages, exception text) with secrets masked: every
/// `http(s)://` or `ws(s)://` URL as [`url`] masks it, the token after
/// `Bearer `, and any JWT.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let at_word_start = !s[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if at_word_start && starts_with_url_scheme(rest) {
            let end = url_end(rest);
            out.push_str(&url(&rest[..end]));
            i += end;
        } else if let Some((prefix, token)) = at_word_start.then(|| bearer(rest)).flatten() {
            out.push_str(&rest[..prefix]);
            out.push_str(MASK);
            i += prefix + token;
        } else if at_word_start && rest.starts_with("eyJ") {
            let len = rest
                .find(|c: char| !(is_token_char(c) && c != '~' && c != '+' && c != '/' && c != '='))
                .unwrap_or(rest.len());
            let candidate = rest[..len].trim_end_matches('.');
            if is_jwt(candidate) {
                out.push_str(MASK);
                i += candidate.len();
            } else {
                out.push_str("eyJ");
                i += 3;
            }
        } else {
            // The branches above only match ASCII, so `rest` starts on a
            // char boundary and has at least one char.
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8().max(1);
        }
    }
    out
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
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
        .unwrap_or(rest.len());
    rest[..end]
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}'])
        .len()
}

/// `Bearer <token>` at the start of `rest`: the length of `Bearer ` (any
/// case, one or more spaces) and of the token. Prose ("the bearer of bad
/// news") is told apart by the token: at least 8 characters and not only
/// lowercase letters.
fn bearer(rest: &str) -> Option<(usize, usize)> {
    let head = rest.get(..6)?;
    if !head.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let after_word = &rest[6..];
    let after = after_word.trim_start_matches([' ', '\t']);
    let prefix = 6 + after_word.len() - after.len();
    let token = after
        .find(|c: char| !is_token_char(c))
        .unwrap_or(after.len());
    let looks_like_token = token >= 8 && !after[..token].bytes().all(|b| b.is_ascii_lowercase());
    (prefix > 6 && looks_like_token).then_some((prefix, token))
}

/// RFC 6750 `b64token` characters.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '=')
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    const OPAQUE: &str = "a8F3kQ9zL2mX7pR4tV1wY6bN0cD5";
    const HEX: &str = "5d41402abc4b2a76b9719d911017c592";

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

    #[test]
    fn url_masks_secret_names_in_query() {
        assert_eq!(
            url("https://x.test/cb?code=abc&state=1&q=shoes"),
            m("https://x.test/cb?code={M}&state=1&q=shoes")
        );
        for name in [
            "token",
            "access_token",
            "Access-Token",
            "accessToken",
            "refresh_token",
            "id_token",
            "auth",
            "key",
            "api_key",
            "apiKey",
            "secret",
            "client_secret",
            "password",
            "passwd",
            "pwd",
            "session",
            "sessionid",
            "sid",
            "sig",
            "signature",
            "jwt",
            "credential",
            "X-Amz-Signature",
            "X-Amz-Credential",
            "X-Amz-Security-Token",
            "authenticity_token",
            "csrftoken",
        ] {
            assert_eq!(
                url(&format!("https://x.test/p?{name}=v1&page=2")),
                m(&format!("https://x.test/p?{name}={{M}}&page=2")),
                "{name}"
            );
        }
    }

    #[test]
    fn url_keeps_plain_values_byte_for_byte() {
        for u in [
            "https://shop.test/search?q=shoes&page=2&lang=en&id=42",
            "https://x.test/a%20b?q=caf%C3%A9&x=a+b&sort_by=price#section-2",
            "https://x.test/p?utm_campaign=summer_sale_2024_promo_email",
            "https://x.test/p?id=123e4567-e89b-12d3-a456-426614174000",
            "https://x.test/p?ts=17000000000000000000000000",
            "https://x.test/p?b=2&a=1&b=3",
            "https://user@x.test/p",
            "https://user:@x.test/p",
            "/relative/path?page=2",
            "about:blank",
        ] {
            assert_eq!(url(u), u);
        }
    }

    #[test]
    fn url_masks_token_like_values_whatever_the_name() {
        assert_eq!(
            url(&format!("https://x.test/p?state={JWT}&n=1")),
            m("https://x.test/p?state={M}&n=1")
        );
        assert_eq!(
            url(&format!("https://x.test/p?x={OPAQUE}")),
            m("https://x.test/p?x={M}")
        );
        assert_eq!(
            url(&format!("https://x.test/p?h={HEX}")),
            m("https://x.test/p?h={M}")
        );
        assert_eq!(
            url("https://x.test/p?v=ab12%2Bcd34%2Fef56gh78ij90kl12mn34"),
            m("https://x.test/p?v={M}")
        );
        assert_eq!(
            url(&format!("https://x.test/p?{OPAQUE}")),
            m("https://x.test/p?{M}")
        );
        // Too short to be a credential.
        assert_eq!(
            url("https://x.test/p?x=a8F3kQ9zL2"),
            "https://x.test/p?x=a8F3kQ9zL2"
        );
    }

    #[test]
    fn url_masks_fragment_parameters() {
        assert_eq!(
            url(
                "https://app.test/cb#access_token=abc&id_token=def&token_type=Bearer&expires_in=3600"
            ),
            m(
                "https://app.test/cb#access_token={M}&id_token={M}&token_type=Bearer&expires_in=3600"
            )
        );
        assert_eq!(
            url("https://app.test/#/callback?code=xyz&next=/home"),
            m("https://app.test/#/callback?code={M}&next=/home")
        );
        assert_eq!(
            url(&format!("https://app.test/#{JWT}")),
            m("https://app.test/#{M}")
        );
        assert_eq!(
            url("https://app.test/doc#intro"),
            "https://app.test/doc#intro"
        );
    }

    #[test]
    fn url_masks_userinfo_password() {
        assert_eq!(
            url("https://user:pw@host.test/p?q=1"),
            m("https://user:{M}@host.test/p?q=1")
        );
        assert_eq!(url("ftp://a:b:c@h.test"), m("ftp://a:{M}@h.test"));
        // An `@` in the path is not userinfo.
        assert_eq!(url("https://h.test/u:p@x"), "https://h.test/u:p@x");
        assert_eq!(url("https://u:p@h.test?x=1"), m("https://u:{M}@h.test?x=1"));
    }

    #[test]
    fn url_survives_odd_input() {
        for u in [
            "",
            "?",
            "#",
            "&&",
            "=",
            "?&&=",
            "?=x",
            "?token=",
            "https://",
            "://@:",
            "?a=%",
            "?a=%zz",
            "h://ü:ö@ä/é?ключ=значение#ü",
            "https://x/?token=€€",
        ] {
            let _ = url(u);
        }
        assert_eq!(url("?token="), "?token=");
        assert_eq!(url("?&&"), "?&&");
        assert_eq!(url("https://x/?token=€€"), m("https://x/?token={M}"));
        let long = format!("https://x.test/p?q={}&token=1", "a".repeat(200_000));
        assert!(url(&long).ends_with(&m("&token={M}")));
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
}
