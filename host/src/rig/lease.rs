//! Tab leases, the scheduler's policy for clients that share a session: a
//! tab belongs to the first named client that uses it until that client has
//! been idle for a while; then the longest-waiting client gets it.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Leases kept per session at most; past it the longest-idle goes (a tab
/// that closed leaves its entry behind until then).
const MAX_LEASES: usize = 1024;

/// Which client holds a tab, and who waits for it (FIFO).
struct Lease {
    holder: String,
    since: Instant,
    last: Instant,
    waiters: VecDeque<String>,
}

/// Why a client may not use a tab now.
#[derive(Debug, Clone)]
pub struct Leased {
    pub holder: String,
    pub held_for: Duration,
}

/// The leases on one session's tabs, by tab id.
#[derive(Default)]
pub struct Leases {
    tabs: HashMap<String, Lease>,
}

impl Leases {
    /// Takes or refreshes `client`'s lease on `tab` at `now`. Anonymous
    /// callers never take a lease but are refused while one is held. With
    /// `queue`, a refused client joins the waiting line.
    pub fn take(
        &mut self,
        tab: &str,
        client: Option<&str>,
        idle: Duration,
        queue: bool,
        now: Instant,
    ) -> Result<(), Leased> {
        let join = |l: &mut Lease| {
            if queue
                && let Some(c) = client
                && !l.waiters.iter().any(|w| w == c)
            {
                l.waiters.push_back(c.to_string());
            }
        };
        if let Some(l) = self.tabs.get_mut(tab) {
            let expired = now.duration_since(l.last) >= idle;
            if !expired && Some(l.holder.as_str()) == client {
                l.last = now;
                return Ok(());
            }
            if !expired {
                join(l);
                return Err(Leased {
                    holder: l.holder.clone(),
                    held_for: now.duration_since(l.since),
                });
            }
            // Expired: the first in line goes next.
            if let Some(front) = l.waiters.front().cloned()
                && Some(front.as_str()) != client
            {
                join(l);
                return Err(Leased {
                    holder: format!("{front} (next in line)"),
                    held_for: Duration::ZERO,
                });
            }
        }
        let Some(client) = client else {
            // Anonymous: passes once no lease is held (expired leases do not count).
            if self.tabs.get(tab).is_some_and(|l| l.waiters.is_empty()) {
                self.tabs.remove(tab);
            }
            return Ok(());
        };
        let waiters = match self.tabs.remove(tab) {
            Some(mut l) => {
                l.waiters.retain(|w| w != client);
                l.waiters
            }
            None => VecDeque::new(),
        };
        self.bound();
        self.tabs.insert(
            tab.to_string(),
            Lease {
                holder: client.to_string(),
                since: now,
                last: now,
                waiters,
            },
        );
        Ok(())
    }

    /// Makes room for one more lease.
    fn bound(&mut self) {
        while self.tabs.len() >= MAX_LEASES {
            let oldest = self
                .tabs
                .iter()
                .min_by_key(|(_, l)| l.last)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.tabs.remove(&k),
                None => break,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(10);

    #[test]
    fn a_tab_is_its_first_named_clients_until_idle_then_the_first_waiters() {
        let mut l = Leases::default();
        let t0 = Instant::now();
        assert!(l.take("t1", Some("a"), IDLE, false, t0).is_ok());
        // Another client and an anonymous caller are refused, naming a.
        let b = l.take("t1", Some("b"), IDLE, true, t0).expect_err("held");
        assert_eq!(b.holder, "a");
        assert!(l.take("t1", None, IDLE, false, t0).is_err());
        // Other tabs are free.
        assert!(l.take("t2", Some("b"), IDLE, false, t0).is_ok());
        // a keeps it while active.
        let t1 = t0 + Duration::from_secs(9);
        assert!(l.take("t1", Some("a"), IDLE, false, t1).is_ok());
        // Idle: b waited, so c is refused with b next in line, and b gets it.
        let t2 = t1 + IDLE;
        let c = l
            .take("t1", Some("c"), IDLE, false, t2)
            .expect_err("b first");
        assert_eq!(c.holder, "b (next in line)");
        assert!(l.take("t1", Some("b"), IDLE, false, t2).is_ok());
        assert_eq!(
            l.take("t1", Some("a"), IDLE, false, t2)
                .expect_err("b's")
                .holder,
            "b"
        );
    }

    #[test]
    fn anonymous_callers_pass_once_no_lease_is_held_and_never_take_one() {
        let mut l = Leases::default();
        let t0 = Instant::now();
        assert!(l.take("t1", None, IDLE, false, t0).is_ok());
        assert!(l.take("t1", Some("a"), IDLE, false, t0).is_ok());
        assert!(l.take("t1", None, IDLE, false, t0 + IDLE).is_ok());
        assert!(l.tabs.is_empty(), "an expired lease with no line is gone");
    }

    #[test]
    fn the_table_is_bounded() {
        let mut l = Leases::default();
        let t0 = Instant::now();
        for i in 0..MAX_LEASES + 10 {
            let at = t0 + Duration::from_millis(i as u64);
            assert!(l.take(&format!("t{i}"), Some("a"), IDLE, false, at).is_ok());
        }
        assert_eq!(l.tabs.len(), MAX_LEASES);
        assert!(!l.tabs.contains_key("t0"), "the longest idle went first");
    }
}
