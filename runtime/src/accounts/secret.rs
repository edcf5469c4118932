//! The token-signing secret: `SHACL_MCP_JWT_SECRET`, else a file beside the database
//! (`<db>.jwt-secret`, mode 0600) written with a fresh random secret on first run, else (for
//! `:memory:`) a random secret that lives as long as the process.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::jwt::JwtKey;

/// The environment variable that holds the token-signing secret (every node behind one load
/// balancer needs the same).
pub const JWT_SECRET_ENV: &str = "SHACL_MCP_JWT_SECRET";
/// The shortest secret accepted, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

/// The file that keeps the generated secret of the database at `db`.
pub fn secret_file(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(".jwt-secret");
    PathBuf::from(name)
}

/// The secret in `env` (the value of [`JWT_SECRET_ENV`]); `None` when it is unset or blank.
/// Nodes sharing a database take it from there only: each must sign as the others do.
pub fn from_env(env: Option<String>) -> Result<Option<JwtKey>, String> {
    let Some(value) = env.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    let value = value.trim();
    if value.len() < MIN_SECRET_LEN {
        return Err(format!(
            "{JWT_SECRET_ENV} must be at least {MIN_SECRET_LEN} characters long"
        ));
    }
    Ok(Some(JwtKey::new(value.as_bytes())))
}

/// The secret for the database at `db`, from `env` (the value of [`JWT_SECRET_ENV`]) or the
/// secret file. Errors name the file or the variable, never the secret.
pub fn load(db: &Path, env: Option<String>) -> Result<JwtKey, String> {
    if let Some(key) = from_env(env)? {
        return Ok(key);
    }
    if db == Path::new(":memory:") {
        return Ok(JwtKey::new(random()?.as_bytes()));
    }
    let path = secret_file(db);
    match read(&path)? {
        Some(secret) => Ok(JwtKey::new(secret.as_bytes())),
        None => {
            let secret = random()?;
            if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
                std::fs::create_dir_all(folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
            }
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(mut file) => {
                    file.write_all(format!("{secret}\n").as_bytes())
                        .and_then(|_| file.sync_all())
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    tracing::info!(kind = "auth", file = %path.display(), "generated the token-signing secret");
                    Ok(JwtKey::new(secret.as_bytes()))
                }
                // Another process wrote it first: use theirs.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read(&path)?
                    .map(|s| JwtKey::new(s.as_bytes()))
                    .ok_or_else(|| format!("{} is empty", path.display())),
                Err(e) => Err(format!("cannot create {}: {e}", path.display())),
            }
        }
    }
}

fn read(path: &Path) -> Result<Option<String>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            tracing::warn!(kind = "auth", file = %path.display(), "the token-signing secret is readable by others: chmod 600 it");
        }
    }
    let secret = text.lines().next().unwrap_or_default().trim().to_string();
    if secret.len() < MIN_SECRET_LEN {
        return Err(format!(
            "{} holds a secret shorter than {MIN_SECRET_LEN} characters",
            path.display()
        ));
    }
    Ok(Some(secret))
}

/// 32 random bytes as base64url (43 characters).
fn random() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for the token secret: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}
