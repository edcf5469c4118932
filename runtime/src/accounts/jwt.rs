//! HS256 JSON Web Tokens (RFC 7519), written with `hmac`, `sha2` and base64url rather than a
//! JWT crate: the server issues and accepts one kind of token only, so the header is checked
//! whole (`alg` must be `HS256`: no `none`, no algorithm confusion, no `kid` or `crit` to
//! honour), and no crypto backend comes in beyond the SHA-2 the store already uses.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The header of every token this server issues.
const HEADER: &str = r#"{"alg":"HS256","typ":"JWT"}"#;
/// Longer tokens are refused before any decoding.
const MAX_TOKEN_LEN: usize = 8192;
/// How far in the future `iat` may lie (clock skew between nodes), in seconds.
const SKEW: i64 = 60;

/// The signing secret. Never printed.
pub struct JwtKey {
    secret: Vec<u8>,
}

impl fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtKey(***)")
    }
}

/// What a token says, once verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    /// The user's DID.
    pub sub: String,
    pub email: String,
    /// Seconds since the Unix epoch.
    pub iat: i64,
    pub exp: i64,
}

/// Why a token was refused. The texts name the kind of problem, never the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRefusal {
    Malformed,
    Algorithm,
    Signature,
    Expired,
    IssuedInTheFuture,
    OtherServer,
    /// The signature holds but the user is not in this server's store.
    UnknownUser,
    /// The store could not be asked.
    Unchecked,
}

impl TokenRefusal {
    pub fn text(self) -> &'static str {
        match self {
            TokenRefusal::Malformed => "the token is not a well-formed JWT",
            TokenRefusal::Algorithm => "the token is not signed with HS256",
            TokenRefusal::Signature => "the token's signature does not verify",
            TokenRefusal::Expired => "the token has expired",
            TokenRefusal::IssuedInTheFuture => "the token was issued in the future",
            TokenRefusal::OtherServer => "the token was issued for another server (issuer or audience)",
            TokenRefusal::UnknownUser => "the token's user has no account on this server",
            TokenRefusal::Unchecked => "the server could not check the token just now",
        }
    }
}

impl JwtKey {
    pub fn new(secret: &[u8]) -> JwtKey {
        JwtKey {
            secret: secret.to_vec(),
        }
    }

    /// HMAC-SHA256 of `parts`, each preceded by its length: a keyed hash for other uses of
    /// the same secret (email codes), separated from tokens by a tag in `parts`.
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = self.hmac();
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    fn hmac(&self) -> HmacSha256 {
        HmacSha256::new_from_slice(&self.secret).expect("HMAC takes a key of any length")
    }

    /// A signed token for `claims`, issued by `issuer` for `audience`.
    pub fn issue(&self, claims: &Claims, issuer: &str, audience: &str) -> String {
        let payload = json!({
            "sub": claims.sub,
            "email": claims.email,
            "iss": issuer,
            "aud": audience,
            "iat": claims.iat,
            "exp": claims.exp,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(HEADER),
            URL_SAFE_NO_PAD.encode(payload.to_string())
        );
        let mut mac = self.hmac();
        mac.update(signing_input.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signing_input}.{signature}")
    }

    /// Checks, in order: the shape, the header (`alg` exactly `HS256`), the signature (in
    /// constant time), then `iss`, `aud`, `exp` (strictly after `now`, in seconds) and `iat`.
    pub fn verify(&self, token: &str, issuer: &str, audience: &str, now: i64) -> Result<Claims, TokenRefusal> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(TokenRefusal::Malformed);
        }
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenRefusal::Malformed);
        };
        let header_len = header.len();
        let header = decode_object(header)?;
        if header.get("alg").and_then(Value::as_str) != Some("HS256") {
            return Err(TokenRefusal::Algorithm);
        }
        let typ_ok = header.get("typ").is_none_or(|t| t.as_str() == Some("JWT"));
        if !typ_ok || header.keys().any(|k| k != "alg" && k != "typ") {
            return Err(TokenRefusal::Malformed);
        }
        let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| TokenRefusal::Malformed)?;
        let mut mac = self.hmac();
        mac.update(&token.as_bytes()[..header_len + 1 + payload.len()]);
        mac.verify_slice(&signature).map_err(|_| TokenRefusal::Signature)?;
        let claims = decode_object(payload)?;
        let text = |key: &str| claims.get(key).and_then(Value::as_str);
        let number = |key: &str| claims.get(key).and_then(Value::as_i64);
        let audience_ok = match claims.get("aud") {
            Some(Value::String(a)) => a == audience,
            Some(Value::Array(all)) => all.iter().any(|a| a.as_str() == Some(audience)),
            _ => false,
        };
        if text("iss") != Some(issuer) || !audience_ok {
            return Err(TokenRefusal::OtherServer);
        }
        let (Some(sub), Some(email), Some(iat), Some(exp)) = (text("sub"), text("email"), number("iat"), number("exp"))
        else {
            return Err(TokenRefusal::Malformed);
        };
        if exp <= now {
            return Err(TokenRefusal::Expired);
        }
        if iat > now + SKEW {
            return Err(TokenRefusal::IssuedInTheFuture);
        }
        Ok(Claims {
            sub: sub.to_string(),
            email: email.to_string(),
            iat,
            exp,
        })
    }
}

fn decode_object(part: &str) -> Result<Map<String, Value>, TokenRefusal> {
    let bytes = URL_SAFE_NO_PAD.decode(part).map_err(|_| TokenRefusal::Malformed)?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(TokenRefusal::Malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn claims() -> Claims {
        Claims {
            sub: "did:key:z6Mkexample".into(),
            email: "ada@example.org".into(),
            iat: NOW,
            exp: NOW + 3600,
        }
    }

    /// A token with any header and payload, signed with `key`.
    fn forge(key: &JwtKey, header: &str, payload: &Value) -> String {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(payload.to_string())
        );
        let mut mac = key.hmac();
        mac.update(input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
    }

    #[test]
    fn issued_tokens_verify() {
        let key = JwtKey::new(b"0123456789abcdef0123456789abcdef");
        let token = key.issue(&claims(), "iss", "aud");
        assert_eq!(token.split('.').count(), 3);
        assert_eq!(key.verify(&token, "iss", "aud", NOW + 1), Ok(claims()));
        assert_eq!(format!("{key:?}"), "JwtKey(***)");
    }

    #[test]
    fn every_kind_of_bad_token_is_refused() {
        let key = JwtKey::new(b"0123456789abcdef0123456789abcdef");
        let other = JwtKey::new(b"another secret of thirty-two chars");
        let token = key.issue(&claims(), "iss", "aud");
        let check = |t: &str| key.verify(t, "iss", "aud", NOW + 1);
        assert_eq!(
            check(&other.issue(&claims(), "iss", "aud")),
            Err(TokenRefusal::Signature)
        );
        let (head, rest) = token.split_once('.').unwrap();
        let (payload, signature) = rest.split_once('.').unwrap();
        let mut flipped: Vec<u8> = payload.as_bytes().to_vec();
        flipped[5] = if flipped[5] == b'A' { b'B' } else { b'A' };
        let flipped = format!("{head}.{}.{signature}", String::from_utf8(flipped).unwrap());
        assert!(matches!(
            check(&flipped),
            Err(TokenRefusal::Signature | TokenRefusal::Malformed)
        ));
        let mut expired = claims();
        expired.exp = NOW;
        assert_eq!(check(&key.issue(&expired, "iss", "aud")), Err(TokenRefusal::Expired));
        assert_eq!(key.verify(&token, "other", "aud", NOW), Err(TokenRefusal::OtherServer));
        assert_eq!(key.verify(&token, "iss", "other", NOW), Err(TokenRefusal::OtherServer));
        let payload =
            json!({ "sub": "did:key:z", "email": "e", "iss": "iss", "aud": "aud", "iat": NOW, "exp": NOW + 60 });
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
            URL_SAFE_NO_PAD.encode(payload.to_string())
        );
        assert_eq!(check(&none), Err(TokenRefusal::Algorithm));
        assert_eq!(
            check(&forge(&key, r#"{"alg":"HS512","typ":"JWT"}"#, &payload)),
            Err(TokenRefusal::Algorithm)
        );
        assert_eq!(
            check(&forge(&key, r#"{"alg":"HS256","crit":["x"]}"#, &payload)),
            Err(TokenRefusal::Malformed)
        );
        assert!(check(&forge(&key, r#"{"alg":"HS256"}"#, &payload)).is_ok());
        let future = json!({ "sub": "s", "email": "e", "iss": "iss", "aud": ["x", "aud"], "iat": NOW + 3600, "exp": NOW + 7200 });
        assert_eq!(
            check(&forge(&key, HEADER, &future)),
            Err(TokenRefusal::IssuedInTheFuture)
        );
        for junk in ["", "a.b", "a.b.c.d", "....", &"x".repeat(10_000), "e30.e30.e30"] {
            assert!(check(junk).is_err(), "{junk}");
        }
    }
}
