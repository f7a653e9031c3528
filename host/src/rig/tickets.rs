//! One-time tickets for the CDP front end: a URL a client that can only
//! take a URL (Playwright's `connectOverCDP(url)`, Puppeteer's
//! `browserWSEndpoint`) can carry, so the daemon's token never goes in one.
//! A ticket names one session, works once, and expires after
//! [`TICKET_TTL`]; it is 256 random bits, kept only in memory.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::ApiError;

pub const TICKET_TTL: Duration = Duration::from_secs(30);
/// Tickets alive at once; minting past it drops the oldest.
const MAX_TICKETS: usize = 256;

#[derive(Default)]
pub struct Tickets {
    live: Mutex<HashMap<String, (String, Instant)>>,
}

impl Tickets {
    /// A new ticket for `session`.
    pub fn mint(&self, session: &str) -> Result<String, ApiError> {
        let ticket =
            crate::config::random_hex(32).map_err(|e| ApiError::internal(e.to_string()))?;
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        live.retain(|_, (_, until)| *until > now);
        if live.len() >= MAX_TICKETS
            && let Some(oldest) = live
                .iter()
                .min_by_key(|(_, (_, until))| *until)
                .map(|(k, _)| k.clone())
        {
            live.remove(&oldest);
        }
        live.insert(ticket.clone(), (session.to_string(), now + TICKET_TTL));
        Ok(ticket)
    }

    /// The session a live ticket names; the ticket is spent either way.
    pub fn redeem(&self, ticket: &str) -> Option<String> {
        let (session, until) = self
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(ticket)?;
        (until > Instant::now()).then_some(session)
    }

    #[cfg(test)]
    fn age(&self, by: Duration) {
        for (_, until) in self.live.lock().expect("lock").values_mut() {
            *until -= by;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_works_once_and_not_after_it_expired() {
        let t = Tickets::default();
        let a = t.mint("s").expect("mint");
        assert_eq!(a.len(), 64);
        assert_eq!(t.redeem(&a).as_deref(), Some("s"));
        assert_eq!(t.redeem(&a), None, "spent");
        let b = t.mint("s").expect("mint");
        t.age(TICKET_TTL + Duration::from_secs(1));
        assert_eq!(t.redeem(&b), None, "expired");
        assert_eq!(t.redeem(""), None);
        // Minting many keeps the table bounded; the newest still work.
        let all: Vec<String> = (0..MAX_TICKETS + 10)
            .map(|_| t.mint("s").expect("mint"))
            .collect();
        assert!(t.live.lock().expect("lock").len() <= MAX_TICKETS);
        assert_eq!(t.redeem(all.last().expect("minted")).as_deref(), Some("s"));
    }
}
