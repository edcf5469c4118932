//! Accounts: users, their keys, email codes, and links written as a user verifying against that
//! user's DID.

use super::*;
use crate::store::{AuthorKey, CodeCheck, NewUser};

pub(crate) fn new_user<'a>(email: &'a str, key: &'a AuthorKey) -> NewUser<'a> {
    NewUser {
        email,
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        key,
        verified: false,
        created: T0,
    }
}

pub(crate) fn users_keys_and_codes(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let key = AuthorKey::generate().unwrap();
    assert!(store.add_user(&new_user("ada@example.org", &key)).unwrap());
    let other = AuthorKey::generate().unwrap();
    assert!(
        !store.add_user(&new_user("ada@example.org", &other)).unwrap(),
        "an email is taken once"
    );
    let found = store.user_by_email("ada@example.org").unwrap().unwrap();
    assert_eq!((found.did.as_str(), found.verified), (key.did(), false));
    assert!(!format!("{found:?}").contains("argon2"), "Debug hides the hash");
    assert_eq!(store.user_by_did(key.did()).unwrap(), Some(found));
    assert_eq!(store.user_key(key.did()).unwrap().unwrap().did(), key.did());
    assert!(store.user_key(other.did()).unwrap().is_none());
    store.set_verified(key.did()).unwrap();
    assert!(store.user_by_email("ada@example.org").unwrap().unwrap().verified);

    let (email, purpose) = ("ada@example.org", "login");
    assert_eq!(
        store.check_code(email, purpose, b"mac", T0).unwrap(),
        CodeCheck::Missing
    );
    store.put_code(email, purpose, b"mac", T0 + 10, 2).unwrap();
    assert_eq!(
        store.check_code(email, purpose, b"bad", T0).unwrap(),
        CodeCheck::Wrong { attempts_left: 1 }
    );
    assert_eq!(
        store.check_code(email, "signup", b"mac", T0).unwrap(),
        CodeCheck::Missing
    );
    assert_eq!(
        store.check_code(email, purpose, b"mac", T0).unwrap(),
        CodeCheck::Accepted
    );
    assert_eq!(
        store.check_code(email, purpose, b"mac", T0).unwrap(),
        CodeCheck::Missing,
        "used up"
    );
    store.put_code(email, purpose, b"mac", T0 + 10, 1).unwrap();
    assert_eq!(
        store.check_code(email, purpose, b"bad", T0).unwrap(),
        CodeCheck::Wrong { attempts_left: 0 }
    );
    assert_eq!(
        store.check_code(email, purpose, b"mac", T0).unwrap(),
        CodeCheck::Missing,
        "no tries left"
    );
    store.put_code(email, purpose, b"mac", T0 + 10, 3).unwrap();
    assert_eq!(
        store.check_code(email, purpose, b"mac", T0 + 10).unwrap(),
        CodeCheck::Missing,
        "expired"
    );
}

pub(crate) fn a_users_links_are_signed_with_their_key(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let key = AuthorKey::generate().unwrap();
    seed(&*store, &[("a", "p", "b")]);
    let mut tx = store.write_as(&key).unwrap();
    let link = tx.add_link(P, new_link("c", "p", "d")).unwrap();
    tx.commit().unwrap();
    assert_eq!(link.author, key.did());
    let authors: Vec<String> = store
        .read()
        .unwrap()
        .links(P, LinkPattern::default(), None, 0)
        .unwrap()
        .into_iter()
        .map(|l| l.author)
        .collect();
    assert_eq!(authors, [store.did().to_string(), key.did().to_string()]);
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (2, 2));
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}
