//! The two kinds of transaction.
//!
//! A [`PgReadTx`] is `REPEATABLE READ READ ONLY`: one snapshot for all its reads. A [`PgWriteTx`]
//! is `READ COMMITTED`, and the first time it touches a perspective (any method given a
//! perspective uuid, reads included) it takes that perspective's transaction-level advisory lock.
//! Writers to one perspective thus run one after another across every node, as under SQLite's
//! single writer, and each statement after the lock sees everything committed before it: the
//! engine's read-check-then-write (`max_count`, idempotent adds, ids not taken) stays correct.
//! Writers to different perspectives run side by side. Two transactions that lock the same two
//! perspectives in opposite orders deadlock; PostgreSQL then fails one of them (SQLSTATE 40P01).
//!
//! **Fewer round trips.** Each transaction looks a perspective up by uuid once and keeps its row
//! id and row ([`Known`]); the queries then name it by row id. A reader's answer holds for its
//! whole snapshot. A writer sends the lookup pipelined right behind the lock statement (one round
//! trip, see [`client`](super::client)): the server runs it once the lock is held, with a fresh
//! `READ COMMITTED` snapshot, so it sees every perspective created or erased before, and none can
//! be created or erased by anyone else until the writer ends (both take the lock); the writer's
//! own `add_perspective` and `erase_perspective` update what it keeps.
//!
//! **Seqs.** A link's seq is drawn before its hash is made (the hash covers it). A transaction
//! draws them in blocks, one statement each: the first block of 8 with its `transactions` row,
//! then twice as many each time (up to [`MOST_SEQS_AT_ONCE`](super::writes::MOST_SEQS_AT_ONCE)):
//! a create of up to 8 links draws its seqs in no round trip of their own, 1,000 links in six. The
//! seqs a transaction drew and did not use are a gap in the sequence, as a rolled back
//! transaction's are; nothing reads seqs but to order links.
//!
//! **Links go out together.** `add_link` [queues](super::client::PgClient::queue) the link's
//! `INSERT`: it goes out in front of the connection's next request, in the same round trip, or
//! alone once [`MOST_QUEUED_LINKS`](super::writes::MOST_QUEUED_LINKS) are queued. A create of
//! three links sends them with the read of its change labels at commit; an `execute_commands` of
//! 1,000 links in four round trips of their own. A statement's error then comes from whichever
//! call sent it; the transaction has failed either way, and commits nothing.
//!
//! A commit sends its change log rows, their `NOTIFY`, its signature (the `UPDATE` of its
//! `transactions` row) and `COMMIT` in one round trip.
//!
//! A Postgres-wire distributed database (CockroachDB, YugabyteDB) has no advisory locks: there
//! this design would need `SERIALIZABLE` transactions retried on SQLSTATE 40001.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use tokio_postgres::types::ToSql;

use super::client::get;
use super::pool::{Pool, Pooled};
use super::queries::{self, LOOKUP, lookup_row, with_perspective};
use super::schema::Scope;
use super::statistics::Statistics;
use super::superseded;
use super::writes::{MOST_QUEUED_LINKS, QueuedLink, Seqs};
use super::{changes, erase};
use crate::store::changes::{Feed, Touched, pending_rows, sources_matching};
use crate::store::signing::TransactionSigner;
use crate::store::sql::{self, POSTGRES};
use crate::store::{
    AuthorKey, Change, Erased, Link, LinkPattern, NewLink, Order, Perspective, ReadTx, SourceQuery, StoreError,
    StoredModel, WalState, WriteTx,
};
use crate::value_key;

/// The perspectives a transaction has looked up, by uuid: row id and row, or `None` for one that
/// does not exist (module docs).
#[derive(Default)]
struct Known(RefCell<HashMap<String, Option<(i64, Perspective)>>>);

impl Known {
    /// What is known of `uuid`: `None` when it was never looked up.
    fn get(&self, uuid: &str) -> Option<Option<(i64, Perspective)>> {
        self.0.borrow().get(uuid).cloned()
    }

    fn set(&self, uuid: &str, row: Option<(i64, Perspective)>) {
        self.0.borrow_mut().insert(uuid.to_string(), row);
    }
}

/// Reads within one snapshot, taken at its first read.
pub(super) struct PgReadTx<'a> {
    conn: Pooled<'a>,
    known: Known,
}

impl<'a> PgReadTx<'a> {
    pub fn begin(pool: &'a Pool) -> Result<Self, StoreError> {
        Ok(PgReadTx {
            conn: pool.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?,
            known: Known::default(),
        })
    }

    pub fn conn(&self) -> &Pooled<'a> {
        &self.conn
    }

    /// A read transaction locks nothing.
    fn touch(&self, _perspective: &str) -> Result<(), StoreError> {
        Ok(())
    }

    /// The perspective's row id and row, looked up once: the snapshot never changes.
    fn resolve(&self, uuid: &str) -> Result<Option<(i64, Perspective)>, StoreError> {
        if let Some(known) = self.known.get(uuid) {
            return Ok(known);
        }
        let found = queries::lookup(&self.conn, uuid)?;
        self.known.set(uuid, found.clone());
        Ok(found)
    }
}

impl Drop for PgReadTx<'_> {
    fn drop(&mut self) {
        self.conn.end_unawaited();
    }
}

/// One write transaction, signed and committed by `commit`.
pub(super) struct PgWriteTx<'a> {
    conn: Pooled<'a>,
    scope: &'a Scope,
    /// The author's key, for redactions too.
    key: &'a AuthorKey,
    /// The clock's time when the transaction began (every link it writes carries it), and the
    /// hashes to sign.
    signer: TransactionSigner<'a>,
    /// The `transactions` row, inserted with the first link.
    tx_id: Option<i64>,
    /// Seqs drawn and not yet used (module docs).
    seqs: Seqs,
    /// The perspectives whose advisory lock this transaction holds: exactly those it knows.
    known: Known,
    /// The change log: its labeller, and the sources this transaction touched.
    feed: &'a Feed,
    touched: Touched,
    /// Links added and removed, told to `statistics` on commit.
    changed: u64,
    statistics: &'a Statistics,
    committed: bool,
}

impl<'a> PgWriteTx<'a> {
    pub fn begin(
        pool: &'a Pool,
        (scope, feed, statistics): (&'a Scope, &'a Feed, &'a Statistics),
        key: &'a AuthorKey,
        timestamp: i64,
    ) -> Result<Self, StoreError> {
        Ok(PgWriteTx {
            conn: pool.begin("BEGIN ISOLATION LEVEL READ COMMITTED")?,
            scope,
            key,
            signer: TransactionSigner::new(key, timestamp),
            tx_id: None,
            seqs: Seqs::default(),
            known: Known::default(),
            feed,
            touched: Touched::default(),
            changed: 0,
            statistics,
            committed: false,
        })
    }

    /// The connection to read through: the links queued go out in front of the read.
    pub fn conn(&self) -> &Pooled<'a> {
        &self.conn
    }

    /// Takes the perspective's advisory lock, once per transaction, before any other statement
    /// about it (module docs). Held until commit or rollback.
    fn touch(&self, perspective: &str) -> Result<(), StoreError> {
        self.resolve(perspective).map(drop)
    }

    /// The perspective's row id and row, if it exists. The first time, takes its lock and looks
    /// it up right after, in one round trip (module docs).
    fn resolve(&self, uuid: &str) -> Result<Option<(i64, Perspective)>, StoreError> {
        if let Some(known) = self.known.get(uuid) {
            return Ok(known);
        }
        let (_, rows) = self.conn.query_pair(
            (
                "SELECT pg_advisory_xact_lock($1)",
                &[&self.scope.perspective_lock(uuid)],
            ),
            (LOOKUP, &[&uuid]),
        )?;
        let found = rows.first().map(lookup_row).transpose()?;
        self.known.set(uuid, found.clone());
        Ok(found)
    }

    /// The perspective's row id (its lock taken), or [`StoreError::NoPerspective`].
    fn perspective_id(&self, uuid: &str) -> Result<i64, StoreError> {
        match self.resolve(uuid)? {
            Some((id, _)) => Ok(id),
            None => Err(StoreError::NoPerspective(uuid.to_string())),
        }
    }

    /// The `transactions` row and a new seq for the next link (module docs).
    fn next_seq(&mut self) -> Result<(i64, i64), StoreError> {
        let tx = match self.tx_id {
            Some(tx) => tx,
            None => self.insert_transaction()?,
        };
        Ok((tx, self.seqs.next(&self.conn)?))
    }

    /// Inserts the `transactions` row (signed at commit) and draws the first block of seqs, in
    /// one statement.
    fn insert_transaction(&mut self) -> Result<i64, StoreError> {
        let rows = self.conn.query(
            "WITH tx AS (INSERT INTO transactions (author, timestamp, link_hashes, signature) \
             VALUES ($1, $2, ''::bytea, ''::bytea) RETURNING id) \
             SELECT tx.id, nextval('links_id_seq') FROM tx, generate_series(1, $3)",
            &[&self.signer.author(), &self.signer.timestamp(), &self.seqs.next_block()],
        )?;
        let first = rows
            .first()
            .ok_or_else(|| StoreError::Database("PostgreSQL inserted no transaction".into()))?;
        let tx = get(first, 0)?;
        self.seqs
            .add_block(rows.iter().map(|row| get(row, 1)).collect::<Result<_, _>>()?);
        self.tx_id = Some(tx);
        Ok(tx)
    }

    /// The change log's rows for what this transaction touched (`redact`: an erasure's), their
    /// announcement, the transaction's signature (when it wrote links) and `COMMIT`, in one round
    /// trip ([`changes::record_and_commit`]). Every perspective touched is locked already.
    fn record_and_commit(&mut self, redact: bool) -> Result<(), StoreError> {
        let touched = std::mem::take(&mut self.touched);
        let labeller = self.feed.labeller();
        let pending = pending_rows(&*self, &touched, labeller.as_deref(), redact)?;
        let author = self.signer.author().to_string();
        let by = (author.as_str(), self.signer.timestamp(), self.tx_id);
        let perspectives = touched.perspectives();
        let announce = (self.scope.changes_channel.as_str(), &perspectives[..]);
        let signature = self.tx_id.map(|_| self.signer.sign());
        let (hashes, signature) = (self.signer.hashes(), signature.as_ref().map(|s| &s[..]));
        let signed: [&(dyn ToSql + Sync); 3] = [&self.tx_id, &hashes, &signature];
        let update = "UPDATE transactions SET link_hashes = $2, signature = $3 WHERE id = $1";
        let signed = self.tx_id.is_some().then_some((update, &signed[..]));
        changes::record_and_commit(&self.conn, &pending, by, announce, signed)
    }

    /// Tells every node's `watch_models` that the perspective's models changed, on commit.
    fn notify_models_changed(&self, perspective: &str) -> Result<(), StoreError> {
        self.conn
            .execute("SELECT pg_notify($1, $2)", &[&self.scope.channel, &perspective])?;
        Ok(())
    }

    /// Refuses to commit what PostgreSQL already rolled back: after a failed statement its
    /// `COMMIT` answers `ROLLBACK`, without an error.
    fn check_not_failed(&self) -> Result<(), StoreError> {
        if self.conn.failed() {
            return Err(StoreError::Database(
                "a statement of this transaction failed: PostgreSQL rolled it back".into(),
            ));
        }
        Ok(())
    }
}

impl Drop for PgWriteTx<'_> {
    fn drop(&mut self) {
        if !self.committed {
            self.conn.end();
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
                Ok(self.resolve(uuid)?.map(|(_, perspective)| perspective))
            }
            fn links(
                &self,
                perspective: &str,
                pattern: LinkPattern<'_>,
                limit: Option<u64>,
                offset: u64,
            ) -> Result<Vec<Link>, StoreError> {
                queries::links(
                    self.conn(),
                    self.perspective_id(perspective)?,
                    pattern,
                    limit,
                    offset,
                )
            }
            fn count_links(&self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
                queries::count_links(self.conn(), self.perspective_id(perspective)?, pattern)
            }
            fn sources(&self, perspective: &str, query: &SourceQuery, order: Order) -> Result<Vec<String>, StoreError> {
                queries::sources(self.conn(), self.perspective_id(perspective)?, query, order)
            }
            fn source_page(
                &self,
                perspective: &str,
                query: &SourceQuery,
                order: Order,
                offset: u64,
                limit: u64,
            ) -> Result<(Vec<String>, u64), StoreError> {
                queries::source_page(
                    self.conn(),
                    self.perspective_id(perspective)?,
                    query,
                    order,
                    offset,
                    limit,
                )
            }
            fn links_from(
                &self,
                perspective: &str,
                sources: &[String],
                predicates: &[String],
            ) -> Result<Vec<Link>, StoreError> {
                queries::links_from(
                    self.conn(),
                    self.perspective_id(perspective)?,
                    sources,
                    predicates,
                )
            }
            fn first_link(&self, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
                queries::first_link(self.conn(), self.perspective_id(perspective)?, source)
            }
            fn models(&self, perspective: &str) -> Result<Vec<StoredModel>, StoreError> {
                queries::models(self.conn(), self.perspective_id(perspective)?)
            }
            fn count_links_elsewhere(
                &self,
                except: &str,
                pattern: LinkPattern<'_>,
            ) -> Result<Vec<(Perspective, u64)>, StoreError> {
                self.touch(except)?;
                queries::count_links_elsewhere(self.conn(), except, pattern)
            }
            fn changes(&self, perspective: &str, after: i64, limit: u64) -> Result<Vec<Change>, StoreError> {
                self.touch(perspective)?;
                changes::changes(self.conn(), perspective, after, limit)
            }
            fn change_head(&self, perspective: &str) -> Result<i64, StoreError> {
                self.touch(perspective)?;
                changes::change_head(self.conn(), perspective)
            }
            fn change_heads(&self) -> Result<Vec<(String, i64)>, StoreError> {
                changes::change_heads(self.conn())
            }
        }
    };
}

impl PgReadTx<'_> {
    /// The perspective's row id, or [`StoreError::NoPerspective`].
    fn perspective_id(&self, uuid: &str) -> Result<i64, StoreError> {
        match self.resolve(uuid)? {
            Some((id, _)) => Ok(id),
            None => Err(StoreError::NoPerspective(uuid.to_string())),
        }
    }
}

reads_through_conn!(PgReadTx);
reads_through_conn!(PgWriteTx);

impl WriteTx for PgWriteTx<'_> {
    fn add_perspective(&mut self, perspective: &Perspective) -> Result<(), StoreError> {
        if self.resolve(&perspective.uuid)?.is_some() {
            return Err(StoreError::Database(format!(
                "perspective {} already exists",
                perspective.uuid
            )));
        }
        let row = self.conn.query_one(
            "INSERT INTO perspectives (uuid, name, owner, neighbourhood) VALUES ($1, $2, $3, $4) RETURNING id",
            &[
                &perspective.uuid,
                &perspective.name,
                &perspective.owner,
                &perspective.neighbourhood,
            ],
        )?;
        self.known
            .set(&perspective.uuid, Some((get(&row, 0)?, perspective.clone())));
        Ok(())
    }

    fn add_link(&mut self, perspective: &str, link: NewLink) -> Result<Link, StoreError> {
        // No seq is drawn for a perspective that does not exist.
        let id = self.perspective_id(perspective)?;
        if [&link.source, &link.predicate, &link.target]
            .iter()
            .any(|text| text.contains('\0'))
        {
            // Refused here, since the statement is sent later (module docs).
            return Err(self.conn.refuse(StoreError::Database(
                "PostgreSQL text cannot hold U+0000: the link is refused".into(),
            )));
        }
        let (tx, seq) = self.next_seq()?;
        let (link, hash) = self.signer.prepare(perspective, link, seq);
        let value_key = value_key::key(&link.target);
        if self.conn.queued() >= MOST_QUEUED_LINKS {
            self.conn.flush()?;
        }
        self.conn.queue(Box::new(QueuedLink {
            link: link.clone(),
            perspective: id,
            tx,
            hash: hash.to_vec(),
            value_key,
        }));
        self.signer.signed(&hash);
        self.touched.add(perspective, &link.source);
        self.changed += 1;
        Ok(link)
    }

    fn remove_links(&mut self, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
        let id = self.perspective_id(perspective)?;
        let (clause, values) = sql::pattern_clause(&pattern, POSTGRES);
        let removed = self.conn.query(
            &format!("DELETE FROM links WHERE {clause} RETURNING source, predicate"),
            &with_perspective(&id, &values),
        )?;
        let pairs = removed
            .iter()
            .map(|row| Ok((get::<String>(row, 0)?, get::<String>(row, 1)?)))
            .collect::<Result<BTreeSet<_>, StoreError>>()?;
        let (sources, _) = superseded::after_removal(&self.conn, id, &pairs)?;
        self.touched.add_all(perspective, sources);
        self.changed += removed.len() as u64;
        Ok(removed.len() as u64)
    }

    fn put_model(&mut self, perspective: &str, model: &StoredModel) -> Result<bool, StoreError> {
        let id = self.perspective_id(perspective)?;
        let replaced = self.conn.execute(
            "UPDATE models SET shacl_json = $3 WHERE perspective = $1 AND class_name = $2",
            &[&id, &model.class_name, &model.shacl_json],
        )? > 0;
        if !replaced {
            self.conn.execute(
                "INSERT INTO models (perspective, class_name, shacl_json, registered) VALUES ($1, $2, $3, \
                 (SELECT COALESCE(MAX(registered), 0) + 1 FROM models WHERE perspective = $1))",
                &[&id, &model.class_name, &model.shacl_json],
            )?;
        }
        self.notify_models_changed(perspective)?;
        Ok(replaced)
    }

    fn commit(mut self: Box<Self>) -> Result<(), StoreError> {
        self.check_not_failed()?;
        self.record_and_commit(false)?;
        self.committed = true;
        self.statistics.committed(self.changed);
        Ok(())
    }

    fn erase_links(&mut self, perspective: &str, patterns: &[LinkPattern<'_>]) -> Result<Erased, StoreError> {
        let id = self.perspective_id(perspective)?;
        let sources = sources_matching(&*self, perspective, patterns)?;
        let erased = erase::erase_links(&self.conn, self.key, id, patterns)?;
        self.touched.add_all(perspective, sources.iter().map(String::as_str));
        self.changed += erased.links;
        Ok(erased)
    }

    fn erase_perspective(&mut self, perspective: &str) -> Result<Erased, StoreError> {
        let id = self.perspective_id(perspective)?;
        changes::erase_perspective(&self.conn, id)?;
        let erased = erase::erase_perspective(&self.conn, self.key, id)?;
        self.touched.erase(perspective);
        self.changed += erased.links;
        self.known.set(perspective, None);
        self.notify_models_changed(perspective)?;
        Ok(erased)
    }

    /// Commits; PostgreSQL keeps its own log and free space ([`WalState::ServerManaged`]). No
    /// `VACUUM` is run: it would not overwrite the freed bytes either (they stay in the pages
    /// until reused), and the log, its archives and replicas keep the rows whatever it does.
    fn commit_erasure(mut self: Box<Self>) -> Result<WalState, StoreError> {
        if self.tx_id.is_some() {
            // Dropping it rolls everything back.
            return Err(StoreError::Database(
                "an erasure writes no links: commit this transaction with commit".into(),
            ));
        }
        self.check_not_failed()?;
        self.record_and_commit(true)?;
        self.committed = true;
        self.statistics.committed(self.changed);
        Ok(WalState::ServerManaged)
    }
}
