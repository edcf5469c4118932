//! `task_summary`: a hand-written tool over the generated typed API, written the way rmcp users
//! write tools: a `#[tool]` method of a `#[tool_router]` impl, its schemas derived from its
//! `Parameters` and `Json` types, its description from its doc comment. It reads every `Task` of
//! a perspective with `Task::query` and counts them by their typed `status`, listing the ones
//! whose typed `due_date` has passed and that are not done.

use std::sync::Arc;

use rmcp::handler::server::common::Extension;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use shacl_mcp::CustomTool;
use shacl_mcp::clock::{Clock, SystemClock, parse_rfc3339_micros};
use shacl_mcp::engine::{Engine, ToolError};
use shacl_mcp::typed::Model;

use crate::tasks::task::{Status, Task};

/// The largest page the query tools serve.
const PAGE: u64 = 500;

/// The tool's arguments: its inputSchema is derived from this type.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// UUID of the perspective (from list_perspectives or add_perspective).
    pub perspective_id: String,
}

/// The tool's result: its outputSchema is derived from this type.
#[derive(Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// Tasks in the perspective.
    pub total: u64,
    /// Tasks per status; they add up to total.
    pub by_status: ByStatus,
    /// Ids of the tasks not done whose dueDate is before now, oldest task first.
    pub overdue: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ByStatus {
    /// Tasks with status open, or with no status.
    pub open: u64,
    /// Tasks with status in_progress.
    pub in_progress: u64,
    /// Tasks with status done.
    pub done: u64,
}

/// The hand-written tools of this server (one: `task_summary`), served beside the generated ones.
pub struct SummaryTools;

#[tool_router(vis = "pub")]
impl SummaryTools {
    // rmcp joins the doc comment's lines with newlines into the tool's description: one line
    // for the description, one for its example.
    /// Summarize the tasks of a perspective: how many there are, how many are open, in progress and done, and which are overdue (a dueDate in the past and a status other than done). Read-only. Use it to answer "where do we stand?" or "what is late?" in one call instead of paging through task_query; a task whose status was cleared counts as open. Use task_get on the ids in `overdue` for their details.
    /// Example: task_summary({"perspective_id":"<P>"}) → {"total":3,"by_status":{"open":1,"in_progress":1,"done":1},"overdue":["ad4m://obj/…"]}
    #[tool(
        name = "task_summary",
        title = "Task summary",
        annotations(read_only_hint = true, idempotent_hint = true)
    )]
    pub fn task_summary(
        &self,
        Extension(engine): Extension<Arc<Engine>>,
        Parameters(args): Parameters<Args>,
    ) -> Result<Json<Summary>, ToolError> {
        let tasks = all_tasks(&engine, &args.perspective_id)?;
        Ok(Json(summarize(&tasks, SystemClock.now_micros())))
    }
}

/// The tools, ready for `shacl_mcp::serve_with`.
pub fn tools() -> Vec<CustomTool> {
    CustomTool::router(SummaryTools, SummaryTools::tool_router())
}

/// Every task of the perspective, oldest first, a page at a time.
fn all_tasks(engine: &Engine, perspective_id: &str) -> Result<Vec<Task>, ToolError> {
    let mut tasks = Vec::new();
    loop {
        let page = Task::query()
            .limit(PAGE)
            .offset(tasks.len() as u64)
            .fetch(engine, perspective_id)?;
        let full = page.instances.len() as u64 == PAGE;
        tasks.extend(page.instances);
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
        match task.status {
            Some(Status::Done) => summary.by_status.done += 1,
            Some(Status::InProgress) => summary.by_status.in_progress += 1,
            Some(Status::Open) | None => summary.by_status.open += 1,
        }
        let past_due = task
            .due_date
            .as_ref()
            .and_then(|due| parse_rfc3339_micros(due.as_str()))
            .is_some_and(|due| due < now);
        if past_due && task.status != Some(Status::Done) {
            summary.overdue.push(task.id.to_string());
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
    fn the_spec_comes_from_the_method_and_is_strict() {
        let [tool] = &tools()[..] else { panic!("one tool") };
        let spec = &tool.spec;
        assert_eq!(spec.name, "task_summary");
        assert_eq!(spec.title, "Task summary");
        assert!(
            spec.description.starts_with("Summarize the tasks of a perspective"),
            "{}",
            spec.description
        );
        assert_eq!(spec.input_schema["additionalProperties"], false);
        assert_eq!(spec.input_schema["required"], json!(["perspective_id"]));
        assert_eq!(spec.output_schema["additionalProperties"], false);
        assert_eq!(spec.output_schema["required"], json!(["total", "by_status", "overdue"]));
        assert!(spec.annotations.read_only && spec.annotations.idempotent);
        assert!(spec.input_schema.get("$schema").is_none(), "{}", spec.input_schema);
    }
}
