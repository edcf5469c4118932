//! Perspectives and links: list_perspectives, add_perspective, add_link, query_links, add_model,
//! describe_perspective.

use serde_json::{Value, json};

use super::fragments::{
    array_of, boolean, closed_object, count, described, limit, link, no_parameters, offset, open_object,
    perspective_id, string, string_list, tool, typed,
};
use crate::surface::{ToolAnnotations, ToolSpec};

/// query_links pages hold at most this many links.
const MAX_LINKS_PAGE: u64 = 1000;

pub(super) fn list_perspectives() -> ToolSpec {
    tool(
        "list_perspectives",
        "List perspectives",
        ToolAnnotations::READ,
        concat!(
            "List the perspectives you can see. Each one's uuid is the perspective_id every other tool takes; ",
            "neighbourhood is null for a perspective that is not shared. Start here (or with add_perspective ",
            "when there is none), then call describe_perspective to learn its classes.\n",
            r#"Example: list_perspectives({}) → {"perspectives": [{"uuid": "<P>", "name": "Team", "#,
            r#""neighbourhood": null, "owner": "did:key:z6Mk…"}]}"#,
        ),
        no_parameters(),
        closed_object(
            json!({
                "perspectives": array_of(closed_object(
                    json!({
                        "uuid": typed("string"),
                        "name": typed("string"),
                        "neighbourhood": typed_nullable_string(),
                        "owner": described("DID of the perspective's owner.", typed("string")),
                    }),
                    &["uuid", "name", "neighbourhood", "owner"],
                )),
            }),
            &["perspectives"],
        ),
    )
}

pub(super) fn add_perspective() -> ToolSpec {
    tool(
        "add_perspective",
        "Create perspective",
        ToolAnnotations::WRITE,
        concat!(
            "Create a new, empty perspective (a graph of links you own) and return its uuid, the ",
            "perspective_id of every other tool. The server's built-in classes are available in it at once ",
            "(see describe_perspective); add_model registers more.\n",
            r#"Example: add_perspective({"name": "Team"}) → {"success": true, "uuid": "<P>", "name": "Team"}"#,
        ),
        closed_object(
            json!({ "name": string("Display name of the new perspective.") }),
            &["name"],
        ),
        closed_object(
            json!({
                "success": typed("boolean"),
                "uuid": described("The new perspective's id: pass it as perspective_id.", typed("string")),
                "name": typed("string"),
            }),
            &["success", "uuid", "name"],
        ),
    )
}

pub(super) fn add_link() -> ToolSpec {
    tool(
        "add_link",
        "Add raw link",
        ToolAnnotations::WRITE,
        concat!(
            "Write one raw link (source —predicate→ target), signed by your agent. Nothing checks it against ",
            "a class: for instance data use instance_create, instance_update or instance_add_to_collection, ",
            "which validate; for a class's own actions use execute_commands. There is no remove-link tool. ",
            "The target is an IRI or an encoded literal (literal:string:hello, literal:number:3, ",
            "literal:boolean:true). Bad arguments come back as a tool error (isError) listing every problem.\n",
            r#"Example: add_link({"perspective_id": "<P>", "source": "ad4m://self", "predicate": "app://likes", "#,
            r#""target": "literal:string:tea"}) → {"success": true, "link": {"source": "ad4m://self", "#,
            r#""predicate": "app://likes", "target": "literal:string:tea", "author": "did:key:z6Mk…", "#,
            r#""timestamp": "2026-01-05T10:00:00.000000Z"}}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "source": string("Source IRI, e.g. an instance id or ad4m://self."),
                "predicate": string("Predicate IRI, e.g. app://likes."),
                "target": string("Target: an IRI, or an encoded literal such as literal:string:hello."),
                "local": boolean("true keeps the link on this node, never shared (default false)."),
            }),
            &["perspective_id", "source", "predicate", "target"],
        ),
        closed_object(
            json!({ "success": typed("boolean"), "link": link() }),
            &["success", "link"],
        ),
    )
}

pub(super) fn query_links() -> ToolSpec {
    tool(
        "query_links",
        "Query raw links",
        ToolAnnotations::READ,
        concat!(
            "Read the raw links of a perspective, oldest first, matching every one of source, predicate and ",
            "target that you give (exact match; none of them: all links). Use it to see what the graph really ",
            "holds; to read instances with typed values use instance_query or instance_get. count is the ",
            "page size, total_count every match: page with limit and offset.\n",
            r#"Example: query_links({"perspective_id": "<P>", "source": "<T>", "predicate": "todo://title"}) → "#,
            r#"{"count": 1, "total_count": 1, "links": [{"source": "<T>", "predicate": "todo://title", "#,
            r#""target": "literal:string:Review%20MCP%20docs", "author": "did:key:z6Mk…", "timestamp": "…"}]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "source": string("Only links from this source IRI."),
                "predicate": string("Only links with this predicate IRI."),
                "target": string("Only links to this target (an IRI or an encoded literal)."),
                "limit": limit(MAX_LINKS_PAGE),
                "offset": offset(),
            }),
            &["perspective_id"],
        ),
        closed_object(
            json!({
                "count": described("Links in this page.", count()),
                "total_count": described("Links matching, over all pages.", count()),
                "links": array_of(link()),
            }),
            &["count", "total_count", "links"],
        ),
    )
}

pub(super) fn add_model() -> ToolSpec {
    tool(
        "add_model",
        "Register class",
        ToolAnnotations::OVERWRITE,
        concat!(
            "Register a class in one perspective from its SHACL shape (AD4M's SHACL JSON), so that the ",
            "instance_* tools accept it as class_name. Registering the same name again replaces the shape ",
            "(replaced: true; existing instances are not migrated). A class of the server's fixed DNA cannot ",
            "be replaced. The shape is checked first: a refusal is a tool error (isError) naming every ",
            "problem.\n",
            r#"Example: add_model({"perspective_id": "<P>", "class_name": "Note", "shacl_json": "#,
            r#"{"target_class": "app://Note", "properties": [{"path": "app://text", "name": "text", "#,
            r#""datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true}]}}) → "#,
            r#"{"success": true, "perspective_id": "<P>", "class_name": "Note", "replaced": false}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": string(
                    "Name of the class: the local name of the shape's target_class (app://Note → \"Note\").",
                ),
                "shacl_json": {
                    "type": ["string", "object"],
                    "description": "The class shape in AD4M SHACL JSON (target_class, properties, constructor, …), \
                                    as an object or as a JSON string.",
                },
            }),
            &["perspective_id", "class_name", "shacl_json"],
        ),
        closed_object(
            json!({
                "success": typed("boolean"),
                "perspective_id": typed("string"),
                "class_name": typed("string"),
                "replaced": described("true when the class already existed and its shape was replaced.", typed("boolean")),
            }),
            &["success", "perspective_id", "class_name", "replaced"],
        ),
    )
}

pub(super) fn describe_perspective() -> ToolSpec {
    tool(
        "describe_perspective",
        "Describe perspective",
        ToolAnnotations::READ,
        concat!(
            "Describe a perspective: every class you can use in it, with each property and collection ",
            "(name, type, required, cardinality, predicate, read-only reason, enum, pattern, ranges, lengths, ",
            "relation target). Call it first: pass a class's name as class_name to the instance_* tools, and ",
            "its property names as the keys of properties and filter.\n",
            r#"Example: describe_perspective({"perspective_id": "<P>"}) → {"perspective_id": "<P>", "#,
            r#""name": "Team", "neighbourhood": null, "classes": [{"name": "Task", "class_uri": "todo://Task", "#,
            r#""properties": [{"name": "title", "type": "string", "required": true, "#,
            r#""cardinality": {"min": 1, "max": 1}, "predicate": "todo://title"}, …], "#,
            r#""collections": [{"name": "tags", …}]}], "usage": "…"}"#,
        ),
        closed_object(json!({ "perspective_id": perspective_id() }), &["perspective_id"]),
        closed_object(
            json!({
                "perspective_id": typed("string"),
                "name": typed("string"),
                "neighbourhood": typed_nullable_string(),
                "classes": array_of(class_description()),
                "usage": described("How to use these classes with the instance_* tools.", typed("string")),
            }),
            &["perspective_id", "name", "neighbourhood", "classes", "usage"],
        ),
    )
}

/// One class of describe_perspective.
fn class_description() -> Value {
    open_object(
        json!({
            "name": described("Pass it as class_name.", typed("string")),
            "class_uri": typed("string"),
            "interpretation_hint": typed("string"),
            "identity_property": typed("string"),
            "properties": described("Single-valued properties.", array_of(property_description())),
            "collections": described("Multi-valued properties.", array_of(property_description())),
            "flows": described(
                "The flows an instance may enter (see get_flows and flow_start); absent when none.",
                array_of(closed_object(
                    json!({
                        "name": typed("string"),
                        "states": string_list(),
                        "transitions": array_of(closed_object(
                            json!({
                                "action_name": typed("string"),
                                "from_state": typed("string"),
                                "to_state": typed("string"),
                            }),
                            &["action_name", "from_state", "to_state"],
                        )),
                    }),
                    &["name", "states", "transitions"],
                )),
            ),
        }),
        &["name", "class_uri", "properties", "collections"],
    )
}

/// One property or collection of describe_perspective.
fn property_description() -> Value {
    open_object(
        json!({
            "name": typed("string"),
            "type": {
                "type": "string",
                "enum": ["string", "boolean", "integer", "number", "datetime", "langString", "reference"],
            },
            "format": { "type": "string", "enum": ["date-time", "date", "time"] },
            "required": typed("boolean"),
            "cardinality": closed_object(
                json!({
                    "min": count(),
                    "max": described("null: unbounded.", json!({ "type": ["integer", "null"], "minimum": 0 })),
                }),
                &["min", "max"],
            ),
            "predicate": typed("string"),
            "read_only": typed("boolean"),
            "read_only_reason": typed("string"),
            "enum": typed("array"),
            "pattern": typed("string"),
            "minimum": typed("number"),
            "maximum": typed("number"),
            "exclusive_minimum": typed("number"),
            "exclusive_maximum": typed("number"),
            "min_length": count(),
            "max_length": count(),
            "relation_kind": typed("string"),
            "target_class": typed("string"),
        }),
        &["name", "type", "required", "cardinality", "predicate"],
    )
}

/// A neighbourhood URL, or null for a perspective that is not shared.
fn typed_nullable_string() -> Value {
    json!({ "type": ["string", "null"] })
}
