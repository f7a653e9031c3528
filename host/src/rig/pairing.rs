//! Pairing: the one-time codes `webrig pair` shows, and which extension
//! paired (remembered in the home, so a restarted daemon knows it). The
//! door redeems codes (`POST /pair`) and admits the paired extension; the
//! commands start a pairing and report it.

use std::time::{Duration, Instant};

use subtle::ConstantTimeEq;

use super::State;

/// The letters a pairing code is made of: Crockford's base32 (no I, L, O,
/// U), so a code read aloud or typed from a screen survives; 5 bits each.
const CODE_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Letters in a code: 12 × 5 = 60 bits.
const CODE_LEN: usize = 12;

/// A pairing code: valid for a while, single use, optionally only for one
/// extension id.
///
/// Wrong tries do not void it. They used to (5 tries), and that let any
/// local user void every code: an `Origin: chrome-extension://…` header is
/// whatever a non-browser client writes, so nothing on the wire tells the
/// user's popup from a stranger, and a per-origin or per-code try budget
/// is one the stranger can spend. Instead the code is long enough that
/// guessing is hopeless without a try limit: 60 bits against, at most, a
/// few million requests in its 5-minute life. `only` (`webrig pair
/// --extension-id`) keeps other extensions of the user's own browser out
/// (a real extension cannot forge its origin).
pub struct Pairing {
    code: String,
    expires: Instant,
    only: Option<String>,
}

pub enum Redeem {
    Ok,
    NoCode,
    Expired,
    Wrong,
    /// The code is for another extension (`--extension-id`).
    OtherExtension,
}

impl Pairing {
    /// A fresh code living `ttl`; `only`: the one origin
    /// (`chrome-extension://<id>`) that may redeem it.
    pub fn new(ttl: Duration, only: Option<String>) -> anyhow::Result<Pairing> {
        let mut buf = [0u8; CODE_LEN];
        getrandom::fill(&mut buf).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        // 256 is a multiple of 32: `& 31` keeps every letter equally likely.
        let code = buf
            .iter()
            .map(|b| char::from(CODE_ALPHABET[usize::from(b & 31)]))
            .collect();
        Ok(Pairing {
            code,
            expires: Instant::now() + ttl,
            only,
        })
    }

    /// The code as shown to the user: `XXXX-XXXX-XXXX`.
    pub fn code(&self) -> String {
        self.code
            .as_bytes()
            .chunks(4)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("-")
    }

    pub fn expires_in(&self) -> Duration {
        self.expires.saturating_duration_since(Instant::now())
    }
}

/// A code as typed: case, dashes and spaces do not matter, and the letters
/// Crockford's base32 leaves out read as the digits they look like.
fn normalize(given: &str) -> String {
    given
        .chars()
        .filter(|c| !matches!(c, '-' | ' ' | '\t'))
        .take(64)
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            other => other,
        })
        .collect()
}

/// Redeems `given`, sent from `origin`, against the active code; consumes
/// it on success and on expiry. A wrong code leaves it as it was.
pub fn redeem(slot: &mut Option<Pairing>, given: &str, origin: &str) -> Redeem {
    let Some(p) = slot.as_ref() else {
        return Redeem::NoCode;
    };
    if Instant::now() >= p.expires {
        *slot = None;
        return Redeem::Expired;
    }
    if p.only.as_deref().is_some_and(|only| only != origin) {
        return Redeem::OtherExtension;
    }
    if bool::from(normalize(given).as_bytes().ct_eq(p.code.as_bytes())) {
        *slot = None;
        return Redeem::Ok;
    }
    Redeem::Wrong
}

/// `chrome-extension://` followed by a 32-letter id from a–p.
pub fn is_extension_origin(origin: &str) -> bool {
    origin
        .strip_prefix("chrome-extension://")
        .is_some_and(|id| id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b)))
}

/// The file that remembers which extension paired.
fn origin_file(state: &State) -> std::path::PathBuf {
    state.home().root().join("extension-origin")
}

/// The origin that paired last, if any.
pub fn paired_origin(state: &State) -> Option<String> {
    std::fs::read_to_string(origin_file(state))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| is_extension_origin(s))
}

/// Remembers `origin` as the paired extension (owner-only file).
pub fn remember_origin(state: &State, origin: &str) {
    if let Err(e) = crate::config::write_private(&origin_file(state), origin.as_bytes()) {
        tracing::warn!(error = %e, "cannot remember the paired extension");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXT: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

    fn code_of(slot: &Option<Pairing>) -> String {
        slot.as_ref().map(Pairing::code).expect("code")
    }

    #[test]
    fn codes_are_twelve_letters_of_base32_shown_in_fours() {
        let p = Pairing::new(Duration::from_secs(60), None).expect("code");
        let shown = p.code();
        assert_eq!(shown.len(), 14, "{shown}");
        assert_eq!(shown.matches('-').count(), 2, "{shown}");
        assert!(
            shown
                .bytes()
                .all(|b| b == b'-' || CODE_ALPHABET.contains(&b)),
            "{shown}"
        );
        let other = Pairing::new(Duration::from_secs(60), None).expect("code");
        assert_ne!(shown, other.code(), "fresh randomness per code");
    }

    #[test]
    fn wrong_codes_never_void_the_code_and_it_works_once() {
        let mut slot = Some(Pairing::new(Duration::from_secs(60), None).expect("code"));
        let code = code_of(&slot);
        // A stranger's flood of wrong tries (the old limit was 5).
        for _ in 0..1000 {
            assert!(matches!(
                redeem(&mut slot, "0000-0000-0000", EXT),
                Redeem::Wrong
            ));
        }
        // Typed lower case, without dashes: still the code.
        let typed = code.replace('-', "").to_lowercase();
        assert!(matches!(redeem(&mut slot, &typed, EXT), Redeem::Ok));
        assert!(
            matches!(redeem(&mut slot, &code, EXT), Redeem::NoCode),
            "single use"
        );
    }

    #[test]
    fn a_code_for_one_extension_id_refuses_every_other_origin() {
        let mut slot = Some(Pairing::new(Duration::from_secs(60), Some(EXT.into())).expect("code"));
        let code = code_of(&slot);
        let other = "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba";
        assert!(matches!(
            redeem(&mut slot, &code, other),
            Redeem::OtherExtension
        ));
        assert!(matches!(redeem(&mut slot, &code, EXT), Redeem::Ok));
    }

    #[test]
    fn expired_codes_are_refused() {
        let mut slot = Some(Pairing::new(Duration::from_millis(0), None).expect("code"));
        let code = code_of(&slot);
        assert!(matches!(redeem(&mut slot, &code, EXT), Redeem::Expired));
    }

    #[test]
    fn extension_origins_need_32_letters_a_to_p() {
        assert!(is_extension_origin(
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
        ));
        assert!(!is_extension_origin(
            "chrome-extension://abcdefghijklmnopabcdefghijklmnoz"
        ));
        assert!(!is_extension_origin("https://evil.test"));
        assert!(!is_extension_origin("chrome-extension://short"));
    }
}
