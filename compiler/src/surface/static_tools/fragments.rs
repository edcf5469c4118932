//! The pieces the static tools are built from: schema builders, the parameters that recur
//! (perspective_id, class_name, paging) and the result objects that recur (links, instances).
//!
//! Every schema is plain JSON Schema 2020-12 with no `$ref`, no `$schema` and no combinators,
//! so any MCP client can read it. Key order is fixed (`preserve_order`): `type`,
//! `description`, then the keywords.

use serde_json::{Map, Value, json};

use crate::surface::{ToolAnnotations, ToolSpec};

/// The default page size of every paged tool.
pub(crate) const DEFAULT_LIMIT: u64 = 100;

/// A tool from its parts.
pub(super) fn tool(
    name: &str,
    title: &str,
    annotations: ToolAnnotations,
    description: &str,
    input_schema: Value,
    output_schema: Value,
) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        title: title.to_string(),
        description: description.to_string(),
        input_schema,
        output_schema,
        annotations,
    }
}

// ----- builders -----

/// An object whose keys are fixed: `{type, properties, required, additionalProperties: false}`.
/// Every input schema is one, and so is every result whose keys do not depend on the class.
pub(crate) fn closed_object(properties: Value, required: &[&str]) -> Value {
    let mut schema = object_schema(properties, required);
    schema.insert("additionalProperties".into(), false.into());
    Value::Object(schema)
}

/// An object with these known keys that may carry more: the keys depend on the class.
pub(crate) fn open_object(properties: Value, required: &[&str]) -> Value {
    Value::Object(object_schema(properties, required))
}

/// `{type: object, properties, required}`, moving `properties` in (`json!` would copy it).
fn object_schema(properties: Value, required: &[&str]) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), properties);
    schema.insert(
        "required".into(),
        required.iter().map(|name| Value::from(*name)).collect(),
    );
    schema
}

/// The input schema of a tool without parameters.
pub(crate) fn no_parameters() -> Value {
    closed_object(json!({}), &[])
}

/// `schema` with a `description`, placed right after `type`.
pub(crate) fn described(description: &str, schema: Value) -> Value {
    let Value::Object(fields) = schema else {
        return schema;
    };
    let mut out = Map::new();
    if let Some(ty) = fields.get("type") {
        out.insert("type".into(), ty.clone());
    }
    out.insert("description".into(), description.into());
    for (key, value) in fields {
        if key != "type" && key != "description" {
            out.insert(key, value);
        }
    }
    Value::Object(out)
}

/// `{"type": ty}`: a result field whose name says enough.
pub(crate) fn typed(ty: &str) -> Value {
    json!({ "type": ty })
}

pub(crate) fn string(description: &str) -> Value {
    described(description, typed("string"))
}

pub(crate) fn boolean(description: &str) -> Value {
    described(description, typed("boolean"))
}

/// A number of things: an integer, at least 0.
pub(crate) fn count() -> Value {
    json!({ "type": "integer", "minimum": 0 })
}

/// An RFC 3339 timestamp.
pub(crate) fn timestamp() -> Value {
    json!({ "type": "string", "format": "date-time" })
}

pub(crate) fn array_of(items: Value) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), "array".into());
    schema.insert("items".into(), items);
    Value::Object(schema)
}

/// A list of names (properties, collections).
pub(crate) fn string_list() -> Value {
    array_of(typed("string"))
}

/// An object whose keys are not fixed: they depend on the class (`properties`, `filter`,
/// `collections_set`) or on the actions (`parameters`). Open here; the engine checks it.
pub(crate) fn free_object(description: &str) -> Value {
    described(description, typed("object"))
}

// ----- parameters -----

pub(crate) fn perspective_id() -> Value {
    string("UUID of the perspective (from list_perspectives or add_perspective).")
}

pub(crate) fn class_name() -> Value {
    string(
        "Class name as describe_perspective lists it, e.g. \"Task\" (exact match first, then \
         case-insensitive).",
    )
}

/// The id of an existing instance.
pub(crate) fn instance_id() -> Value {
    string(
        "Id (IRI) of the instance, e.g. \"ad4m://obj/…\", as instance_create or instance_query \
         returned it.",
    )
}

/// `limit`: a page size from 1 to `max`, default [`DEFAULT_LIMIT`].
pub(crate) fn limit(max: u64) -> Value {
    json!({
        "type": "integer",
        "description": format!("Page size, 1 to {max} (default {DEFAULT_LIMIT})."),
        "minimum": 1,
        "maximum": max,
        "default": DEFAULT_LIMIT,
    })
}

/// instance_query and the per-class query and list tools return at most this many instances.
pub(crate) const MAX_QUERY_LIMIT: u64 = 500;

/// `filter` of instance_query and the per-class query tools; checked against the class by the engine.
pub(crate) fn filter() -> Value {
    free_object(
        "Conditions on values by property name: {prop: value} exact, {prop: [a, b]} any of, \
         {prop: {gt|gte|lt|lte|contains|not: v}}; combine with AND: [..], OR: [..], NOT: {..}; \
         id matches the instance IRI. On a collection a condition matches when any item does.",
    )
}

pub(crate) fn offset() -> Value {
    json!({
        "type": "integer",
        "description": "How many matches to skip, for paging (default 0).",
        "minimum": 0,
        "default": 0,
    })
}

pub(crate) fn order() -> Value {
    json!({
        "type": "string",
        "description": "By creation: oldest_first (default) or newest_first.",
        "enum": ["oldest_first", "newest_first"],
        "default": "oldest_first",
    })
}

/// A link named by its three parts, as an argument.
pub(crate) fn link_triple(description: &str) -> Value {
    described(
        description,
        closed_object(
            json!({
                "source": string("Source IRI."),
                "predicate": string("Predicate IRI."),
                "target": string("Target: an IRI or an encoded literal."),
            }),
            &["source", "predicate", "target"],
        ),
    )
}

// ----- results -----

/// A stored link: `{ source, predicate, target, author, timestamp }`.
pub(crate) fn link() -> Value {
    closed_object(
        json!({
            "source": typed("string"),
            "predicate": typed("string"),
            "target": typed("string"),
            "author": described("DID of the agent that wrote the link.", typed("string")),
            "timestamp": timestamp(),
        }),
        &["source", "predicate", "target", "author", "timestamp"],
    )
}

/// An instance object: `{ id, baseExpression, <property>: value, <collection>: [..], createdAt,
/// updatedAt, author, timestamp }`. Open: its property keys depend on the class.
pub(crate) fn instance_object() -> Value {
    described(
        "An instance: id, baseExpression, its properties and collections by name (absent optional \
         values omitted, empty collections []), createdAt, updatedAt, author, timestamp.",
        open_object(
            json!({
                "id": typed("string"),
                "baseExpression": typed("string"),
                "createdAt": timestamp(),
                "updatedAt": timestamp(),
                "author": typed("string"),
                "timestamp": timestamp(),
            }),
            &["id", "baseExpression", "createdAt", "updatedAt", "author", "timestamp"],
        ),
    )
}
