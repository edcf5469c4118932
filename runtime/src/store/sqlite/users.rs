//! [`UserStore`] over the same database: the `users` and `email_codes` tables of schema
//! version 2. Writes go through the writer connection, one short transaction each.

use rusqlite::{Connection, OptionalExtension, Row};

use super::SqliteStore;
use super::conn::{begin, end};
use crate::store::users::{CodeUpdate, judge_code, stored_user_key};
use crate::store::{AuthorKey, CodeCheck, NewUser, StoreError, UserRecord, UserStore};

const USER_COLUMNS: &str = "did, email, password_hash, verified";

fn user_row(row: &Row<'_>) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        did: row.get(0)?,
        email: row.get(1)?,
        password_hash: row.get(2)?,
        verified: row.get(3)?,
    })
}

impl SqliteStore {
    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the writer; rolled back on error.
    fn in_write<T>(&self, body: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let conn = self.writer.lock()?;
        begin(&conn, "BEGIN IMMEDIATE")?;
        match body(&conn).and_then(|value| Ok(conn.execute_batch("COMMIT").map(|_| value)?)) {
            Ok(value) => {
                conn.committed();
                Ok(value)
            }
            Err(e) => {
                end(&conn);
                Err(e)
            }
        }
    }

    fn user_where(&self, column: &str, value: &str) -> Result<Option<UserRecord>, StoreError> {
        let tx = self.begin_read()?;
        let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE {column} = ?1");
        Ok(tx.conn().query_row(&sql, [value], user_row).optional()?)
    }
}

impl UserStore for SqliteStore {
    fn add_user(&self, user: &NewUser<'_>) -> Result<bool, StoreError> {
        self.in_write(|conn| {
            let added = conn.execute(
                "INSERT INTO users (did, email, password_hash, secret_key, verified, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
                (
                    user.key.did(),
                    user.email,
                    user.password_hash,
                    &user.key.secret()[..],
                    user.verified,
                    user.created,
                ),
            )?;
            Ok(added == 1)
        })
    }

    fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where("email", email)
    }

    fn user_by_did(&self, did: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where("did", did)
    }

    fn user_key(&self, did: &str) -> Result<Option<AuthorKey>, StoreError> {
        let tx = self.begin_read()?;
        let secret: Option<Vec<u8>> = tx
            .conn()
            .query_row("SELECT secret_key FROM users WHERE did = ?1", [did], |row| row.get(0))
            .optional()?;
        secret.map(|secret| stored_user_key(did, &secret)).transpose()
    }

    fn set_verified(&self, did: &str) -> Result<(), StoreError> {
        self.in_write(|conn| {
            conn.execute("UPDATE users SET verified = 1 WHERE did = ?1", [did])?;
            Ok(())
        })
    }

    fn put_code(&self, email: &str, purpose: &str, mac: &[u8], expires: i64, attempts: u32) -> Result<(), StoreError> {
        self.in_write(|conn| {
            conn.execute(
                "INSERT OR REPLACE INTO email_codes (email, purpose, code_mac, expires, attempts_left) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                (email, purpose, mac, expires, attempts),
            )?;
            Ok(())
        })
    }

    fn check_code(&self, email: &str, purpose: &str, mac: &[u8], now: i64) -> Result<CodeCheck, StoreError> {
        self.in_write(|conn| {
            let pending: Option<(Vec<u8>, i64, u32)> = conn
                .query_row(
                    "SELECT code_mac, expires, attempts_left FROM email_codes WHERE email = ?1 AND purpose = ?2",
                    (email, purpose),
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )
                .optional()?;
            let pending = pending
                .as_ref()
                .map(|(stored, expires, left)| (&stored[..], *expires, *left));
            let (check, update) = judge_code(pending, mac, now);
            match update {
                CodeUpdate::Keep => {}
                CodeUpdate::Delete => {
                    conn.execute(
                        "DELETE FROM email_codes WHERE email = ?1 AND purpose = ?2",
                        (email, purpose),
                    )?;
                }
                CodeUpdate::SetAttemptsLeft(attempts_left) => {
                    conn.execute(
                        "UPDATE email_codes SET attempts_left = ?3 WHERE email = ?1 AND purpose = ?2",
                        (email, purpose, attempts_left),
                    )?;
                }
            }
            Ok(check)
        })
    }
}
