//! The reads, over any connection: a read snapshot or a writer inside its transaction; and the
//! upkeep of the `sources` index after links go.
//!
//! A perspective is named by its row id here: a transaction looks its uuid up once ([`LOOKUP`])
//! and keeps the answer (see [`tx`](super::tx)).
//!
//! Every value from a caller is a bound parameter; only fixed SQL text is ever spliced.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::client::{PgClient, get};
use crate::store::source_sql::{self, Window};
use crate::store::sql::{self, POSTGRES};
use crate::store::{Link, LinkPattern, Order, Perspective, SourceQuery, StoreError, StoredModel};

/// A perspective's row id and row, by uuid: its columns as [`lookup_row`] reads them.
pub(super) const LOOKUP: &str = "SELECT id, uuid, name, owner, neighbourhood FROM perspectives WHERE uuid = $1";

/// A perspective's row id and row from a row of [`LOOKUP`].
pub(super) fn lookup_row(row: &Row) -> Result<(i64, Perspective), StoreError> {
    Ok((get(row, 0)?, perspective_row(row, 1)?))
}

/// [`LOOKUP`]: the perspective's row id and row, if it exists.
pub(super) fn lookup(conn: &PgClient, uuid: &str) -> Result<Option<(i64, Perspective)>, StoreError> {
    conn.query_opt(LOOKUP, &[&uuid])?
        .map(|row| lookup_row(&row))
        .transpose()
}

/// A perspective from the columns `uuid, name, owner, neighbourhood`, starting at `first`.
pub(super) fn perspective_row(row: &Row, first: usize) -> Result<Perspective, StoreError> {
    Ok(Perspective {
        uuid: get(row, first)?,
        name: get(row, first + 1)?,
        owner: get(row, first + 2)?,
        neighbourhood: get(row, first + 3)?,
    })
}

pub(super) fn perspectives(conn: &PgClient) -> Result<Vec<Perspective>, StoreError> {
    conn.query(
        "SELECT uuid, name, owner, neighbourhood FROM perspectives ORDER BY id",
        &[],
    )?
    .iter()
    .map(|row| perspective_row(row, 0))
    .collect()
}

/// The perspective's row id, then `values`: the parameters of a built statement.
pub(super) fn with_perspective<'a>(perspective: &'a i64, values: &'a [&'a str]) -> Vec<&'a (dyn ToSql + Sync)> {
    let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(values.len() + 1);
    params.push(perspective);
    params.extend(values.iter().map(|value| value as &(dyn ToSql + Sync)));
    params
}

pub(super) fn links(
    conn: &PgClient,
    id: i64,
    pattern: LinkPattern<'_>,
    limit: Option<u64>,
    offset: u64,
) -> Result<Vec<Link>, StoreError> {
    let (clause, values) = sql::pattern_clause(&pattern, POSTGRES);
    let mut params = with_perspective(&id, &values);
    // PostgreSQL: LIMIT NULL means no limit.
    let limit = limit.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
    let offset = i64::try_from(offset).unwrap_or(i64::MAX);
    params.push(&limit);
    params.push(&offset);
    let sql = format!(
        "SELECT source, predicate, target, author, timestamp, id, local FROM links WHERE {clause} \
         ORDER BY timestamp, id LIMIT ${} OFFSET ${}",
        params.len() - 1,
        params.len()
    );
    conn.query(&sql, &params)?.iter().map(link_row).collect()
}

pub(super) fn count_links(conn: &PgClient, id: i64, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
    let (clause, values) = sql::pattern_clause(&pattern, POSTGRES);
    let row = conn.query_one(
        &format!("SELECT COUNT(*) FROM links WHERE {clause}"),
        &with_perspective(&id, &values),
    )?;
    Ok(u64::try_from(get::<i64>(&row, 0)?).unwrap_or(0))
}

/// The sources of `query`, driven from its smallest set ([`source_sql`]).
pub(super) fn sources(conn: &PgClient, id: i64, query: &SourceQuery, order: Order) -> Result<Vec<String>, StoreError> {
    let Some(sets) = source_sql::sets(query) else {
        return Ok(Vec::new());
    };
    let count = |set: &source_sql::Set<'_>, cap: u64| {
        let (sql, values) = source_sql::count_sql(set, cap, POSTGRES);
        count_planned(conn, id, &sql, &values)
    };
    let Some(driver) = source_sql::pick_driver(&sets, count)? else {
        return Ok(Vec::new());
    };
    let (sql, values) = source_sql::sources_sql(&sets, driver, order, POSTGRES);
    conn.query_planned(&sql, &id, &values)?
        .iter()
        .map(|row| get(row, 0))
        .collect()
}

/// The number a counting statement of `source_sql` answers, planned for its values
/// ([`PgClient::query_planned`]).
fn count_planned(conn: &PgClient, id: i64, sql: &str, values: &[&str]) -> Result<u64, StoreError> {
    let rows = conn.query_planned(sql, &id, values)?;
    let row = rows
        .first()
        .ok_or_else(|| StoreError::Database("a count answered no row".into()))?;
    Ok(u64::try_from(get::<i64>(row, 0)?).unwrap_or(0))
}

/// A page of [`sources`] and how many there are in all ([`source_sql::page`]), every statement
/// planned for its values.
pub(super) fn source_page(
    conn: &PgClient,
    id: i64,
    query: &SourceQuery,
    order: Order,
    offset: u64,
    limit: u64,
) -> Result<(Vec<String>, u64), StoreError> {
    let count = |sql: &str, values: &[&str]| count_planned(conn, id, sql, values);
    let rows = |sql: &str, values: &[&str], window: Window| -> Result<(Vec<String>, u64), StoreError> {
        let rows = conn.query_planned(sql, &id, values)?;
        let sources = rows
            .iter()
            .enumerate()
            .filter(|(i, _)| window.holds(*i))
            .map(|(_, row)| get(row, 0))
            .collect::<Result<_, _>>()?;
        Ok((sources, rows.len() as u64))
    };
    source_sql::page(query, order, (offset, limit), POSTGRES, count, rows)
}

/// The links out of `sources` (of `predicates` only, unless empty), [`sql::SOURCES_PER_READ`]
/// sources a statement, ordered by (timestamp, seq) within each source.
pub(super) fn links_from(
    conn: &PgClient,
    id: i64,
    sources: &[String],
    predicates: &[String],
) -> Result<Vec<Link>, StoreError> {
    let mut links = Vec::new();
    for chunk in sources.chunks(sql::SOURCES_PER_READ) {
        let (sql, values) = sql::links_from_sql(chunk, predicates, POSTGRES);
        for row in conn.query(&sql, &with_perspective(&id, &values))? {
            links.push(link_row(&row)?);
        }
    }
    Ok(links)
}

fn link_row(row: &Row) -> Result<Link, StoreError> {
    Ok(Link {
        source: get(row, 0)?,
        predicate: get(row, 1)?,
        target: get(row, 2)?,
        author: get(row, 3)?,
        timestamp: get(row, 4)?,
        seq: get(row, 5)?,
        local: get(row, 6)?,
    })
}

pub(super) fn first_link(conn: &PgClient, id: i64, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
    conn.query_opt(
        "SELECT first_ts, first_seq FROM sources WHERE perspective = $1 AND source = $2",
        &[&id, &source],
    )?
    .map(|row| Ok((get(&row, 0)?, get(&row, 1)?)))
    .transpose()
}

pub(super) fn models(conn: &PgClient, id: i64) -> Result<Vec<StoredModel>, StoreError> {
    conn.query(
        "SELECT class_name, shacl_json FROM models WHERE perspective = $1 ORDER BY registered",
        &[&id],
    )?
    .iter()
    .map(|row| {
        Ok(StoredModel {
            class_name: get(row, 0)?,
            shacl_json: get(row, 1)?,
        })
    })
    .collect()
}

/// Every perspective but `except` with links matching `pattern`, and how many: one statement,
/// one index lookup per perspective.
pub(super) fn count_links_elsewhere(
    conn: &PgClient,
    except: &str,
    pattern: LinkPattern<'_>,
) -> Result<Vec<(Perspective, u64)>, StoreError> {
    let (conditions, values) = sql::pattern_conditions(&pattern, POSTGRES, 2);
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&except];
    params.extend(values.iter().map(|value| value as &(dyn ToSql + Sync)));
    let sql = format!(
        "SELECT p.uuid, p.name, p.owner, p.neighbourhood, c.n FROM perspectives AS p \
         CROSS JOIN LATERAL (SELECT COUNT(*) AS n FROM links WHERE links.perspective = p.id{conditions}) AS c \
         WHERE p.uuid <> $1 AND c.n > 0 ORDER BY p.id"
    );
    conn.query(&sql, &params)?
        .iter()
        .map(|row| {
            Ok((
                perspective_row(row, 0)?,
                u64::try_from(get::<i64>(row, 4)?).unwrap_or(0),
            ))
        })
        .collect()
}

/// Sets the `sources` rows of `sources` from their remaining links, deleting those left with
/// none, in one statement; returns how many were deleted.
pub(super) fn refresh_sources(conn: &PgClient, perspective: i64, sources: &[&str]) -> Result<u64, StoreError> {
    if sources.is_empty() {
        return Ok(0);
    }
    let row = conn.query_one(
        "WITH firsts AS (\
             SELECT DISTINCT ON (source) source, timestamp, id FROM links \
             WHERE perspective = $1 AND source = ANY($2) ORDER BY source, timestamp, id), \
         updated AS (\
             UPDATE sources SET first_ts = firsts.timestamp, first_seq = firsts.id FROM firsts \
             WHERE sources.perspective = $1 AND sources.source = firsts.source), \
         deleted AS (\
             DELETE FROM sources WHERE perspective = $1 AND source = ANY($2) \
             AND NOT EXISTS (SELECT 1 FROM firsts WHERE firsts.source = sources.source) RETURNING 1) \
         SELECT COUNT(*) FROM deleted",
        &[&perspective, &sources],
    )?;
    Ok(u64::try_from(get::<i64>(&row, 0)?).unwrap_or(0))
}
