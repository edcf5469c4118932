//! `completion/complete`: suggestions for the arguments of this server's prompts and the
//! variables of its resource templates, drawn from what the caller may see.
//!
//! - `perspective_id`: the ids of the caller's perspectives whose id starts with the typed text
//!   or whose name contains it (case-insensitive), in `list_perspectives` order.
//! - `class_name`: the classes of the perspective named in the context (`context.arguments`),
//!   by prefix, case-insensitive.
//! - `instance` (the instance template): ids of that class's instances containing the text,
//!   percent-encoded as the template wants them.
//! - `cursor` (`summarise_changes`): the perspective's current end of `changes_since`, the cursor
//!   a summary of what happens from now on starts at.
//!
//! An argument with nothing to suggest (`description`) answers no values; a prompt or template
//! this server does not have is -32602, as MCP's completion utility says.

use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, Reference};
use serde_json::{Map, json};

use super::{prompts, resources};
use crate::engine::{Engine, QueryArgs};

/// The answer to one `completion/complete` on `engine` (the caller's).
pub fn complete(engine: &Engine, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let known = match &request.r#ref {
        Reference::Prompt(prompt) => {
            prompts::argument_names(&prompt.name).is_some_and(|args| args.contains(&request.argument.name.as_str()))
        }
        Reference::Resource(template) => resources::template_variables(&template.uri)
            .is_some_and(|vars| vars.contains(&request.argument.name.as_str())),
        _ => false,
    };
    if !known {
        return Err(ErrorData::invalid_params(
            format!(
                "nothing to complete: no argument '{}' of {}",
                request.argument.name,
                describe(&request.r#ref)
            ),
            Some(json!({ "ref": request.r#ref, "argument": request.argument.name })),
        ));
    }
    let context = request.context.as_ref().and_then(|c| c.arguments.as_ref());
    let given = |name: &str| context.and_then(|args| args.get(name)).map(String::as_str);
    let typed = request.argument.value.as_str();
    let (values, total) = match request.argument.name.as_str() {
        "perspective_id" => perspectives(engine, typed),
        "class_name" => match given("perspective_id") {
            Some(p) => classes(engine, p, typed),
            None => (Vec::new(), 0),
        },
        "instance" => match (given("perspective_id"), given("class_name")) {
            (Some(p), Some(class)) => instances(engine, p, class, typed),
            _ => (Vec::new(), 0),
        },
        "cursor" => match given("perspective_id") {
            Some(p) => end_cursor(engine, p),
            None => (Vec::new(), 0),
        },
        _ => (Vec::new(), 0),
    };
    Ok(CompleteResult::new(info(values, total)))
}

fn describe(reference: &Reference) -> String {
    match reference {
        Reference::Prompt(p) => format!("the prompt '{}'", p.name),
        Reference::Resource(r) => format!("the resource template '{}'", r.uri),
        _ => "a reference this server does not know".to_string(),
    }
}

/// At most [`CompletionInfo::MAX_VALUES`] values, with the total and whether there are more.
fn info(mut values: Vec<String>, total: usize) -> CompletionInfo {
    values.truncate(CompletionInfo::MAX_VALUES);
    let has_more = total > values.len();
    let total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    // Cannot fail: the values were cut to the maximum just above.
    CompletionInfo::with_pagination(values, total, has_more).unwrap_or_default()
}

fn perspectives(engine: &Engine, typed: &str) -> (Vec<String>, usize) {
    let listed = engine.list_perspectives().unwrap_or_default();
    let lower = typed.to_lowercase();
    let ids: Vec<String> = listed["perspectives"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            let id = p["uuid"].as_str().unwrap_or_default();
            let name = p["name"].as_str().unwrap_or_default();
            id.starts_with(typed) || name.to_lowercase().contains(&lower)
        })
        .filter_map(|p| p["uuid"].as_str().map(str::to_string))
        .collect();
    let total = ids.len();
    (ids, total)
}

fn classes(engine: &Engine, perspective: &str, typed: &str) -> (Vec<String>, usize) {
    let lower = typed.to_lowercase();
    let names: Vec<String> = resources::class_names(engine, perspective)
        .unwrap_or_default()
        .into_iter()
        .filter(|name| name.to_lowercase().starts_with(&lower))
        .collect();
    let total = names.len();
    (names, total)
}

fn instances(engine: &Engine, perspective: &str, class: &str, typed: &str) -> (Vec<String>, usize) {
    let typed = resources::decode_variable(typed).unwrap_or_else(|| typed.to_string());
    let mut filter = Map::new();
    if !typed.is_empty() {
        filter.insert("id".into(), json!({ "contains": typed }));
    }
    let args = QueryArgs {
        filter: (!filter.is_empty()).then_some(filter),
        limit: Some(CompletionInfo::MAX_VALUES as u64),
        ..QueryArgs::default()
    };
    let Ok(found) = engine.instance_query(perspective, class, &args) else {
        return (Vec::new(), 0);
    };
    let ids: Vec<String> = found["instances"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["id"].as_str().map(resources::encode_variable))
        .collect();
    let total = found["total_count"].as_u64().map_or(ids.len(), |n| n as usize);
    (ids, total)
}

fn end_cursor(engine: &Engine, perspective: &str) -> (Vec<String>, usize) {
    match engine.changes_since(perspective, None, None, Some(1)) {
        Ok(answer) => match answer["cursor"].as_str() {
            Some(cursor) => (vec![cursor.to_string()], 1),
            None => (Vec::new(), 0),
        },
        Err(_) => (Vec::new(), 0),
    }
}
