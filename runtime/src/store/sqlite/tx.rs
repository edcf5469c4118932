//! The two kinds of transaction.
//!
//! A [`SqliteWriteTx`] holds the writer's guard from `BEGIN IMMEDIATE` to `COMMIT` (or to the
//! `ROLLBACK` of its `Drop`). A [`SqliteReadTx`] runs in a deferred `BEGIN` on a pooled read
//! connection (file databases) or on the writer (in memory).

use std::collections::{BTreeSet, HashMap, HashSet};

use rusqlite::Connection;

use super::conn::{ReadPool, Writer, WriterGuard, begin, end};
use super::order_key::{self, OrderKey};
use super::queries::{self, pattern_clause, with_perspective};
use super::{changes, erase, superseded};
use crate::store::changes::{Feed, Touched, pending_rows, sources_matching};
use crate::store::signing::TransactionSigner;
use crate::store::{
    AuthorKey, Change, Erased, Link, LinkPattern, NewLink, Order, Perspective, ReadTx, SourceQuery, StoreError,
    StoredModel, WalState, WriteTx,
};
use crate::value_key;

enum ReadConn<'a> {
    Pooled(Option<Connection>, &'a ReadPool),
    Writer(WriterGuard<'a>),
}

/// Reads within one snapshot, taken at its first read.
pub(super) struct SqliteReadTx<'a> {
    conn: ReadConn<'a>,
}

impl<'a> SqliteReadTx<'a> {
    pub fn begin(writer: &'a Writer, pool: Option<&'a ReadPool>) -> Result<Self, StoreError> {
        let conn = match pool {
            Some(pool) => ReadConn::Pooled(Some(pool.take()?), pool),
            None => ReadConn::Writer(writer.lock()?),
        };
        // On failure the Drop below returns the connection.
        let tx = SqliteReadTx { conn };
        begin(tx.conn(), "BEGIN DEFERRED")?;
        Ok(tx)
    }

    pub fn conn(&self) -> &Connection {
        match &self.conn {
            ReadConn::Pooled(Some(conn), _) => conn,
            ReadConn::Pooled(None, _) => unreachable!("a read connection is only taken out in drop"),
            ReadConn::Writer(guard) => guard,
        }
    }
}

impl Drop for SqliteReadTx<'_> {
    fn drop(&mut self) {
        match &mut self.conn {
            ReadConn::Pooled(conn, pool) => {
                if let Some(conn) = conn.take()
                    && end(&conn)
                {
                    pool.give_back(conn);
                }
            }
            ReadConn::Writer(guard) => {
                end(guard);
            }
        }
    }
}

/// One write transaction: `BEGIN IMMEDIATE` on the writer, signed and committed by `commit`.
pub(super) struct SqliteWriteTx<'a> {
    conn: WriterGuard<'a>,
    /// The author's key, for redactions too.
    key: &'a AuthorKey,
    /// The clock's time when the transaction began (every link it writes carries it), and the
    /// hashes to sign.
    signer: TransactionSigner<'a>,
    /// The `transactions` row, inserted with the first link.
    tx_id: Option<i64>,
    /// The next link's seq, read with the first link (nobody else writes meanwhile).
    next_seq: Option<i64>,
    /// The change log: its labeller, and the sources this transaction touched.
    feed: &'a Feed,
    touched: Touched,
    /// Perspective row ids looked up by this transaction (`add_link` needs one per link).
    perspective_ids: HashMap<String, i64>,
    /// Sources whose `sources` row this transaction has set: its links share one timestamp and
    /// take rising seqs, so after a source's first link here its order key cannot change again
    /// (until a removal refreshes it).
    sources_set: HashMap<(i64, String), SourceSet>,
    committed: bool,
}

impl<'a> SqliteWriteTx<'a> {
    pub fn begin(
        writer: &'a Writer,
        key: &'a AuthorKey,
        clock: &dyn crate::clock::Clock,
        feed: &'a Feed,
    ) -> Result<Self, StoreError> {
        let conn = writer.lock()?;
        begin(&conn, "BEGIN IMMEDIATE")?;
        Ok(SqliteWriteTx {
            conn,
            key,
            signer: TransactionSigner::new(key, clock.now_micros()),
            tx_id: None,
            next_seq: None,
            feed,
            touched: Touched::default(),
            perspective_ids: HashMap::new(),
            sources_set: HashMap::new(),
            committed: false,
        })
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    fn transaction_id(&mut self) -> Result<i64, StoreError> {
        if let Some(id) = self.tx_id {
            return Ok(id);
        }
        self.conn
            .prepare_cached(
                "INSERT INTO transactions (author, timestamp, link_hashes, signature) VALUES (?1, ?2, x'', x'')",
            )?
            .execute((self.signer.author(), self.signer.timestamp()))?;
        let id = self.conn.last_insert_rowid();
        self.tx_id = Some(id);
        Ok(id)
    }

    /// The change log's rows for what this transaction touched (`redact`: an erasure's), just
    /// before `COMMIT`; returns the perspectives to announce once committed.
    fn record_changes(&mut self, redact: bool) -> Result<Vec<String>, StoreError> {
        let touched = std::mem::take(&mut self.touched);
        let labeller = self.feed.labeller();
        let pending = pending_rows(&*self, &touched, labeller.as_deref(), redact)?;
        let (author, at) = (self.signer.author().to_string(), self.signer.timestamp());
        let (conn, ids) = (&*self.conn, &mut self.perspective_ids);
        changes::record(conn, &pending, (&author, at), self.tx_id, |uuid| {
            cached_id(conn, ids, uuid)
        })?;
        Ok(touched.perspectives())
    }

    fn perspective_id(&mut self, uuid: &str) -> Result<i64, StoreError> {
        cached_id(&self.conn, &mut self.perspective_ids, uuid)
    }

    fn take_seq(&mut self) -> Result<i64, StoreError> {
        let seq = match self.next_seq {
            Some(seq) => seq,
            None => self
                .conn
                .prepare_cached(
                    "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'links'), 0), \
                 COALESCE((SELECT MAX(id) FROM links), 0)) + 1",
                )?
                .query_row([], |row| row.get(0))?,
        };
        self.next_seq = Some(seq + 1);
        Ok(seq)
    }

    /// The order key of the source of `link` (about to be written), and whether `link` is the
    /// first of its predicate on a source that had no link before this transaction: then it is
    /// the last of its predicate there is, and supersedes none. Sets the source's `sources` row
    /// with its first link here.
    fn order_key(&mut self, perspective: i64, link: &Link) -> Result<(OrderKey, bool), StoreError> {
        let key = (perspective, link.source.clone());
        if let Some(set) = self.sources_set.get_mut(&key) {
            let first_of_predicate = set
                .new_source_predicates
                .as_mut()
                .is_some_and(|predicates| predicates.insert(link.predicate.clone()));
            return Ok((set.first, first_of_predicate));
        }
        let (first, new) = order_key::for_new_link(&self.conn, perspective, &link.source, (link.timestamp, link.seq))?;
        let new_source_predicates = new.then(|| HashSet::from([link.predicate.clone()]));
        self.sources_set.insert(
            key,
            SourceSet {
                first,
                new_source_predicates,
            },
        );
        Ok((first, new))
    }
}

/// A source whose `sources` row a write transaction has set.
struct SourceSet {
    /// Its order key.
    first: OrderKey,
    /// The predicates of its links here, when the source had none before (its row is new): the
    /// first link of each predicate is then the last one there is, and no `superseded` flag
    /// needs writing ([`superseded`]).
    new_source_predicates: Option<HashSet<String>>,
}

/// The row id of perspective `uuid`, looked up once per transaction (`ids`).
fn cached_id(conn: &Connection, ids: &mut HashMap<String, i64>, uuid: &str) -> Result<i64, StoreError> {
    if let Some(id) = ids.get(uuid) {
        return Ok(*id);
    }
    let id = queries::perspective_id(conn, uuid)?;
    ids.insert(uuid.to_string(), id);
    Ok(id)
}

impl Drop for SqliteWriteTx<'_> {
    fn drop(&mut self) {
        if !self.committed {
            end(&self.conn);
        }
    }
}

macro_rules! reads_through_conn {
    ($tx:ident) => {
        impl ReadTx for $tx<'_> {
            fn perspectives(&self) -> Result<Vec<Perspective>, StoreError> {
                queries::perspectives(self.conn())
            }
            fn perspective(&self, uuid: &str) -> Result<Option<Perspective>, StoreError> {
                queries::perspective(self.conn(), uuid)
            }
            fn links(
                &self,
                perspective: &str,
                pattern: LinkPattern<'_>,
                limit: Option<u64>,
                offset: u64,
            ) -> Result<Vec<Link>, StoreError> {
                queries::links(self.conn(), perspective, pattern, limit, offset)
            }
            fn count_links(&self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
                queries::count_links(self.conn(), perspective, pattern)
            }
            fn sources(&self, perspective: &str, query: &SourceQuery, order: Order) -> Result<Vec<String>, StoreError> {
                queries::sources(self.conn(), perspective, query, order)
            }
            fn source_page(
                &self,
                perspective: &str,
                query: &SourceQuery,
                order: Order,
                offset: u64,
                limit: u64,
            ) -> Result<(Vec<String>, u64), StoreError> {
                queries::source_page(self.conn(), perspective, query, order, offset, limit)
            }
            fn links_from(
                &self,
                perspective: &str,
                sources: &[String],
                predicates: &[String],
            ) -> Result<Vec<Link>, StoreError> {
                queries::links_from(self.conn(), perspective, sources, predicates)
            }
            fn first_link(&self, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
                queries::first_link(self.conn(), perspective, source)
            }
            fn models(&self, perspective: &str) -> Result<Vec<StoredModel>, StoreError> {
                queries::models(self.conn(), perspective)
            }
            fn count_links_elsewhere(
                &self,
                except: &str,
                pattern: LinkPattern<'_>,
            ) -> Result<Vec<(Perspective, u64)>, StoreError> {
                erase::count_links_elsewhere(self.conn(), except, pattern)
            }
            fn changes(&self, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError> {
                changes::changes(self.conn(), perspective, after, limit)
            }
            fn change_head(&self, perspective: &str) -> Result<i64, StoreError> {
                changes::change_head(self.conn(), perspective)
            }
            fn change_heads(&self) -> Result<Vec<(String, i64)>, StoreError> {
                changes::change_heads(self.conn())
            }
        }
    };
}

reads_through_conn!(SqliteReadTx);
reads_through_conn!(SqliteWriteTx);

impl WriteTx for SqliteWriteTx<'_> {
    fn add_perspective(&mut self, perspective: &Perspective) -> Result<(), StoreError> {
        if queries::perspective(&self.conn, &perspective.uuid)?.is_some() {
            return Err(StoreError::Database(format!(
                "perspective {} already exists",
                perspective.uuid
            )));
        }
        self.conn
            .prepare_cached("INSERT INTO perspectives (uuid, name, owner, neighbourhood) VALUES (?1, ?2, ?3, ?4)")?
            .execute((
                &perspective.uuid,
                &perspective.name,
                &perspective.owner,
                &perspective.neighbourhood,
            ))?;
        Ok(())
    }

    fn add_link(&mut self, perspective: &str, link: NewLink) -> Result<Link, StoreError> {
        let id = self.perspective_id(perspective)?;
        let tx = self.transaction_id()?;
        let seq = self.take_seq()?;
        let (link, hash) = self.signer.prepare(perspective, link, seq);
        let (first, first_of_predicate) = self.order_key(id, &link)?;
        self.conn
            .prepare_cached(
                "INSERT INTO links (id, perspective, source, predicate, target, author, timestamp, local, tx, hash, \
             value_key, first_ts, first_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?
            .execute((
                seq,
                id,
                &link.source,
                &link.predicate,
                &link.target,
                &link.author,
                link.timestamp,
                link.local,
                tx,
                &hash[..],
                value_key::key(&link.target),
                first.0,
                first.1,
            ))?;
        if !first_of_predicate {
            superseded::after_insert(&self.conn, id, (&link.source, &link.predicate), link.timestamp, seq)?;
        }
        self.signer.signed(&hash);
        self.touched.add(perspective, &link.source);
        Ok(link)
    }

    fn remove_links(&mut self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
        let id = queries::perspective_id(&self.conn, perspective)?;
        let (clause, values) = pattern_clause(&pattern);
        let params = with_perspective(&id, &values);
        // One row per removed link: its source and predicate.
        let removed: Vec<(String, String)> = {
            let mut stmt = self.conn.prepare_cached(&queries::remove_links_sql(&clause))?;
            stmt.query_map(&*params, |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?
        };
        let pairs: BTreeSet<(&str, &str)> = removed.iter().map(|(s, p)| (s.as_str(), p.as_str())).collect();
        for &pair in &pairs {
            superseded::after_removal(&self.conn, id, pair)?;
        }
        let sources: BTreeSet<&String> = removed.iter().map(|(source, _)| source).collect();
        for &source in &sources {
            order_key::refresh(&self.conn, id, source)?;
            self.sources_set.remove(&(id, source.clone()));
        }
        self.touched
            .add_all(perspective, sources.iter().map(|source| source.as_str()));
        Ok(removed.len() as u64)
    }

    fn put_model(&mut self, perspective: &str, model: &StoredModel) -> Result<bool, StoreError> {
        let id = queries::perspective_id(&self.conn, perspective)?;
        let replaced = self
            .conn
            .prepare_cached("UPDATE models SET shacl_json = ?3 WHERE perspective = ?1 AND class_name = ?2")?
            .execute((id, &model.class_name, &model.shacl_json))?
            > 0;
        if !replaced {
            self.conn
                .prepare_cached(
                    "INSERT INTO models (perspective, class_name, shacl_json, registered) VALUES (?1, ?2, ?3, \
                 (SELECT COALESCE(MAX(registered), 0) + 1 FROM models WHERE perspective = ?1))",
                )?
                .execute((id, &model.class_name, &model.shacl_json))?;
        }
        Ok(replaced)
    }

    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        let changed = self.record_changes(false)?;
        if let Some(tx) = self.tx_id {
            let signature = self.signer.sign();
            self.conn
                .prepare_cached("UPDATE transactions SET link_hashes = ?2, signature = ?3 WHERE id = ?1")?
                .execute((tx, self.signer.hashes(), &signature[..]))?;
        }
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.committed = true;
        self.conn.committed();
        self.feed.announce(&changed);
        Ok(())
    }

    fn erase_links(&mut self, perspective: &str, patterns: &[LinkPattern<'_>]) -> Result<Erased, StoreError> {
        let sources = sources_matching(&*self, perspective, patterns)?;
        let erased = erase::erase_links(&self.conn, self.key, perspective, patterns)?;
        self.sources_set.clear();
        self.touched.add_all(perspective, sources.iter().map(String::as_str));
        Ok(erased)
    }

    fn erase_perspective(&mut self, perspective: &str) -> Result<Erased, StoreError> {
        changes::erase_perspective(&self.conn, perspective)?;
        let erased = erase::erase_perspective(&self.conn, self.key, perspective)?;
        self.sources_set.clear();
        self.perspective_ids.clear();
        self.touched.erase(perspective);
        Ok(erased)
    }

    fn commit_erasure(mut self: Box<Self>) -> Result<WalState, StoreError> {
        if self.tx_id.is_some() {
            // Dropping it rolls everything back.
            return Err(StoreError::Database(
                "an erasure writes no links: commit this transaction with commit".into(),
            ));
        }
        let changed = self.record_changes(true)?;
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.committed = true;
        self.feed.announce(&changed);
        let _quiet = self.conn.hold_checkpoints();
        Ok(erase::truncate_wal(&self.conn))
    }
}
