//! Value types of generated code that keep the text as sent: an IRI, the datetime family
//! (docs/data-model.md: a datetime is stored as the text given, after validation), and a
//! language-tagged string.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! text_type {
    ($(#[$doc:meta])* $name:ident, $what:literal, $check:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = ValueError;
            fn try_from(text: String) -> Result<Self, ValueError> {
                let check: fn(&str) -> bool = $check;
                if check(&text) {
                    Ok($name(text))
                } else {
                    Err(ValueError(vec![format!(concat!("not ", $what, ": {:?}"), text)]))
                }
            }
        }

        impl TryFrom<&str> for $name {
            type Error = ValueError;
            fn try_from(text: &str) -> Result<Self, ValueError> {
                Self::try_from(text.to_string())
            }
        }

        impl std::str::FromStr for $name {
            type Err = ValueError;
            fn from_str(text: &str) -> Result<Self, ValueError> {
                Self::try_from(text.to_string())
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

text_type!(
    /// An IRI: a scheme (`ad4m://`, `did:key:`, `https://`, ...) and no whitespace.
    Iri,
    "an IRI",
    shacl_mcp_compiler::literal::is_iri
);
text_type!(
    /// An RFC 3339 date-time with an offset (`2026-12-24T10:00:00Z`), kept as written.
    DateTime,
    "an RFC 3339 date-time with an offset",
    crate::temporal::is_date_time
);
text_type!(
    /// A date, `YYYY-MM-DD`.
    Date,
    "a date (YYYY-MM-DD)",
    crate::temporal::is_date
);
text_type!(
    /// An RFC 3339 time with an offset (`10:00:00Z`), kept as written.
    Time,
    "a time with an offset",
    crate::temporal::is_time
);

/// A value of a property whose shapes allow several datatypes (`sh:or` of `sh:datatype`
/// shapes, e.g. a date or a dateTime): the JSON value as given, which the engine writes with the
/// first of the datatypes it is valid for (docs/data-model.md, Links and values).
pub type AnyOfValue = serde_json::Value;

/// A language-tagged string (`rdf:langString`), as tool values carry it: the JSON-LD value
/// object `{"@value": "Hallo", "@language": "de"}` (both keys, the tag like `en` or `de-CH`,
/// no other key). The tag is kept as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "LangStringObject", into = "LangStringObject")]
pub struct LangString {
    pub value: String,
    pub language: String,
}

impl LangString {
    /// A text with its language tag; an error when the tag is not one.
    pub fn new(value: impl Into<String>, language: impl Into<String>) -> Result<Self, ValueError> {
        LangString::try_from(LangStringObject {
            value: value.into(),
            language: language.into(),
        })
    }
}

impl fmt::Display for LangString {
    /// As Turtle writes it: `"Hallo"@de`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}@{}", self.value, self.language)
    }
}

/// The wire form of [`LangString`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LangStringObject {
    #[serde(rename = "@value")]
    value: String,
    #[serde(rename = "@language")]
    language: String,
}

impl TryFrom<LangStringObject> for LangString {
    type Error = ValueError;
    fn try_from(o: LangStringObject) -> Result<Self, ValueError> {
        if shacl_mcp_compiler::literal::is_language_tag(&o.language) {
            Ok(LangString {
                value: o.value,
                language: o.language,
            })
        } else {
            Err(ValueError(vec![format!("not a language tag: {:?}", o.language)]))
        }
    }
}

impl From<LangString> for LangStringObject {
    fn from(l: LangString) -> Self {
        LangStringObject {
            value: l.value,
            language: l.language,
        }
    }
}

/// What every instance object carries besides its properties.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceMeta {
    #[serde(rename = "createdAt")]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    pub updated_at: String,
    /// The DID that wrote the instance's first link.
    pub author: String,
    pub timestamp: String,
}

/// Why a value does not fit its type: the problems, in the words of the validation envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError(pub Vec<String>);

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

impl std::error::Error for ValueError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_types_validate_and_keep_the_text() {
        assert_eq!(Iri::try_from("ad4m://obj/x").unwrap().as_str(), "ad4m://obj/x");
        assert!(Iri::try_from("not an iri").is_err());
        assert_eq!(
            DateTime::try_from("2026-12-24T11:00:00+01:00").unwrap().to_string(),
            "2026-12-24T11:00:00+01:00"
        );
        assert!(Date::try_from("2026-02-30").is_err());
        assert!(Time::try_from("10:00:00").is_err());
        let parsed: Result<Iri, _> = serde_json::from_str("\"x y\"");
        assert!(parsed.is_err());
    }

    #[test]
    fn lang_strings_are_json_ld_value_objects() {
        let hallo = LangString::new("Hallo", "de").unwrap();
        let json = serde_json::to_value(&hallo).unwrap();
        assert_eq!(json, serde_json::json!({"@value": "Hallo", "@language": "de"}));
        assert_eq!(serde_json::from_value::<LangString>(json).unwrap(), hallo);
        assert_eq!(hallo.to_string(), "\"Hallo\"@de");
        assert!(LangString::new("x", "not a tag").is_err());
        for bad in [
            serde_json::json!({"@value": "x"}),
            serde_json::json!({"@value": "x", "@language": "de", "@type": "t"}),
            serde_json::json!("x"),
        ] {
            assert!(serde_json::from_value::<LangString>(bad).is_err());
        }
    }
}
