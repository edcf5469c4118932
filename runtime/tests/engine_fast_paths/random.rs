//! Random Tasks and random queries for the differential test: values drawn from small domains so
//! that filters hit, written in every spelling the readers accept (and some they skip), with
//! overwritten scalars, removed links, collections and nodes that are not Tasks.

use serde_json::{Value, json};
use shacl_mcp::store::Order;

/// xorshift64*: deterministic, so a failing seed can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TEXTS: &[&str] = &[
    "open",
    "done",
    "in_progress",
    "3",
    "3.0",
    "true",
    "",
    "a b",
    "é/x",
    "done ",
];
const NUMBERS: &[&str] = &["-2", "0", "1", "2", "2.5", "3", "3.0", "1e300", "-0.0", "4"];
const DATES: &[&str] = &[
    "2026-12-01T10:00:00Z",
    "2026-12-05T10:00:00Z",
    "2026-12-10T09:00:00+01:00",
    "2027-01-01T00:00:00Z",
];
const PEOPLE: &[&str] = &["did:key:z6MkA", "did:key:z6MkB", "did:key:z6MkC"];

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A target for a text value, in one of its spellings (a bare one reads as an IRI).
fn text_target(rng: &mut Rng, text: &str) -> String {
    match rng.below(6) {
        0 => format!("literal://string:{}", encode(text)),
        1 => format!("literal:{}^^xsd:string", encode(text)),
        2 if !text.is_empty() && !text.contains(' ') => text.to_string(),
        3 => format!("literal:string:{}", encode(text).replace("o", "%6F")),
        _ => format!("literal:string:{}", encode(text)),
    }
}

/// A target for a number, in one of its spellings, or sometimes a text or a boolean.
fn number_target(rng: &mut Rng, number: &str) -> String {
    match rng.below(7) {
        0 => format!("literal:{number}^^xsd:integer"),
        1 => format!("literal:{number}^^xsd:decimal"),
        2 => format!("literal:{number}"),
        3 => "literal:string:high".to_string(),
        4 => "literal:boolean:true".to_string(),
        _ => format!("literal:number:{number}"),
    }
}

/// The links one random node gets, as `execute_commands` commands.
pub fn commands(rng: &mut Rng, task: bool) -> Vec<Value> {
    let mut targets: Vec<(&str, String)> = Vec::new();
    if task {
        targets.push(("rdf://type", "todo://Task".into()));
    }
    for _ in 0..rng.below(3) {
        let text = if rng.chance(80) {
            format!("task {}", rng.below(20))
        } else {
            rng.pick(TEXTS).to_string()
        };
        targets.push(("todo://title", text_target(rng, &text)));
    }
    for _ in 0..rng.below(4) {
        let status = rng.pick(TEXTS).to_string();
        let target = match rng.below(5) {
            0 => {
                let number = rng_number(rng);
                number_target(rng, number)
            }
            _ => text_target(rng, &status),
        };
        targets.push(("todo://status", target));
    }
    for (predicate, count) in [("todo://priority", 3), ("todo://estimate", 2)] {
        for _ in 0..rng.below(count) {
            let number = rng_number(rng);
            targets.push((predicate, number_target(rng, number)));
        }
    }
    for _ in 0..rng.below(2) {
        let date = rng.pick(DATES).to_string();
        targets.push(("todo://due", text_target(rng, &date)));
    }
    for _ in 0..rng.below(2) {
        let who = rng.pick(PEOPLE).to_string();
        let target = if rng.chance(20) {
            format!("literal:string:{who}")
        } else {
            who
        };
        targets.push(("todo://assignee", target));
    }
    for _ in 0..rng.below(4) {
        let tag = if rng.chance(70) {
            format!("t{}", rng.below(5))
        } else {
            rng.pick(TEXTS).to_string()
        };
        targets.push(("todo://tag", text_target(rng, &tag)));
    }
    let mut commands: Vec<Value> = targets
        .iter()
        .map(|(predicate, target)| json!({ "action": "addLink", "source": "this", "predicate": predicate, "target": target }))
        .collect();
    // Some links removed again (every copy of that exact link).
    for _ in 0..rng.below(2) {
        if targets.len() > 1 {
            let (predicate, target) = &targets[1 + rng.below(targets.len() - 1)];
            commands
                .push(json!({ "action": "removeLink", "source": "this", "predicate": predicate, "target": target }));
        }
    }
    commands
}

/// Removes every link `commands` added (every copy of each exact link).
pub fn undo(commands: &[Value]) -> Vec<Value> {
    commands
        .iter()
        .filter(|command| command["action"] == "addLink")
        .map(|command| {
            json!({ "action": "removeLink", "source": "this", "predicate": command["predicate"], "target": command["target"] })
        })
        .collect()
}

fn rng_number(rng: &mut Rng) -> &'static str {
    NUMBERS[rng.below(NUMBERS.len())]
}

/// A value for a filter on `property`, of its type or (sometimes) of another.
fn value(rng: &mut Rng, property: &str) -> Value {
    if rng.chance(10) {
        return rng
            .pick(&[json!(3), json!("3"), json!(true), json!(null), json!("done")])
            .clone();
    }
    match property {
        "title" => json!(format!("task {}", rng.below(20))),
        "status" => json!(rng.pick(TEXTS)),
        "priority" | "estimateHours" => {
            let n: f64 = rng.pick(NUMBERS).parse().unwrap_or(0.0);
            if n.fract() == 0.0 && rng.chance(50) {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "dueDate" => json!(rng.pick(DATES)),
        "assignee" => json!(rng.pick(PEOPLE)),
        _ => json!(format!("t{}", rng.below(6))),
    }
}

const PROPERTIES: &[&str] = &[
    "title",
    "status",
    "priority",
    "estimateHours",
    "dueDate",
    "assignee",
    "tags",
];

/// One condition: `{ property: … }` or `{ id: … }`.
fn condition(rng: &mut Rng, ids: &[String]) -> (String, Value) {
    if rng.chance(10) {
        let id = |rng: &mut Rng| json!(rng.pick(ids));
        let v = match rng.below(3) {
            0 => id(rng),
            1 => json!([id(rng), id(rng), "ad4m://nowhere"]),
            _ => json!({ "contains": "1" }),
        };
        return ("id".into(), v);
    }
    let property = *rng.pick(PROPERTIES);
    let v = match rng.below(8) {
        0 | 1 => value(rng, property),
        2 => json!([value(rng, property), value(rng, property), value(rng, property)]),
        3 => json!({ "gt": value(rng, property) }),
        4 => json!({ "gte": value(rng, property), "lt": value(rng, property) }),
        5 => json!({ "lte": value(rng, property) }),
        6 => json!({ "not": value(rng, property) }),
        _ => json!({ "contains": rng.pick(&["a", "1", "o", "2026-12"]) }),
    };
    (property.into(), v)
}

/// A random filter: top-level conditions, sometimes nested in `AND`, `OR`, `NOT`.
pub fn filter(rng: &mut Rng, ids: &[String]) -> Value {
    let mut f = serde_json::Map::new();
    for _ in 0..1 + rng.below(3) {
        let (key, v) = condition(rng, ids);
        f.insert(key, v);
    }
    match rng.below(10) {
        0 => json!({ "OR": [Value::Object(f), filter(rng, ids)] }),
        1 => json!({ "NOT": Value::Object(f) }),
        2 => json!({ "AND": [Value::Object(f), filter(rng, ids)] }),
        _ => Value::Object(f),
    }
}

/// A random page: (limit, offset, order, under the parent).
pub fn page(rng: &mut Rng, nodes: usize) -> (u64, u64, Order, bool) {
    let limit = *rng.pick(&[1, 3, 10, 100, 500]);
    let offset = if rng.chance(50) { 0 } else { rng.below(nodes + 5) as u64 };
    let order = if rng.chance(50) {
        Order::OldestFirst
    } else {
        Order::NewestFirst
    };
    (limit, offset, order, rng.chance(30))
}
