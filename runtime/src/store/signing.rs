//! The signed encodings of links and transactions, shared by every store.
//!
//! A link's hash is the SHA-256 of its canonical encoding ([`link_hash`]); a transaction signs
//! `tag ‖ author ‖ timestamp ‖ link hashes` ([`transaction_message`]) with the author's Ed25519 key,
//! once, at commit ([`TransactionSigner`]).

use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::store::keys::public_key_from_did;
use crate::store::{AuthorKey, Link, NewLink};

const LINK_TAG: &[u8] = b"shacl-mcp/link/v1";
const TRANSACTION_TAG: &[u8] = b"shacl-mcp/transaction/v1";

/// Length of one link hash; a transaction's `link_hashes` is a concatenation of them.
pub const HASH_LEN: usize = 32;

/// The fields of a stored link that its hash covers.
#[derive(Clone, Copy)]
pub(crate) struct LinkFields<'a> {
    pub perspective: &'a str,
    pub source: &'a str,
    pub predicate: &'a str,
    pub target: &'a str,
    pub author: &'a str,
    pub timestamp: i64,
    pub seq: i64,
    pub local: bool,
}

/// SHA-256 of the canonical encoding: the tag, then perspective uuid, source, predicate, target
/// and author, each as a big-endian u64 byte length and its UTF-8 bytes, then timestamp and seq
/// as big-endian i64 and local as one byte (0 or 1).
pub(crate) fn link_hash(link: &LinkFields<'_>) -> [u8; HASH_LEN] {
    let mut hasher = Sha256::new();
    for part in [LINK_TAG, link.perspective.as_bytes()] {
        put(&mut hasher, part);
    }
    for part in [link.source, link.predicate, link.target, link.author] {
        put(&mut hasher, part.as_bytes());
    }
    hasher.update(link.timestamp.to_be_bytes());
    hasher.update(link.seq.to_be_bytes());
    hasher.update([u8::from(link.local)]);
    hasher.finalize().into()
}

fn put(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}

/// What a transaction's signature covers: the tag and the author (each length-prefixed as in
/// [`link_hash`]), the timestamp as big-endian i64, then the link hashes as stored.
pub(crate) fn transaction_message(author: &str, timestamp: i64, link_hashes: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(TRANSACTION_TAG.len() + author.len() + 24 + link_hashes.len());
    for part in [TRANSACTION_TAG, author.as_bytes()] {
        message.extend_from_slice(&(part.len() as u64).to_be_bytes());
        message.extend_from_slice(part);
    }
    message.extend_from_slice(&timestamp.to_be_bytes());
    message.extend_from_slice(link_hashes);
    message
}

/// Checks a transaction's signature against the key of its author's did:key.
pub(crate) fn verify_transaction(
    author: &str,
    timestamp: i64,
    link_hashes: &[u8],
    signature: &[u8],
) -> Result<(), &'static str> {
    let public = public_key_from_did(author).ok_or("its author is not an Ed25519 did:key")?;
    let key = VerifyingKey::from_bytes(&public).map_err(|_| "its author's key is not a valid Ed25519 key")?;
    let signature: [u8; 64] = signature.try_into().map_err(|_| "its signature is not 64 bytes")?;
    let message = transaction_message(author, timestamp, link_hashes);
    key.verify_strict(&message, &Signature::from_bytes(&signature))
        .map_err(|_| "its signature does not verify")
}

/// What a write transaction signs at commit: the hashes of the links it wrote, in order, under
/// its author and its timestamp (every link it writes carries that timestamp).
pub(crate) struct TransactionSigner<'a> {
    key: &'a AuthorKey,
    timestamp: i64,
    hashes: Vec<u8>,
}

impl<'a> TransactionSigner<'a> {
    pub fn new(key: &'a AuthorKey, timestamp: i64) -> Self {
        TransactionSigner {
            key,
            timestamp,
            hashes: Vec::new(),
        }
    }

    pub fn author(&self) -> &'a str {
        self.key.did()
    }

    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// The link as it will be stored with `seq`, and its hash; [`Self::signed`] adds the hash to
    /// the list once the row is written.
    pub fn prepare(&self, perspective: &str, link: NewLink, seq: i64) -> (Link, [u8; HASH_LEN]) {
        let author = self.author();
        let hash = link_hash(&LinkFields {
            perspective,
            source: &link.source,
            predicate: &link.predicate,
            target: &link.target,
            author,
            timestamp: self.timestamp,
            seq,
            local: link.local,
        });
        let link = Link {
            source: link.source,
            predicate: link.predicate,
            target: link.target,
            author: author.to_string(),
            timestamp: self.timestamp,
            seq,
            local: link.local,
        };
        (link, hash)
    }

    pub fn signed(&mut self, hash: &[u8; HASH_LEN]) {
        self.hashes.extend_from_slice(hash);
    }

    /// The list of hashes to store beside the signature.
    pub fn hashes(&self) -> &[u8] {
        &self.hashes
    }

    /// The author's signature over [`transaction_message`].
    pub fn sign(&self) -> [u8; 64] {
        debug_assert_eq!(self.hashes.len() % HASH_LEN, 0);
        self.key
            .sign(&transaction_message(self.author(), self.timestamp, &self.hashes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::keys::did_key;

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn did_key_matches_a_published_vector() {
        // did:key document of openwallet-foundation/acapy's DID tests: publicKeyBase58 and id.
        let public: [u8; 32] = bs58::decode("8HH5gYEeNc3z7PYXmd54d4x6qAfCNrqQqEB3nS7Zfu7K")
            .into_vec()
            .unwrap()
            .try_into()
            .unwrap();
        let did = did_key(&public);
        assert_eq!(did, "did:key:z6MkmjY8GnV5i9YTDtPETC2uUAW6ejw3nk5mXF5yci5ab7th");
        assert_eq!(public_key_from_did(&did), Some(public));
        assert!(did_key(&[0; 32]).starts_with("did:key:z6Mk"));
        assert_eq!(did_key(&[0xff; 32]).len(), 56);
    }

    #[test]
    fn rfc8032_test_1_key_and_signature() {
        let secret: [u8; 32] = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
            .try_into()
            .unwrap();
        let key = AuthorKey::from_secret(&secret);
        let public: [u8; 32] = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
            .try_into()
            .unwrap();
        assert_eq!(key.did(), did_key(&public));
        let expected = hex(concat!(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bac",
            "c61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ));
        assert_eq!(key.sign(b"").to_vec(), expected);
    }

    #[test]
    fn transactions_verify_and_tampering_is_seen() {
        let key = AuthorKey::generate().unwrap();
        let hashes = [7u8; 64];
        let signature = key.sign(&transaction_message(key.did(), 42, &hashes));
        assert_eq!(verify_transaction(key.did(), 42, &hashes, &signature), Ok(()));
        assert!(verify_transaction(key.did(), 43, &hashes, &signature).is_err());
        assert!(verify_transaction(key.did(), 42, &hashes[..32], &signature).is_err());
        assert!(verify_transaction(key.did(), 42, &hashes, &signature[..63]).is_err());
        assert!(verify_transaction("did:key:nope", 42, &hashes, &signature).is_err());
    }

    #[test]
    fn foreign_dids_decode_to_nothing() {
        for did in [
            "",
            "did:key:z",
            "did:key:z0OIl",
            "did:web:example.org",
            "did:key:z6LShLeXRTzevtwcfehaGEzCMyL3bNsAeKCwcqwJxyCo63yE",
        ] {
            assert_eq!(public_key_from_did(did), None, "{did}");
        }
    }

    #[test]
    fn a_signer_signs_the_hashes_of_the_links_it_recorded() {
        let key = AuthorKey::generate().unwrap();
        let mut signer = TransactionSigner::new(&key, 42);
        let new = NewLink {
            source: "s".into(),
            predicate: "p".into(),
            target: "t".into(),
            local: true,
        };
        let (link, hash) = signer.prepare("perspective", new, 7);
        assert_eq!((link.author.as_str(), link.timestamp, link.seq), (key.did(), 42, 7));
        let fields = LinkFields {
            perspective: "perspective",
            source: "s",
            predicate: "p",
            target: "t",
            author: key.did(),
            timestamp: 42,
            seq: 7,
            local: true,
        };
        assert_eq!(hash, link_hash(&fields));
        assert!(signer.hashes().is_empty(), "recorded only once written");
        signer.signed(&hash);
        assert_eq!(signer.hashes(), hash);
        assert_eq!(verify_transaction(key.did(), 42, &hash, &signer.sign()), Ok(()));
    }

    #[test]
    fn link_hash_separates_fields() {
        let base = LinkFields {
            perspective: "p",
            source: "ab",
            predicate: "c",
            target: "t",
            author: "a",
            timestamp: 1,
            seq: 1,
            local: false,
        };
        let shifted = LinkFields {
            source: "a",
            predicate: "bc",
            ..base
        };
        assert_ne!(link_hash(&base), link_hash(&shifted));
        assert_ne!(link_hash(&base), link_hash(&LinkFields { local: true, ..base }));
        assert_eq!(link_hash(&base), link_hash(&LinkFields { ..base }));
    }
}
