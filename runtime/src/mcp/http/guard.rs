//! The checks in front of rmcp (docs/errors.md, HTTP column): `Host` and `Origin` are the server's
//! own, the body fits, and the `Accept` header names a type the server can answer with.

use std::net::SocketAddr;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::{HeaderMap, StatusCode, header};
use serde_json::{Value, json};

use crate::mcp::framing::{INVALID_REQUEST, Refusal};

/// A request the guard answers itself: an HTTP status and a JSON-RPC error body.
#[derive(Debug)]
pub(super) struct Refused {
    pub status: StatusCode,
    pub body: Value,
}

impl Refused {
    /// A JSON-RPC error with `id: null`.
    pub fn new(status: StatusCode, code: i64, message: &str) -> Refused {
        let body = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } });
        Refused { status, body }
    }

    /// A framing refusal, with its own status (docs/errors.md).
    pub fn framing(refusal: &Refusal) -> Refused {
        let status = StatusCode::from_u16(refusal.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
        Refused {
            status,
            body: refusal.to_json(),
        }
    }

    fn forbidden() -> Refused {
        Refused::new(StatusCode::FORBIDDEN, INVALID_REQUEST, "origin not allowed")
    }

    fn too_large(max: usize) -> Refused {
        Refused {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            body: Refusal::too_large(max).to_json(),
        }
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        json_response(self.status, &self.body)
    }
}

/// `body` as `application/json`.
pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let json = header::HeaderValue::from_static("application/json");
    response.headers_mut().insert(header::CONTENT_TYPE, json);
    response
}

/// A host and an optional port, lower-case, IPv6 without brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Authority {
    host: String,
    /// `None` in an allow-list entry: any port.
    port: Option<u16>,
}

impl Authority {
    fn new(host: &str, port: Option<u16>) -> Authority {
        let host = host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
        Authority { host, port }
    }

    /// `host[:port]` as in a `Host` header or an allow-list entry.
    fn parse(text: &str) -> Option<Authority> {
        let authority: http::uri::Authority = text.trim().parse().ok()?;
        Some(Authority::new(authority.host(), authority.port_u16()))
    }

    fn admits(&self, other: &Authority) -> bool {
        self.host == other.host && self.port.is_none_or(|p| other.port == Some(p))
    }
}

/// An origin `(scheme, host, port)`, or the browser's `null`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Origin {
    Null,
    /// `port: None` in an allow-list entry written `scheme://host:*`: any port.
    Tuple {
        scheme: String,
        authority: Authority,
    },
}

impl Origin {
    fn parse(text: &str) -> Option<Origin> {
        let text = text.trim();
        if text == "null" {
            return Some(Origin::Null);
        }
        let (text, any_port) = match text.strip_suffix(":*") {
            Some(rest) => (rest, true),
            None => (text.trim_end_matches('/'), false),
        };
        let uri: http::Uri = text.parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        if uri
            .path_and_query()
            .is_some_and(|p| p.as_str() != "/" && !p.as_str().is_empty())
        {
            return None;
        }
        let default = match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        };
        let port = if any_port {
            None
        } else {
            Some(uri.port_u16().or(default)?)
        };
        Some(Origin::Tuple {
            scheme,
            authority: Authority::new(uri.host()?, port),
        })
    }

    fn admits(&self, other: &Origin) -> bool {
        match (self, other) {
            (Origin::Null, Origin::Null) => true,
            (
                Origin::Tuple { scheme, authority },
                Origin::Tuple {
                    scheme: s,
                    authority: a,
                },
            ) => scheme == s && authority.admits(a),
            _ => false,
        }
    }
}

/// The guard's settings, fixed when the router is built.
#[derive(Debug)]
pub(super) struct Guard {
    hosts: Vec<Authority>,
    origins: Vec<Origin>,
    pub max_body: usize,
}

impl Guard {
    /// The server's own names: the bound address and the loopback names with its port, plus
    /// the configured extras (an extra without a port admits any port).
    pub fn new(addr: SocketAddr, extra_hosts: &[String], extra_origins: &[String], max_body: usize) -> Guard {
        let port = addr.port();
        let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
        if !addr.ip().is_unspecified() {
            names.push(addr.ip().to_string());
        }
        let mut hosts: Vec<Authority> = names.iter().map(|n| Authority::new(n, Some(port))).collect();
        hosts.extend(extra_hosts.iter().filter_map(|h| {
            let parsed = Authority::parse(h);
            if parsed.is_none() {
                tracing::warn!(kind = "config", host = %h, "ignoring an allowed host that is not host[:port]");
            }
            parsed
        }));
        let mut origins: Vec<Origin> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .filter_map(|n| Origin::parse(&format!("http://{n}:{port}")))
            .collect();
        origins.extend(extra_origins.iter().filter_map(|o| {
            let parsed = Origin::parse(o);
            if parsed.is_none() {
                tracing::warn!(kind = "config", origin = %o, "ignoring an allowed origin that is not scheme://host[:port]");
            }
            parsed
        }));
        Guard {
            hosts,
            origins,
            max_body,
        }
    }

    /// Step 1: `Host` is the server's own and `Origin`, when present, is allowed (DNS
    /// rebinding). A `Host` without a port means port 80.
    pub fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refused> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(Authority::parse)
            .map(|a| Authority {
                port: a.port.or(Some(80)),
                ..a
            });
        if !host.is_some_and(|host| self.hosts.iter().any(|h| h.admits(&host))) {
            return Err(Refused::forbidden());
        }
        for origin in headers.get_all(header::ORIGIN) {
            let origin = origin.to_str().ok().and_then(Origin::parse);
            if !origin.is_some_and(|origin| self.origins.iter().any(|o| o.admits(&origin))) {
                return Err(Refused::forbidden());
            }
        }
        Ok(())
    }

    /// Step 2: the body, never holding more than `max_body` bytes; 413 past that.
    pub async fn read_body(&self, headers: &HeaderMap, body: Body) -> Result<Bytes, Refused> {
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body as u64) {
            return Err(Refused::too_large(self.max_body));
        }
        let mut buffer = Vec::with_capacity(declared.map_or(0, |n| n as usize));
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|_| {
                Refused::new(
                    StatusCode::BAD_REQUEST,
                    INVALID_REQUEST,
                    "could not read the request body",
                )
            })?;
            if chunk.len() > self.max_body - buffer.len() {
                return Err(Refused::too_large(self.max_body));
            }
            buffer.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(buffer))
    }
}

/// What the client's `Accept` header admits (an explicit `q=0` excludes a type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Accepts {
    pub json: bool,
    pub sse: bool,
}

impl Accepts {
    pub fn of(headers: &HeaderMap) -> Accepts {
        let mut accepts = Accepts {
            json: false,
            sse: false,
        };
        let values = headers
            .get_all(header::ACCEPT)
            .into_iter()
            .filter_map(|v| v.to_str().ok());
        for range in values.flat_map(|v| v.split(',')) {
            let mut parts = range.split(';');
            let essence = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.split_once('=')
                    .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case("q") && zero_weight(v.trim()))
            });
            if refused {
                continue;
            }
            accepts.json |= essence.eq_ignore_ascii_case("application/json");
            accepts.sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
        accepts
    }
}

/// `q=0`, `q=0.`, `q=0.000`: the client refuses the type.
fn zero_weight(q: &str) -> bool {
    let (whole, fraction) = q.split_once('.').unwrap_or((q, ""));
    whole == "0" && fraction.len() <= 3 && fraction.bytes().all(|b| b == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        map
    }

    fn guard() -> Guard {
        Guard::new(
            "127.0.0.1:3001".parse().unwrap(),
            &["mcp.example.com".into(), "proxy.local:8443".into()],
            &["https://app.example.com".into(), "http://dev.local:*".into()],
            64,
        )
    }

    #[test]
    fn hosts() {
        let g = guard();
        let ok = |host: &str| g.check_origin(&headers(&[("host", host)])).is_ok();
        assert!(ok("127.0.0.1:3001"));
        assert!(ok("localhost:3001"));
        assert!(ok("LOCALHOST:3001"));
        assert!(ok("[::1]:3001"));
        assert!(ok("mcp.example.com"));
        assert!(ok("mcp.example.com:9999"));
        assert!(ok("proxy.local:8443"));
        assert!(!ok("proxy.local:8444"));
        assert!(!ok("localhost:3002"));
        assert!(!ok("localhost"));
        assert!(!ok("evil.example.com:3001"));
        assert!(!ok("127.0.0.1:3001/x"));
        assert!(g.check_origin(&HeaderMap::new()).is_err());
    }

    #[test]
    fn origins() {
        let g = guard();
        let ok = |origin: &str| {
            g.check_origin(&headers(&[("host", "localhost:3001"), ("origin", origin)]))
                .is_ok()
        };
        assert!(ok("http://localhost:3001"));
        assert!(ok("http://127.0.0.1:3001"));
        assert!(ok("http://[::1]:3001"));
        assert!(ok("https://app.example.com"));
        assert!(ok("https://app.example.com:443"));
        assert!(ok("http://dev.local:5173"));
        assert!(!ok("http://app.example.com"));
        assert!(!ok("https://localhost:3001"));
        assert!(!ok("http://localhost:3002"));
        assert!(!ok("http://evil.example.com"));
        assert!(!ok("null"));
        assert!(!ok("not an origin"));
    }

    #[test]
    fn accept() {
        let a = |v: &str| Accepts::of(&headers(&[("accept", v)]));
        assert_eq!(
            a("application/json, text/event-stream"),
            Accepts { json: true, sse: true }
        );
        assert_eq!(a("application/json"), Accepts { json: true, sse: false });
        assert_eq!(a("text/event-stream;q=0.5"), Accepts { json: false, sse: true });
        assert_eq!(
            a("application/json;q=0, text/event-stream"),
            Accepts { json: false, sse: true }
        );
        assert_eq!(
            a("application/json;q=0.0"),
            Accepts {
                json: false,
                sse: false
            }
        );
        assert_eq!(
            a("text/plain"),
            Accepts {
                json: false,
                sse: false
            }
        );
        assert_eq!(
            Accepts::of(&HeaderMap::new()),
            Accepts {
                json: false,
                sse: false
            }
        );
    }
}
