//! Who is calling (docs/errors.md steps 4 and 6). stdio trusts its parent process; on HTTP, with an
//! admin credential configured, every tool call but the auth tools must carry it as
//! `Authorization: Bearer`, compared in constant time.
//!
//! In multi-user mode the bearer may instead be a user's JWT (from `login_email` or
//! `verify_email_code`), or, with HTTP sessions, the token a login in that session left behind.
//! stdio is the node's owner there too, treated as the admin: the process that started the
//! server owns its database anyway.

use std::fmt;
use std::net::IpAddr;

use subtle::ConstantTimeEq;

use crate::accounts::{TokenRefusal, UserIdentity};

/// A secret that never prints itself.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// `None` for an empty string: an empty credential would let anyone in.
    pub fn new(value: impl Into<String>) -> Option<Secret> {
        let value = value.into();
        (!value.trim().is_empty()).then_some(Secret(value))
    }

    /// Constant-time comparison.
    pub fn matches(&self, candidate: &str) -> bool {
        self.0.as_bytes().ct_eq(candidate.as_bytes()).into()
    }

    /// The value, for the one place that must hand it on (an SMTP url to the mailer, a
    /// session's token to verification). Never to a log line or a result.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The client's address on HTTP (from the connection), for rate limits: the HTTP layer puts
/// it in the request's extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The transport a request came over, and what it proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// stdio: the parent process, trusted.
    Stdio,
    /// HTTP with no credential configured: loopback only, anyone local.
    HttpOpen,
    /// HTTP with the admin credential.
    HttpAdmin,
    /// HTTP without a valid credential while one is configured.
    HttpAnonymous,
    /// Multi-user mode: a user with a valid token.
    User(UserIdentity),
    /// Multi-user mode on HTTP: neither a valid token nor the admin credential; why the token
    /// sent (if any) was refused.
    Guest(Option<TokenRefusal>),
}

impl Caller {
    pub fn from_request(parts: Option<&http::request::Parts>, credential: Option<&Secret>) -> Caller {
        let Some(parts) = parts else { return Caller::Stdio };
        let Some(credential) = credential else {
            return Caller::HttpOpen;
        };
        match Caller::bearer(parts) {
            Some(token) if credential.matches(token) => Caller::HttpAdmin,
            _ => Caller::HttpAnonymous,
        }
    }

    pub fn may_call_tools(&self) -> bool {
        !matches!(self, Caller::HttpAnonymous | Caller::Guest(_))
    }

    /// The bearer token of a request, if it carries one.
    pub fn bearer(parts: &http::request::Parts) -> Option<&str> {
        parts
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim)
    }

    /// The refusal of a tool call by a caller that may not call tools.
    pub fn not_authenticated(&self) -> serde_json::Value {
        match self {
            Caller::Guest(refused) => {
                let error = match refused {
                    Some(why) => format!("Not authenticated: {}", why.text()),
                    None => "Not authenticated".to_string(),
                };
                serde_json::json!({
                    "error": error,
                    "hint": "This server is multi-user: log in with login_email (signup first if you have no account), then send Authorization: Bearer <token> with every request (with HTTP sessions the login is remembered for the session). auth_status says what the server sees.",
                })
            }
            _ => serde_json::json!({
                "error": "Not authenticated",
                "hint": "Send Authorization: Bearer <credential> (the server's SHACL_MCP_ADMIN_CREDENTIAL) with every request; auth_status says what the server sees.",
            }),
        }
    }

    /// `auth_status` in multi-user mode: `{ authenticated, mode, user_email?, did?, message }`;
    /// `node_did` is the DID the owner and the admin act as.
    pub fn multi_user_status(&self, node_did: &str) -> serde_json::Value {
        let mode = "multi-user";
        match self {
            Caller::User(user) => serde_json::json!({
                "authenticated": true,
                "mode": mode,
                "user_email": user.email,
                "did": user.did,
                "message": format!(
                    "Logged in as {}: you see and change your own perspectives only. The token expires at {}.",
                    user.email,
                    crate::clock::format_rfc3339_micros(user.expires.saturating_mul(1_000_000))
                ),
            }),
            Caller::Stdio | Caller::HttpOpen => serde_json::json!({
                "authenticated": true,
                "mode": mode,
                "did": node_did,
                "message": "stdio: the parent process that started this server is the node's owner, treated as the admin: it sees every user's perspectives. Users log in over HTTP.",
            }),
            Caller::HttpAdmin => serde_json::json!({
                "authenticated": true,
                "mode": mode,
                "did": node_did,
                "message": "Authenticated with the admin credential: you see every user's perspectives, and write as the node.",
            }),
            Caller::HttpAnonymous | Caller::Guest(_) => {
                let why = match self {
                    Caller::Guest(Some(refused)) => format!("The token sent was refused: {}. ", refused.text()),
                    _ => String::new(),
                };
                serde_json::json!({
                    "authenticated": false,
                    "mode": mode,
                    "message": format!(
                        "{why}Not logged in: call login_email (signup first if you have no account; with email verification, verify_email_code), then send Authorization: Bearer <token> with every request."
                    ),
                })
            }
        }
    }

    /// `auth_status` in single-user mode: `{ authenticated, mode, message }`.
    pub fn status(&self) -> serde_json::Value {
        let (authenticated, message) = match self {
            Caller::Stdio => (true, "stdio: the parent process that started this server is trusted."),
            Caller::HttpOpen => (
                false,
                "No credential is configured: this server listens on loopback only and any local process may call it.",
            ),
            Caller::HttpAdmin => (true, "Authenticated with the admin credential."),
            Caller::HttpAnonymous | Caller::Guest(_) => (
                false,
                "Not authenticated: send Authorization: Bearer <credential> (the server's SHACL_MCP_ADMIN_CREDENTIAL) with every request.",
            ),
            Caller::User(_) => (true, "Authenticated with a user's token."),
        };
        serde_json::json!({ "authenticated": authenticated, "mode": "single-user", "message": message })
    }
}

/// The tools every caller may call (docs/errors.md step 6).
pub const AUTH_TOOLS: &[&str] = &[
    "signup",
    "login_email",
    "request_login_verification",
    "verify_email_code",
    "auth_status",
    "get_documentation",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(auth: Option<&str>) -> http::request::Parts {
        let mut b = http::Request::builder();
        if let Some(a) = auth {
            b = b.header("authorization", a);
        }
        b.body(()).unwrap().into_parts().0
    }

    #[test]
    fn callers() {
        let secret = Secret::new("s3cret").unwrap();
        assert_eq!(Caller::from_request(None, Some(&secret)), Caller::Stdio);
        assert_eq!(Caller::from_request(Some(&parts(None)), None), Caller::HttpOpen);
        assert_eq!(
            Caller::from_request(Some(&parts(Some("Bearer s3cret"))), Some(&secret)),
            Caller::HttpAdmin
        );
        assert_eq!(
            Caller::from_request(Some(&parts(Some("Bearer wrong"))), Some(&secret)),
            Caller::HttpAnonymous
        );
        assert_eq!(
            Caller::from_request(Some(&parts(Some("s3cret"))), Some(&secret)),
            Caller::HttpAnonymous
        );
        assert_eq!(
            Caller::from_request(Some(&parts(None)), Some(&secret)),
            Caller::HttpAnonymous
        );
        assert!(Secret::new("  ").is_none());
        assert_eq!(format!("{secret:?}"), "Secret(***)");
    }
}
