//! Accounts of multi-user mode: users (email, password hash, their own author key) and the
//! one-time codes of email verification. Beside the link store, not part of it: a store that
//! serves single-user mode only need not implement it.

use subtle::ConstantTimeEq;

use super::{AuthorKey, StoreError};

/// A user to create.
pub struct NewUser<'a> {
    pub email: &'a str,
    /// A PHC string (argon2id).
    pub password_hash: &'a str,
    /// The user's own key: the author of the links they write; its DID is theirs.
    pub key: &'a AuthorKey,
    /// `false` while email verification is pending.
    pub verified: bool,
    /// Microseconds since the Unix epoch.
    pub created: i64,
}

/// A stored user (without the key: [`UserStore::user_key`]).
#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub did: String,
    pub email: String,
    pub password_hash: String,
    pub verified: bool,
}

impl std::fmt::Debug for UserRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password hash.
        f.debug_struct("UserRecord")
            .field("did", &self.did)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

/// What [`UserStore::check_code`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeCheck {
    /// The code matched; it is used up.
    Accepted,
    /// It did not match; `attempts_left` more tries (the code is gone at 0).
    Wrong { attempts_left: u32 },
    /// No code is pending: none was sent, it expired, or it was used up.
    Missing,
}

pub trait UserStore: Send + Sync {
    /// Creates a user; `false` (and nothing written) when the email is taken.
    fn add_user(&self, user: &NewUser<'_>) -> Result<bool, StoreError>;
    /// The user with this (normalised) email.
    fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError>;
    /// The user with this DID.
    fn user_by_did(&self, did: &str) -> Result<Option<UserRecord>, StoreError>;
    /// The signing key of the user with this DID.
    fn user_key(&self, did: &str) -> Result<Option<AuthorKey>, StoreError>;
    fn set_verified(&self, did: &str) -> Result<(), StoreError>;
    /// Keeps a code for `(email, purpose)`, replacing one pending: `mac` is a keyed hash of the
    /// code (never the code itself), good until `expires` (microseconds) for `attempts` tries.
    fn put_code(&self, email: &str, purpose: &str, mac: &[u8], expires: i64, attempts: u32) -> Result<(), StoreError>;
    /// Checks a code's `mac` (in constant time): a match uses it up, a miss costs one attempt,
    /// an expired code is dropped. One transaction.
    fn check_code(&self, email: &str, purpose: &str, mac: &[u8], now: i64) -> Result<CodeCheck, StoreError>;
}

/// What a store does with a pending code after [`judge_code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeUpdate {
    Keep,
    Delete,
    SetAttemptsLeft(u32),
}

/// The rule of [`UserStore::check_code`] over the pending code (`code_mac`, `expires`,
/// `attempts_left`), if any: the answer, and what becomes of the code. The store runs both in
/// one transaction.
pub(crate) fn judge_code(pending: Option<(&[u8], i64, u32)>, mac: &[u8], now: i64) -> (CodeCheck, CodeUpdate) {
    let Some((stored, expires, attempts_left)) = pending else {
        return (CodeCheck::Missing, CodeUpdate::Keep);
    };
    if expires <= now || attempts_left == 0 {
        return (CodeCheck::Missing, CodeUpdate::Delete);
    }
    if bool::from(stored.ct_eq(mac)) {
        return (CodeCheck::Accepted, CodeUpdate::Delete);
    }
    let attempts_left = attempts_left - 1;
    let update = if attempts_left == 0 {
        CodeUpdate::Delete
    } else {
        CodeUpdate::SetAttemptsLeft(attempts_left)
    };
    (CodeCheck::Wrong { attempts_left }, update)
}

/// A user's key from its stored secret, checked against the DID it is stored under.
pub(crate) fn stored_user_key(did: &str, secret: &[u8]) -> Result<AuthorKey, StoreError> {
    let key = AuthorKey::from_stored(secret, "a user's key")?;
    if key.did() != did {
        return Err(StoreError::Database("a user's key does not match their DID".into()));
    }
    Ok(key)
}

/// Timed events by key, kept where every node sees them (the PostgreSQL store): what multi-user
/// mode's rate limits count when several nodes share one database. Times are microseconds since
/// the Unix epoch. The store keeps the events; what they mean is the accounts' business.
pub trait EventLog: Send + Sync {
    fn record_event(&self, key: &str, at: i64) -> Result<(), StoreError>;
    /// The times of `key`'s events at or after `since`, oldest first.
    fn events_since(&self, key: &str, since: i64) -> Result<Vec<i64>, StoreError>;
    fn clear_events(&self, key: &str) -> Result<(), StoreError>;
}
