//! What names and values count as secrets, shared by every redactor: the
//! parameter/field names that carry credentials and the shapes of values
//! that are credentials whatever their name. Decides only; masking is done
//! by the callers.

/// Lowercase with `-`, `_` and `.` removed, so `access_token`,
/// `access-token` and `accessToken` compare equal.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Parameter names that carry credentials (query strings, form bodies,
/// `name=value` in free text).
///
/// `code` is OAuth's authorization code; `sig`/`signature` and the
/// `x-amz-*`/`x-goog-*` names make presigned URLs replayable. Suffix rules
/// catch `session_token`, `client_secret`, `db_password`. Names such as
/// `token_type` are left readable: they describe a credential, not carry it.
pub fn is_secret_name(name: &str) -> bool {
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
        "passphrase",
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
        "cookie",
    ];
    const SUFFIXES: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "signature",
        "apikey",
        "credential",
        "sessionid",
    ];
    let n = normalized(name);
    !n.is_empty() && (EXACT.contains(&n.as_str()) || SUFFIXES.iter().any(|s| n.ends_with(s)))
}

/// A key of a structured body (a JSON object key, a multipart field
/// name): [`is_secret_name`], or a name that holds a password, secret,
/// API key, private key or credential anywhere (`password_confirm`,
/// `secretValue`, `apiKeyId`). A false positive only hides a value.
pub fn is_secret_key(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "password",
        "passwd",
        "secret",
        "apikey",
        "privatekey",
        "credential",
        "sessionid",
        "authorization",
    ];
    is_secret_name(name) || {
        let n = normalized(name);
        PARTS.iter().any(|p| n.contains(p))
    }
}

/// A `name: value` pair in prose where `name` carries a credential. Narrower
/// than [`is_secret_name`]: `code: 404`, `key: Enter` and `session: expired`
/// are ordinary log lines.
pub fn is_secret_label(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "token",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "apikey",
        "secret",
        "clientsecret",
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "sessionid",
        "jwt",
    ];
    const SUFFIXES: &[&str] = &["token", "secret", "password", "apikey"];
    let n = normalized(name);
    EXACT.contains(&n.as_str()) || SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// A value that is a credential whatever its name: a JWT, or an opaque
/// string of at least 24 letters/digits (base64 or hex, `%XX` escapes and
/// `-_+/=` allowed) that mixes letters and digits with the frequent
/// letter/digit and case changes of random text. UUIDs are left alone: they
/// are usually record ids, and ids help debugging.
pub fn looks_like_token(value: &str) -> bool {
    is_jwt(value) || (is_opaque_token(value) && !is_uuid(value))
}

/// `eyJ…` header, payload and (possibly empty) signature, base64url.
pub fn is_jwt(value: &str) -> bool {
    let mut parts = 0;
    let mut lens = [0usize; 2];
    for (i, p) in value.split('.').enumerate() {
        parts += 1;
        if parts > 3
            || !p
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return false;
        }
        if i < 2 {
            lens[i] = p.len();
        }
    }
    parts == 3 && value.starts_with("eyJ") && lens[0] >= 10 && lens[1] >= 2
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

/// A well-known credential prefix at the start of `word` (a run of
/// letters, digits, `_` and `-`): the length of the prefix to keep (it says
/// which kind of key leaked, which helps debugging) when the rest has the
/// shape of that kind's secret.
///
/// The minimum lengths sit below the real ones (a GitHub token has 36
/// characters after `ghp_`) so a truncated token is still caught, and
/// above ordinary words (`sk-learn`, `AKIA` alone).
pub fn credential_prefix(word: &str) -> Option<usize> {
    #[derive(Clone, Copy)]
    enum Set {
        /// Letters and digits.
        Alnum,
        /// Uppercase letters and digits (AWS key ids).
        Upper,
        /// Letters, digits, `_` and `-`.
        Word,
    }
    const RULES: &[(&str, usize, Set)] = &[
        ("github_pat_", 20, Set::Word),
        ("ghp_", 20, Set::Alnum),
        ("gho_", 20, Set::Alnum),
        ("ghu_", 20, Set::Alnum),
        ("ghs_", 20, Set::Alnum),
        ("ghr_", 20, Set::Alnum),
        ("glpat-", 20, Set::Word),
        ("sk_live_", 16, Set::Alnum),
        ("sk_test_", 16, Set::Alnum),
        ("rk_live_", 16, Set::Alnum),
        ("rk_test_", 16, Set::Alnum),
        ("whsec_", 16, Set::Alnum),
        ("sk-", 20, Set::Word),
        ("xoxa-", 10, Set::Word),
        ("xoxb-", 10, Set::Word),
        ("xoxp-", 10, Set::Word),
        ("xoxr-", 10, Set::Word),
        ("xoxs-", 10, Set::Word),
        ("xoxe-", 10, Set::Word),
        ("AIza", 30, Set::Word),
        ("AKIA", 16, Set::Upper),
        ("ASIA", 16, Set::Upper),
        ("ABIA", 16, Set::Upper),
        ("ACCA", 16, Set::Upper),
        ("AGPA", 16, Set::Upper),
        ("AIDA", 16, Set::Upper),
        ("AROA", 16, Set::Upper),
        ("ANPA", 16, Set::Upper),
        ("npm_", 30, Set::Alnum),
        ("hf_", 30, Set::Alnum),
    ];
    RULES.iter().find_map(|&(prefix, min, set)| {
        let rest = word.strip_prefix(prefix)?;
        let fits = rest.len() >= min
            && rest.bytes().all(|b| match set {
                Set::Alnum => b.is_ascii_alphanumeric(),
                Set::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
                Set::Word => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            })
            // Random keys mix cases or digits; `sk-this-is-a-long-slug` does not.
            && rest.bytes().any(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
        fits.then_some(prefix.len())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_match_in_any_spelling() {
        for name in [
            "token",
            "access_token",
            "Access-Token",
            "accessToken",
            "session_token",
            "client_secret",
            "db_password",
            "X-Amz-Signature",
            "cookie",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "q",
            "page",
            "token_type",
            "expires_in",
            "state",
            "",
            "keyboard",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn secret_keys_also_match_by_part() {
        for key in [
            "password_confirm",
            "secretValue",
            "apiKeyId",
            "user.credentials",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in ["username", "email", "token_type", "keywords"] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn secret_labels_leave_ordinary_log_words() {
        assert!(is_secret_label("password"));
        assert!(is_secret_label("api_key"));
        assert!(is_secret_label("refreshToken"));
        for label in ["code", "key", "session", "sig", "error", "status"] {
            assert!(!is_secret_label(label), "{label}");
        }
    }

    #[test]
    fn credential_prefixes_need_a_key_shaped_rest() {
        for (word, keep) in [
            ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", 4),
            ("github_pat_11ABCDEFG0abcdefghijkl_mnopq", 11),
            ("AKIAIOSFODNN7EXAMPLE", 4),
            ("ASIAY34FZKBOKMUTVV7A", 4),
            ("sk-proj-Abc123def456ghi789jkl", 3),
            ("sk-ant-api03-AbCdEf0123456789xyz", 3),
            ("xoxb-123456789012-abcdefABCDEF", 5),
            ("AIzaSyA-1234567890abcdefghijklmnopqrs", 4),
            ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", 8),
        ] {
            assert_eq!(credential_prefix(word), Some(keep), "{word}");
        }
        for word in [
            "sk-learn",
            "sk-this-is-a-long-lowercase-slug",
            "AKIA",
            "AKIAshortlower",
            "ghp_short",
            "ghost_protocol_is_a_film_title",
            "skip",
        ] {
            assert_eq!(credential_prefix(word), None, "{word}");
        }
    }

    #[test]
    fn token_shapes_exclude_words_and_uuids() {
        assert!(looks_like_token("a8F3kQ9zL2mX7pR4tV1wY6bN0cD5"));
        assert!(looks_like_token("5d41402abc4b2a76b9719d911017c592"));
        assert!(looks_like_token(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dozjgNryP4J3jVmNHl0w5N"
        ));
        assert!(!looks_like_token("summer_sale_2024_promo_email"));
        assert!(!looks_like_token("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!is_jwt("eyJ.a.b.c"));
    }
}
