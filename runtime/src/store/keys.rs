//! Ed25519 keys of link authors and their `did:key` identifiers: the node's key and, in
//! multi-user mode, one key per user. A write transaction is signed by its author's key
//! ([`LinkStore::write`](super::LinkStore::write) for the node, [`LinkStore::write_as`](super::LinkStore::write_as)
//! for anyone else).

use std::fmt;

use ed25519_dalek::{Signer, SigningKey};

/// Multicodec prefix of an Ed25519 public key (varint 0xed).
const ED25519_MULTICODEC: [u8; 2] = [0xed, 0x01];
/// `did:key:` followed by the multibase prefix of base58btc.
const DID_KEY_PREFIX: &str = "did:key:z";

/// The `did:key` of an Ed25519 public key: `did:key:z` + base58btc(0xed 0x01 ‖ key).
pub fn did_key(public: &[u8; 32]) -> String {
    let mut bytes = Vec::with_capacity(ED25519_MULTICODEC.len() + public.len());
    bytes.extend_from_slice(&ED25519_MULTICODEC);
    bytes.extend_from_slice(public);
    format!("{DID_KEY_PREFIX}{}", bs58::encode(bytes).into_string())
}

/// The Ed25519 public key of a `did:key`; `None` when it is not an Ed25519 did:key.
pub fn public_key_from_did(did: &str) -> Option<[u8; 32]> {
    let encoded = did.strip_prefix(DID_KEY_PREFIX)?;
    let bytes = bs58::decode(encoded).into_vec().ok()?;
    bytes.strip_prefix(&ED25519_MULTICODEC[..])?.try_into().ok()
}

/// An author's signing key and its DID. Never printed: `Debug` shows the DID only.
pub struct AuthorKey {
    signing: SigningKey,
    did: String,
}

impl AuthorKey {
    pub fn from_secret(secret: &[u8; 32]) -> Self {
        let signing = SigningKey::from_bytes(secret);
        let did = did_key(signing.verifying_key().as_bytes());
        AuthorKey { signing, did }
    }

    /// A key from the 32 secret bytes a store kept; `what` names it in the error.
    pub(crate) fn from_stored(secret: &[u8], what: &str) -> Result<Self, super::StoreError> {
        let secret: [u8; 32] = secret
            .try_into()
            .map_err(|_| super::StoreError::Database(format!("{what} in the database is not 32 bytes")))?;
        Ok(Self::from_secret(&secret))
    }

    /// A fresh key from the operating system's randomness.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)?;
        Ok(Self::from_secret(&secret))
    }

    /// The secret key's 32 bytes, for the store to keep. The SQLite and PostgreSQL stores keep
    /// them unencrypted at rest (the node key in `meta`, users' keys in `users`): whoever can read
    /// the database can sign as any of them.
    pub fn secret(&self) -> [u8; 32] {
        self.signing.to_bytes()
    }

    pub fn did(&self) -> &str {
        &self.did
    }

    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.signing.sign(message).to_bytes()
    }
}

impl fmt::Debug for AuthorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthorKey")
            .field("did", &self.did)
            .finish_non_exhaustive()
    }
}
