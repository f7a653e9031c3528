//! The rate limiter: the part of the door that keeps state between
//! requests (failed authentications, wrong pairing codes).

use std::time::{Duration, Instant};

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
    /// Whether the window of (`purpose`, `caller`) is over `per_minute`
    /// now; counts nothing.
    pub fn over(&self, purpose: Purpose, caller: Caller, per_minute: u32) -> bool {
        match self.windows[purpose as usize][caller as usize] {
            Some((start, count)) => start.elapsed() < WINDOW && count > per_minute,
            None => false,
        }
    }

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
