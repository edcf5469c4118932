//! Rate limits: how many events (failed logins, codes sent) a key (an account, a client
//! address) may have within a sliding window. In memory, per process; or, when several nodes
//! share one database, in an [`EventLog`] there, so that a client moving between nodes meets
//! the same limit.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::store::EventLog;

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
pub struct Counter {
    limit: Limit,
    events: Events,
}

/// Where a counter keeps its events.
enum Events {
    /// In this process, by key.
    Local(Mutex<HashMap<String, VecDeque<Instant>>>),
    Shared(Shared),
}

/// A counter's events in an [`EventLog`], under keys `name/key`.
struct Shared {
    log: Arc<dyn EventLog>,
    name: &'static str,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("limit", &self.limit)
            .field(
                "shared",
                &match &self.events {
                    Events::Local(_) => None,
                    Events::Shared(shared) => Some(shared.name),
                },
            )
            .finish_non_exhaustive()
    }
}

impl Counter {
    pub fn new(limit: Limit) -> Counter {
        Counter {
            limit,
            events: Events::Local(Mutex::default()),
        }
    }

    /// A counter whose events live in `log` (under `name/key`), shared with every node that
    /// uses the same log.
    pub fn shared(limit: Limit, log: Arc<dyn EventLog>, name: &'static str, clock: Arc<dyn Clock>) -> Counter {
        Counter {
            limit,
            events: Events::Shared(Shared { log, name, clock }),
        }
    }

    /// `Err(wait)` when `key` has had its `max` events within the window: how long until
    /// the oldest of them leaves it.
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        let seen = match &self.events {
            Events::Local(seen) => seen,
            Events::Shared(shared) => return shared.check(key, self.limit),
        };
        let now = Instant::now();
        let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
        let Some(events) = seen.get_mut(key) else { return Ok(()) };
        self.expire(events, now);
        if events.len() < self.limit.max as usize {
            return Ok(());
        }
        let oldest = events.front().copied().unwrap_or(now);
        Err((oldest + self.limit.window).saturating_duration_since(now))
    }

    pub fn record(&self, key: &str) {
        let seen = match &self.events {
            Events::Local(seen) => seen,
            Events::Shared(shared) => return shared.record(key),
        };
        let now = Instant::now();
        let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
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
        match &self.events {
            Events::Local(seen) => {
                seen.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
            }
            Events::Shared(shared) => shared.clear(key),
        }
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

/// A failing log lets the event through (and says so): the database it lives in is the one
/// that checks passwords and codes, so while it fails no login succeeds anyway.
impl Shared {
    fn key(&self, key: &str) -> String {
        format!("{}/{key}", self.name)
    }

    fn check(&self, key: &str, limit: Limit) -> Result<(), Duration> {
        let now = self.clock.now_micros();
        let window = i64::try_from(limit.window.as_micros()).unwrap_or(i64::MAX);
        let events = match self.log.events_since(&self.key(key), now.saturating_sub(window)) {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!(kind = "auth", error = %e, limit = self.name, "could not read a rate limit");
                return Ok(());
            }
        };
        if events.len() < limit.max as usize {
            return Ok(());
        }
        let oldest = events.first().copied().unwrap_or(now);
        let wait = oldest.saturating_add(window).saturating_sub(now).max(0);
        Err(Duration::from_micros(wait as u64))
    }

    fn record(&self, key: &str) {
        if let Err(e) = self.log.record_event(&self.key(key), self.clock.now_micros()) {
            tracing::warn!(kind = "auth", error = %e, limit = self.name, "could not record a rate-limited event");
        }
    }

    fn clear(&self, key: &str) {
        if let Err(e) = self.log.clear_events(&self.key(key)) {
            tracing::warn!(kind = "auth", error = %e, limit = self.name, "could not clear a rate limit");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

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

    /// An in-memory log: what two nodes sharing a database see.
    #[derive(Default)]
    struct Log(Mutex<Vec<(String, i64)>>);

    impl EventLog for Log {
        fn record_event(&self, key: &str, at: i64) -> Result<(), StoreError> {
            self.0.lock().unwrap().push((key.to_string(), at));
            Ok(())
        }
        fn events_since(&self, key: &str, since: i64) -> Result<Vec<i64>, StoreError> {
            Ok(self
                .0
                .lock()
                .unwrap()
                .iter()
                .filter(|(k, at)| k == key && *at >= since)
                .map(|(_, at)| *at)
                .collect())
        }
        fn clear_events(&self, key: &str) -> Result<(), StoreError> {
            self.0.lock().unwrap().retain(|(k, _)| k != key);
            Ok(())
        }
    }

    #[test]
    fn counters_sharing_a_log_share_the_limit() {
        let log: Arc<dyn EventLog> = Arc::new(Log::default());
        let clock = Arc::new(crate::clock::FixedClock::at("2026-12-24T10:00:00Z").unwrap());
        let limit = Limit {
            max: 2,
            window: Duration::from_secs(60),
        };
        let node_a = Counter::shared(limit, log.clone(), "failures", clock.clone());
        let node_b = Counter::shared(limit, log.clone(), "failures", clock.clone());
        let other = Counter::shared(limit, log.clone(), "sends", clock.clone());
        node_a.record("a");
        assert!(node_b.check("a").is_ok());
        node_b.record("a");
        assert_eq!(node_a.check("a"), Err(Duration::from_secs(60)));
        assert!(other.check("a").is_ok(), "another counter's events are its own");
        clock.advance(61_000_000);
        assert!(node_a.check("a").is_ok(), "the window slid past both events");
        node_a.record("a");
        node_a.record("a");
        node_b.clear("a");
        assert!(node_a.check("a").is_ok());
    }
}
