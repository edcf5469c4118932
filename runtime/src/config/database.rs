//! Where the links live: a SQLite file or a PostgreSQL url, told apart by the setting's
//! spelling, and logged without a password.

use std::path::PathBuf;

use crate::mcp::Secret;

/// Where the links live.
#[derive(Clone, Debug)]
pub enum Database {
    /// A SQLite file (`:memory:` for a throwaway store): one node.
    Sqlite(PathBuf),
    /// A PostgreSQL url (`postgres://user:password@host:port/db`, a secret: it may carry the
    /// password): any number of nodes share it.
    Postgres(Secret),
}

impl Database {
    /// A `postgres://` or `postgresql://` url is PostgreSQL; anything else is a SQLite path.
    pub fn from_setting(value: PathBuf) -> Database {
        match value.to_str().filter(|v| is_postgres_url(v)).and_then(Secret::new) {
            Some(url) => Database::Postgres(url),
            None => Database::Sqlite(value),
        }
    }

    /// What a log line may say: the path, or the url without its password.
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => path.display().to_string(),
            Database::Postgres(url) => without_password(url.expose()),
        }
    }
}

/// A PostgreSQL url split into what the driver reads and the `schema=NAME` parameter of ours
/// (several stores in one database: a schema each). A name is lower-case letters, digits and
/// `_`, not starting with a digit.
pub fn postgres_schema(url: &str) -> Result<(String, Option<String>), String> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None));
    };
    let mut schema = None;
    let mut rest = Vec::new();
    for part in query.split('&') {
        match part.strip_prefix("schema=") {
            Some(name) => schema = Some(name.to_string()),
            None => rest.push(part),
        }
    }
    if let Some(name) = &schema {
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            && name.len() <= 63
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid {
            return Err(format!(
                "the database url's schema {name:?} must be 1 to 63 lower-case letters, digits and _, not starting with a digit"
            ));
        }
    }
    let url = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((url, schema))
}

pub(crate) fn is_postgres_url(value: &str) -> bool {
    value.starts_with("postgres://") || value.starts_with("postgresql://")
}

/// The url with the password of its user part and any `password=` parameter starred out.
fn without_password(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{name}:***@{host}"),
            None => format!("{user}@{host}"),
        },
        None => authority.to_string(),
    };
    let tail: Vec<String> = tail
        .split('&')
        .map(|part| match part.find("password=") {
            Some(i) if i == 0 || part[..i].ends_with('?') => format!("{}password=***", &part[..i]),
            _ => part.to_string(),
        })
        .collect();
    format!("{scheme}://{authority}{}", tail.join("&"))
}

/// `$XDG_DATA_HOME/shacl-mcp/store.db`, else `~/.local/share/shacl-mcp/store.db`
/// (`~/Library/Application Support/shacl-mcp/store.db` on macOS), else `./shacl-mcp.db`.
pub fn default_db() -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let base = if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library/Application Support"))
    } else {
        std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".local/share")))
    };
    match base {
        Some(dir) => dir.join("shacl-mcp").join("store.db"),
        None => PathBuf::from("shacl-mcp.db"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postgres_url_is_told_from_a_path_and_logged_without_its_password() {
        let db = Database::from_setting(PathBuf::from(
            "postgres://app:s3cret@db.internal:5432/links?password=x&sslmode=disable",
        ));
        let Database::Postgres(url) = &db else { panic!("{db:?}") };
        assert!(url.expose().contains("s3cret"));
        let logged = db.describe();
        assert_eq!(
            logged,
            "postgres://app:***@db.internal:5432/links?password=***&sslmode=disable"
        );
        assert!(!format!("{db:?}").contains("s3cret"));
        assert_eq!(
            Database::from_setting(PathBuf::from("postgresql://h/db")).describe(),
            "postgresql://h/db"
        );
        assert_eq!(
            postgres_schema("postgres://h/db?sslmode=disable&schema=tenant_a").unwrap(),
            (
                "postgres://h/db?sslmode=disable".to_string(),
                Some("tenant_a".to_string())
            )
        );
        assert_eq!(
            postgres_schema("postgres://h/db").unwrap(),
            ("postgres://h/db".to_string(), None)
        );
        assert!(postgres_schema("postgres://h/db?schema=Robert'); DROP").is_err());
        for path in ["store.db", ":memory:", "postgres.db", "./postgres://x"] {
            assert!(
                matches!(Database::from_setting(PathBuf::from(path)), Database::Sqlite(_)),
                "{path}"
            );
        }
    }
}
