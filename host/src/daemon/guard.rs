//! Pairing codes and the rate limiter: the parts of the trust boundary that
//! keep state between requests.

use std::time::{Duration, Instant};

/// A 6-digit pairing code: valid for a while and a few tries.
pub struct Pairing {
    code: String,
    expires: Instant,
    tries_left: u32,
}

pub enum Redeem {
    Ok,
    NoCode,
    Expired,
    Wrong { tries_left: u32 },
}

impl Pairing {
    pub fn new(ttl: Duration, tries: u32) -> anyhow::Result<Pairing> {
        let mut buf = [0u8; 4];
        getrandom::fill(&mut buf).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        let n = u32::from_le_bytes(buf) % 1_000_000;
        Ok(Pairing {
            code: format!("{n:06}"),
            expires: Instant::now() + ttl,
            tries_left: tries,
        })
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn expires_in(&self) -> Duration {
        self.expires.saturating_duration_since(Instant::now())
    }

    pub fn tries_left(&self) -> u32 {
        self.tries_left
    }
}

/// Redeems `given` against the active code; consumes it on success, on
/// expiry and when the tries run out.
pub fn redeem(slot: &mut Option<Pairing>, given: &str) -> Redeem {
    let Some(p) = slot.as_mut() else {
        return Redeem::NoCode;
    };
    if Instant::now() >= p.expires {
        *slot = None;
        return Redeem::Expired;
    }
    if super::routes::constant_time_eq(given.trim().as_bytes(), p.code.as_bytes()) {
        *slot = None;
        return Redeem::Ok;
    }
    p.tries_left = p.tries_left.saturating_sub(1);
    let tries_left = p.tries_left;
    if tries_left == 0 {
        *slot = None;
    }
    Redeem::Wrong { tries_left }
}

/// What a rate-limited request wants.
#[derive(Debug, Clone, Copy)]
pub enum Purpose {
    Pair = 0,
    /// A failed authentication.
    Auth = 1,
}

/// Who knocks, as far as a caller cannot choose it cheaply. Source addresses
/// on loopback are free to pick (127.x.y.z) and an Origin header is whatever
/// the caller writes, so neither is a key: callers fall in three classes,
/// which bounds the table and makes a hit O(1). The price: one local
/// process can spend a class's budget for the others (a failed-auth budget
/// only; callers with the token are never counted).
#[derive(Debug, Clone, Copy)]
pub enum Caller {
    /// The Unix socket: this user's processes.
    Local = 0,
    /// Loopback TCP without an extension Origin.
    Loopback = 1,
    /// Loopback TCP with a `chrome-extension://` Origin.
    Extension = 2,
}

/// Fixed one-minute windows per (purpose, caller class).
#[derive(Default)]
pub struct Limiter {
    windows: [[Option<(Instant, u32)>; 3]; 2],
}

const WINDOW: Duration = Duration::from_secs(60);

impl Limiter {
    /// Counts one event; `Err(retry_after)` once over `per_minute`.
    pub fn hit(
        &mut self,
        purpose: Purpose,
        caller: Caller,
        per_minute: u32,
    ) -> Result<(), Duration> {
        let now = Instant::now();
        let slot = &mut self.windows[purpose as usize][caller as usize];
        let (start, count) = match slot {
            Some((start, count)) if now.duration_since(*start) < WINDOW => (*start, *count + 1),
            _ => (now, 1),
        };
        *slot = Some((start, count));
        if count > per_minute {
            Err(WINDOW.saturating_sub(now.duration_since(start)))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_stop_after_the_last_try_and_are_single_use() {
        let mut slot = Some(Pairing::new(Duration::from_secs(60), 2).expect("code"));
        let code = slot.as_ref().map(|p| p.code().to_string()).expect("code");
        assert_eq!(code.len(), 6);
        assert!(matches!(
            redeem(&mut slot, "nope"),
            Redeem::Wrong { tries_left: 1 }
        ));
        assert!(matches!(redeem(&mut slot, &code), Redeem::Ok));
        assert!(
            matches!(redeem(&mut slot, &code), Redeem::NoCode),
            "single use"
        );
        let mut slot = Some(Pairing::new(Duration::from_secs(60), 1).expect("code"));
        let code = slot.as_ref().map(|p| p.code().to_string()).expect("code");
        assert!(matches!(
            redeem(&mut slot, "x"),
            Redeem::Wrong { tries_left: 0 }
        ));
        assert!(matches!(redeem(&mut slot, &code), Redeem::NoCode), "spent");
    }

    #[test]
    fn expired_codes_are_refused() {
        let mut slot = Some(Pairing::new(Duration::from_millis(0), 5).expect("code"));
        let code = slot.as_ref().map(|p| p.code().to_string()).expect("code");
        assert!(matches!(redeem(&mut slot, &code), Redeem::Expired));
    }

    #[test]
    fn limiter_counts_per_class_and_reports_retry_after() {
        let mut l = Limiter::default();
        assert!(l.hit(Purpose::Pair, Caller::Loopback, 2).is_ok());
        assert!(l.hit(Purpose::Pair, Caller::Loopback, 2).is_ok());
        let retry = l.hit(Purpose::Pair, Caller::Loopback, 2).expect_err("over");
        assert!(retry <= WINDOW && retry > Duration::from_secs(50));
        assert!(
            l.hit(Purpose::Pair, Caller::Local, 2).is_ok(),
            "other classes unaffected"
        );
        assert!(
            l.hit(Purpose::Auth, Caller::Loopback, 2).is_ok(),
            "other purposes unaffected"
        );
    }
}
