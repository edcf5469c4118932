//! `shacl-mcp serve`: any DNA, no compile.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::config::{CONFIG_FLAG, EXCLUSIVE, Flags, Kind, SETTINGS, Setting, Settings, config_help};
use crate::engine::FixedDna;

/// The flags of `shacl-mcp serve`: clap arguments made from the settings table.
#[derive(Debug)]
pub struct ServeArgs(Flags);

impl clap::Args for ServeArgs {
    fn augment_args(command: Command) -> Command {
        let command = command.args(SETTINGS.iter().map(|setting| argument(setting, None)));
        command.arg(
            Arg::new(CONFIG_FLAG)
                .long(CONFIG_FLAG)
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help(config_help()),
        )
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for ServeArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(ServeArgs(Flags {
            settings: settings_from(matches, SETTINGS.iter())?,
            config: matches.get_one::<PathBuf>(CONFIG_FLAG).cloned(),
        }))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// The values clap read for `settings`, each taken as the table says.
pub(super) fn settings_from<'a>(
    matches: &ArgMatches,
    settings: impl Iterator<Item = &'a Setting>,
) -> Result<Settings, clap::Error> {
    let mut taken = Settings::default();
    for setting in settings {
        let given: Vec<OsString> = match setting.kind {
            Kind::Switch if matches.get_flag(setting.name) => vec!["true".into()],
            Kind::Switch => Vec::new(),
            _ => matches
                .get_many::<OsString>(setting.name)
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
        };
        for value in given {
            // Checked by the value parser already: this cannot fail, and is not unwrapped.
            taken
                .take(setting.name, &value)
                .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e))?;
        }
    }
    Ok(taken)
}

/// The clap argument of one setting (its id is the setting's name), with the default the
/// command gives it when that is not the table's.
pub(super) fn argument(setting: &'static Setting, default: Option<&str>) -> Arg {
    let arg = Arg::new(setting.name)
        .long(setting.flag)
        .help(setting.help_with_default(default.unwrap_or(setting.default)));
    let arg = match setting.kind {
        Kind::Switch => return arg.action(ArgAction::SetTrue).conflicts_with_all(partners(setting)),
        Kind::Value => arg.action(ArgAction::Set),
        Kind::OptionalValue { missing } => arg
            .action(ArgAction::Set)
            .num_args(0..=1)
            .default_missing_value(missing),
        Kind::Repeated => arg.action(ArgAction::Append),
        Kind::Values => arg.action(ArgAction::Append).num_args(1..),
    };
    arg.value_name(setting.value_name)
        .value_parser(Checked(setting))
        .conflicts_with_all(partners(setting))
}

/// The settings `setting` excludes on the command line.
fn partners(setting: &Setting) -> Vec<&'static str> {
    EXCLUSIVE
        .iter()
        .filter_map(|(a, b)| match setting.flag {
            f if f == *a => Some(*b),
            f if f == *b => Some(*a),
            _ => None,
        })
        .filter_map(|flag| SETTINGS.iter().find(|s| s.flag == flag).map(|s| s.name))
        .collect()
}

/// A value checked as the setting's type reads it (the same words as a generated binary's
/// errors), kept as given.
#[derive(Clone)]
struct Checked(&'static Setting);

impl TypedValueParser for Checked {
    type Value = OsString;

    fn parse_ref(&self, command: &Command, _arg: Option<&Arg>, value: &OsStr) -> Result<OsString, clap::Error> {
        (self.0.check)(value).map(|()| value.to_owned()).map_err(|e| {
            let message = format!("invalid value {value:?} for --{}: it {e}", self.0.flag);
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, message).with_cmd(command)
        })
    }
}

impl ServeArgs {
    fn into_flags(self) -> Flags {
        self.0
    }
}

/// Per-class tools are off in `shacl-mcp serve` unless `--dynamic-class-tools true`.
const CLASS_TOOLS: bool = false;

/// Runs the server; the exit code is 1 for a bad DNA or configuration.
pub fn run(args: ServeArgs) -> std::process::ExitCode {
    crate::run::init_logging();
    let config = match args.into_flags().into_config(CLASS_TOOLS) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let fixed = if config.dna.is_empty() {
        FixedDna::empty()
    } else {
        match FixedDna::load(&config.dna) {
            Ok((fixed, notes)) => {
                if !notes.0.is_empty() {
                    eprintln!("{notes}");
                }
                fixed
            }
            Err(diags) => {
                eprintln!("{diags}");
                return std::process::ExitCode::from(1);
            }
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    match runtime.block_on(crate::run::serve(
        config,
        fixed,
        "shacl-mcp",
        env!("CARGO_PKG_VERSION"),
        Vec::new(),
    )) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use clap::CommandFactory;

    use super::*;
    use crate::config::Settings;

    /// Every `--flag` a help text names.
    fn flags_in(text: &str) -> BTreeSet<String> {
        text.split(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .filter(|word| word.starts_with("--") && word.len() > 2)
            .map(str::to_string)
            .collect()
    }

    /// The keys the `--config` help of a help text lists.
    fn keys_in(text: &str) -> Vec<String> {
        let start = text.find("camelCase (").expect("the config help") + "camelCase (".len();
        let end = start + text[start..].find(')').expect("the end of the keys");
        text[start..end]
            .split(',')
            .map(|k| k.split_whitespace().collect())
            .collect()
    }

    /// A config file that sets every setting, each to a value of its type.
    fn every_key() -> String {
        let value = |s: &Setting| match (s.kind, s.value_name) {
            (Kind::Switch, _) | (_, "true|false") => "true".to_string(),
            (_, "BYTES") => "1024".to_string(),
            (Kind::Repeated | Kind::Values, _) => "[\"x\"]".to_string(),
            _ => "\"x\"".to_string(),
        };
        SETTINGS.iter().map(|s| format!("{} = {}\n", s.key, value(s))).collect()
    }

    #[test]
    fn clap_the_generated_binary_and_the_config_file_list_the_same_settings() {
        let mut command = crate::cli::Cli::command();
        let serve = command.find_subcommand_mut("serve").expect("serve");
        let clap_help = serve.render_long_help().to_string();
        let binary_help = crate::binary::usage("demo");

        let mut expected: BTreeSet<String> = SETTINGS.iter().map(|s| format!("--{}", s.flag)).collect();
        expected.insert(format!("--{CONFIG_FLAG}"));
        expected.insert("--help".into());
        assert_eq!(flags_in(&clap_help), expected, "{clap_help}");
        expected.insert("--version".into());
        expected.remove("--dna");
        assert_eq!(flags_in(&binary_help), expected, "{binary_help}");

        let keys: Vec<String> = SETTINGS.iter().map(|s| s.key.to_string()).collect();
        assert_eq!(keys.len(), 16);
        assert_eq!(keys_in(&clap_help), keys);
        assert_eq!(keys_in(&binary_help), keys);
        let file = every_key();
        let read: Result<Settings, _> = toml::from_str(&file);
        assert!(read.is_ok(), "{file}: {:?}", read.err());
        for setting in SETTINGS {
            let help = setting.help.split_whitespace().collect::<Vec<_>>().join(" ");
            for text in [&clap_help, &binary_help] {
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(!setting.in_binary || text.contains(&help), "{help}");
            }
            let misspelt = file.replace(&format!("{} =", setting.key), &format!("{}s =", setting.key));
            assert!(toml::from_str::<Settings>(&misspelt).is_err(), "{misspelt}");
        }
    }

    #[test]
    fn clap_reads_the_flags_as_the_table_says() {
        let parse = |args: &[&str]| {
            let command = <ServeArgs as clap::Args>::augment_args(Command::new("serve"));
            let matches = command.try_get_matches_from(std::iter::once("serve").chain(args.iter().copied()))?;
            <ServeArgs as clap::FromArgMatches>::from_arg_matches(&matches).map(ServeArgs::into_flags)
        };
        let flags = parse(&[
            "--dna",
            "a.json",
            "b.ttl",
            "--http",
            "--multi-user",
            "--allowed-host",
            "h",
        ])
        .unwrap();
        let given = &flags.settings;
        assert_eq!(given.dna, Some(vec![PathBuf::from("a.json"), PathBuf::from("b.ttl")]));
        assert_eq!(given.http.as_deref(), Some(crate::config::DEFAULT_HTTP));
        assert_eq!((given.multi_user, given.stdio), (Some(true), None));
        assert_eq!(given.allowed_hosts, Some(vec!["h".to_string()]));
        let flags = parse(&["--stdio", "--max-body=10", "--config", "c.toml"]).unwrap();
        assert_eq!((flags.settings.stdio, flags.settings.max_body), (Some(true), Some(10)));
        assert_eq!(flags.config, Some(PathBuf::from("c.toml")));
        assert!(parse(&["--stdio", "--http"]).is_err());
        assert!(parse(&["--http-sessions", "yes"]).is_err());
        assert!(parse(&["--multi-user", "maybe"]).is_err());
    }
}
