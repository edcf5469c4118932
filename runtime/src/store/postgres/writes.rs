//! How a write transaction spares round trips on links (the module docs of [`tx`](super::tx)):
//! seqs drawn in blocks, and `INSERT`s queued to go out with the next request.

use std::collections::VecDeque;
use std::sync::LazyLock;

use tokio_postgres::types::ToSql;

use super::client::{PgClient, Queued, get};
use super::superseded;
use crate::store::{Link, StoreError};

/// Most seqs a transaction draws in one statement (module docs).
pub(super) const MOST_SEQS_AT_ONCE: i32 = 1_024;
/// Most links `add_link` queues before it sends them (module docs).
pub(super) const MOST_QUEUED_LINKS: usize = 256;

/// The `INSERT` of a link, of its `sources` row (which keeps the earliest (timestamp, seq),
/// should a clock ever step back), and of the `superseded` flags ([`superseded`]), queued until
/// the connection's next request.
static INSERT_LINK: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH earlier AS ({}), link AS (\
             INSERT INTO links (id, perspective, source, predicate, target, author, timestamp, local, tx, hash, \
             value_key, superseded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, {})) \
         INSERT INTO sources (perspective, source, first_ts, first_seq) VALUES ($2, $3, $7, $1) \
         ON CONFLICT (perspective, source) DO UPDATE SET first_ts = excluded.first_ts, first_seq = excluded.first_seq \
         WHERE (excluded.first_ts, excluded.first_seq) < (sources.first_ts, sources.first_seq)",
        superseded::EARLIER,
        superseded::ITSELF
    )
});

/// A link [`INSERT_LINK`] is to write: its seq, perspective row id, `transactions` row, hash and
/// value key beside it.
pub(super) struct QueuedLink {
    pub link: Link,
    pub perspective: i64,
    pub tx: i64,
    pub hash: Vec<u8>,
    pub value_key: String,
}

impl Queued for QueuedLink {
    fn sql(&self) -> &str {
        &INSERT_LINK
    }

    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        let link = &self.link;
        vec![
            &link.seq,
            &self.perspective,
            &link.source,
            &link.predicate,
            &link.target,
            &link.author,
            &link.timestamp,
            &link.local,
            &self.tx,
            &self.hash,
            &self.value_key,
        ]
    }
}

/// Seqs a transaction drew and has not used yet.
pub(super) struct Seqs {
    drawn: VecDeque<i64>,
    /// How many the next block draws.
    next_block: i32,
}

impl Default for Seqs {
    fn default() -> Self {
        Seqs {
            drawn: VecDeque::new(),
            next_block: 8,
        }
    }
}

impl Seqs {
    /// How many seqs the next block draws.
    pub fn next_block(&self) -> i32 {
        self.next_block
    }

    /// The next seq, from the blocks drawn, or a new block twice the last (one round trip).
    pub fn next(&mut self, conn: &PgClient) -> Result<i64, StoreError> {
        if self.drawn.is_empty() {
            let rows = conn.query(
                "SELECT nextval('links_id_seq') FROM generate_series(1, $1)",
                &[&self.next_block],
            )?;
            self.add_block(rows.iter().map(|row| get(row, 0)).collect::<Result<_, _>>()?);
        }
        self.drawn
            .pop_front()
            .ok_or_else(|| StoreError::Database("PostgreSQL drew no seq".into()))
    }

    /// Keeps a block of [`Seqs::next_block`] seqs drawn (by [`Seqs::next`], or with the
    /// transaction's row), to be used in order.
    pub fn add_block(&mut self, mut block: Vec<i64>) {
        block.sort_unstable();
        self.drawn.extend(block);
        self.next_block = (self.next_block * 2).min(MOST_SEQS_AT_ONCE);
    }
}
