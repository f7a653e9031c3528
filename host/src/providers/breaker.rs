//! A circuit breaker per provider: it opens after `failures` consecutive
//! failed attempts and stays open for `open_for`; then one trial call is let
//! through (half-open) — success closes it, failure opens it again. A
//! `rate_limited`/`auth` answer also puts the provider in a cooldown.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    Closed,
    Open,
    HalfOpen,
    /// Waiting after a rate-limit or auth answer.
    Cooldown,
}

#[derive(Debug, Clone, Copy)]
pub struct Policy {
    pub failures: u32,
    pub open_for: Duration,
    pub cooldown: Duration,
}

#[derive(Debug, Default)]
pub struct Breaker {
    consecutive: u32,
    open_until: Option<Instant>,
    cooldown_until: Option<Instant>,
    /// When the half-open trial call started; a trial whose caller went
    /// away stops blocking others after `open_for`.
    trial_started: Option<Instant>,
    open_for: Duration,
    pub calls: u64,
    pub failed: u64,
    pub last_error: Option<String>,
}

impl Breaker {
    pub fn state(&self, now: Instant) -> BreakerState {
        if self.cooldown_until.is_some_and(|t| now < t) {
            return BreakerState::Cooldown;
        }
        match self.open_until {
            Some(t) if now < t => BreakerState::Open,
            Some(_) => BreakerState::HalfOpen,
            None => BreakerState::Closed,
        }
    }

    /// How long until calls are let through again (None: they are now).
    pub fn retry_in(&self, now: Instant) -> Option<Duration> {
        let until = match self.state(now) {
            BreakerState::Cooldown => self.cooldown_until,
            BreakerState::Open => self.open_until,
            BreakerState::HalfOpen if self.trial_in_flight(now) => {
                Some(now + Duration::from_secs(1))
            }
            _ => None,
        }?;
        Some(until.saturating_duration_since(now))
    }

    fn trial_in_flight(&self, now: Instant) -> bool {
        self.trial_started
            .is_some_and(|t| now.saturating_duration_since(t) < self.open_for)
    }

    /// Takes permission for one attempt; false when the breaker refuses.
    pub fn admit(&mut self, now: Instant) -> bool {
        match self.state(now) {
            BreakerState::Closed => true,
            BreakerState::HalfOpen if !self.trial_in_flight(now) => {
                self.trial_started = Some(now);
                true
            }
            _ => false,
        }
    }

    pub fn success(&mut self) {
        self.calls += 1;
        self.consecutive = 0;
        self.open_until = None;
        self.trial_started = None;
    }

    /// Records a failed attempt. `slow_down`: the provider said rate-limited
    /// or refused our credentials.
    pub fn failure(&mut self, now: Instant, policy: &Policy, message: String, slow_down: bool) {
        self.calls += 1;
        self.failed += 1;
        self.consecutive += 1;
        self.last_error = Some(message);
        self.open_for = policy.open_for;
        let was_trial = self.trial_started.take().is_some();
        if was_trial || self.consecutive >= policy.failures {
            self.open_until = Some(now + policy.open_for);
        }
        if slow_down {
            self.cooldown_until = Some(now + policy.cooldown);
        }
    }

    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Policy = Policy {
        failures: 3,
        open_for: Duration::from_secs(30),
        cooldown: Duration::from_secs(30),
    };

    #[test]
    fn opens_after_n_failures_then_half_opens_for_one_trial() {
        let t0 = Instant::now();
        let mut b = Breaker::default();
        for _ in 0..2 {
            assert!(b.admit(t0));
            b.failure(t0, &P, "x".into(), false);
        }
        assert_eq!(b.state(t0), BreakerState::Closed);
        assert!(b.admit(t0));
        b.failure(t0, &P, "x".into(), false);
        assert_eq!(b.state(t0), BreakerState::Open);
        assert!(!b.admit(t0 + Duration::from_secs(29)));
        let later = t0 + Duration::from_secs(31);
        assert_eq!(b.state(later), BreakerState::HalfOpen);
        assert!(b.admit(later), "one trial");
        assert!(!b.admit(later), "only one");
        // A trial whose caller vanished stops blocking after open_for.
        let mut lost = Breaker::default();
        lost.failure(t0, &P, "x".into(), false);
        lost.failure(t0, &P, "x".into(), false);
        lost.failure(t0, &P, "x".into(), false);
        assert!(lost.admit(later), "trial");
        assert!(!lost.admit(later + Duration::from_secs(5)));
        assert!(
            lost.admit(later + Duration::from_secs(31)),
            "the lost trial expired"
        );
        b.failure(later, &P, "x".into(), false);
        assert_eq!(b.state(later), BreakerState::Open, "a failed trial reopens");
        let again = later + Duration::from_secs(31);
        assert!(b.admit(again));
        b.success();
        assert_eq!(b.state(again), BreakerState::Closed);
        assert!(b.admit(again) && b.admit(again));
    }

    #[test]
    fn rate_limits_put_the_provider_in_cooldown() {
        let t0 = Instant::now();
        let mut b = Breaker::default();
        b.failure(t0, &P, "429".into(), true);
        assert_eq!(b.state(t0), BreakerState::Cooldown);
        assert!(!b.admit(t0));
        assert!(b.admit(t0 + Duration::from_secs(31)));
    }
}
