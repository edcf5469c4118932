//! Tools on nodes whatever their class: the has_child tree (add_child, get_children) and raw
//! actions (execute_commands).

use serde_json::{Value, json};

use super::fragments::{
    array_of, boolean, closed_object, count, described, free_object, limit, link, perspective_id, string, timestamp,
    tool, typed,
};
use crate::surface::{ToolAnnotations, ToolSpec};

/// get_children pages hold at most this many children.
const MAX_CHILDREN_PAGE: u64 = 1000;

pub(super) fn add_child() -> ToolSpec {
    tool(
        "add_child",
        "Add child",
        ToolAnnotations::WRITE,
        concat!(
            "Put a node under a parent with an ad4m://has_child link: the containment tree apps are built on ",
            "(messages in a channel, tasks in a board, top-level items under ad4m://self). Neither node needs to ",
            "be an instance of a class. When creating a new instance, give instance_create a parent instead; ",
            "use add_child for an existing node. List children with get_children, or with instance_query and ",
            "parent for one class.\n",
            r#"Example: add_child({"perspective_id": "<P>", "parent": "ad4m://self", "child": "<T>"}) → "#,
            r#"{"success": true, "link": {"source": "ad4m://self", "predicate": "ad4m://has_child", "#,
            r#""target": "<T>", "author": "did:key:z6Mk…", "timestamp": "…"}}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "parent": string("Parent node IRI, e.g. a Channel's id or ad4m://self."),
                "child": string("Child node IRI to put under parent."),
            }),
            &["perspective_id", "parent", "child"],
        ),
        closed_object(
            json!({ "success": typed("boolean"), "link": link() }),
            &["success", "link"],
        ),
    )
}

pub(super) fn get_children() -> ToolSpec {
    tool(
        "get_children",
        "List children",
        ToolAnnotations::READ,
        concat!(
            "List the children of a node (the targets of its ad4m://has_child links) whatever their class: the ",
            "id, timestamp and author of each link, oldest first. limit keeps the most recent ones; total_count ",
            "says how many there are. To read the children of one class with their values, use instance_query ",
            "with parent.\n",
            r#"Example: get_children({"perspective_id": "<P>", "parent": "ad4m://self"}) → "#,
            r#"{"parent": "ad4m://self", "count": 1, "total_count": 1, "children": [{"id": "<T>", "#,
            r#""timestamp": "…", "author": "did:key:z6Mk…"}]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "parent": string("Node IRI whose children to list, e.g. ad4m://self."),
                "limit": limit(MAX_CHILDREN_PAGE),
            }),
            &["perspective_id", "parent"],
        ),
        closed_object(
            json!({
                "parent": typed("string"),
                "count": described("Children in this answer.", count()),
                "total_count": described("Children of the parent in all.", count()),
                "children": array_of(closed_object(
                    json!({
                        "id": described("The child node's IRI.", typed("string")),
                        "timestamp": timestamp(),
                        "author": typed("string"),
                    }),
                    &["id", "timestamp", "author"],
                )),
            }),
            &["parent", "count", "total_count", "children"],
        ),
    )
}

pub(super) fn execute_commands() -> ToolSpec {
    tool(
        "execute_commands",
        "Run raw actions",
        ToolAnnotations::WRITE,
        concat!(
            "Run raw actions (addLink, removeLink, setSingleTarget) on one node in one transaction, in the ",
            "action language class constructors and setters are written in: this stands for expression_address, ",
            "and a target equal to a key of parameters is replaced by its value. Targets are IRIs or encoded ",
            "literals (literal:string:done). As with add_link, nothing is checked against a class: use it only ",
            "for what the instance_* tools cannot express, such as removing a raw link.\n",
            r#"Example: execute_commands({"perspective_id": "<P>", "expression_address": "<T>", "#,
            r#""commands": [{"action": "setSingleTarget", "source": "this", "predicate": "todo://status", "#,
            r#""target": "literal:string:done"}]}) → {"executed": true, "perspective_id": "<P>", "#,
            r#""expression_address": "<T>", "links_added": 1, "links_removed": 1}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "expression_address": string("IRI of the node the actions run on; this in an action stands for it."),
                "commands": {
                    "type": "array",
                    "description": "The actions, run in order (at least one).",
                    "minItems": 1,
                    "items": action(),
                },
                "parameters": free_object(
                    "Placeholder values: an action target equal to a key (e.g. \"value\") is replaced by its value.",
                ),
            }),
            &["perspective_id", "expression_address", "commands"],
        ),
        closed_object(
            json!({
                "executed": typed("boolean"),
                "perspective_id": typed("string"),
                "expression_address": typed("string"),
                "links_added": count(),
                "links_removed": count(),
            }),
            &[
                "executed",
                "perspective_id",
                "expression_address",
                "links_added",
                "links_removed",
            ],
        ),
    )
}

/// One action of execute_commands, the form constructors and setters are written in.
fn action() -> Value {
    closed_object(
        json!({
            "action": {
                "type": "string",
                "description": "addLink adds a link, removeLink removes it, setSingleTarget replaces every \
                                target of source and predicate with this one.",
                "enum": ["addLink", "removeLink", "setSingleTarget"],
            },
            "source": string("Source IRI, or this."),
            "predicate": string("Predicate IRI."),
            "target": string("Target: an IRI, an encoded literal, this, or a key of parameters."),
            "local": boolean("true keeps the link on this node, never shared (default false)."),
        }),
        &["action", "source", "predicate", "target"],
    )
}
