//! Writing and reading links, perspectives and models; transactions that end without commit.

use super::*;
use crate::store::{StoreError, StoredModel};

pub(crate) fn writes_and_reads_links(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let mut tx = store.write().unwrap();
    tx.add_perspective(&perspective(P)).unwrap();
    let written = tx
        .add_link(
            P,
            NewLink {
                local: true,
                ..new_link("ad4m://a", "todo://state", "literal:string:open")
            },
        )
        .unwrap();
    assert_eq!(written.author, store.did());
    assert_eq!(written.timestamp, T0);
    assert!(written.local);
    // A write transaction reads its own writes.
    assert_eq!(
        tx.links(P, LinkPattern::default(), None, 0).unwrap(),
        vec![written.clone()]
    );
    tx.commit().unwrap();

    let read = store.read().unwrap();
    assert_eq!(read.perspectives().unwrap(), vec![perspective(P)]);
    assert_eq!(read.perspective(P).unwrap(), Some(perspective(P)));
    assert_eq!(read.perspective("other").unwrap(), None);
    assert_eq!(
        read.links(P, LinkPattern::default(), None, 0).unwrap(),
        vec![written.clone()]
    );
    let pattern = LinkPattern {
        source: Some("ad4m://a"),
        predicate: Some("todo://state"),
        target: None,
    };
    assert_eq!(read.links(P, pattern, None, 0).unwrap(), vec![written]);
    assert_eq!(
        read.count_links(
            P,
            LinkPattern {
                target: Some("nope"),
                ..pattern
            }
        )
        .unwrap(),
        0
    );
    assert!(matches!(read.links("nope", pattern, None, 0), Err(StoreError::NoPerspective(p)) if p == "nope"));
    drop(read);

    let mut tx = store.write().unwrap();
    assert!(matches!(
        tx.add_link("nope", new_link("a", "b", "c")),
        Err(StoreError::NoPerspective(_))
    ));
    assert!(matches!(
        tx.add_perspective(&perspective(P)),
        Err(StoreError::Database(_))
    ));
}

pub(crate) fn orders_by_timestamp_then_seq_and_pages(fixture: &dyn Fixture) {
    let clock = clock();
    let store = fixture.open(clock.clone());
    let store = &*store;
    seed(store, &[("s", "p", "3"), ("s", "p", "1")]);
    add(store, &[("s", "p", "2")]);
    clock.advance(-5);
    // An earlier clock: this link sorts first although written last.
    add(store, &[("s", "p", "0")]);
    let read = store.read().unwrap();
    let links = read.links(P, LinkPattern::default(), None, 0).unwrap();
    assert_eq!(
        links.iter().map(|l| l.target.as_str()).collect::<Vec<_>>(),
        ["0", "3", "1", "2"]
    );
    assert!(links[1].seq < links[2].seq && links[2].seq < links[3].seq && links[0].seq > links[3].seq);
    assert_eq!(links[0].timestamp, T0 - 5);
    let page = read.links(P, LinkPattern::default(), Some(2), 1).unwrap();
    assert_eq!(page, links[1..3]);
    assert_eq!(read.links(P, LinkPattern::default(), Some(0), 0).unwrap(), []);
    assert_eq!(
        read.links(P, LinkPattern::default(), Some(u64::MAX), u64::MAX).unwrap(),
        []
    );
    assert_eq!(read.count_links(P, LinkPattern::default()).unwrap(), 4);
    assert_eq!(read.first_link(P, "s").unwrap(), Some((T0 - 5, links[0].seq)));
}

pub(crate) fn a_dropped_write_writes_nothing(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let store = &*store;
    seed(store, &[("a", "p", "x")]);
    {
        let mut tx = store.write().unwrap();
        tx.add_perspective(&perspective("second")).unwrap();
        tx.add_link(P, new_link("b", "p", "x")).unwrap();
        tx.remove_links(
            P,
            LinkPattern {
                source: Some("a"),
                ..Default::default()
            },
        )
        .unwrap();
        tx.put_model(
            P,
            &StoredModel {
                class_name: "C".into(),
                shacl_json: "{}".into(),
            },
        )
        .unwrap();
    }
    let read = store.read().unwrap();
    assert_eq!(read.perspectives().unwrap(), vec![perspective(P)]);
    assert_eq!(
        triples(&read.links(P, LinkPattern::default(), None, 0).unwrap()),
        [("a", "p", "x")]
    );
    assert_eq!(
        read.sources(P, &SourceQuery::default(), Order::OldestFirst).unwrap(),
        ["a"]
    );
    assert!(read.models(P).unwrap().is_empty());
    drop(read);
    assert_eq!(store.verify().unwrap().transactions, 1);
}

pub(crate) fn a_write_with_no_links_signs_nothing(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    let mut tx = store.write().unwrap();
    tx.add_perspective(&perspective(P)).unwrap();
    tx.commit().unwrap();
    let report = store.verify().unwrap();
    assert_eq!((report.transactions, report.links), (0, 0));
}

pub(crate) fn models_keep_their_registration_order(fixture: &dyn Fixture) {
    let store = fixture.open(clock());
    seed(&*store, &[]);
    let model = |name: &str, json: &str| StoredModel {
        class_name: name.into(),
        shacl_json: json.into(),
    };
    let mut tx = store.write().unwrap();
    assert!(!tx.put_model(P, &model("Zeta", "{}")).unwrap());
    assert!(!tx.put_model(P, &model("Alpha", "{}")).unwrap());
    tx.commit().unwrap();
    let mut tx = store.write().unwrap();
    assert!(tx.put_model(P, &model("Zeta", "{\"v\":2}")).unwrap());
    assert!(!tx.put_model(P, &model("Mid", "{}")).unwrap());
    assert!(matches!(
        tx.put_model("nope", &model("X", "{}")),
        Err(StoreError::NoPerspective(_))
    ));
    tx.commit().unwrap();
    let models = store.read().unwrap().models(P).unwrap();
    assert_eq!(
        models,
        [model("Zeta", "{\"v\":2}"), model("Alpha", "{}"), model("Mid", "{}")]
    );
}

pub(crate) fn injection_looking_values_are_plain_values(fixture: &dyn Fixture) {
    let evil = "'); DROP TABLE links; --";
    let odd = if fixture.text_holds_nul() {
        "\"quoted\" ?1 $1 \0 nul"
    } else {
        "\"quoted\" ?1 $1 nul"
    };
    let store = fixture.open(clock());
    let mut tx = store.write().unwrap();
    tx.add_perspective(&Perspective {
        uuid: evil.into(),
        name: evil.into(),
        owner: evil.into(),
        neighbourhood: Some(evil.into()),
    })
    .unwrap();
    tx.add_link(evil, new_link(evil, evil, evil)).unwrap();
    tx.add_link(evil, new_link(odd, "%s", "ünïcödé ✓")).unwrap();
    tx.put_model(
        evil,
        &StoredModel {
            class_name: evil.into(),
            shacl_json: evil.into(),
        },
    )
    .unwrap();
    tx.commit().unwrap();
    let read = store.read().unwrap();
    assert_eq!(
        read.perspective(evil).unwrap().unwrap().neighbourhood.as_deref(),
        Some(evil)
    );
    let pattern = LinkPattern {
        source: Some(evil),
        predicate: Some(evil),
        target: Some(evil),
    };
    assert_eq!(
        triples(&read.links(evil, pattern, None, 0).unwrap()),
        [(evil, evil, evil)]
    );
    let query = SourceQuery {
        all_of: vec![(evil.into(), evil.into())],
        any_of: vec![vec![(evil.into(), evil.into())]],
        child_of: None,
        ..Default::default()
    };
    assert_eq!(read.sources(evil, &query, Order::OldestFirst).unwrap(), [evil]);
    assert_eq!(
        triples(&read.links(evil, LinkPattern::default(), None, 0).unwrap())[1],
        (odd, "%s", "ünïcödé ✓")
    );
    assert_eq!(read.models(evil).unwrap()[0].class_name, evil);
    assert_eq!(read.count_links(evil, LinkPattern::default()).unwrap(), 2);
    drop(read);
    assert!(store.verify().unwrap().failures.is_empty());
}

/// A writer that panics mid-transaction leaves nothing behind and the store usable.
pub(crate) fn a_panicking_writer_rolls_back(fixture: &dyn Fixture) {
    let store: Arc<dyn TestStore> = Arc::from(fixture.open(clock()));
    seed(&*store, &[]);
    let panicking = store.clone();
    let result = std::thread::spawn(move || {
        let mut tx = panicking.write().unwrap();
        tx.add_link(P, new_link("a", "p", "x")).unwrap();
        panic!("engine bug");
    })
    .join();
    assert!(result.is_err());
    add(&*store, &[("b", "p", "x")]);
    assert_eq!(triples(&all_links(&*store)), [("b", "p", "x")]);
}
