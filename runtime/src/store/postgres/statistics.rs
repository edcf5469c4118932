//! Planner statistics kept fresh after bulk writes.
//!
//! PostgreSQL plans every query from the statistics `ANALYZE` gathers, and autovacuum runs it
//! only once a table has changed by 10% and its next round comes (`autovacuum_naptime`, a
//! minute by default). Until then a freshly seeded table has no statistics, or those of when it
//! was a tenth of its size, and the planner guesses one row per condition: it then joins the
//! sets of a filter by nested loops over whole predicates instead of probing the few rows of
//! the smallest. Measured on 1,000 Tasks queried right after their seeding, a filter matching
//! 100 of them took 50 ms a call; after `ANALYZE`, 2.5 ms.
//!
//! So each node counts the links its commits added and removed, and once they reach a tenth of
//! the table (at least [`MIN_CHANGED`]) it runs `ANALYZE links, sources` on a connection of its
//! own, in the background: the commit that crossed the line does not wait, and the next queries
//! are planned from what is there. One runs at a time per node; nodes count apart, which at worst
//! analyzes a shared table once per node.

use std::sync::{Arc, Mutex};

use tokio::runtime::Handle;
use tokio_postgres::{Config, NoTls};

use super::client::{Session, database_error, set_up};
use super::pool::lock;

/// Fewest links changed before an `ANALYZE`: below it a table is small enough that the
/// planner's guesses cost little, and analyzing after every small commit would cost more.
pub(super) const MIN_CHANGED: u64 = 1_000;

/// What a node counts toward its next `ANALYZE`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    /// Links added or removed by this node's commits since its last `ANALYZE` began.
    changed: u64,
    /// Rows of `links` by the last `ANALYZE` this node knows of (`pg_class.reltuples`).
    rows: u64,
    /// An `ANALYZE` of this node's is running.
    running: bool,
}

impl Counts {
    /// Adds `changed` links, and says whether an `ANALYZE` starts now (then it is running).
    fn commit(&mut self, changed: u64) -> bool {
        self.changed = self.changed.saturating_add(changed);
        if self.running || self.changed < MIN_CHANGED.max(self.rows / 10) {
            return false;
        }
        self.changed = 0;
        self.running = true;
        true
    }

    /// An `ANALYZE` ended, having counted `rows` (or failed: `None`, and the count stays).
    fn analyzed(&mut self, rows: Option<u64>) {
        self.running = false;
        if let Some(rows) = rows {
            self.rows = rows;
        }
    }
}

/// Runs `ANALYZE` in the background once enough links changed (module docs).
pub(super) struct Statistics {
    counts: Arc<Mutex<Counts>>,
    config: Config,
    session: Session,
    runtime: Handle,
}

impl Statistics {
    /// `rows`: the links the table holds by its last `ANALYZE` (0 when never analyzed).
    pub fn new(config: Config, session: Session, runtime: Handle, rows: u64) -> Self {
        Statistics {
            counts: Arc::new(Mutex::new(Counts {
                rows,
                ..Counts::default()
            })),
            config,
            session,
            runtime,
        }
    }

    /// After a commit that added or removed `changed` links: starts an `ANALYZE` when due.
    pub fn committed(&self, changed: u64) {
        if changed == 0 || !lock(&self.counts).commit(changed) {
            return;
        }
        let (config, session, counts) = (self.config.clone(), self.session.clone(), self.counts.clone());
        self.runtime.spawn(async move {
            let rows = match analyze(&config, &session).await {
                Ok(rows) => Some(rows),
                Err(e) => {
                    tracing::warn!("ANALYZE after a bulk write failed: {}", database_error(e));
                    None
                }
            };
            lock(&counts).analyzed(rows);
        });
    }
}

/// `ANALYZE links, sources` on a connection of its own; the rows of `links` it counted.
async fn analyze(config: &Config, session: &Session) -> Result<u64, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!("the ANALYZE connection ended: {}", database_error(e));
        }
    });
    set_up(&client, session).await?;
    client.batch_execute("ANALYZE links, sources").await?;
    let row = client.query_one(ROWS_OF_LINKS, &[]).await?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// The rows of `links` by its last `ANALYZE`: `reltuples` is -1 before the first.
pub(super) const ROWS_OF_LINKS: &str =
    "SELECT GREATEST(reltuples, 0)::bigint FROM pg_class WHERE oid = 'links'::regclass";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_analyze_starts_once_a_tenth_of_the_table_changed_and_one_at_a_time() {
        let mut counts = Counts::default();
        // A table never analyzed: the first thousand links.
        assert!(!counts.commit(999));
        assert!(counts.commit(1));
        // One at a time: a commit meanwhile only counts.
        assert!(!counts.commit(500));
        counts.analyzed(Some(100_000));
        // Then a tenth of the rows it counted, those counted meanwhile included.
        assert!(!counts.commit(9_499));
        assert!(counts.commit(1));
        // A failed one keeps the rows known before it.
        counts.analyzed(None);
        assert_eq!(counts.rows, 100_000);
        assert!(!counts.commit(9_999));
        assert!(counts.commit(1));
    }
}
