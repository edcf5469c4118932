//! The spellings the input accepts for datatypes, node kinds and relation kinds.

use crate::literal::is_iri;
use crate::model::{IntegerKind, NodeKind, RelationKind, TemporalKind, ValueType};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const SH: &str = "http://www.w3.org/ns/shacl#";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
use crate::shacl::vocab::RDF_LANG_STRING;

/// `xsd:string`, `xsd://string` and the full XSD IRI all name one datatype; returns the full
/// IRI and the value type, or `None` for a name in the XSD namespace that XSD does not
/// define (a typo) or a datatype that is not an IRI.
pub fn datatype(written: &str) -> Option<(String, ValueType)> {
    if strip_any(written, &[RDF, "rdf:"]) == Some("langString") {
        return Some((RDF_LANG_STRING.to_string(), ValueType::LangString));
    }
    let Some(local) = strip_any(written, &[XSD, "xsd://", "xsd:"]) else {
        // A datatype of another vocabulary (`rdf:HTML`, `geo:wktLiteral`, a custom one): text,
        // typed with that datatype in the graph the engine validates.
        return is_iri(written).then(|| (written.to_string(), ValueType::String));
    };
    let value_type = match local {
        "string" | "normalizedString" | "token" | "anyURI" | "language" | "Name" | "NCName" => ValueType::String,
        "boolean" => ValueType::Boolean,
        "integer" => ValueType::Integer(IntegerKind::Integer),
        "long" => ValueType::Integer(IntegerKind::Long),
        "int" => ValueType::Integer(IntegerKind::Int),
        "short" => ValueType::Integer(IntegerKind::Short),
        "byte" => ValueType::Integer(IntegerKind::Byte),
        "nonNegativeInteger" => ValueType::Integer(IntegerKind::NonNegative),
        "positiveInteger" => ValueType::Integer(IntegerKind::Positive),
        "nonPositiveInteger" => ValueType::Integer(IntegerKind::NonPositive),
        "negativeInteger" => ValueType::Integer(IntegerKind::Negative),
        "unsignedLong" => ValueType::Integer(IntegerKind::UnsignedLong),
        "unsignedInt" => ValueType::Integer(IntegerKind::UnsignedInt),
        "unsignedShort" => ValueType::Integer(IntegerKind::UnsignedShort),
        "unsignedByte" => ValueType::Integer(IntegerKind::UnsignedByte),
        "decimal" | "float" | "double" => ValueType::Number,
        "dateTime" | "dateTimeStamp" => ValueType::DateTime(TemporalKind::DateTime),
        "date" => ValueType::DateTime(TemporalKind::Date),
        "time" => ValueType::DateTime(TemporalKind::Time),
        // XSD types with no friendlier form: text in their lexical space, which the engine
        // checks (`crate::shacl::xsd::is_valid`).
        "gYear" | "gYearMonth" | "gMonth" | "gDay" | "gMonthDay" | "duration" | "dayTimeDuration"
        | "yearMonthDuration" | "hexBinary" | "base64Binary" | "NMTOKEN" | "QName" | "ID" | "IDREF" => {
            ValueType::String
        }
        _ => return None,
    };
    Some((format!("{XSD}{local}"), value_type))
}

/// The datatypes [`datatype`] knows, for help texts.
pub const KNOWN_DATATYPES: &str = "xsd:string (normalizedString, token, anyURI), xsd:boolean, xsd:integer (int, long, short, \
     byte, nonNegativeInteger, positiveInteger, unsigned*), xsd:decimal, xsd:float, xsd:double, xsd:dateTime, \
     xsd:dateTimeStamp, xsd:date, xsd:time, rdf:langString, the other XSD types (xsd:gYear, xsd:duration, …) or the full IRI of a \
     datatype of another vocabulary";

/// `IRI`, `sh:IRI`, `sh://IRI` or the full SHACL IRI.
pub fn node_kind(written: &str) -> Option<NodeKind> {
    let local = strip_any(written, &[SH, "sh://", "sh:", ""])?;
    Some(match local {
        "IRI" => NodeKind::Iri,
        "Literal" => NodeKind::Literal,
        "BlankNode" => NodeKind::BlankNode,
        "BlankNodeOrIRI" => NodeKind::BlankNodeOrIri,
        "BlankNodeOrLiteral" => NodeKind::BlankNodeOrLiteral,
        "IRIOrLiteral" => NodeKind::IriOrLiteral,
        _ => return None,
    })
}

pub fn relation_kind(written: &str) -> Option<RelationKind> {
    Some(match written {
        "hasOne" => RelationKind::HasOne,
        "hasMany" => RelationKind::HasMany,
        "belongsToOne" => RelationKind::BelongsToOne,
        "belongsToMany" => RelationKind::BelongsToMany,
        _ => return None,
    })
}

/// The rest of `s` after the first of `prefixes` it starts with (`""` matches anything).
fn strip_any<'a>(s: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| s.strip_prefix(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datatype_spellings_agree() {
        for spelling in ["xsd:string", "xsd://string", "http://www.w3.org/2001/XMLSchema#string"] {
            assert_eq!(
                datatype(spelling),
                Some((format!("{XSD}string"), ValueType::String)),
                "{spelling}"
            );
        }
        assert_eq!(datatype("xsd:decimal").unwrap().1, ValueType::Number);
        for lang in ["rdf:langString", RDF_LANG_STRING] {
            assert_eq!(
                datatype(lang),
                Some((RDF_LANG_STRING.to_string(), ValueType::LangString))
            );
        }
        assert_eq!(datatype("xsd:date").unwrap().1, ValueType::DateTime(TemporalKind::Date));
        assert_eq!(datatype("xsd:strin"), None);
        assert_eq!(datatype("string"), None);
        assert_eq!(datatype("xsd:gYear").unwrap().1, ValueType::String);
        let html = "http://www.w3.org/1999/02/22-rdf-syntax-ns#HTML";
        assert_eq!(datatype(html), Some((html.to_string(), ValueType::String)));
    }

    #[test]
    fn node_kind_spellings_agree() {
        for spelling in ["IRI", "sh:IRI", "sh://IRI", "http://www.w3.org/ns/shacl#IRI"] {
            assert_eq!(node_kind(spelling), Some(NodeKind::Iri), "{spelling}");
        }
        assert_eq!(node_kind("sh:Iri"), None);
    }
}
