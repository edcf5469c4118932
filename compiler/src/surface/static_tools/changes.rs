//! changes_since: what changed in a perspective after a cursor (docs/data-model.md, "The change
//! feed").

use serde_json::json;

use super::fragments::{
    array_of, class_name, closed_object, described, limit, perspective_id, string, timestamp, tool, typed,
};
use crate::surface::{ToolAnnotations, ToolSpec};

/// The most entries one answer holds.
const MAX_CHANGES: u64 = 1_000;

pub(super) fn changes_since() -> ToolSpec {
    tool(
        "changes_since",
        "Changes since a cursor",
        ToolAnnotations::READ,
        concat!(
            "What changed in a perspective after a cursor, by any writer: one entry per instance touched, ",
            "oldest first, with its class names, kind (created, updated or removed relative to the cursor), ",
            "time and author. Call it once without cursor to get the current end (no changes), keep the cursor ",
            "it answers, and pass it next time; the cursor is opaque and stays valid across restarts and ",
            "nodes. class_name keeps entries of that class. has_more: call again with the new cursor.\n",
            r#"Example: changes_since({"perspective_id": "<P>", "cursor": "<C>"}) → {"cursor": "<C2>", "#,
            r#""changes": [{"base_uri": "<T>", "class_names": ["Task"], "kind": "created", "at": "#,
            r#""2026-01-01T00:00:00.000000Z", "author": "did:key:…"}], "has_more": false}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "cursor": string("A cursor changes_since answered earlier; none for the current end."),
                "class_name": class_name(),
                "limit": limit(MAX_CHANGES),
            }),
            &["perspective_id"],
        ),
        closed_object(
            json!({
                "cursor": string("Where this answer ends: pass it to the next call."),
                "changes": described(
                    "One entry per instance touched after the cursor, oldest first by its last change.",
                    array_of(closed_object(
                        json!({
                            "base_uri": string("The instance's IRI."),
                            "class_names": described(
                                "Its classes (for a removed instance, those it had).",
                                array_of(typed("string")),
                            ),
                            "kind": {
                                "type": "string",
                                "description": "created: no instance at the cursor; removed: none now; else updated.",
                                "enum": ["created", "updated", "removed"],
                            },
                            "at": described("When its last change committed.", timestamp()),
                            "author": string("DID of the author of its last change."),
                        }),
                        &["base_uri", "class_names", "kind", "at", "author"],
                    )),
                ),
                "has_more": described("true when more changes follow the cursor: call again.", typed("boolean")),
            }),
            &["cursor", "changes", "has_more"],
        ),
    )
}
