//! The checks of [`LinkStore::verify`](crate::store::LinkStore::verify), shared by every store:
//! every transaction's signature (or the node's redaction of it after `forget`, see
//! [`redaction`](super::redaction)), and every surviving link against the hashes its transaction
//! signed. The stores read the rows; these functions judge them.

use std::collections::HashSet;

use super::redaction::{StoredTransaction, verify_signature};
use super::signing::{HASH_LEN, LinkFields, link_hash};
use super::{StoreError, VerifyReport};

/// Checks one transaction; `node` is the store's own DID, the only key whose redactions are
/// accepted.
pub(crate) fn check_transaction(node: &str, id: i64, tx: &StoredTransaction, report: &mut VerifyReport) {
    report.transactions += 1;
    if let Err(problem) = verify_signature(node, &tx.author, tx.timestamp, &tx.hashes, &tx.signature) {
        report.failures.push(format!("transaction {id}: {problem}"));
    } else if !tx.hashes.len().is_multiple_of(HASH_LEN) {
        report.failures.push(format!(
            "transaction {id}: its link hashes are not a whole number of hashes"
        ));
    }
}

/// A `links` row as stored, with its perspective's uuid (`None` when the perspective is gone).
pub(crate) struct StoredLink {
    pub seq: i64,
    pub perspective: Option<String>,
    pub source: String,
    pub predicate: String,
    pub target: String,
    pub author: String,
    pub timestamp: i64,
    pub local: bool,
    pub tx: Option<i64>,
    pub hash: Vec<u8>,
}

/// The transaction the links being checked belong to: its author and the hashes it signed.
struct Signed {
    id: i64,
    found: Option<(String, HashSet<Vec<u8>>)>,
}

/// Checks links one by one; fed in transaction order, it loads each transaction once.
#[derive(Default)]
pub(crate) struct LinkChecker {
    current: Option<Signed>,
}

impl LinkChecker {
    /// Checks `link`; `load` reads a transaction's author and `link_hashes` by id.
    pub fn check(
        &mut self,
        link: &StoredLink,
        report: &mut VerifyReport,
        load: impl FnOnce(i64) -> Result<Option<(String, Vec<u8>)>, StoreError>,
    ) -> Result<(), StoreError> {
        report.links += 1;
        let seq = link.seq;
        let Some(perspective) = &link.perspective else {
            report
                .failures
                .push(format!("link {seq}: its perspective does not exist"));
            return Ok(());
        };
        let Some(tx) = link.tx else {
            report
                .failures
                .push(format!("link {seq}: it belongs to no transaction"));
            return Ok(());
        };
        if self.current.as_ref().is_none_or(|signed| signed.id != tx) {
            let found =
                load(tx)?.map(|(author, hashes)| (author, hashes.chunks(HASH_LEN).map(<[u8]>::to_vec).collect()));
            self.current = Some(Signed { id: tx, found });
        }
        let Some((tx_author, signed)) = self.current.as_ref().and_then(|signed| signed.found.as_ref()) else {
            report
                .failures
                .push(format!("link {seq}: its transaction {tx} does not exist"));
            return Ok(());
        };
        let hash = link_hash(&LinkFields {
            perspective,
            source: &link.source,
            predicate: &link.predicate,
            target: &link.target,
            author: &link.author,
            timestamp: link.timestamp,
            seq,
            local: link.local,
        });
        if link.author != *tx_author {
            report
                .failures
                .push(format!("link {seq}: its author is not the author of transaction {tx}"));
        } else if hash[..] != link.hash[..] {
            report
                .failures
                .push(format!("link {seq}: its content does not match its stored hash"));
        } else if !signed.contains(&hash[..]) {
            report
                .failures
                .push(format!("link {seq}: transaction {tx} did not sign it"));
        }
        Ok(())
    }
}
