//! What generated code calls (`::shacl_mcp::__private`). Not a public API: generated code and
//! this module change together. Everything a generated item needs is here, so a class named
//! `String` or `Option` cannot break it.

use std::sync::OnceLock;

use regex::Regex;
pub use serde;
pub use serde::{Deserialize, Serialize};

use crate::types::ValueError;

/// A pattern of the DNA, compiled on first use (it was checked to compile at build time).
pub struct Pattern {
    source: &'static str,
    regex: OnceLock<Option<Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source,
            regex: OnceLock::new(),
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| Regex::new(self.source).ok())
            .as_ref()
            .is_none_or(|r| r.is_match(text))
    }
}

/// The variant of a generated `sh:in` enum spelled `text`, or the shape's refusal (worded as
/// the validator words it, from the spellings).
pub fn choose<T: Copy>(text: &str, all: &[T], spelling: fn(T) -> &'static str) -> Result<T, ValueError> {
    all.iter().copied().find(|v| spelling(*v) == text).ok_or_else(|| {
        let values: Vec<serde_json::Value> = all.iter().map(|v| spelling(*v).into()).collect();
        ValueError(vec![shacl_mcp_compiler::problems::in_text(&values)])
    })
}

/// A generated `sh:in` enum read from a string by its `FromStr`: one generic function in place
/// of a derived `Deserialize` per enum (whose expansion was an eighth of a large DNA's code).
pub fn deserialize_choice<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr<Err = ValueError>,
{
    let text = <std::borrow::Cow<'de, str> as Deserialize>::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// The impls of a generated `sh:in` enum, from its variants and the DNA's spellings: `ALL`,
/// `as_str`, `Display`, `FromStr` (refusing with the shape's words) and serde by spelling. One
/// line of generated code instead of fifty, as prost's derives keep its generated enums short.
#[doc(hidden)]
#[macro_export]
macro_rules! __choice {
    ($name:ident, [$($variant:ident = $value:literal),+ $(,)?]) => {
        impl $name {
            /// Every value, in the shape's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as the DNA spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $value,)+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::ValueError;
            fn from_str(text: &str) -> ::std::result::Result<Self, $crate::ValueError> {
                $crate::__private::choose(text, Self::ALL, Self::as_str)
            }
        }

        impl $crate::__private::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                $crate::__private::deserialize_choice(deserializer)
            }
        }
    };
}
pub use crate::__choice as choice;

/// The [`crate::typed::Rule`] of a generated checked value: its generated check function.
#[doc(hidden)]
#[macro_export]
macro_rules! __rule {
    ($rule:ident, $check:ident) => {
        impl $crate::typed::Rule for $rule {
            const CHECK: fn(&mut $crate::compiled::Item<'_>) = $check;
        }
    };
}
pub use crate::__rule as rule;
