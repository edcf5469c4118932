//! [`Checked`]: a value of a constrained property, checked by the property's generated rule
//! when it is made (by `new`, `TryFrom` or deserializing), so a typed write of it cannot fail
//! on the constraints the rule compiles.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Ordered, Text};
use crate::compiled::Item;
use crate::types::ValueError;

/// The generated checks of one constrained property beyond its type (`in`, pattern, lengths,
/// range): generated code declares an uninhabited type per property and implements this.
pub trait Rule {
    /// The compiled checks, the same the write path runs.
    const CHECK: fn(&mut Item<'_>);
}

/// A value of type `T` that passed the rule `R`.
pub struct Checked<T, R> {
    value: T,
    rule: PhantomData<fn() -> R>,
}

impl<T: Serialize, R: Rule> Checked<T, R> {
    /// The value, if it passes the rule; the rule's problems otherwise.
    pub fn new(value: T) -> Result<Self, ValueError> {
        // Its Rust type has made the value's type hold already: the rule is all that is left.
        let json = serde_json::to_value(&value).map_err(|e| ValueError(vec![e.to_string()]))?;
        let mut item = Item::new(&json);
        (R::CHECK)(&mut item);
        if !item.found.is_empty() {
            return Err(ValueError(item.found.into_iter().map(|f| f.text).collect()));
        }
        Ok(Checked {
            value,
            rule: PhantomData,
        })
    }
}

impl<T, R> Checked<T, R> {
    /// The value inside.
    pub fn get(&self) -> &T {
        &self.value
    }

    /// The value inside, taken out.
    pub fn into_inner(self) -> T {
        self.value
    }
}

macro_rules! try_from {
    ($($t:ty),*) => {$(
        impl<R: Rule> TryFrom<$t> for Checked<$t, R> {
            type Error = ValueError;
            fn try_from(value: $t) -> Result<Self, ValueError> {
                Checked::new(value)
            }
        }

        impl<R> From<Checked<$t, R>> for $t {
            fn from(value: Checked<$t, R>) -> $t {
                value.value
            }
        }
    )*};
}

try_from!(
    String,
    i64,
    f64,
    bool,
    crate::types::Iri,
    crate::types::DateTime,
    crate::types::Date,
    crate::types::Time,
    crate::types::LangString
);

impl<R: Rule> TryFrom<&str> for Checked<String, R> {
    type Error = ValueError;
    fn try_from(value: &str) -> Result<Self, ValueError> {
        Checked::new(value.to_string())
    }
}

impl<R: Rule> std::str::FromStr for Checked<String, R> {
    type Err = ValueError;
    fn from_str(text: &str) -> Result<Self, ValueError> {
        Checked::new(text.to_string())
    }
}

impl<T: Ordered, R> Ordered for Checked<T, R> {
    type Bound = T::Bound;
}

impl<T: Text, R> Text for Checked<T, R> {}

impl<T: Serialize, R> Serialize for Checked<T, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'de, T: Serialize + Deserialize<'de>, R: Rule> Deserialize<'de> for Checked<T, R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = T::deserialize(deserializer)?;
        Checked::new(value).map_err(serde::de::Error::custom)
    }
}

impl<T: Clone, R> Clone for Checked<T, R> {
    fn clone(&self) -> Self {
        Checked {
            value: self.value.clone(),
            rule: PhantomData,
        }
    }
}

impl<T: Copy, R> Copy for Checked<T, R> {}

impl<T: fmt::Debug, R> fmt::Debug for Checked<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: fmt::Display, R> fmt::Display for Checked<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: PartialEq, R> PartialEq for Checked<T, R> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq, R> Eq for Checked<T, R> {}

impl<T: PartialOrd, R> PartialOrd for Checked<T, R> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<T: std::hash::Hash, R> std::hash::Hash for Checked<T, R> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state)
    }
}

impl<T, R> AsRef<T> for Checked<T, R> {
    fn as_ref(&self) -> &T {
        &self.value
    }
}
