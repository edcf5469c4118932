//! The model-agnostic instance tools: the class is an argument (`class_name`), its schema is data
//! from describe_perspective. Their result schemas are shared with the per-class tools, whose
//! results are "as instance_create", "as instance_query", and so on.

use serde_json::{Value, json};

use super::fragments::{
    MAX_QUERY_LIMIT, array_of, class_name, closed_object, count, described, filter, free_object, instance_id,
    instance_object, limit, offset, order, perspective_id, string, string_list, tool, typed,
};
use crate::surface::{ToolAnnotations, ToolSpec};

pub(super) fn instance_create() -> ToolSpec {
    tool(
        "instance_create",
        "Create instance",
        ToolAnnotations::WRITE,
        concat!(
            "Create an instance of a class in one transaction: runs the class's constructor (defaults, markers), ",
            "sets the given properties and collections, and links it under parent when given. Every value is ",
            "checked against the class first; on any problem nothing is written and the result is a tool error ",
            "(isError) whose validation envelope lists every problem with the expected type. The id is minted ",
            "(ad4m://obj/…) unless base_uri is given. Prefer it to add_link and execute_commands for instance ",
            "data; describe_perspective tells the class and property names.\n",
            r#"Example: instance_create({"perspective_id": "<P>", "class_name": "Task", "#,
            r#""properties": {"title": "Review MCP docs"}}) → {"created": true, "class_name": "Task", "#,
            r#""base_uri": "ad4m://obj/…", "properties_set": ["title"]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": class_name(),
                "properties": free_object(
                    "Values by property name, as describe_perspective lists them, e.g. \
                     {\"title\": \"Hi\", \"tags\": [\"a\"]}. Required properties must be given. JSON types are \
                     strict: strings, numbers, booleans, IRIs for references, arrays for collections.",
                ),
                "base_uri": string(
                    "Id (IRI) for the new instance; minted as ad4m://obj/<24 letters> when omitted. Refused when \
                     an instance of this class already has it.",
                ),
                "parent": string(
                    "Node to put the new instance under (an ad4m://has_child link), e.g. a Channel's id or \
                     ad4m://self.",
                ),
            }),
            &["perspective_id", "class_name"],
        ),
        instance_create_result(),
    )
}

pub(super) fn instance_query() -> ToolSpec {
    tool(
        "instance_query",
        "Query instances",
        ToolAnnotations::READ,
        concat!(
            "Find instances of a class with their typed values: filter by property values, restrict to the ",
            "children of a parent, page and order by creation. count is the page size, total_count every match. ",
            "Use instance_get when you already have the id, describe_perspective for the property names. An ",
            "unknown class or property is a tool error (isError) listing the available ones.\n",
            r#"Example: instance_query({"perspective_id": "<P>", "class_name": "Task", "#,
            r#""filter": {"status": "open"}}) → {"class_name": "Task", "count": 1, "total_count": 1, "#,
            r#""instances": [{"id": "<T>", "baseExpression": "<T>", "title": "Review MCP docs", "#,
            r#""status": "open", "tags": [], "createdAt": "…", "updatedAt": "…", "author": "did:key:z6Mk…", "#,
            r#""timestamp": "…"}]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": class_name(),
                "filter": filter(),
                "parent": string("Only instances that are children (ad4m://has_child) of this node."),
                "limit": limit(MAX_QUERY_LIMIT),
                "offset": offset(),
                "order": order(),
            }),
            &["perspective_id", "class_name"],
        ),
        instance_query_result(),
    )
}

pub(super) fn instance_get() -> ToolSpec {
    tool(
        "instance_get",
        "Get instance",
        ToolAnnotations::READ,
        concat!(
            "Read one instance by its id: id, baseExpression, every property and collection by name (absent ",
            "optional values omitted, empty collections []), then createdAt, updatedAt, author, timestamp. No ",
            "instance of class_name at base_uri is a tool error (isError). To search or list, use instance_query.\n",
            r#"Example: instance_get({"perspective_id": "<P>", "class_name": "Task", "base_uri": "<T>"}) → "#,
            r#"{"id": "<T>", "baseExpression": "<T>", "title": "Review MCP docs", "status": "open", "#,
            r#""tags": ["documentation"], "createdAt": "…", "updatedAt": "…", "author": "did:key:z6Mk…", "#,
            r#""timestamp": "…"}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": class_name(),
                "base_uri": instance_id(),
            }),
            &["perspective_id", "class_name", "base_uri"],
        ),
        instance_object(),
    )
}

pub(super) fn instance_update() -> ToolSpec {
    tool(
        "instance_update",
        "Update instance",
        ToolAnnotations::OVERWRITE,
        concat!(
            "Change single-valued properties of an existing instance: properties sets values, unset clears ",
            "optional ones; give at least one of the two. Other properties stay as they are. Collections are ",
            "changed with instance_add_to_collection and instance_remove_from_collection. Values are checked ",
            "against the class first; on any problem nothing changes and the result is a tool error (isError) ",
            "whose validation envelope lists every problem.\n",
            r#"Example: instance_update({"perspective_id": "<P>", "class_name": "Task", "base_uri": "<T>", "#,
            r#""properties": {"status": "done"}}) → {"success": true, "class_name": "Task", "base_uri": "<T>", "#,
            r#""updated_properties": ["status"]}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": class_name(),
                "base_uri": instance_id(),
                "properties": free_object("New values of single-valued properties by name, e.g. {\"status\": \"done\"}."),
                "unset": described(
                    "Names of optional single-valued properties to clear, e.g. [\"dueDate\"].",
                    string_list(),
                ),
            }),
            &["perspective_id", "class_name", "base_uri"],
        ),
        instance_update_result(),
    )
}

pub(super) fn instance_add_to_collection() -> ToolSpec {
    tool(
        "instance_add_to_collection",
        "Add to collection",
        ToolAnnotations::WRITE,
        concat!(
            "Add one item to a collection of an instance (a multi-valued property, e.g. a Task's tags or a ",
            "Channel's members), through the class's adder. Adding an item that is already there writes nothing ",
            "(links_added 0, already_member true). The item is checked against the collection first (type, ",
            "bounds, reference target); a problem is a tool error (isError) with a validation envelope. Set ",
            "single-valued properties with instance_update.\n",
            r#"Example: instance_add_to_collection({"perspective_id": "<P>", "class_name": "Task", "#,
            r#""base_uri": "<T>", "collection": "tags", "item_uri": "documentation"}) → {"success": true, "#,
            r#""class_name": "Task", "base_uri": "<T>", "collection": "tags", "links_added": 1}"#,
        ),
        collection_parameters("The item to add"),
        add_to_collection_result(),
    )
}

pub(super) fn instance_remove_from_collection() -> ToolSpec {
    tool(
        "instance_remove_from_collection",
        "Remove from collection",
        ToolAnnotations::DELETE,
        concat!(
            "Remove one item from a collection of an instance, through the class's remover. The item itself ",
            "is not deleted, only its membership; an item that was not there gives links_removed 0. To delete ",
            "an instance use instance_remove.\n",
            r#"Example: instance_remove_from_collection({"perspective_id": "<P>", "class_name": "Task", "#,
            r#""base_uri": "<T>", "collection": "tags", "item_uri": "documentation"}) → {"success": true, "#,
            r#""class_name": "Task", "base_uri": "<T>", "collection": "tags", "links_removed": 1}"#,
        ),
        collection_parameters("The item to remove"),
        remove_from_collection_result(),
    )
}

pub(super) fn instance_remove() -> ToolSpec {
    tool(
        "instance_remove",
        "Delete instance",
        ToolAnnotations::DELETE,
        concat!(
            "Delete an instance: runs the class's destructor, then removes every remaining link in or out of ",
            "it (its values, collection memberships, has_child edges), in one transaction. No instance of ",
            "class_name at base_uri is a tool error (isError), so a wrong class cannot delete something else. ",
            "When you need an attestation of what was erased and what could not be reached, use forget.\n",
            r#"Example: instance_remove({"perspective_id": "<P>", "class_name": "Task", "base_uri": "<T>"}) → "#,
            r#"{"success": true, "class_name": "Task", "deleted": "<T>", "links_removed": 6}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "class_name": class_name(),
                "base_uri": instance_id(),
            }),
            &["perspective_id", "class_name", "base_uri"],
        ),
        instance_remove_result(),
    )
}

/// The parameters of instance_add_to_collection and instance_remove_from_collection.
fn collection_parameters(item: &str) -> Value {
    closed_object(
        json!({
            "perspective_id": perspective_id(),
            "class_name": class_name(),
            "base_uri": instance_id(),
            "collection": string("Name of a collection of the class, as describe_perspective lists it."),
            "item_uri": {
                "type": ["string", "number", "boolean"],
                "description": format!(
                    "{item}: an instance IRI for a collection of references, else a value of the collection's \
                     type (e.g. a tag)."
                ),
            },
        }),
        &["perspective_id", "class_name", "base_uri", "collection", "item_uri"],
    )
}

// ----- results (the per-class tools take them from these tools) -----

/// `{ created: true, class_name, base_uri, properties_set, collections_set?, parent?, added_to_parent? }`
fn instance_create_result() -> Value {
    closed_object(
        json!({
            "created": typed("boolean"),
            "class_name": typed("string"),
            "base_uri": described("The new instance's id.", typed("string")),
            "properties_set": described("Properties written, in property order.", string_list()),
            "collections_set": free_object("Collections written, by name."),
            "parent": typed("string"),
            "added_to_parent": typed("boolean"),
        }),
        &["created", "class_name", "base_uri", "properties_set"],
    )
}

/// `{ class_name, count, total_count, instances }`
fn instance_query_result() -> Value {
    closed_object(
        json!({
            "class_name": typed("string"),
            "count": described("Instances in this page.", count()),
            "total_count": described("Instances matching, over all pages.", count()),
            "instances": array_of(instance_object()),
        }),
        &["class_name", "count", "total_count", "instances"],
    )
}

/// `{ success, class_name, base_uri, updated_properties, unset_properties? }`
fn instance_update_result() -> Value {
    closed_object(
        json!({
            "success": typed("boolean"),
            "class_name": typed("string"),
            "base_uri": typed("string"),
            "updated_properties": string_list(),
            "unset_properties": string_list(),
        }),
        &["success", "class_name", "base_uri", "updated_properties"],
    )
}

/// `{ success, class_name, base_uri, collection, links_added, already_member? }`
fn add_to_collection_result() -> Value {
    closed_object(
        json!({
            "success": typed("boolean"),
            "class_name": typed("string"),
            "base_uri": typed("string"),
            "collection": typed("string"),
            "links_added": count(),
            "already_member": typed("boolean"),
        }),
        &["success", "class_name", "base_uri", "collection", "links_added"],
    )
}

/// `{ success, class_name, base_uri, collection, links_removed }`
fn remove_from_collection_result() -> Value {
    closed_object(
        json!({
            "success": typed("boolean"),
            "class_name": typed("string"),
            "base_uri": typed("string"),
            "collection": typed("string"),
            "links_removed": count(),
        }),
        &["success", "class_name", "base_uri", "collection", "links_removed"],
    )
}

/// `{ success, class_name, deleted, links_removed }`
fn instance_remove_result() -> Value {
    closed_object(
        json!({
            "success": typed("boolean"),
            "class_name": typed("string"),
            "deleted": described("Id of the deleted instance.", typed("string")),
            "links_removed": count(),
        }),
        &["success", "class_name", "deleted", "links_removed"],
    )
}
