//! `task_summary`: a hand-written tool over the generated typed API. It reads every `Task` of a
//! perspective with `Task::query` and counts them by their typed `status`, listing the ones
//! whose typed `due_date` has passed and that are not done.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use shacl_mcp::CustomTool;
use shacl_mcp::clock::{Clock, SystemClock, parse_rfc3339_micros};
use shacl_mcp::compiler::surface::{ToolAnnotations, ToolSpec};
use shacl_mcp::engine::{Engine, QueryArgs, ToolError};

use crate::tasks::Task;

/// The tool's name in `tools/list`.
pub const NAME: &str = "task_summary";

/// The largest page the query tools serve.
const PAGE: u64 = 500;

const DESCRIPTION: &str = "Summarize the tasks of a perspective: how many there are, how many are \
open, in progress and done, and which are overdue (a dueDate in the past and a status other than \
done). Read-only. Use it to answer \"where do we stand?\" or \"what is late?\" in one call instead \
of paging through task_query; a task whose status was cleared counts as open. Use task_get on the \
ids in `overdue` for their details.\n\
Example: task_summary({\"perspective_id\":\"<P>\"}) → {\"total\":3,\"by_status\":{\"open\":1,\
\"in_progress\":1,\"done\":1},\"overdue\":[\"ad4m://obj/…\"]}";

/// The tool's arguments, as its inputSchema allows them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    perspective_id: String,
}

/// The tool's result, as its outputSchema describes it.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub total: u64,
    pub by_status: ByStatus,
    pub overdue: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Serialize)]
pub struct ByStatus {
    pub open: u64,
    pub in_progress: u64,
    pub done: u64,
}

/// The tool, ready for `shacl_mcp::serve_with`.
pub fn tool() -> CustomTool {
    CustomTool::new(spec(), call)
}

/// Name, description, strict inputSchema, outputSchema and annotations.
pub fn spec() -> ToolSpec {
    let count = |description: &str| json!({ "type": "integer", "minimum": 0, "description": description });
    ToolSpec {
        name: NAME.to_string(),
        title: "Task summary".to_string(),
        description: DESCRIPTION.to_string(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "perspective_id": {
                    "type": "string",
                    "description": "UUID of the perspective (from list_perspectives or add_perspective)."
                }
            },
            "required": ["perspective_id"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "total": count("Tasks in the perspective."),
                "by_status": {
                    "type": "object",
                    "description": "Tasks per status; they add up to total.",
                    "properties": {
                        "open": count("Tasks with status open, or with no status."),
                        "in_progress": count("Tasks with status in_progress."),
                        "done": count("Tasks with status done.")
                    },
                    "required": ["open", "in_progress", "done"],
                    "additionalProperties": false
                },
                "overdue": {
                    "type": "array",
                    "description": "Ids of the tasks not done whose dueDate is before now, oldest task first.",
                    "items": { "type": "string" }
                }
            },
            "required": ["total", "by_status", "overdue"],
            "additionalProperties": false
        }),
        annotations: ToolAnnotations::READ,
    }
}

fn call(engine: &Engine, arguments: &Map<String, Value>) -> Result<Value, ToolError> {
    let args: Args = serde_json::from_value(Value::Object(arguments.clone()))
        .map_err(|e| ToolError::Internal(format!("{NAME}: arguments passed the schema but not serde: {e}")))?;
    let tasks = all_tasks(engine, &args.perspective_id)?;
    let summary = summarize(&tasks, SystemClock.now_micros());
    serde_json::to_value(summary).map_err(|e| ToolError::Internal(e.to_string()))
}

/// Every task of the perspective, oldest first, a page at a time.
fn all_tasks(engine: &Engine, perspective_id: &str) -> Result<Vec<Task>, ToolError> {
    let mut tasks = Vec::new();
    loop {
        let page = Task::query(
            engine,
            perspective_id,
            QueryArgs {
                limit: Some(PAGE),
                offset: Some(tasks.len() as u64),
                ..QueryArgs::default()
            },
        )?;
        let full = page.len() as u64 == PAGE;
        tasks.extend(page);
        if !full {
            return Ok(tasks);
        }
    }
}

/// The counts and the overdue tasks at `now` (microseconds since the epoch).
pub fn summarize(tasks: &[Task], now: i64) -> Summary {
    let mut summary = Summary {
        total: tasks.len() as u64,
        ..Summary::default()
    };
    for task in tasks {
        let status = task.status.as_ref().map(|s| s.get().as_str());
        match status {
            Some("done") => summary.by_status.done += 1,
            Some("in_progress") => summary.by_status.in_progress += 1,
            _ => summary.by_status.open += 1,
        }
        let past_due = task
            .due_date
            .as_ref()
            .and_then(|due| parse_rfc3339_micros(due.as_str()))
            .is_some_and(|due| due < now);
        if past_due && status != Some("done") {
            summary.overdue.push(task.id.to_string());
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: Option<&str>, due: Option<&str>) -> Task {
        let mut v = json!({ "id": id, "title": id, "createdAt": "2026-01-01T00:00:00.000000Z",
            "updatedAt": "2026-01-01T00:00:00.000000Z", "author": "did:key:z6Mkexample",
            "timestamp": "2026-01-01T00:00:00.000000Z" });
        if let Some(s) = status {
            v["status"] = s.into();
        }
        if let Some(d) = due {
            v["dueDate"] = d.into();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn counts_by_status_and_compares_due_dates_as_instants() {
        let now = parse_rfc3339_micros("2026-06-01T12:00:00Z").unwrap();
        let tasks = [
            task("app://a", Some("open"), Some("2026-06-01T11:59:59Z")),
            // 13:30 at +02:00 is 11:30 UTC: before now.
            task("app://b", Some("in_progress"), Some("2026-06-01T13:30:00+02:00")),
            // Due exactly now is not overdue yet.
            task("app://c", Some("open"), Some("2026-06-01T12:00:00Z")),
            task("app://d", Some("done"), Some("2000-01-01T00:00:00Z")),
            task("app://e", None, Some("2000-01-01T00:00:00Z")),
            task("app://f", Some("open"), None),
        ];
        assert_eq!(
            summarize(&tasks, now),
            Summary {
                total: 6,
                by_status: ByStatus {
                    open: 4,
                    in_progress: 1,
                    done: 1
                },
                overdue: vec!["app://a".into(), "app://b".into(), "app://e".into()],
            }
        );
        assert_eq!(summarize(&[], now), Summary::default());
    }

    #[test]
    fn the_spec_is_strict() {
        let spec = spec();
        assert_eq!(spec.input_schema["additionalProperties"], false);
        assert_eq!(spec.input_schema["required"], json!(["perspective_id"]));
        assert_eq!(spec.output_schema["additionalProperties"], false);
        assert!(spec.annotations.read_only);
    }
}
