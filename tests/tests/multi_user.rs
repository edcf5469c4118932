//! `shacl-mcp serve --http --multi-user` driven by rmcp's client: two users who sign up with a
//! code from the outbox and then each see only their own perspectives, instances and links;
//! refused tokens (tampered, expired, wrongly signed, `alg: none`); failed logins rate-limited;
//! a login remembered by an HTTP session; stdio as the node's owner; and a debug log of the
//! whole run that shows no password, token, code or credential.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};
use shacl_mcp_tests::*;

const JWT_SECRET: &str = "e2e-token-secret-of-forty-characters-xx";
const ADMIN: &str = "e2e-admin-credential-0123456789";
const PASSWORDS: [&str; 2] = ["alice's long password", "bob's longer password"];

/// A token signed with `secret` (`None`: unsigned, for `alg: none`).
fn forge(secret: Option<&str>, header: &Value, claims: &Value) -> String {
    use hmac::{KeyInit, Mac};
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    match secret {
        None => format!("{input}."),
        Some(secret) => {
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
            mac.update(input.as_bytes());
            format!("{input}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
        }
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("no {key} in {v}")).to_string()
}

/// `haystack` contains `code` with no digit right before or after it.
fn contains_number(haystack: &str, code: &str) -> bool {
    haystack.match_indices(code).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + code.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

#[tokio::test]
async fn two_users_over_http_and_a_log_without_secrets() {
    let dir = TempDir::new("multi-user");
    let outbox = dir.0.join("outbox");
    let log = dir.0.join("server.log");
    let chat = shared_dna("chat.json");
    let outbox_arg = outbox.display().to_string();
    let mut server = HttpServer::start_logged(
        &[
            "--db",
            ":memory:",
            "--dna",
            &chat,
            "--dynamic-class-tools",
            "true",
            "--multi-user",
            "--email-verification",
            "true",
            "--email-outbox",
            &outbox_arg,
        ],
        &[
            ("SHACL_MCP_JWT_SECRET", JWT_SECRET),
            ("SHACL_MCP_ADMIN_CREDENTIAL", ADMIN),
            ("SHACL_MCP_LOG", "debug"),
        ],
        log.clone(),
    );
    let mut secrets: Vec<String> = vec![JWT_SECRET.into(), ADMIN.into()];
    secrets.extend(PASSWORDS.iter().map(|p| p.to_string()));
    let mut codes = Vec::new();

    // A guest sees the static tools (the account tools among them) and may sign up.
    let guest = server.client(None, Lifecycle::Legacy).await;
    let names: Vec<String> = guest
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"signup".into()) && names.contains(&"channel_create".into()));
    let refused = tool_error(&guest, "list_perspectives", json!({})).await;
    assert!(text(&refused, "error").starts_with("Not authenticated"), "{refused}");
    let refused = guest
        .list_all_resources()
        .await
        .expect_err("a guest lists no resources");
    assert!(format!("{refused:?}").contains("Not authenticated"), "{refused:?}");

    let mut tokens = Vec::new();
    let mut dids = Vec::new();
    for (email, password) in ["alice@example.org", "bob@example.org"].into_iter().zip(PASSWORDS) {
        let signed = ok(&guest, "signup", json!({ "email": email, "password": password })).await;
        dids.push(text(&signed, "did"));
        let early = tool_error(&guest, "login_email", json!({ "email": email, "password": password })).await;
        assert!(text(&early, "error").contains("not verified"), "{early}");
        let code = outbox_code(&outbox, email);
        codes.push(code.clone());
        let verified = ok(
            &guest,
            "verify_email_code",
            json!({ "email": email, "code": code, "verification_type": "signup" }),
        )
        .await;
        let token = text(&verified, "token");
        secrets.push(token.clone());
        // And a code login, for the log to have seen one.
        ok(&guest, "request_login_verification", json!({ "email": email })).await;
        let code = outbox_code(&outbox, email);
        codes.push(code.clone());
        let again = ok(
            &guest,
            "verify_email_code",
            json!({ "email": email, "code": code, "verification_type": "login" }),
        )
        .await;
        secrets.push(text(&again, "token"));
        let login = ok(&guest, "login_email", json!({ "email": email, "password": password })).await;
        secrets.push(text(&login, "token"));
        tokens.push(token);
    }
    let alice = server.client(Some(&tokens[0]), Lifecycle::Legacy).await;
    let bob = server.client(Some(&tokens[1]), Lifecycle::Modern).await;
    let admin = server.client(Some(ADMIN), Lifecycle::Legacy).await;
    let status = ok(&alice, "auth_status", json!({})).await;
    assert_eq!(
        (&status["authenticated"], &status["user_email"], &status["did"]),
        (&json!(true), &json!("alice@example.org"), &json!(dids[0]))
    );

    // Each writes a perspective with a channel, a message under it and a raw link.
    let mut mine = Vec::new();
    for (client, name, did) in [(&alice, "alice", &dids[0]), (&bob, "bob", &dids[1])] {
        let p = text(&ok(client, "add_perspective", json!({ "name": name })).await, "uuid");
        let channel = text(
            &ok(
                client,
                "channel_create",
                json!({ "perspective_id": p, "name": format!("{name}-channel") }),
            )
            .await,
            "base_uri",
        );
        let message = ok(
            client,
            "message_create",
            json!({ "perspective_id": p, "body": format!("{name}-message"), "parent": channel }),
        )
        .await;
        assert_eq!(message["added_to_parent"], true);
        let link = ok(
            client,
            "add_link",
            json!({ "perspective_id": p, "source": channel, "predicate": "app://tag", "target": format!("{name}-tag") }),
        )
        .await;
        assert_eq!(&link["link"]["author"], &json!(did), "signed by the user's key");
        mine.push((p, channel));
    }

    let missing = "00000000-0000-4000-8000-000000000000";
    for (i, client) in [&alice, &bob].into_iter().enumerate() {
        let (own, own_channel) = &mine[i];
        let (theirs, their_channel) = &mine[1 - i];
        let listed = ok(client, "list_perspectives", json!({})).await;
        assert_eq!(listed["perspectives"].as_array().unwrap().len(), 1, "{listed}");
        assert_eq!(&listed["perspectives"][0]["uuid"], &json!(own));
        // Resources follow the tools' rules: their own perspective and instances, nothing of
        // the other's, whose perspective reads like a missing one.
        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris.len(), 3, "the perspective, its channel and its message: {uris:?}");
        assert!(uris.iter().all(|u| u.contains(own.as_str())), "{uris:?}");
        let foreign = format!("shacl-mcp://perspectives/{theirs}");
        let read = client.read_resource(ReadResourceRequestParams::new(&foreign)).await;
        assert!(format!("{read:?}").contains("not found"), "{read:?}");
        let names = ["alice", "bob"];
        let (me, other) = (names[i], names[1 - i]);
        // Their own data, through each reading tool.
        let described = ok(client, "describe_perspective", json!({ "perspective_id": own })).await;
        assert!(described.to_string().contains("Channel"));
        let channels = ok(
            client,
            "instance_query",
            json!({ "perspective_id": own, "class_name": "Channel" }),
        )
        .await;
        assert_eq!(channels["total_count"], 1);
        assert!(channels.to_string().contains(&format!("{me}-channel")));
        assert!(!channels.to_string().contains(other));
        let links = ok(client, "query_links", json!({ "perspective_id": own })).await;
        assert!(links.to_string().contains(&format!("{me}-tag")) && !links.to_string().contains(other));
        let children = ok(
            client,
            "get_children",
            json!({ "perspective_id": own, "parent": own_channel }),
        )
        .await;
        assert_eq!(children["total_count"], 1);
        let got = ok(
            client,
            "instance_get",
            json!({ "perspective_id": own, "class_name": "Channel", "base_uri": own_channel }),
        )
        .await;
        assert_eq!(got["name"], format!("{me}-channel"));
        // The other's perspective (and a guessed id) answer exactly like a missing one.
        let reads: [(&str, Value); 6] = [
            ("describe_perspective", json!({})),
            ("instance_query", json!({ "class_name": "Channel" })),
            ("query_links", json!({})),
            ("get_children", json!({ "parent": their_channel })),
            (
                "instance_get",
                json!({ "class_name": "Channel", "base_uri": their_channel }),
            ),
            ("channel_get", json!({ "expression_address": their_channel })),
        ];
        for (tool, args) in reads {
            let mut at_theirs = args.clone();
            at_theirs["perspective_id"] = json!(theirs);
            let mut at_missing = args;
            at_missing["perspective_id"] = json!(missing);
            let a = tool_error(client, tool, at_theirs).await;
            let b = tool_error(client, tool, at_missing).await;
            assert_eq!(
                a.to_string().replace(theirs.as_str(), "<P>"),
                b.to_string().replace(missing, "<P>"),
                "{tool}"
            );
            assert!(text(&a, "error").contains("not found"), "{tool}: {a}");
        }
    }
    let everything = ok(&admin, "list_perspectives", json!({})).await;
    assert_eq!(everything["perspectives"].as_array().unwrap().len(), 2);

    // Refused tokens.
    let claims = json!({ "sub": dids[0], "email": "alice@example.org", "iss": "shacl-mcp", "aud": "shacl-mcp", "iat": now(), "exp": now() + 3600 });
    let hs256 = json!({ "alg": "HS256", "typ": "JWT" });
    let good = forge(Some(JWT_SECRET), &hs256, &claims);
    let forged = server.client(Some(&good), Lifecycle::Legacy).await;
    ok(&forged, "list_perspectives", json!({})).await;
    secrets.push(good);
    let (head, rest) = tokens[0].split_once('.').unwrap();
    let (payload, signature) = rest.split_once('.').unwrap();
    let mut flipped = payload.as_bytes().to_vec();
    flipped[7] = if flipped[7] == b'Q' { b'R' } else { b'Q' };
    let mut expired = claims.clone();
    expired["iat"] = json!(now() - 7200);
    expired["exp"] = json!(now() - 60);
    let bad = [
        format!("{head}.{}.{signature}", String::from_utf8(flipped).unwrap()),
        forge(Some(JWT_SECRET), &hs256, &expired),
        forge(Some("a different secret, long enough to count"), &hs256, &claims),
        forge(None, &json!({ "alg": "none", "typ": "JWT" }), &claims),
    ];
    for token in &bad {
        let client = server.client(Some(token), Lifecycle::Legacy).await;
        let refused = tool_error(&client, "list_perspectives", json!({})).await;
        assert!(text(&refused, "error").starts_with("Not authenticated"), "{refused}");
        assert_eq!(ok(&client, "auth_status", json!({})).await["authenticated"], false);
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert!(names.contains(&"list_perspectives".into()));
    }

    // Failed logins: after five for one account, it waits.
    for _ in 0..5 {
        let failed = tool_error(
            &guest,
            "login_email",
            json!({ "email": "bob@example.org", "password": "not bob's password" }),
        )
        .await;
        assert!(text(&failed, "error").starts_with("Login failed"), "{failed}");
    }
    let limited = tool_error(
        &guest,
        "login_email",
        json!({ "email": "bob@example.org", "password": PASSWORDS[1] }),
    )
    .await;
    assert!(
        text(&limited, "error").starts_with("Too many failed attempts"),
        "{limited}"
    );
    assert!(text(&limited, "error").contains("try again in"), "{limited}");

    for client in [guest, alice, bob, admin, forged] {
        let _ = client.cancel().await;
    }
    server.stop();
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("tools/call") && log.contains("kind=\"auth\""), "{log}");
    // The peer's address reached the rate limits (through axum's ConnectInfo).
    assert!(log.contains("client=\"ip:127.0.0.1\""), "{log}");
    assert!(log.contains("event=\"rate_limit\""), "{log}");
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "the log shows a secret");
        if let Some((_, signature)) = secret.rsplit_once('.') {
            assert!(!log.contains(signature), "the log shows a token's signature");
        }
    }
    for code in &codes {
        assert!(!contains_number(&log, code), "the log shows a code");
    }
}

#[tokio::test]
async fn a_session_remembers_its_login_and_stdio_is_the_owner() {
    let server = HttpServer::start_with_env(
        &["--db", ":memory:", "--multi-user", "true", "--http-sessions", "true"],
        &[("SHACL_MCP_JWT_SECRET", JWT_SECRET)],
    );
    let session = server.client(None, Lifecycle::Legacy).await;
    ok(
        &session,
        "signup",
        json!({ "email": "sam@example.org", "password": PASSWORDS[0] }),
    )
    .await;
    tool_error(&session, "list_perspectives", json!({})).await;
    ok(
        &session,
        "login_email",
        json!({ "email": "sam@example.org", "password": PASSWORDS[0] }),
    )
    .await;
    // No Authorization header from here on: the session remembers.
    let status = ok(&session, "auth_status", json!({})).await;
    assert_eq!(status["user_email"], "sam@example.org", "{status}");
    ok(&session, "add_perspective", json!({ "name": "Sam's" })).await;
    assert_eq!(
        ok(&session, "list_perspectives", json!({})).await["perspectives"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let other = server.client(None, Lifecycle::Legacy).await;
    tool_error(&other, "list_perspectives", json!({})).await;
    assert_eq!(ok(&other, "auth_status", json!({})).await["authenticated"], false);

    let stdio = stdio_client(&["--db", ":memory:", "--multi-user"], Lifecycle::Legacy).await;
    let status = ok(&stdio, "auth_status", json!({})).await;
    assert_eq!(
        (&status["authenticated"], &status["mode"]),
        (&json!(true), &json!("multi-user"))
    );
    ok(&stdio, "add_perspective", json!({ "name": "The owner's" })).await;
    let _ = stdio.cancel().await;
}
