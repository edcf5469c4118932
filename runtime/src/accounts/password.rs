//! Password hashes: argon2id with the argon2 crate's defaults (19 MiB, 2 passes, 1 lane: the
//! OWASP recommendation), a random 16-byte salt, kept as a PHC string.

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// The shortest password signup accepts.
pub const MIN_PASSWORD_LEN: usize = 10;
/// The longest (hashing is costly enough without megabyte passwords).
pub const MAX_PASSWORD_LEN: usize = 1024;

/// The PHC string of `password` with a fresh salt.
pub fn hash(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| format!("no randomness for a salt: {e}"))?;
    hash_with_salt(password, &salt)
}

fn hash_with_salt(password: &str, salt: &[u8]) -> Result<String, String> {
    Argon2::default()
        .hash_password_with_salt(password.as_bytes(), salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// Whether `password` matches the PHC string `stored` (constant time inside argon2).
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// Spends the time of one [`verify`] for an email without an account, so that the answer's
/// timing does not tell which emails have one.
pub fn verify_nothing(password: &str) {
    static DUMMY: OnceLock<String> = OnceLock::new();
    let dummy = DUMMY
        .get_or_init(|| hash_with_salt("no account has this password", b"shacl-mcp-dummy-salt").unwrap_or_default());
    let _ = verify(password, dummy);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_differ() {
        let a = hash("correct horse battery").unwrap();
        let b = hash("correct horse battery").unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "a fresh salt each time");
        assert!(verify("correct horse battery", &a));
        assert!(!verify("correct horse batterx", &a));
        assert!(!verify("anything", "not a phc string"));
        verify_nothing("anything");
    }
}
