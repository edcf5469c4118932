//! Store-level tests every store passes. Each case is a function over a [`Fixture`] that opens
//! stores of one kind; each store's tests instantiate them all with [`store_cases!`].

pub(crate) mod changes;
pub(crate) mod durability;
pub(crate) mod erase;
pub(crate) mod links;
pub(crate) mod sources;
pub(crate) mod superseded;
pub(crate) mod users;
pub(crate) mod value_keys;

use std::sync::Arc;

use crate::clock::{Clock, FixedClock};
use crate::store::{Link, LinkPattern, LinkStore, NewLink, Order, Perspective, SourceQuery, UserStore};

pub(crate) const P: &str = "perspective-1";
pub(crate) const T0: i64 = 1_798_106_400_000_000;

/// A store as the cases use it: links, accounts, and raw SQL to tamper with.
pub(crate) trait TestStore: LinkStore + UserStore {
    /// Runs fixed SQL on the store's database, outside any transaction.
    fn execute_sql(&self, sql: &str);
    /// The one number fixed SQL answers (a `COUNT(*)`).
    fn count_sql(&self, sql: &str) -> i64;
}

/// Opens stores of one kind.
pub(crate) trait Fixture {
    /// A fresh, empty store.
    fn open(&self, clock: Arc<dyn Clock>) -> Box<dyn TestStore>;
    /// The lasting store `name` of this fixture: created on first use, opened again after.
    fn open_named(&self, name: &str, clock: Arc<dyn Clock>) -> Box<dyn TestStore>;
    /// A blob literal in the store's SQL.
    fn blob_literal(&self, bytes: &[u8]) -> String;
    /// Whether text may hold U+0000 (PostgreSQL's cannot).
    fn text_holds_nul(&self) -> bool;
    /// SQL that takes a store back to the schema version before `links.superseded`.
    fn downgrade_before_superseded_sql(&self) -> String;
    /// SQL that takes a store back to the schema version before `links.value_key`.
    fn downgrade_before_value_keys_sql(&self) -> String;
    /// SQL that takes a store back to the schema version before the change log.
    fn downgrade_before_changes_sql(&self) -> String;
    /// SQL that takes a store back to the schema version before language-tagged strings were
    /// keyed by their text, giving the links of `target` the key they had then.
    fn downgrade_before_lang_keys_sql(&self, target: &str, old_key: &str) -> String;
}

/// Instantiates every shared case as a `#[test]` over `$fixture`, an expression giving an
/// `Option` of a [`Fixture`] (`None` skips, e.g. when no database is configured).
macro_rules! store_cases {
    ($fixture:expr) => {
        $crate::store::tests::store_cases!(@cases $fixture;
            changes::every_commit_logs_its_sources_in_order,
            changes::a_cursor_taken_during_a_write_misses_nothing,
            changes::an_erasure_keeps_only_that_a_source_is_gone,
            changes::a_database_from_before_the_change_log_migrates,
            durability::a_lasting_store_survives_reopening_and_verifies,
            durability::tampering_is_reported,
            durability::two_hundred_concurrent_writers_all_land,
            erase::erasing_links_redacts_their_transactions,
            erase::erasing_a_perspective_leaves_the_others_verified,
            erase::an_erasure_that_writes_links_is_refused,
            links::writes_and_reads_links,
            links::orders_by_timestamp_then_seq_and_pages,
            links::a_dropped_write_writes_nothing,
            links::a_write_with_no_links_signs_nothing,
            links::models_keep_their_registration_order,
            links::injection_looking_values_are_plain_values,
            links::a_panicking_writer_rolls_back,
            sources::removal_maintains_the_sources_index,
            sources::sources_match_all_of_any_of_and_child_of,
            sources::duplicate_links_give_one_source_and_seqs_are_never_reused,
            sources::long_values_are_found,
            superseded::the_flag_follows_every_write,
            superseded::a_database_from_before_the_flag_flags_its_superseded_links,
            users::users_keys_and_codes,
            users::a_users_links_are_signed_with_their_key,
            value_keys::keys_find_every_spelling,
            value_keys::a_database_from_before_value_keys_migrates,
            value_keys::a_database_from_before_lang_keys_migrates,
        );
    };
    (@cases $fixture:expr; $($module:ident :: $case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                if let Some(fixture) = $fixture {
                    $crate::store::tests::$module::$case(&fixture);
                }
            }
        )*
    };
}
pub(crate) use store_cases;

pub(crate) fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock::new(T0))
}

pub(crate) fn perspective(uuid: &str) -> Perspective {
    Perspective {
        uuid: uuid.into(),
        name: format!("{uuid} name"),
        owner: "did:key:owner".into(),
        neighbourhood: None,
    }
}

pub(crate) fn new_link(source: &str, predicate: &str, target: &str) -> NewLink {
    NewLink {
        source: source.into(),
        predicate: predicate.into(),
        target: target.into(),
        local: false,
    }
}

/// Adds the perspective `P` and the links, in one transaction.
pub(crate) fn seed(store: &dyn TestStore, links: &[(&str, &str, &str)]) {
    let mut tx = store.write().unwrap();
    if tx.perspective(P).unwrap().is_none() {
        tx.add_perspective(&perspective(P)).unwrap();
    }
    for (s, p, t) in links {
        tx.add_link(P, new_link(s, p, t)).unwrap();
    }
    tx.commit().unwrap();
}

pub(crate) fn add(store: &dyn TestStore, links: &[(&str, &str, &str)]) {
    let mut tx = store.write().unwrap();
    for (s, p, t) in links {
        tx.add_link(P, new_link(s, p, t)).unwrap();
    }
    tx.commit().unwrap();
}

pub(crate) fn triples(links: &[Link]) -> Vec<(&str, &str, &str)> {
    links
        .iter()
        .map(|l| (l.source.as_str(), l.predicate.as_str(), l.target.as_str()))
        .collect()
}

pub(crate) fn all_links(store: &dyn TestStore) -> Vec<Link> {
    store.read().unwrap().links(P, LinkPattern::default(), None, 0).unwrap()
}

pub(crate) fn all_sources(store: &dyn TestStore, order: Order) -> Vec<String> {
    store
        .read()
        .unwrap()
        .sources(P, &SourceQuery::default(), order)
        .unwrap()
}
