//! What an imported cookie must be to reach the session: a sane name,
//! value, domain and path, not expired, SameSite and prefix rules kept,
//! not a Google sign-in. Pure: rows in, cookies (or the reason not) out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::crypt::{self, Keys};
use crate::browser::cookie::Cookie;

/// Why a cookie of the store was not imported.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Its expiry is past.
    Expired,
    /// A Google sign-in cookie: never imported (see docs/SECURITY.md).
    GoogleSignIn,
    /// Encrypted with the keyring's password, and no keyring answered.
    NoKey,
    /// Encrypted in a way this webrig does not read, or garbled.
    Undecryptable,
    /// Its value does not carry the hash of its own domain.
    Integrity,
    BadName,
    BadValue,
    BadDomain,
    BadPath,
    BadSameSite,
    /// Name and value longer than 4096 bytes, or a field past its size.
    TooBig,
    /// SameSite=None without Secure.
    SameSiteNoneInsecure,
    /// A `__Secure-`/`__Host-` cookie that breaks its prefix's rules.
    PrefixRules,
    /// Past the count or size cap of one import.
    OverCap,
}

/// A row of the store's `cookies` table, fields past their size cap None.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub host_key: Option<String>,
    pub name: Option<String>,
    pub value: Option<String>,
    pub encrypted: Option<Vec<u8>>,
    pub path: Option<String>,
    /// Microseconds since 1601-01-01 UTC (0: a session cookie).
    pub expires_utc: i64,
    pub has_expires: bool,
    pub secure: bool,
    pub http_only: bool,
    /// -1 unspecified, 0 None, 1 Lax, 2 Strict.
    pub samesite: i64,
}

/// Name plus value, at most (what browsers keep).
pub const NAME_VALUE_BYTES: usize = 4096;
pub const DOMAIN_BYTES: usize = 253;
pub const PATH_BYTES: usize = 1024;

/// Seconds between 1601-01-01 and 1970-01-01.
const WINDOWS_TO_UNIX_S: i64 = 11_644_473_600;

/// Chromium's expiry (µs since 1601) as seconds since the Unix epoch;
/// None for a session cookie.
pub fn unix_expiry(expires_utc: i64, has_expires: bool) -> Option<f64> {
    if !has_expires || expires_utc == 0 {
        return None;
    }
    Some((expires_utc as f64) / 1e6 - WINDOWS_TO_UNIX_S as f64)
}

/// Checks a row and makes it a cookie. `now`: seconds since the Unix epoch.
pub fn cookie(row: &Row, keys: &Keys, domain_hash: bool, now: f64) -> Result<Cookie, Reason> {
    let host = row.host_key.as_deref().ok_or(Reason::TooBig)?;
    check_domain(host)?;
    let name = row.name.as_deref().ok_or(Reason::TooBig)?;
    check_name(name)?;
    if google_sign_in(host, name) {
        return Err(Reason::GoogleSignIn);
    }
    let path = row.path.as_deref().ok_or(Reason::TooBig)?;
    if !path.starts_with('/') || path.len() > PATH_BYTES || path.chars().any(bad_char) {
        return Err(Reason::BadPath);
    }
    let expires = unix_expiry(row.expires_utc, row.has_expires);
    if let Some(e) = expires
        && (!e.is_finite() || e <= now)
    {
        return Err(Reason::Expired);
    }
    let same_site = match row.samesite {
        -1 => None,
        0 => Some("None"),
        1 => Some("Lax"),
        2 => Some("Strict"),
        _ => return Err(Reason::BadSameSite),
    };
    if same_site == Some("None") && !row.secure {
        return Err(Reason::SameSiteNoneInsecure);
    }
    let lower = name.to_ascii_lowercase();
    if (lower.starts_with("__secure-") || lower.starts_with("__host-")) && !row.secure {
        return Err(Reason::PrefixRules);
    }
    if lower.starts_with("__host-") && (host.starts_with('.') || path != "/") {
        return Err(Reason::PrefixRules);
    }
    let value = match row.encrypted.as_deref() {
        None => return Err(Reason::TooBig),
        Some([]) => row.value.clone().ok_or(Reason::TooBig)?,
        Some(blob) => crypt::decrypt(blob, keys, host, domain_hash).map_err(|f| match f {
            crypt::Failure::NoKey => Reason::NoKey,
            crypt::Failure::Integrity => Reason::Integrity,
            crypt::Failure::UnknownScheme | crypt::Failure::Garbled => Reason::Undecryptable,
            crypt::Failure::NotText => Reason::BadValue,
        })?,
    };
    if value.chars().any(|c| bad_char(c) || c == '\x7f') {
        return Err(Reason::BadValue);
    }
    if name.len() + value.len() > NAME_VALUE_BYTES {
        return Err(Reason::TooBig);
    }
    Ok(Cookie {
        name: name.to_string(),
        value,
        domain: host.to_string(),
        path: path.to_string(),
        expires,
        http_only: row.http_only,
        secure: row.secure,
        same_site: same_site.map(str::to_string),
    })
}

/// A control character or `;` (ends a cookie in a header).
fn bad_char(c: char) -> bool {
    c.is_control() || c == ';'
}

fn check_name(name: &str) -> Result<(), Reason> {
    let ok = !name.is_empty()
        && name.len() <= NAME_VALUE_BYTES
        && name
            .chars()
            .all(|c| c.is_ascii_graphic() && !"()<>@,;:\\\"/[]?={}".contains(c));
    if ok { Ok(()) } else { Err(Reason::BadName) }
}

/// A host (`a.example`, `127.0.0.1`, `[::1]`) or a domain (`.example.com`):
/// lowercase ASCII labels, no empty one; a domain cookie's has a dot in it
/// (never `.com`).
fn check_domain(host: &str) -> Result<(), Reason> {
    if host.len() > DOMAIN_BYTES {
        return Err(Reason::TooBig);
    }
    let bad = Err(Reason::BadDomain);
    if let Some(ip6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return if ip6.parse::<std::net::Ipv6Addr>().is_ok() {
            Ok(())
        } else {
            bad
        };
    }
    let (dotted, bare) = match host.strip_prefix('.') {
        Some(rest) => (true, rest),
        None => (false, host),
    };
    if bare.is_empty() || (dotted && !bare.contains('.')) {
        return bad;
    }
    if dotted && bare.parse::<std::net::Ipv4Addr>().is_ok() {
        return bad;
    }
    let labels_ok = bare.split('.').all(|l| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    });
    if labels_ok { Ok(()) } else { bad }
}

/// Google account sign-in: every cookie of a `google.<tld>` domain (and its
/// subdomains, `accounts.google.com` among them), and YouTube's copies of
/// the sign-in cookies. Google binds these to the device that signed in;
/// replayed from another browser they can end every session of the account
/// or get it locked for review, so they are never imported.
pub fn google_sign_in(host: &str, name: &str) -> bool {
    let labels: Vec<&str> = host.trim_start_matches('.').split('.').collect();
    let google = labels.iter().enumerate().any(|(i, l)| {
        let tail = &labels[i + 1..];
        *l == "google" && matches!(tail.len(), 1 | 2) && tail.iter().all(|t| t.len() <= 3)
    });
    if google {
        return true;
    }
    let youtube = labels.ends_with(&["youtube", "com"]);
    youtube
        && (matches!(
            name,
            "SID" | "HSID" | "SSID" | "APISID" | "SAPISID" | "LOGIN_INFO" | "SIDCC"
        ) || (name.starts_with("__Secure-")
            && (name.contains("PSID") || name.contains("PAPISID"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::logins::crypt::tests::seal;

    const NOW: f64 = 1_800_000_000.0;

    /// µs since 1601 of a Unix time.
    fn chrome_time(unix: f64) -> i64 {
        ((unix + WINDOWS_TO_UNIX_S as f64) * 1e6) as i64
    }

    fn row(host: &str, name: &str, value: &str) -> Row {
        Row {
            host_key: Some(host.into()),
            name: Some(name.into()),
            value: Some(value.into()),
            encrypted: Some(Vec::new()),
            path: Some("/".into()),
            expires_utc: chrome_time(NOW + 3600.0),
            has_expires: true,
            secure: true,
            http_only: false,
            samesite: -1,
        }
    }

    fn keys() -> Keys {
        Keys {
            v10: Some(crypt::v10_key()),
            v11: Vec::new(),
        }
    }

    fn check(r: &Row) -> Result<Cookie, Reason> {
        cookie(r, &keys(), true, NOW)
    }

    #[test]
    fn the_chrome_epoch_is_1601() {
        assert_eq!(unix_expiry(0, true), None, "0 is a session cookie");
        assert_eq!(unix_expiry(13_000_000_000_000_000, false), None);
        assert_eq!(unix_expiry(11_644_473_600_000_000, true), Some(0.0));
        // 2024-01-01T00:00:00Z
        assert_eq!(
            unix_expiry(13_348_540_800_000_000, true),
            Some(1_704_067_200.0)
        );
        assert_eq!(unix_expiry(chrome_time(NOW), true), Some(NOW));
    }

    #[test]
    fn a_good_row_becomes_a_cookie() {
        let mut r = row(".example.com", "sid", "");
        r.encrypted = Some(seal(b"v10", b"peanuts", ".example.com", "v4lue", true));
        r.samesite = 1;
        r.http_only = true;
        let c = check(&r).expect("ok");
        assert_eq!(c.value, "v4lue");
        assert_eq!(c.domain, ".example.com");
        assert_eq!(c.same_site.as_deref(), Some("Lax"));
        assert_eq!(c.expires, Some(NOW + 3600.0));
        assert!(c.http_only && c.secure);
        let plain = check(&row("127.0.0.1", "theme", "dark")).expect("ok");
        assert_eq!(
            plain.value, "dark",
            "the plain value column when nothing is encrypted"
        );
        let mut session = row("[::1]", "s", "v");
        session.expires_utc = 0;
        assert_eq!(check(&session).expect("ok").expires, None);
    }

    #[test]
    fn bad_rows_say_why() {
        let cases: Vec<(Row, Reason)> = vec![
            (
                {
                    let mut r = row("a.test", "x", "y");
                    r.expires_utc = chrome_time(NOW - 1.0);
                    r
                },
                Reason::Expired,
            ),
            (row(".com", "x", "y"), Reason::BadDomain),
            (row("a..test", "x", "y"), Reason::BadDomain),
            (row("A.test", "x", "y"), Reason::BadDomain),
            (row("a.test/x", "x", "y"), Reason::BadDomain),
            (row(".1.2.3.4", "x", "y"), Reason::BadDomain),
            (row("[nope]", "x", "y"), Reason::BadDomain),
            (row(&"a".repeat(300), "x", "y"), Reason::TooBig),
            (row("a.test", "", "y"), Reason::BadName),
            (row("a.test", "a b", "y"), Reason::BadName),
            (row("a.test", "a=b", "y"), Reason::BadName),
            (row("a.test", "x", "y;z"), Reason::BadValue),
            (row("a.test", "x", "y\nSet-Cookie: z"), Reason::BadValue),
            (row("a.test", "x", &"v".repeat(4096)), Reason::TooBig),
            (
                {
                    let mut r = row("a.test", "x", "y");
                    r.path = Some("nope".into());
                    r
                },
                Reason::BadPath,
            ),
            (
                {
                    let mut r = row("a.test", "x", "y");
                    r.path = None;
                    r
                },
                Reason::TooBig,
            ),
            (
                {
                    let mut r = row("a.test", "x", "y");
                    r.samesite = 7;
                    r
                },
                Reason::BadSameSite,
            ),
            (
                {
                    let mut r = row("a.test", "x", "y");
                    r.samesite = 0;
                    r.secure = false;
                    r
                },
                Reason::SameSiteNoneInsecure,
            ),
            (
                {
                    let mut r = row("a.test", "__Secure-x", "y");
                    r.secure = false;
                    r
                },
                Reason::PrefixRules,
            ),
            (
                {
                    let mut r = row("a.test", "__host-x", "y");
                    r.secure = false;
                    r
                },
                Reason::PrefixRules,
            ),
            (row(".a.test", "__Host-x", "y"), Reason::PrefixRules),
            (
                {
                    let mut r = row("a.test", "__Host-x", "y");
                    r.path = Some("/p".into());
                    r
                },
                Reason::PrefixRules,
            ),
            (
                {
                    let mut r = row("a.test", "x", "");
                    r.encrypted = Some(b"v20xxxx".to_vec());
                    r
                },
                Reason::Undecryptable,
            ),
            (
                {
                    let mut r = row("a.test", "x", "");
                    r.encrypted = Some(seal(b"v11", b"kr", "a.test", "y", true));
                    r
                },
                Reason::NoKey,
            ),
            (
                {
                    let mut r = row("a.test", "x", "");
                    r.encrypted = Some(seal(b"v10", b"peanuts", "b.test", "y", true));
                    r
                },
                Reason::Integrity,
            ),
            (
                {
                    let mut r = row("a.test", "x", "");
                    r.encrypted = None;
                    r
                },
                Reason::TooBig,
            ),
            (row(".google.com", "NID", "y"), Reason::GoogleSignIn),
            (
                row("accounts.google.com", "__Host-GAPS", "y"),
                Reason::GoogleSignIn,
            ),
            (row(".google.co.uk", "SID", "y"), Reason::GoogleSignIn),
            (row(".youtube.com", "SAPISID", "y"), Reason::GoogleSignIn),
            (
                row(".youtube.com", "__Secure-3PSID", "y"),
                Reason::GoogleSignIn,
            ),
        ];
        for (r, want) in cases {
            assert_eq!(check(&r).map(|c| c.name), Err(want), "{r:?}");
        }
    }

    #[test]
    fn only_google_sign_in_is_held_back() {
        assert!(!google_sign_in(".youtube.com", "PREF"));
        assert!(!google_sign_in("google.example.com", "SID"));
        assert!(!google_sign_in(".notgoogle.com", "SID"));
        assert!(google_sign_in("mail.google.com", "anything"));
        assert!(google_sign_in(".google.de", "SID"));
        assert!(google_sign_in(".google.com.au", "SID"));
    }
}
