//! The value key of a link target: one normalised text per value, whatever its spelling, that
//! the stores keep beside each link and index with (perspective, predicate), so that a filter on
//! values can narrow its candidates in the store (docs/data-model.md, Filters).
//!
//! A leaf module: the stores compute the key from the target alone, and the engine computes the
//! keys a filter value may have, without either depending on the other. The target is decoded
//! as [`decode`] reads AD4M's spellings; the key is the decoded kind and value:
//!
//! - `b:true`, `b:false`: a boolean;
//! - `i:` + the text: not a literal (an IRI, or a bare string);
//! - `n:` + 16 hex digits of the number as an f64, ordered as the numbers are ([`number_key`]);
//! - `s:` + the decoded text: a string, or a language-tagged string (its tag left out).
//!
//! Texts are cut at [`MAX_KEY_BYTES`] (a PostgreSQL btree entry has a size limit): two long values
//! may share a key, so a key narrows, and the engine's evaluation decides. Cutting keeps order
//! (`a ≤ b` gives `cut(a) ≤ cut(b)`), so inclusive ranges over keys stay supersets.

use serde_json::Number;

/// The longest key, in bytes; a longer text is cut at the last character boundary before it.
pub const MAX_KEY_BYTES: usize = 240;

/// A scalar decoded from any of AD4M's spellings, before it is typed by a property.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    String(String),
    Number(Number),
    Boolean(bool),
    /// A language-tagged string, its tag as written.
    LangString {
        text: String,
        language: String,
    },
    /// Not a literal: an IRI (or anything else) taken as written.
    Iri(String),
}

/// Reads `literal:string:…`, `literal://string:…`, `literal:number:…`, `literal:boolean:…`,
/// `literal:lang:<tag>:…`, `literal:1^^xsd:integer`, `literal:true`; anything else is an IRI.
pub fn decode(target: &str) -> Decoded {
    let Some(rest) = target.strip_prefix("literal:") else {
        return Decoded::Iri(target.to_string());
    };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    if let Some(text) = rest.strip_prefix("string:") {
        return Decoded::String(percent_decode(text));
    }
    if let Some(tagged) = rest.strip_prefix("lang:")
        && let Some((language, text)) = tagged.split_once(':')
        && shacl_mcp_compiler::literal::is_language_tag(language)
    {
        return Decoded::LangString {
            text: percent_decode(text),
            language: language.to_string(),
        };
    }
    if let Some(text) = rest.strip_prefix("number:") {
        return number(text).map_or_else(|| Decoded::String(text.to_string()), Decoded::Number);
    }
    if let Some(text) = rest.strip_prefix("boolean:") {
        return match text {
            "true" => Decoded::Boolean(true),
            "false" => Decoded::Boolean(false),
            other => Decoded::String(other.to_string()),
        };
    }
    // `literal:1^^xsd:integer`, `literal:true^^xsd:boolean`, `literal:text^^xsd:string`
    let (value, datatype) = match rest.split_once("^^") {
        Some((v, t)) => (v, Some(t)),
        None => (rest, None),
    };
    let value = percent_decode(value);
    let kind = datatype.map(shacl_mcp_compiler::model::local_name);
    match kind {
        Some("string") => Decoded::String(value),
        Some("boolean") | None if value == "true" || value == "false" => Decoded::Boolean(value == "true"),
        Some(_) | None => number(&value).map_or(Decoded::String(value), Decoded::Number),
    }
}

/// A number as the decoder reads one: an i64 when it is one, else a finite f64.
pub fn number(text: &str) -> Option<Number> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(i.into());
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
}

/// The value key of a link target.
pub fn key(target: &str) -> String {
    match decode(target) {
        Decoded::Boolean(b) => boolean_key(b),
        Decoded::Iri(text) => iri_key(&text),
        Decoded::Number(n) => n.as_f64().map_or_else(|| string_key(&n.to_string()), number_key),
        // A language-tagged string keys as its text: a filter on the text finds it in any
        // language, and one on text and tag narrows to the text.
        Decoded::String(text) | Decoded::LangString { text, .. } => string_key(&text),
    }
}

pub fn boolean_key(b: bool) -> String {
    format!("b:{b}")
}

pub fn iri_key(text: &str) -> String {
    cut(format!("i:{text}"))
}

pub fn string_key(text: &str) -> String {
    cut(format!("s:{text}"))
}

/// `n:` and the f64's bits made to sort as the numbers do: the sign bit set on positives, every
/// bit flipped on negatives (so more negative sorts lower), in 16 lower-case hex digits. `-0`
/// is `0`, as `-0 == 0` in the filters.
pub fn number_key(f: f64) -> String {
    let f = if f == 0.0 { 0.0 } else { f };
    let bits = f.to_bits();
    let sortable = if bits >> 63 == 1 { !bits } else { bits | 1 << 63 };
    format!("n:{sortable:016x}")
}

/// The lowest and highest key of a kind (`'b'`, `'i'`, `'n'`, `'s'`): every key of the kind lies
/// between them, inclusive (`;` follows `:`).
pub fn kind_bounds(kind: char) -> (String, String) {
    (format!("{kind}:"), format!("{kind};"))
}

fn cut(mut key: String) -> String {
    if key.len() > MAX_KEY_BYTES {
        let mut end = MAX_KEY_BYTES;
        while !key.is_char_boundary(end) {
            end -= 1;
        }
        key.truncate(end);
    }
    key
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_spelling() {
        assert_eq!(decode("literal:string:a%20b"), Decoded::String("a b".into()));
        assert_eq!(decode("literal://string:open"), Decoded::String("open".into()));
        assert_eq!(decode("literal:number:3"), Decoded::Number(3.into()));
        assert_eq!(
            decode("literal:number:3.5"),
            Decoded::Number(Number::from_f64(3.5).unwrap())
        );
        assert_eq!(decode("literal:boolean:false"), Decoded::Boolean(false));
        assert_eq!(decode("literal:1^^xsd:integer"), Decoded::Number(1.into()));
        assert_eq!(decode("literal:true"), Decoded::Boolean(true));
        assert_eq!(decode("literal:hello^^xsd:string"), Decoded::String("hello".into()));
        assert_eq!(decode("app://x"), Decoded::Iri("app://x".into()));
        assert_eq!(decode("literal:string:%E2%82%AC%"), Decoded::String("€%".into()));
        let lang = |text: &str, language: &str| Decoded::LangString {
            text: text.into(),
            language: language.into(),
        };
        assert_eq!(decode("literal:lang:de:Hallo%20Welt"), lang("Hallo Welt", "de"));
        assert_eq!(decode("literal://lang:en-GB:a%3Ab:c"), lang("a:b:c", "en-GB"));
        assert_eq!(decode("literal:lang:de:"), lang("", "de"));
        // Not a tag: text, as before.
        assert_eq!(
            decode("literal:lang:not a tag:x"),
            Decoded::String("lang:not a tag:x".into())
        );
    }

    #[test]
    fn every_spelling_of_a_value_has_one_key() {
        for same in [
            &[
                "literal:string:done",
                "literal://string:done",
                "literal:done^^xsd:string",
                "literal:string:d%6Fne",
            ][..],
            &[
                "literal:number:3",
                "literal:number:3.0",
                "literal:3^^xsd:integer",
                "literal:3",
                "literal:3e0",
            ],
            &["literal:boolean:true", "literal:true", "literal:true^^xsd:boolean"],
            &["literal:number:0", "literal:number:-0.0"],
            &[
                "literal:string:Hallo",
                "literal:lang:de:Hallo",
                "literal:lang:EN:Hall%6F",
            ],
        ] {
            let keys: Vec<String> = same.iter().map(|t| key(t)).collect();
            assert!(keys.iter().all(|k| *k == keys[0]), "{same:?}: {keys:?}");
        }
        assert_eq!(key("done"), "i:done");
        assert_ne!(key("literal:string:3"), key("literal:number:3"));
    }

    #[test]
    fn number_keys_sort_as_numbers() {
        let numbers = [
            f64::MIN,
            -1e300,
            -2.5,
            -1.0,
            -1e-300,
            0.0,
            1e-300,
            0.5,
            1.0,
            3.0,
            1e19,
            f64::MAX,
        ];
        let keys: Vec<String> = numbers.iter().map(|&f| number_key(f)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        let (low, high) = kind_bounds('n');
        assert!(keys.iter().all(|k| low <= *k && *k <= high));
    }

    #[test]
    fn long_texts_are_cut_at_a_character_boundary() {
        let long = "é".repeat(200);
        let k = string_key(&long);
        assert!(k.len() <= MAX_KEY_BYTES && k.len() >= MAX_KEY_BYTES - 1);
        assert!(long.starts_with(&k[2..]));
        assert!(string_key("a") < string_key(&"b".repeat(500)));
    }
}
