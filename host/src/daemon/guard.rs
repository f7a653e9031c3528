//! Pairing codes and the rate limiter: the parts of the trust boundary that
//! keep state between requests.

use std::collections::HashMap;
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

/// Fixed one-minute windows per client key.
#[derive(Default)]
pub struct Limiter {
    windows: HashMap<String, (Instant, u32)>,
}

const WINDOW: Duration = Duration::from_secs(60);

impl Limiter {
    /// Counts one event for `key`; `Err(retry_after)` once over `per_minute`.
    pub fn hit(&mut self, key: &str, per_minute: u32) -> Result<(), Duration> {
        let now = Instant::now();
        if self.windows.len() > 4096 {
            self.windows
                .retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = self.windows.entry(key.to_string()).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        *count += 1;
        if *count > per_minute {
            Err(WINDOW.saturating_sub(now.duration_since(*start)))
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
    fn limiter_counts_per_key_and_reports_retry_after() {
        let mut l = Limiter::default();
        assert!(l.hit("a", 2).is_ok());
        assert!(l.hit("a", 2).is_ok());
        let retry = l.hit("a", 2).expect_err("over");
        assert!(retry <= WINDOW && retry > Duration::from_secs(50));
        assert!(l.hit("b", 2).is_ok(), "other keys unaffected");
    }
}
