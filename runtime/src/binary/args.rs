//! A generated server's command line, read by hand from the settings table
//! ([`crate::config::SETTINGS`]): the same flags, values and help texts as `shacl-mcp serve`'s
//! (clap), less those not [`in_binary`](crate::config::Setting::in_binary).

use std::collections::HashSet;
use std::ffi::OsString;
use std::iter::Peekable;
use std::path::PathBuf;
use std::slice::Iter;

use crate::config::{CONFIG_FLAG, DEFAULT_HTTP, EXCLUSIVE, Flags, Kind, SETTINGS, Setting, config_help};

pub(super) enum Parsed {
    Flags(Box<Flags>),
    Help,
    Version,
}

type Args<'a> = Peekable<Iter<'a, OsString>>;

pub(super) fn parse(args: &[OsString]) -> Result<Parsed, String> {
    let mut flags = Flags::default();
    let mut given: HashSet<&str> = HashSet::new();
    let mut rest = args.iter().peekable();
    while let Some(arg) = rest.next() {
        let text = arg.to_str().ok_or_else(|| format!("unknown argument {arg:?}"))?;
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(OsString::from(value))),
            _ => (text, None),
        };
        match flag {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            _ => {}
        }
        let name = flag.strip_prefix("--").unwrap_or_default();
        if name == CONFIG_FLAG {
            flags.config = Some(PathBuf::from(one_value(flag, "FILE", inline, &mut rest)?));
            continue;
        }
        let Some(setting) = SETTINGS.iter().find(|s| s.flag == name && !name.is_empty()) else {
            return Err(format!("unknown argument {text:?}"));
        };
        if !setting.in_binary {
            return Err(format!(
                "this server's DNA is compiled in; {flag} is for `shacl-mcp serve`"
            ));
        }
        for value in values(setting, inline, &mut rest)? {
            flags
                .settings
                .take(setting.name, &value)
                .map_err(|e| format!("{flag} {e}"))?;
        }
        given.insert(setting.flag);
    }
    for (a, b) in EXCLUSIVE {
        if given.contains(a) && given.contains(b) {
            return Err(format!("--{a} and --{b} exclude each other"));
        }
    }
    Ok(Parsed::Flags(Box::new(flags)))
}

/// The values one occurrence of `setting`'s flag gives, as its kind takes them.
fn values(setting: &Setting, inline: Option<OsString>, rest: &mut Args<'_>) -> Result<Vec<OsString>, String> {
    let flag = format!("--{}", setting.flag);
    let is_flag = |arg: &&OsString| arg.to_str().is_some_and(|a| a.starts_with('-'));
    match setting.kind {
        Kind::Switch if inline.is_some() => Err(format!("{flag} takes no value")),
        Kind::Switch => Ok(vec!["true".into()]),
        Kind::Value | Kind::Repeated => Ok(vec![one_value(&flag, setting.value_name, inline, rest)?]),
        Kind::OptionalValue { missing } => {
            let value = inline.or_else(|| rest.next_if(|a| !is_flag(a)).cloned());
            Ok(vec![value.unwrap_or_else(|| missing.into())])
        }
        Kind::Values => {
            let mut values: Vec<OsString> = inline.into_iter().collect();
            while let Some(value) = rest.next_if(|a| !is_flag(a)) {
                values.push(value.clone());
            }
            if values.is_empty() {
                return Err(format!("{flag} needs {}", setting.value_name));
            }
            Ok(values)
        }
    }
}

/// The value after `--flag=` or the next argument, whatever it is.
fn one_value(flag: &str, what: &str, inline: Option<OsString>, rest: &mut Args<'_>) -> Result<OsString, String> {
    inline
        .or_else(|| rest.next().cloned())
        .ok_or_else(|| format!("{flag} needs {what}"))
}

/// The settings a generated binary takes.
fn binary_settings() -> impl Iterator<Item = &'static Setting> {
    SETTINGS.iter().filter(|s| s.in_binary)
}

/// `Usage: NAME [--db PATH|URL] [--stdio | --http [ADDR]] ...`, wrapped.
pub(super) fn synopsis(name: &str) -> String {
    let mut items: Vec<String> = Vec::new();
    for setting in binary_settings() {
        if EXCLUSIVE.iter().any(|(_, b)| *b == setting.flag) {
            continue;
        }
        let partner = EXCLUSIVE
            .iter()
            .find(|(a, _)| *a == setting.flag)
            .and_then(|(_, b)| SETTINGS.iter().find(|s| s.flag == *b));
        items.push(match (partner, setting.kind) {
            (Some(other), _) => format!("[{} | {}]", setting.flag_and_value(), other.flag_and_value()),
            (None, Kind::Repeated) => format!("[{}]...", setting.flag_and_value()),
            (None, _) => format!("[{}]", setting.flag_and_value()),
        });
    }
    items.push(format!("[--{CONFIG_FLAG} FILE]"));
    let lead = format!("Usage: {name} ");
    wrap(&lead, &" ".repeat(lead.len()), items.iter().map(String::as_str))
}

/// The default a generated binary has where it differs from `shacl-mcp serve`'s.
fn binary_default(setting: &Setting) -> String {
    match setting.name {
        "dynamic_class_tools" => super::CLASS_TOOLS.to_string(),
        _ => setting.default.to_string(),
    }
}

/// `--help`: the synopsis, each flag with its help, and where the secrets come from.
pub(crate) fn usage(name: &str) -> String {
    let mut text = synopsis(name);
    text.push_str(&format!(
        "\n\nAn MCP server for its compiled DNA: stdio by default, streamable HTTP at /mcp with --http\n\
         (at {DEFAULT_HTTP} unless given an address).\n\nOptions:\n"
    ));
    let indent = " ".repeat(10);
    for setting in binary_settings() {
        let help = setting.help_with_default(&binary_default(setting));
        let help = wrap(&indent, &indent, help.split_whitespace());
        text.push_str(&format!("  {}\n{help}\n", setting.flag_and_value()));
    }
    let help = wrap(&indent, &indent, config_help().split_whitespace());
    text.push_str(&format!("  --{CONFIG_FLAG} FILE\n{help}\n"));
    text.push_str("  -h, --help\n          Print this help\n  -V, --version\n          Print the version\n");
    text.push_str(
        "\nThe admin credential comes from SHACL_MCP_ADMIN_CREDENTIAL or --admin-credential-file.\n\
         Multi-user mode signs tokens with SHACL_MCP_JWT_SECRET, else a secret generated into\n\
         <db>.jwt-secret; SMTP credentials come from SHACL_MCP_SMTP_USER and SHACL_MCP_SMTP_PASSWORD.",
    );
    text
}

/// `words` in lines of at most 100 characters (a longer word stays whole): the first line
/// after `first`, the others after `next`.
fn wrap<'a>(first: &str, next: &str, words: impl Iterator<Item = &'a str>) -> String {
    const WIDTH: usize = 100;
    let mut out = first.to_string();
    let mut line = first.chars().count();
    let mut fresh = true;
    for word in words {
        let len = word.chars().count();
        if !fresh && line + 1 + len > WIDTH {
            out.push('\n');
            out.push_str(next);
            line = next.chars().count();
            fresh = true;
        }
        if !fresh {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
        fresh = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Result<Flags, String> {
        match parse(&args.iter().map(OsString::from).collect::<Vec<_>>())? {
            Parsed::Flags(f) => Ok(*f),
            _ => Err("not flags".into()),
        }
    }

    #[test]
    fn parses_the_serve_flags() {
        let f = flags(&["--http", "--db", ":memory:", "--dynamic-class-tools=false"])
            .unwrap()
            .settings;
        assert_eq!(f.http.as_deref(), Some(DEFAULT_HTTP));
        assert_eq!(f.db, Some(PathBuf::from(":memory:")));
        assert_eq!(f.dynamic_class_tools, Some(false));
        let f = flags(&["--http", "127.0.0.1:4000", "--allowed-host", "a", "--allowed-host", "b"])
            .unwrap()
            .settings;
        assert_eq!(f.http.as_deref(), Some("127.0.0.1:4000"));
        assert_eq!(f.allowed_hosts.unwrap(), ["a", "b"]);
        assert!(flags(&["--dna", "x.json"]).unwrap_err().contains("compiled in"));
        assert!(flags(&["--dynamic-class-tools", "yes"]).is_err());
        assert!(flags(&["--stdio", "--http"]).is_err());
        assert!(flags(&["--frob"]).is_err());
        assert!(flags(&["--"]).is_err());
        assert!(flags(&["--stdio=true"]).is_err());
        assert!(flags(&["--db"]).unwrap_err().contains("--db needs PATH|URL"));
        let f = flags(&["--multi-user", "--http"]).unwrap().settings;
        assert_eq!((f.multi_user, f.http.is_some()), (Some(true), true));
        let f = flags(&[
            "--multi-user",
            "false",
            "--email-verification",
            "true",
            "--email-outbox",
            "out",
        ])
        .unwrap()
        .settings;
        assert_eq!((f.multi_user, f.email_verification), (Some(false), Some(true)));
        assert_eq!(f.email_outbox, Some(PathBuf::from("out")));
        assert_eq!(flags(&["--multi-user=true"]).unwrap().settings.multi_user, Some(true));
        assert!(flags(&["--multi-user=maybe"]).is_err());
        assert_eq!(flags(&["--max-body", "512"]).unwrap().settings.max_body, Some(512));
        assert_eq!(
            flags(&["--config", "c.toml"]).unwrap().config,
            Some(PathBuf::from("c.toml"))
        );
        let config = flags(&[]).unwrap().into_config(super::super::CLASS_TOOLS).unwrap();
        assert!(
            config.server.class_tools,
            "a generated binary has per-class tools on by default"
        );
    }

    #[test]
    fn usage_lists_every_flag_but_dna() {
        let text = usage("demo");
        assert!(
            text.starts_with("Usage: demo [--db PATH|URL] [--stdio | --http [ADDR]]"),
            "{text}"
        );
        assert!(text.contains("[--allowed-host HOST]..."), "{text}");
        assert!(text.contains("Per-class tools (`channel_create`, ...) beside the static ones. [default: true]"));
        assert!(!text.contains("--dna"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    }
}
