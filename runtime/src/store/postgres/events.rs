//! Rate limiting that every node sharing the database sees: one `rate_events` row per event,
//! read back by key and time.

use super::PostgresStore;
use super::client::get;
use crate::store::StoreError;

impl PostgresStore {
    /// Records an event of `key` at `at_micros`.
    pub fn record_event(&self, key: &str, at_micros: i64) -> Result<(), StoreError> {
        let conn = self.pool.take()?;
        conn.execute("INSERT INTO rate_events (key, at) VALUES ($1, $2)", &[&key, &at_micros])?;
        Ok(())
    }

    /// Times (micros) of the events of `key` at or after `since_micros`, oldest first; also
    /// deletes that key's older rows. One statement: the delete and the read see one snapshot.
    pub fn events_since(&self, key: &str, since_micros: i64) -> Result<Vec<i64>, StoreError> {
        let conn = self.pool.take()?;
        conn.query(
            "WITH expired AS (DELETE FROM rate_events WHERE key = $1 AND at < $2) \
             SELECT at FROM rate_events WHERE key = $1 AND at >= $2 ORDER BY at",
            &[&key, &since_micros],
        )?
        .iter()
        .map(|row| get(row, 0))
        .collect()
    }

    /// Forgets every event of `key`.
    pub fn clear_events(&self, key: &str) -> Result<(), StoreError> {
        let conn = self.pool.take()?;
        conn.execute("DELETE FROM rate_events WHERE key = $1", &[&key])?;
        Ok(())
    }
}

/// Multi-user mode's rate limits, shared by every node of the database.
impl crate::store::EventLog for PostgresStore {
    fn record_event(&self, key: &str, at: i64) -> Result<(), StoreError> {
        PostgresStore::record_event(self, key, at)
    }

    fn events_since(&self, key: &str, since: i64) -> Result<Vec<i64>, StoreError> {
        PostgresStore::events_since(self, key, since)
    }

    fn clear_events(&self, key: &str) -> Result<(), StoreError> {
        PostgresStore::clear_events(self, key)
    }
}
