//! Who is calling (errors.md steps 4 and 6). stdio trusts its parent process; on HTTP, with an
//! admin credential configured, every tool call but the auth tools must carry it as
//! `Authorization: Bearer`, compared in constant time.

use std::fmt;

use subtle::ConstantTimeEq;

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
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The transport a request came over, and what it proved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// stdio: the parent process, trusted.
    Stdio,
    /// HTTP with no credential configured: loopback only, anyone local.
    HttpOpen,
    /// HTTP with the admin credential.
    HttpAdmin,
    /// HTTP without a valid credential while one is configured.
    HttpAnonymous,
}

impl Caller {
    pub fn from_request(parts: Option<&http::request::Parts>, credential: Option<&Secret>) -> Caller {
        let Some(parts) = parts else { return Caller::Stdio };
        let Some(credential) = credential else {
            return Caller::HttpOpen;
        };
        let bearer = parts
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")));
        match bearer {
            Some(token) if credential.matches(token.trim()) => Caller::HttpAdmin,
            _ => Caller::HttpAnonymous,
        }
    }

    pub fn may_call_tools(self) -> bool {
        self != Caller::HttpAnonymous
    }

    /// `auth_status`: `{ authenticated, mode, message }`.
    pub fn status(self) -> serde_json::Value {
        let (authenticated, message) = match self {
            Caller::Stdio => (true, "stdio: the parent process that started this server is trusted."),
            Caller::HttpOpen => (
                false,
                "No credential is configured: this server listens on loopback only and any local process may call it.",
            ),
            Caller::HttpAdmin => (true, "Authenticated with the admin credential."),
            Caller::HttpAnonymous => (
                false,
                "Not authenticated: send Authorization: Bearer <credential> (the server's SHACL_MCP_ADMIN_CREDENTIAL) with every request.",
            ),
        };
        serde_json::json!({ "authenticated": authenticated, "mode": "single-user", "message": message })
    }
}

/// The tools every caller may call (errors.md step 6).
pub const AUTH_TOOLS: &[&str] = &[
    "signup",
    "login_email",
    "request_login_verification",
    "verify_email_code",
    "auth_status",
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
