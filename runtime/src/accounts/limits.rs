//! Rate limits: how many events (failed logins, codes sent) a key (an account, a client
//! address) may have within a sliding window. In memory, per process.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// At most `max` events within `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub max: u32,
    pub window: Duration,
}

/// The limits of multi-user mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Failed logins and wrong codes per account.
    pub failures_per_account: Limit,
    /// Failed logins and wrong codes per client address.
    pub failures_per_address: Limit,
    /// Codes sent per account, and per client address (signups with verification included).
    pub sends_per_account: Limit,
    pub sends_per_address: Limit,
}

const FIFTEEN_MINUTES: Duration = Duration::from_secs(15 * 60);

impl Default for Limits {
    fn default() -> Self {
        let limit = |max| Limit {
            max,
            window: FIFTEEN_MINUTES,
        };
        Limits {
            failures_per_account: limit(5),
            failures_per_address: limit(20),
            sends_per_account: limit(5),
            sends_per_address: limit(20),
        }
    }
}

/// Keys tracked before old ones are swept.
const SWEEP_AT: usize = 10_000;

/// Events per key within the window.
#[derive(Debug)]
pub struct Counter {
    limit: Limit,
    seen: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Counter {
    pub fn new(limit: Limit) -> Counter {
        Counter {
            limit,
            seen: Mutex::default(),
        }
    }

    /// `Err(wait)` when `key` has had its `max` events within the window: how long until
    /// the oldest of them leaves it.
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let Some(events) = seen.get_mut(key) else { return Ok(()) };
        self.expire(events, now);
        if events.len() < self.limit.max as usize {
            return Ok(());
        }
        let oldest = events.front().copied().unwrap_or(now);
        Err((oldest + self.limit.window).saturating_duration_since(now))
    }

    pub fn record(&self, key: &str) {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= SWEEP_AT {
            seen.retain(|_, events| {
                self.expire(events, now);
                !events.is_empty()
            });
        }
        let events = seen.entry(key.to_string()).or_default();
        self.expire(events, now);
        events.push_back(now);
    }

    pub fn clear(&self, key: &str) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    fn expire(&self, events: &mut VecDeque<Instant>, now: Instant) {
        while events
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= self.limit.window)
        {
            events.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_holds_then_clears() {
        let counter = Counter::new(Limit {
            max: 3,
            window: Duration::from_secs(60),
        });
        for _ in 0..3 {
            assert!(counter.check("a").is_ok());
            counter.record("a");
        }
        let wait = counter.check("a").unwrap_err();
        assert!(
            wait > Duration::from_secs(50) && wait <= Duration::from_secs(60),
            "{wait:?}"
        );
        assert!(counter.check("b").is_ok());
        counter.clear("a");
        assert!(counter.check("a").is_ok());
        let short = Counter::new(Limit {
            max: 1,
            window: Duration::from_millis(20),
        });
        short.record("a");
        assert!(short.check("a").is_err());
        std::thread::sleep(Duration::from_millis(30));
        assert!(short.check("a").is_ok());
    }
}
