//! The reads, over any connection: a read snapshot or the writer inside its transaction.
//!
//! Every value from a caller is a bound parameter; only fixed SQL text is ever spliced.

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Row};

use crate::store::source_sql::{self, Window};
use crate::store::sql::{self, SQLITE};
use crate::store::{Link, LinkPattern, Order, Perspective, SourceQuery, StoreError, StoredModel};

/// The row id of a perspective, or [`StoreError::NoPerspective`].
pub(super) fn perspective_id(conn: &Connection, uuid: &str) -> Result<i64, StoreError> {
    conn.prepare_cached("SELECT id FROM perspectives WHERE uuid = ?1")?
        .query_row([uuid], |row| row.get(0))
        .optional()?
        .ok_or_else(|| StoreError::NoPerspective(uuid.to_string()))
}

fn perspective_row(row: &Row<'_>) -> rusqlite::Result<Perspective> {
    Ok(Perspective {
        uuid: row.get(0)?,
        name: row.get(1)?,
        owner: row.get(2)?,
        neighbourhood: row.get(3)?,
    })
}

pub(super) fn perspectives(conn: &Connection) -> Result<Vec<Perspective>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT uuid, name, owner, neighbourhood FROM perspectives ORDER BY id")?;
    let rows = stmt.query_map([], perspective_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn perspective(conn: &Connection, uuid: &str) -> Result<Option<Perspective>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT uuid, name, owner, neighbourhood FROM perspectives WHERE uuid = ?1")?;
    Ok(stmt.query_row([uuid], perspective_row).optional()?)
}

/// `perspective = ?1` and one `column = ?n` per given part of the pattern
/// ([`sql::pattern_clause`]), with its text values.
pub(super) fn pattern_clause<'p>(pattern: &LinkPattern<'p>) -> (String, Vec<&'p str>) {
    sql::pattern_clause(pattern, SQLITE)
}

/// Removes the links `clause` ([`pattern_clause`]) matches and returns the source and predicate
/// of each (the source as
/// PostgreSQL's store does: one statement, planned as the `DELETE` it is. Read first with
/// `SELECT DISTINCT source`, a removal by target alone (instance_remove's links into the
/// instance) walked `links_source_predicate` over the whole perspective, which covers `source`,
/// rather than seek `links_target`: 19 ms at 300,000 links against 0.3 ms.
pub(super) fn remove_links_sql(clause: &str) -> String {
    format!("DELETE FROM links WHERE {clause} RETURNING source, predicate")
}

/// The perspective's row id, then `values`: the parameters of a built statement.
pub(super) fn with_perspective<'a>(perspective: &'a i64, values: &'a [&'a str]) -> Vec<&'a dyn ToSql> {
    let mut params: Vec<&dyn ToSql> = Vec::with_capacity(values.len() + 1);
    params.push(perspective);
    params.extend(values.iter().map(|value| value as &dyn ToSql));
    params
}

pub(super) fn links(
    conn: &Connection,
    perspective: &str,
    pattern: LinkPattern<'_>,
    limit: Option<u64>,
    offset: u64,
) -> Result<Vec<Link>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let (clause, values) = pattern_clause(&pattern);
    let mut params = with_perspective(&id, &values);
    // SQLite: a negative LIMIT means no limit.
    let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
    let offset = i64::try_from(offset).unwrap_or(i64::MAX);
    params.push(&limit);
    params.push(&offset);
    let sql = format!(
        "SELECT source, predicate, target, author, timestamp, id, local FROM links WHERE {clause} \
         ORDER BY timestamp, id LIMIT ?{} OFFSET ?{}",
        params.len() - 1,
        params.len()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(&*params, link_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn count_links(conn: &Connection, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let (clause, values) = pattern_clause(&pattern);
    let params = with_perspective(&id, &values);
    let count: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM links WHERE {clause}"))?
        .query_row(&*params, |row| row.get(0))?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// The sources of `query`, driven from its smallest set ([`source_sql`]).
pub(super) fn sources(
    conn: &Connection,
    perspective: &str,
    query: &SourceQuery,
    order: Order,
) -> Result<Vec<String>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let Some(sets) = source_sql::sets(query) else {
        return Ok(Vec::new());
    };
    let count = |set: &source_sql::Set<'_>, cap: u64| -> Result<u64, StoreError> {
        let (sql, values) = source_sql::count_sql(set, cap, SQLITE);
        let params = with_perspective(&id, &values);
        let n: i64 = conn.prepare_cached(&sql)?.query_row(&*params, |row| row.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let Some(driver) = source_sql::pick_driver(&sets, count)? else {
        return Ok(Vec::new());
    };
    let (sql, values) = source_sql::sources_sql(&sets, driver, order, SQLITE);
    let params = with_perspective(&id, &values);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(&*params, |row| row.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A page of [`sources`] and how many there are in all ([`source_sql::page`]).
pub(super) fn source_page(
    conn: &Connection,
    perspective: &str,
    query: &SourceQuery,
    order: Order,
    offset: u64,
    limit: u64,
) -> Result<(Vec<String>, u64), StoreError> {
    let id = perspective_id(conn, perspective)?;
    let count = |sql: &str, values: &[&str]| -> Result<u64, StoreError> {
        let n: i64 = conn
            .prepare_cached(sql)?
            .query_row(&*with_perspective(&id, values), |row| row.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let rows = |sql: &str, values: &[&str], window: Window| -> Result<(Vec<String>, u64), StoreError> {
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query(&*with_perspective(&id, values))?;
        let (mut sources, mut read) = (Vec::new(), 0);
        while let Some(row) = rows.next()? {
            if window.holds(read) {
                sources.push(row.get(0)?);
            }
            read += 1;
        }
        Ok((sources, read as u64))
    };
    source_sql::page(query, order, (offset, limit), SQLITE, count, rows)
}

/// The links out of `sources` (of `predicates` only, unless empty), [`sql::SOURCES_PER_READ`]
/// sources a statement, ordered by (timestamp, seq) within each source.
pub(super) fn links_from(
    conn: &Connection,
    perspective: &str,
    sources: &[String],
    predicates: &[String],
) -> Result<Vec<Link>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let mut links = Vec::new();
    for chunk in sources.chunks(sql::SOURCES_PER_READ) {
        let (sql, values) = sql::links_from_sql(chunk, predicates, SQLITE);
        let params = with_perspective(&id, &values);
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(&*params, link_row)?;
        for link in rows {
            links.push(link?);
        }
    }
    Ok(links)
}

fn link_row(row: &Row<'_>) -> rusqlite::Result<Link> {
    Ok(Link {
        source: row.get(0)?,
        predicate: row.get(1)?,
        target: row.get(2)?,
        author: row.get(3)?,
        timestamp: row.get(4)?,
        seq: row.get(5)?,
        local: row.get(6)?,
    })
}

pub(super) fn first_link(conn: &Connection, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let mut stmt =
        conn.prepare_cached("SELECT first_ts, first_seq FROM sources WHERE perspective = ?1 AND source = ?2")?;
    Ok(stmt
        .query_row((id, source), |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

pub(super) fn models(conn: &Connection, perspective: &str) -> Result<Vec<StoredModel>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let mut stmt =
        conn.prepare_cached("SELECT class_name, shacl_json FROM models WHERE perspective = ?1 ORDER BY registered")?;
    let rows = stmt.query_map([id], |row| {
        Ok(StoredModel {
            class_name: row.get(0)?,
            shacl_json: row.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
