//! MCP resources: each perspective and each instance the caller can see, read as JSON.
//!
//! - `shacl-mcp://perspectives/{perspective_id}`: what `describe_perspective` answers (its
//!   classes, their properties, the usage text).
//! - `shacl-mcp://perspectives/{perspective_id}/{class_name}/{instance}`: what `instance_get`
//!   answers; `{instance}` is the instance IRI, percent-encoded (RFC 6570 simple expansion).
//!
//! `resources/list` walks perspectives in the order `list_perspectives` gives, each followed
//! by its classes' instances (oldest first), [`PAGE`] at a time; the cursor says where the
//! next page starts. A cursor outlives nothing but the data it walked: instances created since
//! may move a page's boundary, never duplicate or drop an item that stayed. Access rules are the
//! tools' own: a caller sees what `list_perspectives` shows them, and another user's perspective
//! reads like a missing one.

use rmcp::model::{
    ErrorData, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate,
};
use serde_json::{Value, json};

use crate::engine::{Engine, QueryArgs, ToolError};

/// The scheme and authority every resource URI starts with.
pub const PREFIX: &str = "shacl-mcp://perspectives/";
/// Resources in one page of `resources/list`.
pub const PAGE: u64 = 100;
const JSON: &str = "application/json";

/// The two URI templates (`resources/templates/list`).
pub fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{PREFIX}{{perspective_id}}"), "perspective")
            .with_title("A perspective")
            .with_description(
                "A perspective's classes, their properties and how to use them (what describe_perspective answers).",
            )
            .with_mime_type(JSON),
        ResourceTemplate::new(
            format!("{PREFIX}{{perspective_id}}/{{class_name}}/{{instance}}"),
            "instance",
        )
        .with_title("An instance")
        .with_description(
            "One instance of a class, every property with its value (what instance_get answers); {instance} is \
                 the instance IRI, percent-encoded.",
        )
        .with_mime_type(JSON),
    ])
}

/// Where a page of `resources/list` starts: the perspective (by position), the class within
/// it (by position; 0 is the perspective itself, n the n-th class) and the offset among that
/// class's instances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cursor {
    perspective: usize,
    class: usize,
    offset: u64,
}

impl Cursor {
    fn parse(text: &str) -> Option<Cursor> {
        let mut parts = text.split('.').map(str::parse::<u64>);
        let (Some(Ok(p)), Some(Ok(c)), Some(Ok(o)), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        Some(Cursor {
            perspective: usize::try_from(p).ok()?,
            class: usize::try_from(c).ok()?,
            offset: o,
        })
    }

    fn text(&self) -> String {
        format!("{}.{}.{}", self.perspective, self.class, self.offset)
    }
}

/// One page of `resources/list` from `cursor` (`None`: the first page).
pub fn list(engine: &Engine, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let mut at = match cursor {
        None => Cursor::default(),
        Some(text) => {
            Cursor::parse(text).ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor '{text}'"), None))?
        }
    };
    let perspectives = engine.list_perspectives().map_err(internal)?;
    let perspectives = perspectives["perspectives"].as_array().cloned().unwrap_or_default();
    let mut page = Vec::new();
    while let Some(p) = perspectives.get(at.perspective) {
        let id = p["uuid"].as_str().unwrap_or_default();
        let classes = class_names(engine, id)?;
        if at.class == 0 {
            page.push(perspective_resource(id, p["name"].as_str().unwrap_or_default()));
            at.class = 1;
        }
        while let Some(class) = classes.get(at.class - 1) {
            let room = PAGE - page.len() as u64;
            if room == 0 {
                break;
            }
            let args = QueryArgs {
                limit: Some(room),
                offset: Some(at.offset),
                ..QueryArgs::default()
            };
            let found = engine.instance_query(id, class, &args).map_err(internal)?;
            let instances = found["instances"].as_array().cloned().unwrap_or_default();
            at.offset += instances.len() as u64;
            page.extend(instances.iter().map(|i| instance_resource(id, class, i)));
            if instances.len() as u64 == room && at.offset < found["total_count"].as_u64().unwrap_or(0) {
                break;
            }
            at = Cursor {
                class: at.class + 1,
                offset: 0,
                ..at
            };
        }
        if page.len() as u64 >= PAGE {
            break;
        }
        at = Cursor {
            perspective: at.perspective + 1,
            ..Cursor::default()
        };
    }
    let mut result = ListResourcesResult::with_all_items(page);
    if perspectives.get(at.perspective).is_some() {
        result.next_cursor = Some(at.text());
    }
    Ok(result)
}

/// `resources/read` of `uri`: the perspective or the instance as JSON text.
pub fn read(engine: &Engine, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = || ErrorData::resource_not_found(format!("no resource '{uri}'"), Some(json!({ "uri": uri })));
    let rest = uri.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let answer = match parts.as_slice() {
        [perspective] if !perspective.is_empty() => engine.describe_perspective(perspective),
        [perspective, class, instance] if !instance.is_empty() => {
            let instance = percent_decode(instance).ok_or_else(not_found)?;
            engine.instance_get(perspective, class, &instance)
        }
        _ => return Err(not_found()),
    };
    match answer {
        Ok(value) => Ok(ReadResourceResult::new(vec![
            ResourceContents::text(value.to_string(), uri).with_mime_type(JSON),
        ])),
        // A missing perspective, class or instance: the tools' refusal, as a not-found error.
        Err(ToolError::Internal(e)) => Err(internal(ToolError::Internal(e))),
        Err(refused) => Err(ErrorData::resource_not_found(
            format!("no resource '{uri}'"),
            Some(json!({ "uri": uri, "refusal": refused.to_json().unwrap_or_default() })),
        )),
    }
}

/// The variables of one of [`templates`] (`None`: not a template of this server).
pub fn template_variables(template: &str) -> Option<&'static [&'static str]> {
    let rest = template.strip_prefix(PREFIX)?;
    match rest {
        "{perspective_id}" => Some(&["perspective_id"]),
        "{perspective_id}/{class_name}/{instance}" => Some(&["perspective_id", "class_name", "instance"]),
        _ => None,
    }
}

/// A template variable's value as the template expands it (RFC 6570 simple expansion).
pub fn encode_variable(value: &str) -> String {
    percent_encode(value)
}

/// A template variable's value as typed, decoded (`None`: a malformed escape).
pub fn decode_variable(value: &str) -> Option<String> {
    percent_decode(value)
}

pub(super) fn class_names(engine: &Engine, perspective: &str) -> Result<Vec<String>, ErrorData> {
    let described = engine.describe_perspective(perspective).map_err(internal)?;
    Ok(described["classes"]
        .as_array()
        .map(|classes| {
            classes
                .iter()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}

/// The URI of a perspective's resource.
pub fn perspective_uri(perspective: &str) -> String {
    format!("{PREFIX}{perspective}")
}

/// The URI of an instance's resource.
pub fn instance_uri(perspective: &str, class: &str, instance: &str) -> String {
    format!("{PREFIX}{perspective}/{class}/{}", percent_encode(instance))
}

/// The perspective a resource URI of this server names (`None`: no such URI).
pub fn perspective_of(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix(PREFIX)?;
    match rest.split('/').collect::<Vec<_>>().as_slice() {
        [perspective] if !perspective.is_empty() => Some(perspective),
        [perspective, class, instance] if !perspective.is_empty() && !class.is_empty() && !instance.is_empty() => {
            percent_decode(instance).map(|_| *perspective)
        }
        _ => None,
    }
}

/// The perspective and the instance IRI an instance URI of this server names.
pub fn instance_of(uri: &str) -> Option<(&str, String)> {
    match uri.strip_prefix(PREFIX)?.split('/').collect::<Vec<_>>().as_slice() {
        [perspective, class, instance] if !perspective.is_empty() && !class.is_empty() => {
            Some((perspective, percent_decode(instance)?))
        }
        _ => None,
    }
}

fn perspective_resource(id: &str, name: &str) -> Resource {
    Resource::new(perspective_uri(id), format!("perspective {name}"))
        .with_title(name)
        .with_description("A perspective: its classes and how to use them.")
        .with_mime_type(JSON)
}

fn instance_resource(perspective: &str, class: &str, instance: &Value) -> Resource {
    let id = instance["id"].as_str().unwrap_or_default();
    Resource::new(instance_uri(perspective, class, id), format!("{class} {id}"))
        .with_description(format!("An instance of {class}."))
        .with_mime_type(JSON)
}

fn internal(e: ToolError) -> ErrorData {
    tracing::error!(kind = "internal", error = ?e, "resources");
    ErrorData::internal_error("internal error", None)
}

/// Every byte but RFC 3986's unreserved characters as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_iris_round_trip_through_the_uri() {
        for iri in [
            "ad4m://obj/abcdefghijklmnopqrstuvwx",
            "https://example.org/a b?c=d#e",
            "urn:x:ü/%",
        ] {
            let encoded = percent_encode(iri);
            assert!(!encoded.contains('/'), "{encoded}");
            assert_eq!(percent_decode(&encoded).as_deref(), Some(iri));
        }
        assert_eq!(percent_decode("%zz"), None);
        let uri = instance_uri("p-1", "Book", "ad4m://obj/x");
        assert_eq!(perspective_of(&uri), Some("p-1"));
        assert_eq!(perspective_of(&perspective_uri("p-1")), Some("p-1"));
        assert_eq!(instance_of(&uri), Some(("p-1", "ad4m://obj/x".to_string())));
        assert_eq!(instance_of(&perspective_uri("p-1")), None);
        for bad in [
            "shacl-mcp://perspectives/",
            "shacl-mcp://perspectives/p/Book",
            "https://x/p",
            "shacl-mcp://perspectives/p/B/%zz",
        ] {
            assert_eq!(perspective_of(bad), None, "{bad}");
        }
        assert_eq!(percent_decode("%4"), None);
    }

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let at = Cursor {
            perspective: 3,
            class: 2,
            offset: 500,
        };
        assert_eq!(Cursor::parse(&at.text()), Some(at));
        for bad in ["", "1.2", "1.2.3.4", "a.b.c", "-1.0.0"] {
            assert_eq!(Cursor::parse(bad), None, "{bad}");
        }
    }
}
