//! One connection with sync calls: `futures::executor::block_on` over the client's futures (the
//! connection's I/O runs on the store's runtime, see [`pool`](super::pool)); a cache of prepared
//! statements; errors as [`StoreError`]s; the session every connection sets first.
//!
//! **Pipelining.** A few calls send two statements or more before reading any answer (one round
//! trip instead of one each): the driver writes each request as it is polled, and the server runs them in
//! order, the second starting (and, under `READ COMMITTED`, taking its snapshot) only after the
//! first is done. Should the first fail, the second fails too (the transaction is aborted) or,
//! for a `COMMIT`, turns into a rollback: the caller gets the first error and nothing is kept.
//!
//! **Queued statements.** A statement whose answer nobody needs (a link's `INSERT`) can be
//! [queued](PgClient::queue): it goes out in front of the connection's next request, in the same
//! round trip, and that request's caller gets its error, if any. A rollback drops what is queued.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::Duration;

use futures::FutureExt;
use futures::executor::block_on;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, Row, Statement};

use crate::store::StoreError;

/// How long a statement waits for a lock (a perspective's, a row's) before it fails: a writer
/// that never ends, or a second write transaction on the same thread, becomes an error.
const LOCK_TIMEOUT: &str = "30s";
/// Used when the URL gives no `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Prepared statements kept per connection (dynamic queries vary by shape); past it, the cache
/// starts over.
const MAX_STATEMENTS: usize = 256;

/// A driver error as a [`StoreError`]. A server error keeps its message and SQLSTATE but not
/// its DETAIL, which may quote row values; no message holds the connection's password.
pub(super) fn database_error(error: tokio_postgres::Error) -> StoreError {
    let message = match (error.as_db_error(), std::error::Error::source(&error)) {
        (Some(db), _) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        (None, Some(cause)) => format!("{error}: {cause}"),
        (None, None) => error.to_string(),
    };
    StoreError::Database(message)
}

/// The SQLSTATE of a server error.
pub(super) fn sql_state(error: &tokio_postgres::Error) -> Option<&str> {
    error.code().map(|code| code.code())
}

/// What every connection of a store sets first.
#[derive(Clone, Debug)]
pub(super) struct Session {
    /// The `search_path` (a quoted identifier), or the server's default.
    pub search_path: Option<String>,
}

/// Parses a `postgres://` URL. Its parse errors are not passed on: they may quote a character of
/// the password.
pub(super) fn parse_url(url: &str) -> Result<Config, StoreError> {
    let mut config: Config = url.parse().map_err(|_| {
        StoreError::Database("the PostgreSQL URL is not valid (postgres://user:password@host:port/database)".into())
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("shacl-mcp");
    }
    Ok(config)
}

/// Sets the session of a fresh connection.
pub(super) async fn set_up(client: &Client, session: &Session) -> Result<(), tokio_postgres::Error> {
    client
        .query("SELECT set_config('lock_timeout', $1, false)", &[&LOCK_TIMEOUT])
        .await?;
    if let Some(path) = &session.search_path {
        client
            .query("SELECT set_config('search_path', $1, false)", &[path])
            .await?;
    }
    Ok(())
}

/// One connection with sync calls. It remembers whether a statement failed since the last
/// `BEGIN`: PostgreSQL then refuses the rest of the transaction and turns `COMMIT` into a
/// rollback, so a commit must know.
pub(super) struct PgClient {
    client: Client,
    statements: RefCell<HashMap<String, Statement>>,
    failed: Cell<bool>,
    /// Sent in front of the next request (module docs).
    queued: RefCell<Vec<Box<dyn Queued + Send>>>,
}

/// A statement [queued](PgClient::queue) to go out with the next request: it owns its
/// parameters.
pub(super) trait Queued {
    fn sql(&self) -> &str;
    fn params(&self) -> Vec<&(dyn ToSql + Sync)>;
}

type Params<'a> = [&'a (dyn ToSql + Sync)];

impl PgClient {
    pub(super) fn new(client: Client) -> Self {
        PgClient {
            client,
            statements: RefCell::new(HashMap::new()),
            failed: Cell::new(false),
            queued: RefCell::new(Vec::new()),
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Whether a statement failed since the last [`PgClient::begin`].
    pub fn failed(&self) -> bool {
        self.failed.get()
    }

    fn checked<T>(&self, result: Result<T, tokio_postgres::Error>) -> Result<T, StoreError> {
        result.map_err(|e| {
            self.failed.set(true);
            database_error(e)
        })
    }

    /// Like [`PgClient::checked`], handing a server error's SQLSTATE back for the caller to judge.
    fn checked_raw<T>(&self, result: Result<T, tokio_postgres::Error>) -> Result<T, tokio_postgres::Error> {
        if result.is_err() {
            self.failed.set(true);
        }
        result
    }

    fn statement(&self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.borrow().get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.checked(block_on(self.client.prepare(sql)))?;
        let mut statements = self.statements.borrow_mut();
        if statements.len() >= MAX_STATEMENTS {
            statements.clear();
        }
        statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// Keeps `statement` to go out in front of the next request (module docs).
    pub fn queue(&self, statement: Box<dyn Queued + Send>) {
        self.queued.borrow_mut().push(statement);
    }

    /// How many statements are queued.
    pub fn queued(&self) -> usize {
        self.queued.borrow().len()
    }

    /// Sends the statements queued, alone: one round trip.
    pub fn flush(&self) -> Result<(), StoreError> {
        self.run(std::future::ready(()))
    }

    /// Awaits `request`, the statements queued sent in front of it in the same round trip: the
    /// first error of those, else the request's answer.
    fn run<F: Future>(&self, request: F) -> Result<F::Output, StoreError> {
        let queued = self.queued.take();
        if queued.is_empty() {
            return Ok(block_on(request));
        }
        let statements = self.prepared(queued.iter().map(|q| q.sql()))?;
        let params: Vec<_> = queued.iter().map(|q| q.params()).collect();
        let sent = self.executions(statements.iter().zip(params.iter().map(Vec::as_slice)));
        let (sent, answer) = block_on(futures::future::join(sent, request));
        self.checked_all(sent)?;
        Ok(answer)
    }

    /// The prepared statements of `sqls`, in order.
    fn prepared<'s>(&self, sqls: impl Iterator<Item = &'s str>) -> Result<Vec<Statement>, StoreError> {
        sqls.map(|sql| self.statement(sql)).collect()
    }

    /// Every execution of `statements` with its parameters, to be sent together (module docs).
    fn executions<'c>(
        &'c self,
        statements: impl Iterator<Item = (&'c Statement, &'c Params<'c>)>,
    ) -> impl Future<Output = Vec<Result<u64, tokio_postgres::Error>>> + 'c {
        futures::future::join_all(statements.map(|(statement, params)| self.client.execute(statement, params)))
    }

    /// The first error of `results`, if any.
    fn checked_all(&self, results: Vec<Result<u64, tokio_postgres::Error>>) -> Result<(), StoreError> {
        for result in results {
            self.checked(result)?;
        }
        Ok(())
    }

    /// [`PgClient::run`] of a request with one answer.
    fn answer<T>(&self, request: impl Future<Output = Result<T, tokio_postgres::Error>>) -> Result<T, StoreError> {
        let answer = self.run(request)?;
        self.checked(answer)
    }

    pub fn query(&self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.answer(self.client.query(&statement, params))
    }

    /// [`Self::query`] of a statement on a perspective (its row id, then text values), planned
    /// for these values on every execution: the unnamed statement, one round trip, no cache.
    /// PostgreSQL plans a prepared statement generically after its fifth execution, and a
    /// generic plan of the source queries (`source_sql`), which take their shape from sets
    /// whose sizes only the values tell, estimated one row per condition and chose a nested
    /// loop that read the keyed set again for every source: minutes for a query a custom plan
    /// answers in milliseconds.
    pub fn query_planned(&self, sql: &str, perspective: &i64, values: &[&str]) -> Result<Vec<Row>, StoreError> {
        let mut typed: Vec<(&(dyn ToSql + Sync), Type)> = Vec::with_capacity(values.len() + 1);
        typed.push((perspective, Type::INT8));
        typed.extend(values.iter().map(|value| (value as &(dyn ToSql + Sync), Type::TEXT)));
        self.answer(self.client.query_typed(sql, &typed))
    }

    pub fn query_opt(&self, sql: &str, params: &Params<'_>) -> Result<Option<Row>, StoreError> {
        let statement = self.statement(sql)?;
        self.answer(self.client.query_opt(&statement, params))
    }

    pub fn query_one(&self, sql: &str, params: &Params<'_>) -> Result<Row, StoreError> {
        let statement = self.statement(sql)?;
        self.answer(self.client.query_one(&statement, params))
    }

    pub fn execute(&self, sql: &str, params: &Params<'_>) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        self.answer(self.client.execute(&statement, params))
    }

    /// Runs `first`, then `second`, in one round trip (module docs): the rows of each, or the
    /// first error.
    pub fn query_pair(
        &self,
        first: (&str, &Params<'_>),
        second: (&str, &Params<'_>),
    ) -> Result<(Vec<Row>, Vec<Row>), StoreError> {
        let (a, b) = (self.statement(first.0)?, self.statement(second.0)?);
        let (a, b) = self.run(futures::future::join(
            self.client.query(&a, first.1),
            self.client.query(&b, second.1),
        ))?;
        Ok((self.checked(a)?, self.checked(b)?))
    }

    /// Runs `sql` once per parameter list, every execution sent before any answer is read: one
    /// round trip for all (module docs). The first error, if any; PostgreSQL then refuses the
    /// statements after it, the transaction having failed.
    pub fn execute_each(&self, sql: &str, each: &[Vec<&(dyn ToSql + Sync)>]) -> Result<(), StoreError> {
        let statement = self.statement(sql)?;
        let done = self.run(self.executions(each.iter().map(|params| (&statement, params.as_slice()))))?;
        self.checked_all(done)
    }

    /// Runs each of `statements` in order, then the fixed statements `then` (a `COMMIT`), in one
    /// round trip (module docs): the first error, if any. PostgreSQL refuses the statements after
    /// a failed one and answers the `COMMIT` with a rollback.
    pub fn execute_all(&self, statements: &[(&str, &Params<'_>)], then: &str) -> Result<(), StoreError> {
        let prepared = self.prepared(statements.iter().map(|(sql, _)| *sql))?;
        let executions = self.executions(prepared.iter().zip(statements.iter().map(|(_, params)| *params)));
        let (done, then_done) = self.run(futures::future::join(executions, self.client.batch_execute(then)))?;
        self.checked_all(done)?;
        self.checked(then_done)
    }

    /// `execute` that leaves the driver's error to the caller (to read its SQLSTATE). Outside
    /// transactions that queue statements: it would send before them.
    pub fn execute_raw(&self, sql: &str, params: &Params<'_>) -> Result<u64, tokio_postgres::Error> {
        debug_assert_eq!(self.queued(), 0, "execute_raw would overtake queued statements");
        self.checked_raw(block_on(self.client.execute(sql, params)))
    }

    /// Fixed SQL, no parameters, possibly several statements.
    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        self.answer(self.client.batch_execute(sql))
    }

    /// Rolls back whatever is open, dropping what is queued.
    pub fn rollback(&self) -> Result<(), StoreError> {
        self.queued.borrow_mut().clear();
        self.batch("ROLLBACK")
    }

    /// Sends fixed SQL without waiting for the answer (the driver sends a request when its
    /// future is first polled, and drops the answer of a future dropped), dropping what is
    /// queued: whether it was sent.
    pub fn send_batch(&self, sql: &str) -> bool {
        self.queued.borrow_mut().clear();
        !matches!(self.client.batch_execute(sql).now_or_never(), Some(Err(_)))
    }

    /// Fails the transaction on the client's word, as a failed statement would: `error` is
    /// returned, and so is an error by the commit.
    pub fn refuse(&self, error: StoreError) -> StoreError {
        self.failed.set(true);
        error
    }

    /// Starts a transaction with `sql` (a `BEGIN ...`).
    pub fn begin(&self, sql: &str) -> Result<(), StoreError> {
        self.failed.set(false);
        self.queued.borrow_mut().clear();
        self.batch(sql)
    }
}

/// Reads a column, as an error (never a panic) when its type is not the one expected.
pub(super) fn get<'a, T: tokio_postgres::types::FromSql<'a>>(row: &'a Row, index: usize) -> Result<T, StoreError> {
    row.try_get(index).map_err(database_error)
}
