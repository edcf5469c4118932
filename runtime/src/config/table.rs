//! The shape of the settings table ([`super::settings`]): what is known of each setting, and the
//! macro that turns the table into the [`Settings`](super::Settings) struct (the flags as given,
//! and the config file's keys) and the [`SETTINGS`](super::SETTINGS) list the command-line
//! parsers and the help texts are made from.

/// One serve setting: everything the flag parsers, the help texts and the config file need.
#[derive(Debug)]
pub struct Setting {
    /// The field of [`Settings`](super::Settings).
    pub name: &'static str,
    /// The flag, without its `--`.
    pub flag: &'static str,
    /// The config file's key (camelCase).
    pub key: &'static str,
    /// What the value is called in help texts (`FILE`, `true|false`); empty for a switch.
    pub value_name: &'static str,
    pub kind: Kind,
    /// The value when the setting is not given, as help texts show it; empty when there is
    /// nothing worth saying (off, none, or explained in `help`).
    pub default: &'static str,
    pub help: &'static str,
    /// The value may be a secret (a password in a url): never shown in full by `Debug`.
    pub secret: bool,
    /// Generated server binaries take the flag (not `--dna`: their DNA is compiled in).
    pub in_binary: bool,
    /// Whether a value is one this setting takes.
    pub check: fn(&std::ffi::OsStr) -> Result<(), String>,
}

/// How a flag takes its value on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `--stdio`: no value; given means true.
    Switch,
    /// `--db PATH`: exactly one value.
    Value,
    /// `--http [ADDR]`: the value may be left out, and then it is `missing`. A next argument
    /// that starts with `-` is the next flag, not the value.
    OptionalValue { missing: &'static str },
    /// `--allowed-host HOST`, repeatable: the values add up.
    Repeated,
    /// `--dna FILE...`: one or more values (every next argument up to a flag), repeatable.
    Values,
}

impl Setting {
    /// The flag and its value as a synopsis shows them: `--db PATH|URL`, `--http [ADDR]`.
    pub fn flag_and_value(&self) -> String {
        match self.kind {
            Kind::Switch => format!("--{}", self.flag),
            Kind::Value | Kind::Repeated => format!("--{} {}", self.flag, self.value_name),
            Kind::OptionalValue { .. } => format!("--{} [{}]", self.flag, self.value_name),
            Kind::Values => format!("--{} {}...", self.flag, self.value_name),
        }
    }

    /// The help text with the default, when there is one worth saying.
    pub fn help_with_default(&self, default: &str) -> String {
        match (default, self.kind) {
            ("", Kind::OptionalValue { missing }) => format!("{} [alone: {missing}]", self.help),
            ("", _) => self.help.to_string(),
            (default, Kind::OptionalValue { missing }) => {
                format!("{} [default: {default}; alone: {missing}]", self.help)
            }
            (default, _) => format!("{} [default: {default}]", self.help),
        }
    }
}

/// The table: each setting once, with its doc comment as its help text.
///
/// ```text
/// /// Help text.
/// field: Type { flag: "flag-name", key: "configKey", value: "VALUE", kind: Kind::Value,
///               default: "shown default", secret: true, in_binary: false },
/// ```
///
/// `default`, `secret` (false) and `in_binary` (true) may be left out, in that order.
macro_rules! serve_settings {
    ($(
        $(#[doc = $help:literal])+
        $field:ident: $type:ty {
            flag: $flag:literal, key: $key:literal, value: $value:literal, kind: $kind:expr
            $(, default: $default:expr)? $(, secret: $secret:literal)? $(, in_binary: $in_binary:literal)? $(,)?
        }
    ),+ $(,)?) => {
        /// The serve settings as given in one place (the command line, a config file, a
        /// program's defaults): each `None` when not given there. As a config file it has the
        /// keys of [`SETTINGS`] and no others.
        #[derive(Clone, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Settings {
            $(
                $(#[doc = $help])+
                #[serde(rename = $key)]
                pub $field: Option<$type>,
            )+
        }

        /// Every serve setting, in the order help texts list them.
        pub const SETTINGS: &[$crate::config::table::Setting] = &[$(
            $crate::config::table::Setting {
                name: stringify!($field),
                flag: $flag,
                key: $key,
                value_name: $value,
                kind: $kind,
                default: { let _shown: &str = ""; $(let _shown: &str = $default;)? _shown },
                help: concat!($($help),+).trim_ascii(),
                secret: false $(|| $secret)?,
                in_binary: true $(&& $in_binary)?,
                check: <$type as $crate::config::SettingValue>::check,
            },
        )+];

        impl Settings {
            /// Takes one value of the setting `name` (a field name) given on the command line.
            pub fn take(&mut self, name: &str, text: &std::ffi::OsStr) -> Result<(), String> {
                match name {
                    $(stringify!($field) => $crate::config::SettingValue::take(&mut self.$field, text),)+
                    _ => Err(format!("there is no setting {name:?}")),
                }
            }

            /// Each setting from `self` when given there, else from `fallback`.
            pub fn or(self, fallback: Settings) -> Settings {
                Settings { $($field: self.$field.or(fallback.$field),)+ }
            }

            /// Relative paths taken from `base` (a config file's folder).
            pub(crate) fn rebase(&mut self, base: &std::path::Path) {
                $(if let Some(value) = &mut self.$field {
                    $crate::config::SettingValue::rebase(value, base);
                })+
            }
        }

        /// Secrets (a url's password) show as `***`.
        impl std::fmt::Debug for Settings {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut out = f.debug_struct("Settings");
                $(
                    let secret = false $(|| $secret)?;
                    match &self.$field {
                        Some(_) if secret => out.field(stringify!($field), &Some("***")),
                        value => out.field(stringify!($field), value),
                    };
                )+
                out.finish()
            }
        }
    };
}

pub(crate) use serve_settings;
