//! The reads, over any connection: a read snapshot or the writer inside its transaction.
//!
//! Every value from a caller is a bound parameter; only fixed SQL text is ever spliced.

use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension, Row};

use crate::store::{Link, LinkPattern, Order, Perspective, SourceQuery, StoreError, StoredModel};

/// The predicate of the parent edge that `SourceQuery::child_of` follows.
pub const HAS_CHILD: &str = "ad4m://has_child";

/// The row id of a perspective, or [`StoreError::NoPerspective`].
pub(super) fn perspective_id(conn: &Connection, uuid: &str) -> Result<i64, StoreError> {
    conn.prepare("SELECT id FROM perspectives WHERE uuid = ?1")?
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
    let mut stmt = conn.prepare("SELECT uuid, name, owner, neighbourhood FROM perspectives ORDER BY id")?;
    let rows = stmt.query_map([], perspective_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn perspective(conn: &Connection, uuid: &str) -> Result<Option<Perspective>, StoreError> {
    let mut stmt = conn.prepare("SELECT uuid, name, owner, neighbourhood FROM perspectives WHERE uuid = ?1")?;
    Ok(stmt.query_row([uuid], perspective_row).optional()?)
}

/// `perspective = ?1` and one `column = ?n` per given part of the pattern, with its parameters
/// after `perspective`.
pub(super) fn pattern_clause<'p>(perspective: &'p i64, pattern: &'p LinkPattern<'_>) -> (String, Vec<&'p dyn ToSql>) {
    let mut clause = String::from("perspective = ?1");
    let mut params: Vec<&dyn ToSql> = vec![perspective];
    for (column, value) in [
        ("source", &pattern.source),
        ("predicate", &pattern.predicate),
        ("target", &pattern.target),
    ] {
        if let Some(value) = value {
            params.push(value);
            clause.push_str(&format!(" AND {column} = ?{}", params.len()));
        }
    }
    (clause, params)
}

pub(super) fn links(
    conn: &Connection,
    perspective: &str,
    pattern: LinkPattern<'_>,
    limit: Option<u64>,
    offset: u64,
) -> Result<Vec<Link>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let (clause, mut params) = pattern_clause(&id, &pattern);
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
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(&*params, |row| {
        Ok(Link {
            source: row.get(0)?,
            predicate: row.get(1)?,
            target: row.get(2)?,
            author: row.get(3)?,
            timestamp: row.get(4)?,
            seq: row.get(5)?,
            local: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn count_links(conn: &Connection, perspective: &str, pattern: LinkPattern<'_>) -> Result<u64, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let (clause, params) = pattern_clause(&id, &pattern);
    let count: i64 = conn
        .prepare(&format!("SELECT COUNT(*) FROM links WHERE {clause}"))?
        .query_row(&*params, |row| row.get(0))?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// The SQL of [`sources`] and its parameters after `?1` (the perspective's row id); `None` when
/// an empty `any_of` group makes the answer empty.
pub(super) fn sources_sql(query: &SourceQuery, order: Order) -> Option<(String, Vec<&dyn ToSql>)> {
    let mut params: Vec<&dyn ToSql> = Vec::new();
    let mut sets = Vec::new();
    for (predicate, target) in &query.all_of {
        sets.push(sources_with_link(params.len()));
        params.push(predicate);
        params.push(target);
    }
    for group in &query.any_of {
        if group.is_empty() {
            return None;
        }
        let mut alternatives = Vec::with_capacity(group.len());
        for (predicate, target) in group {
            alternatives.push(sources_with_link(params.len()));
            params.push(predicate);
            params.push(target);
        }
        sets.push(format!("SELECT node FROM ({})", alternatives.join(" UNION ")));
    }
    if let Some(parent) = &query.child_of {
        let n = params.len() + 2;
        sets.push(format!(
            "SELECT DISTINCT target AS node FROM links WHERE perspective = ?1 AND source = ?{n} AND predicate = ?{}",
            n + 1
        ));
        params.push(parent);
        params.push(&HAS_CHILD);
    }
    let direction = match order {
        Order::OldestFirst => "ASC",
        Order::NewestFirst => "DESC",
    };
    let sql = if sets.is_empty() {
        format!(
            "SELECT source FROM sources WHERE perspective = ?1 ORDER BY first_ts {direction}, first_seq {direction}"
        )
    } else {
        // CROSS JOIN keeps the matches as the outer loop: a primary-key probe per match, then a
        // sort of the matches, rather than a walk over every source of the perspective.
        format!(
            "SELECT s.source FROM ({}) AS m CROSS JOIN sources AS s ON s.perspective = ?1 AND s.source = m.node \
             ORDER BY s.first_ts {direction}, s.first_seq {direction}",
            sets.join(" INTERSECT ")
        )
    };
    Some((sql, params))
}

/// Sources of a `(predicate, target)` link whose parameters follow the `pushed` ones (and ?1).
fn sources_with_link(pushed: usize) -> String {
    let n = pushed + 2;
    format!(
        "SELECT DISTINCT source AS node FROM links WHERE perspective = ?1 AND predicate = ?{n} AND target = ?{}",
        n + 1
    )
}

pub(super) fn sources(
    conn: &Connection,
    perspective: &str,
    query: &SourceQuery,
    order: Order,
) -> Result<Vec<String>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let Some((sql, mut params)) = sources_sql(query, order) else {
        return Ok(Vec::new());
    };
    params.insert(0, &id);
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(&*params, |row| row.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn first_link(conn: &Connection, perspective: &str, source: &str) -> Result<Option<(i64, i64)>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let mut stmt = conn.prepare("SELECT first_ts, first_seq FROM sources WHERE perspective = ?1 AND source = ?2")?;
    Ok(stmt
        .query_row((id, source), |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

pub(super) fn models(conn: &Connection, perspective: &str) -> Result<Vec<StoredModel>, StoreError> {
    let id = perspective_id(conn, perspective)?;
    let mut stmt =
        conn.prepare("SELECT class_name, shacl_json FROM models WHERE perspective = ?1 ORDER BY registered")?;
    let rows = stmt.query_map([id], |row| {
        Ok(StoredModel {
            class_name: row.get(0)?,
            shacl_json: row.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
