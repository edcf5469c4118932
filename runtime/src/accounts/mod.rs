//! Multi-user mode (`--multi-user`): accounts, tokens and email verification.
//!
//! - `signup(email, password)` creates a user with an argon2id password hash and an Ed25519 key
//!   of their own (their DID, the author of the links they write), kept in the store's `users`
//!   table ([`UserStore`]);
//! - `login_email` answers an HS256 JWT ([`jwt`]): `sub` the user's DID, `email`, `iss`, `aud`,
//!   `iat`, `exp`; the secret comes from `SHACL_MCP_JWT_SECRET` or a 0600 file beside the
//!   database ([`secret`]);
//! - with email verification on, `signup` and `request_login_verification` mail a 6-digit code
//!   (single use, expiring, a few attempts; the store keeps only an HMAC of it), which
//!   `verify_email_code` exchanges for a token; a signed-up account logs in only once verified;
//! - failed logins and wrong codes are limited per account and per client address, codes sent
//!   likewise ([`limits`]).
//!
//! Secrets stay secret: no password, token or code is ever logged or answered, except the
//! token in the answer of the call that logs in.

mod jwt;
mod limits;
mod mail;
mod password;
mod secret;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub use jwt::{Claims, JwtKey, TokenRefusal};
pub use limits::{Limit, Limits};
pub use mail::{DEFAULT_FROM, Mail, Mailer};
pub use password::{MAX_PASSWORD_LEN, MIN_PASSWORD_LEN};
pub use secret::{
    JWT_SECRET_ENV, MIN_SECRET_LEN, from_env as jwt_secret_from_env, load as load_jwt_secret, secret_file,
};

use self::limits::Counter;
use crate::clock::{Clock, format_rfc3339_micros};
use crate::engine::{Problem, ToolError};
use crate::store::{AuthorKey, CodeCheck, EventLog, NewUser, StoreError, UserRecord, UserStore};

/// How accounts behave.
#[derive(Debug)]
pub struct AccountOptions {
    /// `--email-verification`: signup and code logins by mail; needs a mailer.
    pub email_verification: bool,
    pub mailer: Option<Mailer>,
    /// How long a token is good for (24 hours).
    pub token_ttl: Duration,
    /// `iss` and `aud` of the tokens issued and accepted.
    pub issuer: String,
    pub audience: String,
    pub limits: Limits,
    /// How long a mailed code is good for (10 minutes), and how many tries it allows (5).
    pub code_ttl: Duration,
    pub code_attempts: u32,
}

/// The issuer and audience of tokens unless configured otherwise.
pub const DEFAULT_ISSUER: &str = "shacl-mcp";
pub const DEFAULT_AUDIENCE: &str = "shacl-mcp";

impl Default for AccountOptions {
    fn default() -> Self {
        AccountOptions {
            email_verification: false,
            mailer: None,
            token_ttl: Duration::from_secs(24 * 3600),
            issuer: DEFAULT_ISSUER.to_string(),
            audience: DEFAULT_AUDIENCE.to_string(),
            limits: Limits::default(),
            code_ttl: Duration::from_secs(600),
            code_attempts: 5,
        }
    }
}

/// A user a valid token names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserIdentity {
    pub did: String,
    pub email: String,
    /// When the token expires, seconds since the Unix epoch.
    pub expires: i64,
}

/// Which flow a mailed code finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeKind {
    Signup,
    Login,
}

impl CodeKind {
    pub fn parse(text: &str) -> Option<CodeKind> {
        match text {
            "signup" => Some(CodeKind::Signup),
            "login" => Some(CodeKind::Login),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            CodeKind::Signup => "signup",
            CodeKind::Login => "login",
        }
    }
}

/// The accounts of one server.
pub struct Accounts {
    users: Arc<dyn UserStore>,
    jwt: JwtKey,
    clock: Arc<dyn Clock>,
    options: AccountOptions,
    failures_by_account: Counter,
    failures_by_address: Counter,
    sends_by_account: Counter,
    sends_by_address: Counter,
    /// Users' keys by DID, read once.
    keys: Mutex<HashMap<String, Arc<AuthorKey>>>,
}

impl std::fmt::Debug for Accounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accounts")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The refusal of a failed login: the same whether the email or the password was wrong.
const LOGIN_FAILED: &str = "Login failed: wrong email or password";
/// The refusal of a wrong code: the same whether it was wrong, used, expired or never sent.
const CODE_FAILED: &str = "The code is wrong, used up or expired";

impl Accounts {
    /// `options.email_verification` needs `options.mailer`.
    pub fn new(
        users: Arc<dyn UserStore>,
        jwt: JwtKey,
        clock: Arc<dyn Clock>,
        options: AccountOptions,
    ) -> Result<Accounts, String> {
        if options.email_verification && options.mailer.is_none() {
            return Err(
                "email verification needs somewhere to send mail: an SMTP url (--smtp-url or SHACL_MCP_SMTP_URL) or an outbox folder (--email-outbox DIR)"
                    .into(),
            );
        }
        let limits = options.limits;
        Ok(Accounts {
            users,
            jwt,
            clock,
            failures_by_account: Counter::new(limits.failures_per_account),
            failures_by_address: Counter::new(limits.failures_per_address),
            sends_by_account: Counter::new(limits.sends_per_account),
            sends_by_address: Counter::new(limits.sends_per_address),
            options,
            keys: Mutex::default(),
        })
    }

    /// Keeps the rate limits' events in `log`, shared by every node that uses it (several
    /// nodes on one database), instead of in this process.
    pub fn share_limits(mut self, log: Arc<dyn EventLog>) -> Accounts {
        let limits = self.options.limits;
        let shared = |limit, name| Counter::shared(limit, log.clone(), name, self.clock.clone());
        self.failures_by_account = shared(limits.failures_per_account, "failures-by-account");
        self.failures_by_address = shared(limits.failures_per_address, "failures-by-address");
        self.sends_by_account = shared(limits.sends_per_account, "sends-by-account");
        self.sends_by_address = shared(limits.sends_per_address, "sends-by-address");
        self
    }

    pub fn email_verification(&self) -> bool {
        self.options.email_verification
    }

    fn now_secs(&self) -> i64 {
        self.clock.now_micros().div_euclid(1_000_000)
    }

    /// The user a token names: signature, algorithm, expiry, issuer and audience checked, and
    /// the user known to this server.
    pub fn identify(&self, token: &str) -> Result<UserIdentity, TokenRefusal> {
        let claims = self
            .jwt
            .verify(token, &self.options.issuer, &self.options.audience, self.now_secs())?;
        match self.key(&claims.sub) {
            Ok(Some(_)) => Ok(UserIdentity {
                did: claims.sub,
                email: claims.email,
                expires: claims.exp,
            }),
            Ok(None) => Err(TokenRefusal::UnknownUser),
            Err(e) => {
                tracing::warn!(kind = "auth", error = %e, "could not look up a token's user");
                Err(TokenRefusal::Unchecked)
            }
        }
    }

    /// A user's signing key, read from the store once.
    pub fn key(&self, did: &str) -> Result<Option<Arc<AuthorKey>>, StoreError> {
        if let Some(key) = self.keys.lock().unwrap_or_else(|e| e.into_inner()).get(did) {
            return Ok(Some(key.clone()));
        }
        let Some(key) = self.users.user_key(did)? else {
            return Ok(None);
        };
        let key = Arc::new(key);
        self.keys
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(did.to_string(), key.clone());
        Ok(Some(key))
    }

    /// `signup`: `{ success, did, message }`.
    pub fn signup(&self, email: &str, password: &str, client: &str) -> Result<Value, ToolError> {
        let email = normalize_email(email);
        let mut problems = Vec::new();
        if !email_ok(&email) {
            problems.push(Problem::new("email", "not an email address (expected name@domain.tld)"));
        }
        let length = password.chars().count();
        if length < MIN_PASSWORD_LEN {
            problems.push(Problem::new(
                "password",
                format!("too short: at least {MIN_PASSWORD_LEN} characters"),
            ));
        } else if length > MAX_PASSWORD_LEN {
            problems.push(Problem::new(
                "password",
                format!("too long: at most {MAX_PASSWORD_LEN} characters"),
            ));
        }
        if !problems.is_empty() {
            // Never `received`: that would echo the password.
            return Err(ToolError::invalid_arguments("signup", problems));
        }
        let verification = self.options.email_verification;
        if verification {
            self.check_sends(&email, client)?;
        }
        let hash = password::hash(password).map_err(ToolError::Internal)?;
        let key = AuthorKey::generate().map_err(|e| ToolError::Internal(format!("no randomness for a key: {e}")))?;
        let added = self.users.add_user(&NewUser {
            email: &email,
            password_hash: &hash,
            key: &key,
            verified: !verification,
            created: self.clock.now_micros(),
        })?;
        if !added {
            tracing::info!(kind = "auth", event = "signup", outcome = "refused");
            return Err(ToolError::refused(
                "Could not create an account with this email address",
                "If the address is yours, log in with login_email (or request_login_verification for a code); otherwise sign up with another address.",
            ));
        }
        tracing::info!(kind = "auth", event = "signup", outcome = "ok", did = %key.did());
        let message = if !verification {
            "Account created: log in with login_email to get a token.".to_string()
        } else {
            match self.send_code(&email, CodeKind::Signup, client) {
                Ok(()) => format!(
                    "Account created. A 6-digit code was sent to {email}: call verify_email_code with it and verification_type \"signup\" to finish (it is good for {} minutes).",
                    self.options.code_ttl.as_secs() / 60
                ),
                Err(e) => {
                    tracing::warn!(kind = "mail", error = %e, "could not send a signup code");
                    "Account created, but the verification code could not be sent: call request_login_verification to get one."
                        .to_string()
                }
            }
        };
        Ok(json!({ "success": true, "did": key.did(), "message": message }))
    }

    /// `login_email`: `{ success, token, message }`.
    pub fn login(&self, email: &str, password: &str, client: &str) -> Result<Value, ToolError> {
        let email = normalize_email(email);
        self.check_failures(&email, client)?;
        let user = self.users.user_by_email(&email)?;
        let matches = match &user {
            Some(user) => password::verify(password, &user.password_hash),
            None => {
                password::verify_nothing(password);
                false
            }
        };
        let Some(user) = user.filter(|_| matches) else {
            self.failed(&email, client, "login");
            return Err(ToolError::refused(
                LOGIN_FAILED,
                format!(
                    "Check both and try again; after {} failures the account waits. No account yet? Call signup.",
                    self.options.limits.failures_per_account.max
                ),
            ));
        };
        if self.options.email_verification && !user.verified {
            tracing::info!(kind = "auth", event = "login", outcome = "unverified");
            return Err(ToolError::refused(
                "This account's email address is not verified yet",
                "Call verify_email_code with the code sent at signup (verification_type \"signup\"), or request_login_verification for a new code.",
            ));
        }
        self.failures_by_account.clear(&email);
        tracing::info!(kind = "auth", event = "login", outcome = "ok", did = %user.did);
        Ok(self.logged_in(&user))
    }

    /// `request_login_verification`: `{ success, message }`, the same whether or not the
    /// address has an account.
    pub fn request_code(&self, email: &str, client: &str) -> Result<Value, ToolError> {
        self.require_verification()?;
        let email = normalize_email(email);
        if !email_ok(&email) {
            return Err(ToolError::invalid_arguments(
                "request_login_verification",
                vec![Problem::new("email", "not an email address (expected name@domain.tld)")],
            ));
        }
        self.check_sends(&email, client)?;
        if self.users.user_by_email(&email)?.is_some()
            && let Err(e) = self.send_code(&email, CodeKind::Login, client)
        {
            tracing::warn!(kind = "mail", error = %e, "could not send a login code");
            return Err(ToolError::refused(
                "The code could not be sent",
                "Try again later; the server's log says why.",
            ));
        }
        tracing::info!(kind = "auth", event = "request_code", outcome = "ok");
        Ok(json!({
            "success": true,
            "message": format!(
                "If {email} has an account here, a 6-digit code was sent to it: call verify_email_code with it and verification_type \"login\" (it is good for {} minutes).",
                self.options.code_ttl.as_secs() / 60
            ),
        }))
    }

    /// `verify_email_code`: `{ success, token, message }`.
    pub fn verify_code(&self, email: &str, code: &str, kind: CodeKind, client: &str) -> Result<Value, ToolError> {
        self.require_verification()?;
        let email = normalize_email(email);
        self.check_failures(&email, client)?;
        let well_formed = code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit());
        let check = if well_formed {
            let mac = self.code_mac(&email, kind, code);
            self.users
                .check_code(&email, kind.as_str(), &mac, self.clock.now_micros())?
        } else {
            CodeCheck::Missing
        };
        let user = match check {
            CodeCheck::Accepted => self.users.user_by_email(&email)?,
            CodeCheck::Wrong { .. } | CodeCheck::Missing => None,
        };
        let Some(user) = user else {
            self.failed(&email, client, "verify_code");
            return Err(ToolError::refused(
                CODE_FAILED,
                format!(
                    "Check the code and try again: a code is good for {} minutes and {} tries. request_login_verification sends a new one.",
                    self.options.code_ttl.as_secs() / 60,
                    self.options.code_attempts
                ),
            ));
        };
        if !user.verified {
            self.users.set_verified(&user.did)?;
        }
        self.failures_by_account.clear(&email);
        tracing::info!(kind = "auth", event = "verify_code", outcome = "ok", did = %user.did);
        Ok(self.logged_in(&user))
    }

    fn require_verification(&self) -> Result<(), ToolError> {
        if self.options.email_verification {
            Ok(())
        } else {
            Err(ToolError::refused(
                "Email verification is off on this server",
                "Log in with login_email and your password (accounts need no verification here).",
            ))
        }
    }

    /// The answer of a successful login: a fresh token.
    fn logged_in(&self, user: &UserRecord) -> Value {
        let now = self.now_secs();
        let exp = now.saturating_add(i64::try_from(self.options.token_ttl.as_secs()).unwrap_or(i64::MAX));
        let claims = Claims {
            sub: user.did.clone(),
            email: user.email.clone(),
            iat: now,
            exp,
        };
        let token = self.jwt.issue(&claims, &self.options.issuer, &self.options.audience);
        json!({
            "success": true,
            "token": token,
            "message": format!(
                "Logged in as {} ({}). Send the token as Authorization: Bearer <token> with every request (with HTTP sessions this session also remembers it); it expires at {}. It is a secret: never repeat it.",
                user.email,
                user.did,
                format_rfc3339_micros(exp.saturating_mul(1_000_000))
            ),
        })
    }

    fn check_failures(&self, email: &str, client: &str) -> Result<(), ToolError> {
        let account = self.failures_by_account.check(email);
        let address = self.failures_by_address.check(client);
        let refusal = match (account, address) {
            (Ok(()), Ok(())) => return Ok(()),
            (Err(wait), _) => limited("failed attempts for this account", wait),
            (_, Err(wait)) => limited("failed attempts from your address", wait),
        };
        tracing::info!(kind = "auth", event = "rate_limit", outcome = "refused", client);
        Err(refusal)
    }

    fn failed(&self, email: &str, client: &str, event: &str) {
        self.failures_by_account.record(email);
        self.failures_by_address.record(client);
        // The client's address, for whoever watches for brute force; never the email.
        tracing::info!(kind = "auth", event, outcome = "refused", client);
    }

    fn check_sends(&self, email: &str, client: &str) -> Result<(), ToolError> {
        let account = self.sends_by_account.check(email);
        let address = self.sends_by_address.check(client);
        match (account, address) {
            (Ok(()), Ok(())) => {
                self.sends_by_account.record(email);
                self.sends_by_address.record(client);
                Ok(())
            }
            (Err(wait), _) => Err(limited("codes sent to this address", wait)),
            (_, Err(wait)) => Err(limited("codes requested from your address", wait)),
        }
    }

    /// Mints a code, keeps its HMAC and mails it.
    fn send_code(&self, email: &str, kind: CodeKind, _client: &str) -> Result<(), String> {
        let Some(mailer) = &self.options.mailer else {
            return Err("no mailer is configured".into());
        };
        let code = six_digits()?;
        let now = self.clock.now_micros();
        let ttl = i64::try_from(self.options.code_ttl.as_micros()).unwrap_or(i64::MAX);
        let mac = self.code_mac(email, kind, &code);
        self.users
            .put_code(
                email,
                kind.as_str(),
                &mac,
                now.saturating_add(ttl),
                self.options.code_attempts,
            )
            .map_err(|e| e.to_string())?;
        let (subject, what) = match kind {
            CodeKind::Signup => ("Your shacl-mcp sign-up code", "finish signing up"),
            CodeKind::Login => ("Your shacl-mcp login code", "log in"),
        };
        let body = format!(
            "Your code to {what} is: {code}\n\nEnter it with verify_email_code (verification_type \"{}\"). It is good for {} minutes and {} tries.\nIf you did not ask for it, ignore this message.",
            kind.as_str(),
            self.options.code_ttl.as_secs() / 60,
            self.options.code_attempts
        );
        mailer.send(
            &Mail {
                to: email.to_string(),
                subject: subject.to_string(),
                body,
            },
            now,
        )?;
        tracing::info!(kind = "mail", event = kind.as_str(), outcome = "sent");
        Ok(())
    }

    fn code_mac(&self, email: &str, kind: CodeKind, code: &str) -> [u8; 32] {
        self.jwt.mac(&[
            b"shacl-mcp/email-code/v1",
            kind.as_str().as_bytes(),
            email.as_bytes(),
            code.as_bytes(),
        ])
    }
}

fn limited(what: &str, wait: Duration) -> ToolError {
    let seconds = wait.as_secs().max(1);
    ToolError::refused(
        format!("Too many {what}: try again in {seconds} seconds"),
        format!("Retry after {seconds} seconds. auth_status tells whether you are logged in meanwhile."),
    )
}

/// Trimmed, lower case: the form accounts are kept and limited under.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// `local@domain.tld`, one `@`, no spaces, controls or address punctuation, at most 254 bytes.
pub fn email_ok(email: &str) -> bool {
    let forbidden = |c: char| c.is_whitespace() || c.is_control() || "<>()[]\\,;:\"".contains(c);
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    email.len() <= 254
        && !email.chars().any(forbidden)
        && !local.is_empty()
        && local.len() <= 64
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with(['.', '-'])
        && !domain.ends_with(['.', '-'])
        && !domain.contains("..")
}

/// A uniformly random 6-digit code.
fn six_digits() -> Result<String, String> {
    // The largest multiple of 10^6 below 2^32: draws at or above it are redrawn.
    const BOUND: u32 = 4_294_000_000;
    loop {
        let mut bytes = [0u8; 4];
        getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a code: {e}"))?;
        let n = u32::from_be_bytes(bytes);
        if n < BOUND {
            return Ok(format!("{:06}", n % 1_000_000));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_shapes() {
        for good in ["ada@example.org", "a.b+c@sub.example.co.uk", "x@y.zz"] {
            assert!(email_ok(good), "{good}");
        }
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.org",
            "ada@example",
            "a@b@example.org",
            "ada @example.org",
            "ada@example..org",
            "ada@.example.org",
            "ada@example.org\r\nBcc: x@y.z",
            "<ada@example.org>",
        ] {
            assert!(!email_ok(bad), "{bad:?}");
        }
        assert_eq!(normalize_email("  Ada@Example.ORG "), "ada@example.org");
    }

    #[test]
    fn codes_have_six_digits() {
        for _ in 0..100 {
            let code = six_digits().unwrap();
            assert_eq!(code.len(), 6);
            assert!(code.bytes().all(|b| b.is_ascii_digit()));
        }
    }
}
