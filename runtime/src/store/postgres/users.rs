//! [`UserStore`] over the same database: the `users` and `email_codes` tables of schema
//! version 2. Each call is one statement, or one short transaction (`check_code`).
//!
//! Two nodes creating a user with the same email at once: the `UNIQUE` constraint decides, and
//! the one that loses gets `false`. A code is checked under `SELECT ... FOR UPDATE`, so two
//! nodes checking it at once take turns and each attempt counts.

use tokio_postgres::Row;

use super::PostgresStore;
use super::client::{PgClient, database_error, get, sql_state};
use crate::store::users::{CodeUpdate, judge_code, stored_user_key};
use crate::store::{AuthorKey, CodeCheck, NewUser, StoreError, UserRecord, UserStore};

/// SQLSTATE `unique_violation`.
const UNIQUE_VIOLATION: &str = "23505";

fn user_row(row: &Row) -> Result<UserRecord, StoreError> {
    Ok(UserRecord {
        did: get(row, 0)?,
        email: get(row, 1)?,
        password_hash: get(row, 2)?,
        verified: get(row, 3)?,
    })
}

impl PostgresStore {
    /// Runs `body` in a `READ COMMITTED` transaction; rolled back on error.
    fn in_transaction<T>(&self, body: impl FnOnce(&PgClient) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut conn = self.pool.begin("BEGIN ISOLATION LEVEL READ COMMITTED")?;
        match body(&conn).and_then(|value| conn.batch("COMMIT").map(|()| value)) {
            Ok(value) => Ok(value),
            Err(e) => {
                conn.end();
                Err(e)
            }
        }
    }

    fn user_where(&self, sql: &str, value: &str) -> Result<Option<UserRecord>, StoreError> {
        let conn = self.pool.take()?;
        conn.query_opt(sql, &[&value])?.map(|row| user_row(&row)).transpose()
    }
}

impl UserStore for PostgresStore {
    fn add_user(&self, user: &NewUser<'_>) -> Result<bool, StoreError> {
        let conn = self.pool.take()?;
        let added = conn.execute_raw(
            "INSERT INTO users (did, email, password_hash, secret_key, verified, created) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
            &[
                &user.key.did(),
                &user.email,
                &user.password_hash,
                &&user.key.secret()[..],
                &user.verified,
                &user.created,
            ],
        );
        match added {
            Ok(rows) => Ok(rows == 1),
            // ON CONFLICT already turns a race into 0 rows; should the server still report it, the
            // answer is the same.
            Err(e) if sql_state(&e) == Some(UNIQUE_VIOLATION) => Ok(false),
            Err(e) => Err(database_error(e)),
        }
    }

    fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where(
            "SELECT did, email, password_hash, verified FROM users WHERE email = $1",
            email,
        )
    }

    fn user_by_did(&self, did: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where(
            "SELECT did, email, password_hash, verified FROM users WHERE did = $1",
            did,
        )
    }

    fn user_key(&self, did: &str) -> Result<Option<AuthorKey>, StoreError> {
        let conn = self.pool.take()?;
        let secret: Option<Vec<u8>> = conn
            .query_opt("SELECT secret_key FROM users WHERE did = $1", &[&did])?
            .map(|row| get(&row, 0))
            .transpose()?;
        secret.map(|secret| stored_user_key(did, &secret)).transpose()
    }

    fn set_verified(&self, did: &str) -> Result<(), StoreError> {
        let conn = self.pool.take()?;
        conn.execute("UPDATE users SET verified = TRUE WHERE did = $1", &[&did])?;
        Ok(())
    }

    fn put_code(&self, email: &str, purpose: &str, mac: &[u8], expires: i64, attempts: u32) -> Result<(), StoreError> {
        let conn = self.pool.take()?;
        conn.execute(
            "INSERT INTO email_codes (email, purpose, code_mac, expires, attempts_left) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (email, purpose) DO UPDATE SET code_mac = excluded.code_mac, expires = excluded.expires, \
             attempts_left = excluded.attempts_left",
            &[&email, &purpose, &mac, &expires, &i64::from(attempts)],
        )?;
        Ok(())
    }

    fn check_code(&self, email: &str, purpose: &str, mac: &[u8], now: i64) -> Result<CodeCheck, StoreError> {
        self.in_transaction(|conn| {
            let pending: Option<(Vec<u8>, i64, u32)> = conn
                .query_opt(
                    "SELECT code_mac, expires, attempts_left FROM email_codes \
                     WHERE email = $1 AND purpose = $2 FOR UPDATE",
                    &[&email, &purpose],
                )?
                .map(|row| {
                    let left: i64 = get(&row, 2)?;
                    // A count out of range is no count left.
                    Ok::<_, StoreError>((get(&row, 0)?, get(&row, 1)?, u32::try_from(left).unwrap_or(0)))
                })
                .transpose()?;
            let pending = pending
                .as_ref()
                .map(|(stored, expires, left)| (&stored[..], *expires, *left));
            let (check, update) = judge_code(pending, mac, now);
            match update {
                CodeUpdate::Keep => {}
                CodeUpdate::Delete => {
                    conn.execute(
                        "DELETE FROM email_codes WHERE email = $1 AND purpose = $2",
                        &[&email, &purpose],
                    )?;
                }
                CodeUpdate::SetAttemptsLeft(left) => {
                    conn.execute(
                        "UPDATE email_codes SET attempts_left = $3 WHERE email = $1 AND purpose = $2",
                        &[&email, &purpose, &i64::from(left)],
                    )?;
                }
            }
            Ok(check)
        })
    }
}
