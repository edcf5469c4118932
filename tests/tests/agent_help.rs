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
