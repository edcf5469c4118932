//! How a setting's value is read from the command line (one occurrence of the flag at a time)
//! and taken from a config file's folder. The type of a setting decides it, so the table lists
//! each setting's type once and the flag parsers of `shacl-mcp serve` and of generated
//! binaries read it the same way.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::is_postgres_url;

/// The type of a setting's value.
pub trait SettingValue: Sized {
    /// Takes one value given on the command line: sets the setting, or adds to a list.
    fn take(slot: &mut Option<Self>, text: &OsStr) -> Result<(), String>;
    /// Whether `text` would be taken (the command line's parsers check a value as they meet it).
    fn check(text: &OsStr) -> Result<(), String>;
    /// Paths in a config file are relative to its folder.
    fn rebase(&mut self, _base: &Path) {}
}

/// A single value: what a list holds, or a setting of its own.
trait Scalar: Sized {
    fn parse(text: &OsStr) -> Result<Self, String>;
    fn rebase(&mut self, _base: &Path) {}
}

fn utf8(text: &OsStr) -> Result<&str, String> {
    text.to_str().ok_or_else(|| format!("takes UTF-8 text, not {text:?}"))
}

impl Scalar for String {
    fn parse(text: &OsStr) -> Result<Self, String> {
        utf8(text).map(str::to_string)
    }
}

impl Scalar for PathBuf {
    fn parse(text: &OsStr) -> Result<Self, String> {
        Ok(PathBuf::from(text))
    }

    /// `:memory:` and a PostgreSQL url are not paths.
    fn rebase(&mut self, base: &Path) {
        let not_a_path = self.as_os_str() == ":memory:" || self.to_str().is_some_and(is_postgres_url);
        if self.is_relative() && !not_a_path {
            *self = base.join(&*self);
        }
    }
}

impl Scalar for bool {
    fn parse(text: &OsStr) -> Result<Self, String> {
        match utf8(text)? {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(format!("takes true or false, not {other:?}")),
        }
    }
}

impl Scalar for usize {
    fn parse(text: &OsStr) -> Result<Self, String> {
        let text = utf8(text)?;
        text.parse().map_err(|_| format!("takes a whole number, not {text:?}"))
    }
}

/// A setting of one value: the last one given counts.
macro_rules! single_value {
    ($($type:ty),+) => {$(
        impl SettingValue for $type {
            fn take(slot: &mut Option<Self>, text: &OsStr) -> Result<(), String> {
                *slot = Some(<$type as Scalar>::parse(text)?);
                Ok(())
            }

            fn check(text: &OsStr) -> Result<(), String> {
                <$type as Scalar>::parse(text).map(drop)
            }

            fn rebase(&mut self, base: &Path) {
                Scalar::rebase(self, base);
            }
        }
    )+};
}

single_value!(String, PathBuf, bool, usize);

/// A list: every value given adds to it.
impl<T: Scalar> SettingValue for Vec<T> {
    fn take(slot: &mut Option<Self>, text: &OsStr) -> Result<(), String> {
        slot.get_or_insert_with(Vec::new).push(T::parse(text)?);
        Ok(())
    }

    fn check(text: &OsStr) -> Result<(), String> {
        T::parse(text).map(drop)
    }

    fn rebase(&mut self, base: &Path) {
        self.iter_mut().for_each(|item| item.rebase(base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_by_their_type() {
        let mut flag = None;
        bool::take(&mut flag, "false".as_ref()).unwrap();
        assert_eq!(flag, Some(false));
        assert_eq!(
            bool::check("yes".as_ref()).unwrap_err(),
            "takes true or false, not \"yes\""
        );
        assert!(usize::check("4k".as_ref()).is_err());
        let mut hosts: Option<Vec<String>> = None;
        Vec::<String>::take(&mut hosts, "a".as_ref()).unwrap();
        Vec::<String>::take(&mut hosts, "b".as_ref()).unwrap();
        assert_eq!(hosts.unwrap(), ["a", "b"]);
    }

    #[test]
    fn paths_but_not_urls_are_rebased() {
        let base = Path::new("/etc/shacl");
        for (given, rebased) in [
            ("store.db", "/etc/shacl/store.db"),
            ("/var/store.db", "/var/store.db"),
            (":memory:", ":memory:"),
            ("postgres://h/db", "postgres://h/db"),
        ] {
            let mut path = PathBuf::from(given);
            SettingValue::rebase(&mut path, base);
            assert_eq!(path, PathBuf::from(rebased), "{given}");
        }
    }
}
