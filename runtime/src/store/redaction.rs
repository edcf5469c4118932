//! Redaction of signed hash lists when links are erased for good, shared by every store.
//!
//! A transaction signs the list of the hashes of the links it wrote (`link_hashes`). An erased
//! link must not survive even as its hash (a hash confirms a guess of the link's content), so the
//! hash leaves that list, and the author's signature over the old list can no longer be checked.
//! For every transaction an erasure touches ([`redact`]):
//! - a transaction no link refers to any more is deleted, signature and all;
//! - otherwise its list keeps exactly the hashes of its surviving links (hashes of links removed
//!   earlier, which may be earlier values of the erased record, go too), and its `signature`
//!   becomes a *redaction*: the node key signs `tag ‖ author ‖ timestamp ‖ redactor ‖ kept hashes`
//!   ([`redaction_message`]), stored as `REDACTION_MAGIC ‖ redactor did (length-prefixed) ‖
//!   signature`. The node signs only when the old signature (the author's, or an earlier redaction)
//!   verified, so a tampered list is never laundered: a transaction that failed before still fails.
//!
//! [`verify_signature`] accepts either form; a redaction only from this node's own key. The
//! surviving links of a redacted transaction are then attested by the node, no longer by their
//! author's own signature: that is the price of not keeping the erased hash. No tombstone is left
//! beyond the fact that a transaction was redacted.

use std::collections::{BTreeMap, HashSet};

use ed25519_dalek::{Signature, VerifyingKey};

use super::keys::public_key_from_did;
use super::signing::{HASH_LEN, verify_transaction};
use super::{AuthorKey, Erased};

/// How the `signature` column of a redacted transaction begins (an author's signature is exactly
/// 64 bytes, a redaction always longer).
const REDACTION_MAGIC: &[u8] = b"shacl-mcp/redacted/v1:";
const REDACTION_TAG: &[u8] = b"shacl-mcp/redaction/v1";

/// Hashes of the erased links, by the transaction that wrote them.
pub(crate) type ByTransaction = BTreeMap<i64, HashSet<Vec<u8>>>;

/// A `transactions` row as stored.
pub(crate) struct StoredTransaction {
    pub author: String,
    pub timestamp: i64,
    pub hashes: Vec<u8>,
    pub signature: Vec<u8>,
}

/// What becomes of one transaction an erasure touched.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Redacted {
    /// No link refers to it any more: delete the row.
    Delete,
    /// Its list held none of the hashes that go: leave it.
    Unchanged,
    /// Store this list and this signature column.
    Rewrite { hashes: Vec<u8>, signature: Vec<u8> },
}

/// Decides the fate of `tx`, some of whose links (`gone`) were just erased; `survivors` are the
/// hashes of its links still stored (`None` when none is). Counts into `erased`. The store runs
/// the outcome, after the links are gone.
pub(crate) fn redact(
    key: &AuthorKey,
    tx: StoredTransaction,
    gone: &HashSet<Vec<u8>>,
    survivors: Option<&HashSet<Vec<u8>>>,
    erased: &mut Erased,
) -> Redacted {
    let mut kept = Vec::with_capacity(tx.hashes.len());
    let mut removed = 0;
    for hash in tx.hashes.chunks(HASH_LEN) {
        if survivors.is_some_and(|links| links.contains(hash)) {
            kept.extend_from_slice(hash);
            continue;
        }
        removed += 1;
        if gone.contains(hash) {
            erased.hashes += 1;
        } else {
            erased.stale_hashes += 1;
        }
    }
    if survivors.is_none() {
        erased.transactions += 1;
        return Redacted::Delete;
    }
    if removed == 0 {
        return Redacted::Unchanged;
    }
    erased.transactions_redacted += 1;
    let signature = if verify_signature(key.did(), &tx.author, tx.timestamp, &tx.hashes, &tx.signature).is_ok() {
        redaction(key, &tx.author, tx.timestamp, &kept)
    } else {
        // It failed before and keeps failing: the node vouches for no list it could not check.
        tx.signature
    };
    Redacted::Rewrite {
        hashes: kept,
        signature,
    }
}

/// What a redaction signs: the tag, the author, the timestamp, the redactor, the kept hashes
/// (strings length-prefixed with a big-endian u64, the timestamp a big-endian i64).
fn redaction_message(author: &str, timestamp: i64, redactor: &str, hashes: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(REDACTION_TAG.len() + author.len() + redactor.len() + 32 + hashes.len());
    let put = |message: &mut Vec<u8>, part: &[u8]| {
        message.extend_from_slice(&(part.len() as u64).to_be_bytes());
        message.extend_from_slice(part);
    };
    put(&mut message, REDACTION_TAG);
    put(&mut message, author.as_bytes());
    message.extend_from_slice(&timestamp.to_be_bytes());
    put(&mut message, redactor.as_bytes());
    message.extend_from_slice(hashes);
    message
}

/// The `signature` column of a transaction redacted by `key`.
fn redaction(key: &AuthorKey, author: &str, timestamp: i64, hashes: &[u8]) -> Vec<u8> {
    let redactor = key.did();
    let signature = key.sign(&redaction_message(author, timestamp, redactor, hashes));
    let mut column = Vec::with_capacity(REDACTION_MAGIC.len() + 8 + redactor.len() + signature.len());
    column.extend_from_slice(REDACTION_MAGIC);
    column.extend_from_slice(&(redactor.len() as u64).to_be_bytes());
    column.extend_from_slice(redactor.as_bytes());
    column.extend_from_slice(&signature);
    column
}

/// The redactor and the signature of a redaction; `None` when `column` is not one.
fn parse_redaction(column: &[u8]) -> Option<(&str, &[u8])> {
    let rest = column.strip_prefix(REDACTION_MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_be_bytes(*len)).ok()?;
    if rest.len() < len {
        return None;
    }
    let (redactor, signature) = rest.split_at(len);
    Some((std::str::from_utf8(redactor).ok()?, signature))
}

/// Checks a transaction's `signature` column: the author's signature, or a redaction by the node
/// whose DID is `node`.
pub(crate) fn verify_signature(
    node: &str,
    author: &str,
    timestamp: i64,
    hashes: &[u8],
    column: &[u8],
) -> Result<(), &'static str> {
    if column.len() == 64 || !column.starts_with(REDACTION_MAGIC) {
        return verify_transaction(author, timestamp, hashes, column);
    }
    let (redactor, signature) = parse_redaction(column).ok_or("its redaction is malformed")?;
    if redactor != node {
        return Err("it was redacted by a key other than this node's");
    }
    let public = public_key_from_did(redactor).ok_or("its redactor is not an Ed25519 did:key")?;
    let key = VerifyingKey::from_bytes(&public).map_err(|_| "its redactor's key is not a valid Ed25519 key")?;
    let signature: [u8; 64] = signature
        .try_into()
        .map_err(|_| "its redaction's signature is not 64 bytes")?;
    key.verify_strict(
        &redaction_message(author, timestamp, redactor, hashes),
        &Signature::from_bytes(&signature),
    )
    .map_err(|_| "its redaction's signature does not verify")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::signing::transaction_message;

    #[test]
    fn redactions_verify_only_for_their_node_and_their_list() {
        let node = AuthorKey::generate().unwrap();
        let other = AuthorKey::generate().unwrap();
        let hashes = [9u8; 64];
        let column = redaction(&node, "did:key:author", 7, &hashes);
        assert_eq!(
            verify_signature(node.did(), "did:key:author", 7, &hashes, &column),
            Ok(())
        );
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes[..32], &column).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 8, &hashes, &column).is_err());
        assert!(verify_signature(node.did(), "did:key:someone", 7, &hashes, &column).is_err());
        assert_eq!(
            verify_signature(other.did(), "did:key:author", 7, &hashes, &column),
            Err("it was redacted by a key other than this node's")
        );
        let forged = redaction(&other, "did:key:author", 7, &hashes);
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, &forged).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, &column[..column.len() - 1]).is_err());
        assert!(verify_signature(node.did(), "did:key:author", 7, &hashes, REDACTION_MAGIC).is_err());
    }

    fn signed(author: &AuthorKey, hashes: &[[u8; HASH_LEN]]) -> StoredTransaction {
        let hashes = hashes.concat();
        let signature = author.sign(&transaction_message(author.did(), 5, &hashes)).to_vec();
        StoredTransaction {
            author: author.did().to_string(),
            timestamp: 5,
            hashes,
            signature,
        }
    }

    #[test]
    fn redact_keeps_survivors_drops_the_rest_and_counts() {
        let (node, author) = (AuthorKey::generate().unwrap(), AuthorKey::generate().unwrap());
        let (a, b, c) = ([1u8; HASH_LEN], [2u8; HASH_LEN], [3u8; HASH_LEN]);
        let set = |hashes: &[[u8; HASH_LEN]]| hashes.iter().map(|h| h.to_vec()).collect::<HashSet<_>>();
        let mut erased = Erased::default();
        // a erased, b removed earlier (stale), c survives.
        let outcome = redact(
            &node,
            signed(&author, &[a, b, c]),
            &set(&[a]),
            Some(&set(&[c])),
            &mut erased,
        );
        let Redacted::Rewrite { hashes, signature } = outcome else {
            panic!("expected a rewrite, got {outcome:?}")
        };
        assert_eq!(hashes, c);
        assert_eq!(
            verify_signature(node.did(), author.did(), 5, &hashes, &signature),
            Ok(())
        );
        assert_eq!(
            (erased.hashes, erased.stale_hashes, erased.transactions_redacted),
            (1, 1, 1)
        );

        let outcome = redact(&node, signed(&author, &[a, b]), &set(&[a]), None, &mut erased);
        assert_eq!(outcome, Redacted::Delete);
        assert_eq!((erased.hashes, erased.stale_hashes, erased.transactions), (2, 2, 1));

        let outcome = redact(&node, signed(&author, &[c]), &set(&[a]), Some(&set(&[c])), &mut erased);
        assert_eq!(outcome, Redacted::Unchanged);

        // A list that did not verify is not vouched for: its old signature stays.
        let mut tampered = signed(&author, &[a, c]);
        tampered.timestamp += 1;
        let old = tampered.signature.clone();
        let outcome = redact(&node, tampered, &set(&[a]), Some(&set(&[c])), &mut erased);
        assert_eq!(
            outcome,
            Redacted::Rewrite {
                hashes: c.to_vec(),
                signature: old
            }
        );
    }
}
