//! What helps an agent find its way, through the real binary in both lifecycles over stdio: MCP
//! resources and prompts, and get_documentation. (Their multi-user access rules are checked in
//! multi_user.rs.)

use rmcp::model::{GetPromptRequestParams, PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};
use shacl_mcp_tests::*;

fn text_of(contents: &[ResourceContents]) -> Value {
    match contents {
        [ResourceContents::TextResourceContents { text, mime_type, .. }] => {
            assert_eq!(mime_type.as_deref(), Some("application/json"));
            serde_json::from_str(text).expect("JSON text")
        }
        other => panic!("one text content, got {other:?}"),
    }
}

#[tokio::test]
async fn perspectives_and_instances_are_resources() {
    let tasks = shared_dna("tasks.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&["--db", ":memory:", "--dna", &tasks], lifecycle).await;
        let p = ok(&client, "add_perspective", json!({ "name": "Team" })).await["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        let mut created = Vec::new();
        for title in ["Write docs", "Ship it"] {
            let task = ok(
                &client,
                "instance_create",
                json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": title } }),
            )
            .await;
            created.push(task["base_uri"].as_str().unwrap().to_string());
        }

        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris[0], format!("shacl-mcp://perspectives/{p}"), "{lifecycle:?}");
        assert_eq!(resources[0].title.as_deref(), Some("Team"));
        for id in &created {
            let encoded = id.replace(':', "%3A").replace('/', "%2F");
            assert!(
                uris.contains(&format!("shacl-mcp://perspectives/{p}/Task/{encoded}").as_str()),
                "{id} in {uris:?}"
            );
        }

        // An instance reads as instance_get answers it; the perspective as describe_perspective.
        let instance_uri = uris.iter().find(|u| u.contains("/Task/")).unwrap().to_string();
        let read = client
            .read_resource(ReadResourceRequestParams::new(&instance_uri))
            .await
            .unwrap();
        let id = text_of(&read.contents)["id"].as_str().unwrap().to_string();
        let got = ok(
            &client,
            "instance_get",
            json!({ "perspective_id": p, "class_name": "Task", "base_uri": id }),
        )
        .await;
        assert_eq!(text_of(&read.contents), got);
        let read = client
            .read_resource(ReadResourceRequestParams::new(format!("shacl-mcp://perspectives/{p}")))
            .await
            .unwrap();
        assert_eq!(
            text_of(&read.contents),
            ok(&client, "describe_perspective", json!({ "perspective_id": p })).await
        );

        // Missing things are resource-not-found, whatever is missing, and never a file read:
        // -32002, which rmcp turns into -32602 on the 2026-07-28 lifecycle (SEP-2164).
        for uri in [
            "shacl-mcp://perspectives/nope".to_string(),
            format!("shacl-mcp://perspectives/{p}/Task/ad4m%3A%2F%2Fobj%2Fnope"),
            format!("shacl-mcp://perspectives/{p}/Nothing/x"),
            "file:///etc/passwd".to_string(),
        ] {
            let error = client
                .read_resource(ReadResourceRequestParams::new(&uri))
                .await
                .expect_err(&uri);
            let text = format!("{error:?}");
            let code = match lifecycle {
                Lifecycle::Legacy => "-32002",
                Lifecycle::Modern => "-32602",
            };
            assert!(text.contains(code) && text.contains("no resource"), "{uri}: {text}");
        }

        let templates = client.list_resource_templates(None).await.unwrap();
        assert_eq!(templates.resource_templates.len(), 2);
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn resources_list_is_paged() {
    let tasks = shared_dna("tasks.json");
    let client = stdio_client(&["--db", ":memory:", "--dna", &tasks], Lifecycle::Legacy).await;
    let p = ok(&client, "add_perspective", json!({ "name": "Many" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    for i in 0..150 {
        ok(
            &client,
            "instance_create",
            json!({ "perspective_id": p, "class_name": "Task", "properties": { "title": format!("T{i}") } }),
        )
        .await;
    }
    let first = client.list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 100);
    let cursor = first.next_cursor.clone().expect("a second page");
    let second = client
        .list_resources(Some(PaginatedRequestParams::default().with_cursor(Some(cursor))))
        .await
        .unwrap();
    let mut all: Vec<String> = first
        .resources
        .iter()
        .chain(&second.resources)
        .map(|r| r.uri.clone())
        .collect();
    assert_eq!(all.len(), 151, "the perspective and its 150 tasks");
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 151, "no resource twice");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompts_are_listed_and_filled_in() {
    let chat = shared_dna("chat.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&["--db", ":memory:", "--dna", &chat], lifecycle).await;
        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "explore_perspective",
                "model_a_class",
                "check_conformance",
                "summarise_changes"
            ]
        );
        let args = json!({ "perspective_id": "p-42" });
        let prompt = client
            .get_prompt(
                GetPromptRequestParams::new("explore_perspective").with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        let message = serde_json::to_value(&prompt.messages[0]).unwrap();
        assert_eq!(message["role"], "user");
        assert!(message["content"]["text"].as_str().unwrap().contains("\"p-42\""));
        let error = client
            .get_prompt(GetPromptRequestParams::new("model_a_class"))
            .await
            .expect_err("arguments are required");
        assert!(format!("{error:?}").contains("-32602"), "{error:?}");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn the_manual_is_a_tool_call_away() {
    let chat = shared_dna("chat.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&["--db", ":memory:", "--dna", &chat], lifecycle).await;
        let topics = ok(&client, "get_documentation", json!({})).await;
        let names: Vec<&str> = topics["topics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["topic"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "design",
                "dna-format",
                "data-model",
                "tools",
                "errors",
                "flows",
                "sparql"
            ]
        );
        let page = ok(&client, "get_documentation", json!({ "topic": "tools" })).await;
        assert_eq!(page["title"], "Tools");
        assert!(page["text"].as_str().unwrap().contains("get_documentation"));
        let section = ok(
            &client,
            "get_documentation",
            json!({ "topic": "errors", "section": "The validation envelope" }),
        )
        .await;
        assert!(
            section["text"]
                .as_str()
                .unwrap()
                .starts_with("## The validation envelope")
        );
        let refused = tool_error(&client, "get_documentation", json!({ "topic": "nope" })).await;
        assert!(refused.to_string().contains("topic"), "{refused}");
        client.cancel().await.unwrap();
    }
}

/// completion/complete suggests what the caller can see: perspective ids (by id prefix or name),
/// the classes of the perspective in the context, its instances, and the current change cursor;
/// a prompt this server does not have is -32602.
#[tokio::test]
async fn prompt_and_template_arguments_are_completed() {
    use rmcp::model::CompletionContext;
    use std::collections::HashMap;
    let tasks = shared_dna("tasks.json");
    for lifecycle in Lifecycle::BOTH {
        let client = stdio_client(&["--db", ":memory:", "--dna", &tasks], lifecycle).await;
        let uuid = |v: Value| v["uuid"].as_str().unwrap().to_string();
        let team = uuid(ok(&client, "add_perspective", json!({ "name": "Team board" })).await);
        let other = uuid(ok(&client, "add_perspective", json!({ "name": "Private" })).await);
        let task = ok(
            &client,
            "instance_create",
            json!({ "perspective_id": team, "class_name": "Task", "properties": { "title": "Ship" } }),
        )
        .await["base_uri"]
            .as_str()
            .unwrap()
            .to_string();

        let by_name = client
            .complete_prompt_argument("explore_perspective", "perspective_id", "board", None)
            .await
            .unwrap();
        assert_eq!(by_name.values, [team.as_str()], "{lifecycle:?}");
        let by_id = client
            .complete_prompt_argument("check_conformance", "perspective_id", &other[..8], None)
            .await
            .unwrap();
        assert_eq!(by_id.values, [other.as_str()]);
        assert_eq!((by_id.total, by_id.has_more), (Some(1), Some(false)));

        let context = |pairs: &[(&str, &str)]| {
            let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            Some(CompletionContext::with_arguments(map))
        };
        let template = "shacl-mcp://perspectives/{perspective_id}/{class_name}/{instance}";
        let classes = client
            .complete_resource_argument(template, "class_name", "ta", context(&[("perspective_id", &team)]))
            .await
            .unwrap();
        assert_eq!(classes.values, ["Task"]);
        let instances = client
            .complete_resource_argument(
                template,
                "instance",
                "",
                context(&[("perspective_id", &team), ("class_name", "Task")]),
            )
            .await
            .unwrap();
        let encoded: String = task
            .bytes()
            .map(|b| match b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                true => char::from(b).to_string(),
                false => format!("%{b:02X}"),
            })
            .collect();
        assert_eq!(instances.values, [encoded]);

        let cursor = client
            .complete_prompt_argument("summarise_changes", "cursor", "", context(&[("perspective_id", &team)]))
            .await
            .unwrap();
        let end = ok(&client, "changes_since", json!({ "perspective_id": team })).await["cursor"].clone();
        assert_eq!(cursor.values, [end.as_str().unwrap()]);

        let none = client
            .complete_prompt_argument("model_a_class", "description", "a bo", None)
            .await
            .unwrap();
        assert!(none.values.is_empty());
        let error = client
            .complete_prompt_argument("no_such_prompt", "perspective_id", "", None)
            .await
            .expect_err("an unknown prompt");
        assert!(format!("{error:?}").contains("-32602"), "{error:?}");
        client.cancel().await.unwrap();
    }
}

/// logging/setLevel: nothing is sent before it; after it, each tool call at or above the level
/// is one notifications/message (a success is debug, a refusal notice).
#[tokio::test]
#[allow(deprecated)] // MCP 2026-07-28 deprecates logging (SEP-2577); legacy clients still use it.
async fn a_session_that_sets_a_log_level_hears_of_its_tool_calls() {
    use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
    use rmcp::service::NotificationContext;
    use rmcp::{ClientHandler, RoleClient};
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Messages(Arc<Mutex<Vec<LoggingMessageNotificationParam>>>);
    impl ClientHandler for Messages {
        async fn on_logging_message(
            &self,
            params: LoggingMessageNotificationParam,
            _context: NotificationContext<RoleClient>,
        ) {
            self.0.lock().unwrap().push(params);
        }
    }
    async fn settle() {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }

    let chat = shared_dna("chat.json");
    let messages = Messages::default();
    let client = stdio_client_with(
        messages.clone(),
        &["--db", ":memory:", "--dna", &chat],
        Lifecycle::Legacy,
    )
    .await;
    ok(&client, "get_my_did", json!({})).await;
    settle().await;
    assert!(messages.0.lock().unwrap().is_empty(), "nothing before logging/setLevel");

    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    ok(&client, "get_my_did", json!({})).await;
    tool_error(
        &client,
        "instance_get",
        json!({ "perspective_id": "nope", "class_name": "Channel", "base_uri": "x" }),
    )
    .await;
    settle().await;
    let seen: Vec<Value> = messages
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect();
    assert_eq!(seen.len(), 1, "the success is debug, below info: {seen:?}");
    assert_eq!(seen[0]["level"], "notice");
    assert_eq!(seen[0]["logger"], "tools/call");
    assert_eq!(seen[0]["data"]["tool"], "instance_get");
    assert_eq!(seen[0]["data"]["outcome"], "refused");

    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    ok(&client, "get_my_did", json!({})).await;
    settle().await;
    let last = serde_json::to_value(messages.0.lock().unwrap().last().unwrap()).unwrap();
    assert_eq!(
        (last["level"].clone(), last["data"]["outcome"].clone()),
        (json!("debug"), json!("ok"))
    );
    client.cancel().await.unwrap();
}
