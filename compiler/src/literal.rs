//! How values become link targets (`docs/data-model.md`, Links and values). The one encoder the
//! compiler (markers) and the runtime (every write) share.

use serde_json::Value;

/// `literal:string:` + the text percent-encoded as JavaScript's `encodeURIComponent` does.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(15 + text.len());
    out.push_str("literal:string:");
    encode_uri_component(text, &mut out);
    out
}

/// `literal:lang:` + the language tag as written + `:` + the text percent-encoded as
/// [`string`] encodes it: an `rdf:langString` (the tag holds no `:`, so the first `:` after
/// the tag ends it).
pub fn lang_string(text: &str, language: &str) -> String {
    let mut out = String::with_capacity(15 + language.len() + text.len());
    out.push_str("literal:lang:");
    out.push_str(language);
    out.push(':');
    encode_uri_component(text, &mut out);
    out
}

/// A language tag as tool values take it (BCP 47's shape, not its registry):
/// `^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$`.
pub fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let first = parts.next().unwrap_or_default();
    let sized = |s: &str| (1..=8).contains(&s.len());
    sized(first)
        && first.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|s| sized(s) && s.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The text and tag of a JSON-LD value object `{"@value": text, "@language": tag}`: both keys
/// strings, the tag a [`is_language_tag`], no other key. `None` for anything else.
pub fn lang_value(v: &Value) -> Option<(&str, &str)> {
    let o = v.as_object()?;
    if o.len() != 2 {
        return None;
    }
    let text = o.get("@value")?.as_str()?;
    let language = o.get("@language")?.as_str()?;
    is_language_tag(language).then_some((text, language))
}

/// `literal:number:` + the number as serde_json writes it.
pub fn number(n: &serde_json::Number) -> String {
    format!("literal:number:{n}")
}

pub fn boolean(b: bool) -> String {
    format!("literal:boolean:{b}")
}

/// A JSON scalar as a literal target: strings, numbers and booleans by their own type.
pub fn from_json(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(string(s)),
        Value::Number(n) => Some(number(n)),
        Value::Bool(b) => Some(boolean(*b)),
        Value::Object(_) => lang_value(v).map(|(text, language)| lang_string(text, language)),
        _ => None,
    }
}

/// An IRI: a scheme (`^[A-Za-z][A-Za-z0-9+.-]*:`) and no whitespace.
pub fn is_iri(s: &str) -> bool {
    let Some(colon) = s.find(':') else { return false };
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        && !has_whitespace(s)
}

/// A blank node as tool values and links spell it: `_:` and a label of ASCII letters, digits,
/// `_`, `-` and `.` (N-Triples' form, narrowed to ASCII), not starting with `-` or `.`.
pub fn is_blank(s: &str) -> bool {
    let Some(label) = s.strip_prefix("_:") else {
        return false;
    };
    let mut bytes = label.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphanumeric() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A node: an IRI or a blank node (`_:label`).
pub fn is_node(s: &str) -> bool {
    is_iri(s) || is_blank(s)
}

/// `s.chars().any(char::is_whitespace)`, a byte at a time when the text is ASCII.
fn has_whitespace(s: &str) -> bool {
    if s.is_ascii() {
        s.bytes()
            .any(|b| matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r' | b' '))
    } else {
        s.chars().any(char::is_whitespace)
    }
}

fn encode_uri_component(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_encode_like_encode_uri_component() {
        assert_eq!(string("open"), "literal:string:open");
        assert_eq!(string("a b/c?d&é"), "literal:string:a%20b%2Fc%3Fd%26%C3%A9");
        assert_eq!(string("-_.!~*'()"), "literal:string:-_.!~*'()");
        assert_eq!(string(""), "literal:string:");
    }

    #[test]
    fn language_tagged_strings() {
        assert_eq!(lang_string("Hallo Welt", "de"), "literal:lang:de:Hallo%20Welt");
        assert_eq!(lang_string("a:b", "en-GB"), "literal:lang:en-GB:a%3Ab");
        let v = serde_json::json!({"@value": "Hallo", "@language": "de"});
        assert_eq!(lang_value(&v), Some(("Hallo", "de")));
        assert_eq!(from_json(&v).unwrap(), "literal:lang:de:Hallo");
        for ok in ["de", "en-GB", "zh-Hant-TW", "x-klingon", "sgn-BE-FR", "abcdefgh"] {
            assert!(is_language_tag(ok), "{ok}");
        }
        for bad in [
            "",
            "-",
            "de-",
            "abcdefghi",
            "1de",
            "de_DE",
            "de--x",
            "en-abcdefghi",
            "de:x",
            "dé",
        ] {
            assert!(!is_language_tag(bad), "{bad}");
        }
        for bad in [
            serde_json::json!({"@value": "x"}),
            serde_json::json!({"@value": "x", "@language": "de", "@type": "y"}),
            serde_json::json!({"@value": 3, "@language": "de"}),
            serde_json::json!({"@value": "x", "@language": "not a tag"}),
            serde_json::json!({"value": "x", "language": "de"}),
            serde_json::json!("x"),
        ] {
            assert_eq!(lang_value(&bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_and_booleans() {
        assert_eq!(from_json(&serde_json::json!(3)).unwrap(), "literal:number:3");
        assert_eq!(from_json(&serde_json::json!(3.0)).unwrap(), "literal:number:3.0");
        assert_eq!(from_json(&serde_json::json!(true)).unwrap(), "literal:boolean:true");
    }

    #[test]
    fn iris() {
        for ok in ["app://Channel", "did:key:z6Mk", "urn:x", "a+b.c-d:x"] {
            assert!(is_iri(ok), "{ok}");
        }
        for bad in ["Channel", "1app:x", ":x", "app://a b", ""] {
            assert!(!is_iri(bad), "{bad}");
        }
        // Whitespace is Unicode's, ASCII or not.
        for bad in [
            "a:b\tc",
            "a:b\u{0B}",
            "a:b\u{0C}",
            "a:b\r",
            "a:é\u{85}",
            "a:b\u{A0}",
            "a:b\u{3000}",
        ] {
            assert!(!is_iri(bad), "{bad:?}");
        }
        assert!(is_iri("a:é\u{1}"));
    }
}
