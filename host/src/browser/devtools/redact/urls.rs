//! Masking secrets in one URL: the password of `user:pw@`, query and
//! fragment parameters whose name is a credential name or whose value looks
//! like a token, and a bare token as the whole fragment. Names and every
//! other byte are kept (no URL crate: its round trip would re-encode and
//! reorder).

use super::MASK;
use super::names::{is_secret_name, looks_like_token};

/// `url` with its secrets masked (see the module header).
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

/// `a=1&token=x` → `a=1&token=‹redacted›`; empty pieces (`&&`) kept. Also
/// what a form-urlencoded body is masked with.
pub fn params_masked(query: &str) -> String {
    query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((name, value))
                if !value.is_empty() && (is_secret_name(name) || looks_like_token(value)) =>
            {
                format!("{name}={MASK}")
            }
            Some((name, value)) => match nested_masked(value) {
                Some(masked) => format!("{name}={masked}"),
                None => param.to_string(),
            },
            None if looks_like_token(param) => MASK.to_string(),
            None => param.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A percent-encoded URL or query in a parameter value (a redirector's
/// `?to=/next%3Fsession_token%3D…`, a login's `return_to`), masked: `None`
/// when it holds no secret. The masked value is encoded again only as far
/// as it must be to stay one value (`%`, `&`, `=`, `#`, `+`, space), so the
/// mask stays readable. Each level decodes to a shorter string, so nesting
/// ends.
fn nested_masked(value: &str) -> Option<String> {
    if !value.contains('%') {
        return None;
    }
    let decoded = percent_decoded(value)?;
    if !decoded.contains('=') || decoded == value {
        return None;
    }
    let masked = if decoded.contains("://") || decoded.contains('?') || decoded.starts_with('/') {
        url(&decoded)
    } else {
        params_masked(&decoded)
    };
    (masked != decoded).then(|| {
        let mut out = String::with_capacity(masked.len() + 16);
        for c in masked.chars() {
            match c {
                '%' | '&' | '=' | '#' | '+' | ' ' => out.push_str(&format!("%{:02X}", c as u32)),
                c => out.push(c),
            }
        }
        out
    })
}

/// `%XX` escapes (and `+` as a space) decoded; `None` when that is not
/// UTF-8.
fn percent_decoded(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::devtools::redact::MASK;

    const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    const OPAQUE: &str = "a8F3kQ9zL2mX7pR4tV1wY6bN0cD5";
    const HEX: &str = "5d41402abc4b2a76b9719d911017c592";

    fn m(s: &str) -> String {
        s.replace("{M}", MASK)
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
    fn url_masks_a_secret_in_an_encoded_url_inside_a_parameter() {
        assert_eq!(
            url("http://x.test/redirect?to=/home%3Fsession_token%3Dabc%26tab%3D2&n=1"),
            m("http://x.test/redirect?to=/home?session_token%3D{M}%26tab%3D2&n=1")
        );
        assert_eq!(
            url("https://x.test/login?return_to=https%3A%2F%2Fa.test%2F%3Fq%3Dshoes"),
            "https://x.test/login?return_to=https%3A%2F%2Fa.test%2F%3Fq%3Dshoes"
        );
        assert_eq!(
            url("https://x.test/?next=a%253Dtoken%25253Dx"),
            "https://x.test/?next=a%253Dtoken%25253Dx"
        );
        assert_eq!(url("https://x.test/?v=%FF%3D"), "https://x.test/?v=%FF%3D");
    }
}
