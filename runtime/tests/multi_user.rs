//! Multi-user mode in-process: accounts, tokens and their refusals, rate limits, email codes
//! through an outbox folder, HTTP sessions, and two users who each see only their own
//! perspectives, instances and links, with the admin seeing all. Requests are built as the
//! HTTP transport hands them to the handler: `http::request::Parts` with an `Authorization`
//! header and the client's address.

mod common;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use shacl_mcp::accounts::{
    AccountOptions, Accounts, Claims, DEFAULT_AUDIENCE, DEFAULT_ISSUER, JwtKey, Limit, Limits, Mailer, load_jwt_secret,
    secret_file,
};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::engine::Engine;
use shacl_mcp::mcp::auth::{Caller, ClientAddr};
use shacl_mcp::mcp::{McpServer, Secret, ServerOptions};

const SECRET: &[u8] = b"a test secret of at least thirty-two bytes";
const ADMIN: &str = "admin-credential-for-tests";
const PASSWORD: &str = "correct horse battery";

struct World {
    server: McpServer,
    store: common::AnyStore,
    clock: Arc<FixedClock>,
    outbox: TempDir,
}

fn world(verification: bool, limits: Limits) -> World {
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let store = common::fresh_store(clock.clone());
    let outbox = TempDir::new();
    let options = AccountOptions {
        email_verification: verification,
        mailer: Some(Mailer::outbox(&outbox.0, None).unwrap()),
        limits,
        ..AccountOptions::default()
    };
    let accounts = Accounts::new(store.users.clone(), JwtKey::new(SECRET), clock.clone(), options).unwrap();
    let engine = Engine::new(
        store.links.clone(),
        common::fixed(&["chat.json"]),
        Arc::new(SeededIds::new(7)),
    );
    let options = ServerOptions {
        class_tools: true,
        admin_credential: Secret::new(ADMIN),
        accounts: Some(Arc::new(accounts)),
        ..ServerOptions::default()
    };
    World {
        server: McpServer::new(Arc::new(engine), options),
        store,
        clock,
        outbox,
    }
}

/// A request's parts: a bearer (a token or the admin credential) and the client's address.
fn parts(bearer: Option<&str>, ip: [u8; 4], session: Option<&str>) -> http::request::Parts {
    let mut builder = http::Request::builder().method("POST").uri("/mcp");
    if let Some(token) = bearer {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    if let Some(id) = session {
        builder = builder.header("mcp-session-id", id);
    }
    let (mut parts, _) = builder.body(()).unwrap().into_parts();
    parts.extensions.insert(ClientAddr(IpAddr::from(ip)));
    parts
}

const HOME: [u8; 4] = [127, 0, 0, 1];

/// `(isError, structured content)`; a JSON-RPC error as `{ "rpc": code, "message": … }`.
async fn call_from(server: &McpServer, parts: &http::request::Parts, tool: &str, args: Value) -> (bool, Value) {
    let args = args.as_object().cloned();
    match server.call_request(tool, args, Some(parts)).await {
        Ok(result) => (
            result.is_error == Some(true),
            result.structured_content.unwrap_or_default(),
        ),
        Err(e) => (true, json!({ "rpc": e.code.0, "message": e.message })),
    }
}

async fn call(server: &McpServer, bearer: Option<&str>, tool: &str, args: Value) -> (bool, Value) {
    call_from(server, &parts(bearer, HOME, None), tool, args).await
}

async fn ok(server: &McpServer, bearer: Option<&str>, tool: &str, args: Value) -> Value {
    let (failed, answer) = call(server, bearer, tool, args).await;
    assert!(!failed, "{tool} failed: {answer}");
    answer
}

async fn refused(server: &McpServer, bearer: Option<&str>, tool: &str, args: Value) -> Value {
    let (failed, answer) = call(server, bearer, tool, args).await;
    assert!(failed, "{tool} should fail: {answer}");
    answer
}

/// Signs up (without verification) and logs in: the user's token and DID.
async fn user(server: &McpServer, email: &str) -> (String, String) {
    let signed = ok(server, None, "signup", json!({ "email": email, "password": PASSWORD })).await;
    assert_eq!(signed["success"], true);
    let did = signed["did"].as_str().unwrap().to_string();
    assert!(did.starts_with("did:key:z6Mk"), "{did}");
    let login = ok(
        server,
        None,
        "login_email",
        json!({ "email": email, "password": PASSWORD }),
    )
    .await;
    (login["token"].as_str().unwrap().to_string(), did)
}

fn tool_names(server: &McpServer, bearer: Option<&str>) -> Vec<String> {
    let caller = server.identify(Some(&parts(bearer, HOME, None)));
    server
        .visible_tools(caller)
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

#[tokio::test]
async fn two_users_see_only_their_own() {
    let w = world(false, Limits::default());
    let s = &w.server;
    let (alice, alice_did) = user(s, "alice@example.org").await;
    let (bob, bob_did) = user(s, "Bob@Example.org ").await;
    let a = Some(alice.as_str());
    let b = Some(bob.as_str());

    let pa = ok(s, a, "add_perspective", json!({ "name": "Alice's" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let pb = ok(s, b, "add_perspective", json!({ "name": "Bob's" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let ca = ok(
        s,
        a,
        "channel_create",
        json!({ "perspective_id": pa, "name": "alice-only" }),
    )
    .await["base_uri"]
        .as_str()
        .unwrap()
        .to_string();
    let cb = ok(
        s,
        b,
        "instance_create",
        json!({ "perspective_id": pb, "class_name": "Channel", "properties": { "name": "bob-only" } }),
    )
    .await["base_uri"]
        .as_str()
        .unwrap()
        .to_string();
    let added = ok(
        s,
        a,
        "add_link",
        json!({ "perspective_id": pa, "source": ca, "predicate": "app://note", "target": "literal://string:secret" }),
    )
    .await;
    assert_eq!(added["link"]["author"], alice_did.as_str(), "signed by Alice's key");
    ok(
        s,
        b,
        "add_child",
        json!({ "perspective_id": pb, "parent": cb, "child": "app://child" }),
    )
    .await;

    // Each lists only their own perspective, owned by their DID.
    for (token, mine, did) in [(a, &pa, &alice_did), (b, &pb, &bob_did)] {
        let listed = ok(s, token, "list_perspectives", json!({})).await;
        let list = listed["perspectives"].as_array().unwrap();
        assert_eq!(list.len(), 1, "{listed}");
        assert_eq!(list[0]["uuid"], mine.as_str());
        assert_eq!(list[0]["owner"], did.as_str());
        assert_eq!(ok(s, token, "get_my_did", json!({})).await["did"], did.as_str());
    }
    // The admin sees both; a guest may not call tools at all.
    let admin = ok(s, Some(ADMIN), "list_perspectives", json!({})).await;
    assert_eq!(admin["perspectives"].as_array().unwrap().len(), 2);
    let guest = refused(s, None, "list_perspectives", json!({})).await;
    assert!(
        guest["error"].as_str().unwrap().starts_with("Not authenticated"),
        "{guest}"
    );

    // Their own data, through every reading tool.
    let q = ok(
        s,
        a,
        "instance_query",
        json!({ "perspective_id": pa, "class_name": "Channel" }),
    )
    .await;
    assert_eq!(q["total_count"], 1);
    assert_eq!(
        ok(s, a, "query_links", json!({ "perspective_id": pa })).await["links"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["author"] != alice_did.as_str())
            .count(),
        0,
        "every link in Alice's perspective is signed by her"
    );
    let got = ok(s, b, "get_children", json!({ "perspective_id": pb, "parent": cb })).await;
    assert_eq!(got["total_count"], 1);

    // Another user's perspective answers exactly like a missing one, through every tool that
    // takes a perspective_id; so does a guessed id.
    let missing = "00000000-0000-4000-8000-000000000000";
    let calls: Vec<(&str, Value)> = vec![
        ("describe_perspective", json!({})),
        ("instance_query", json!({ "class_name": "Channel" })),
        ("instance_get", json!({ "class_name": "Channel", "base_uri": ca })),
        ("query_links", json!({})),
        ("get_children", json!({ "parent": ca })),
        ("add_link", json!({ "source": "a", "predicate": "b", "target": "c" })),
        ("add_child", json!({ "parent": ca, "child": "x" })),
        (
            "instance_create",
            json!({ "class_name": "Channel", "properties": { "name": "intruder" } }),
        ),
        (
            "instance_update",
            json!({ "class_name": "Channel", "base_uri": ca, "properties": { "name": "x" } }),
        ),
        ("instance_remove", json!({ "class_name": "Channel", "base_uri": ca })),
        ("add_model", json!({ "class_name": "Note", "shacl_json": note_model() })),
        (
            "execute_commands",
            json!({ "expression_address": ca, "commands": [{ "action": "addLink", "source": "this", "predicate": "p", "target": "t" }] }),
        ),
        ("channel_get", json!({ "expression_address": ca })),
        ("channel_query", json!({})),
        ("channel_create", json!({ "name": "intruder" })),
        ("channel_set_name", json!({ "expression_address": ca, "value": "x" })),
    ];
    for (tool, args) in calls {
        let with = |p: &str| {
            let mut args = args.clone();
            args["perspective_id"] = json!(p);
            args
        };
        let theirs = refused(s, b, tool, with(&pa)).await;
        let absent = refused(s, b, tool, with(missing)).await;
        assert_eq!(
            theirs.to_string().replace(&pa, "<P>"),
            absent.to_string().replace(missing, "<P>"),
            "{tool}"
        );
        assert!(
            theirs["error"].as_str().unwrap().contains("not found"),
            "{tool}: {theirs}"
        );
    }
    // Nothing of Bob's attempts reached Alice's perspective.
    let links = ok(s, a, "query_links", json!({ "perspective_id": pa })).await;
    assert!(!links.to_string().contains("intruder"), "{links}");
    assert_eq!(
        ok(
            s,
            a,
            "channel_get",
            json!({ "perspective_id": pa, "expression_address": ca })
        )
        .await["name"],
        "alice-only"
    );
    // The admin reads both.
    let seen = ok(
        s,
        Some(ADMIN),
        "instance_get",
        json!({ "perspective_id": pb, "class_name": "Channel", "base_uri": cb }),
    )
    .await;
    assert_eq!(seen["name"], "bob-only");
    // Every transaction verifies against its author's DID.
    let report = w.store.links.verify().unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert!(report.transactions >= 4);
}

fn note_model() -> Value {
    json!({
        "target_class": "app://Note",
        "properties": [{ "path": "app://text", "name": "text", "datatype": "xsd:string", "min_count": 1, "max_count": 1, "writable": true }],
        "constructor": [{ "action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://Note" }]
    })
}

#[tokio::test]
async fn per_class_tools_of_a_users_model_are_theirs() {
    let w = world(false, Limits::default());
    let s = &w.server;
    let (alice, _) = user(s, "alice@example.org").await;
    let (bob, _) = user(s, "bob@example.org").await;
    let (a, b) = (Some(alice.as_str()), Some(bob.as_str()));
    let pa = ok(s, a, "add_perspective", json!({ "name": "A" })).await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    ok(s, b, "add_perspective", json!({ "name": "B" })).await;
    ok(
        s,
        a,
        "add_model",
        json!({ "perspective_id": pa, "class_name": "Note", "shacl_json": note_model() }),
    )
    .await;
    s.refresh_runtime_tools();
    assert!(tool_names(s, a).contains(&"note_create".to_string()));
    assert!(tool_names(s, Some(ADMIN)).contains(&"note_create".to_string()));
    for other in [b, None, Some("not-a-token")] {
        let names = tool_names(s, other);
        assert!(!names.contains(&"note_create".to_string()), "{other:?}");
        assert!(names.contains(&"channel_create".to_string()), "fixed DNA tools for all");
        assert!(names.contains(&"signup".to_string()) && names.contains(&"login_email".to_string()));
    }
    let made = ok(s, a, "note_create", json!({ "perspective_id": pa, "text": "mine" })).await;
    assert!(made["base_uri"].is_string());
    // Bob cannot even name the tool: unknown, like a tool that does not exist.
    let (_, theirs) = call(s, b, "note_create", json!({ "perspective_id": pa, "text": "x" })).await;
    let (_, none) = call(s, b, "nothing_create", json!({ "perspective_id": pa, "text": "x" })).await;
    assert_eq!(theirs["rpc"], -32602, "{theirs}");
    assert_eq!(theirs["rpc"], none["rpc"]);
}

/// A token with any header and claims, signed with `secret` (or unsigned for `alg: none`).
fn forge(secret: Option<&[u8]>, header: &Value, claims: &Value) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    match secret {
        None => format!("{input}."),
        Some(secret) => {
            use hmac::{KeyInit, Mac};
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
            mac.update(input.as_bytes());
            format!("{input}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
        }
    }
}

#[tokio::test]
async fn bad_tokens_are_refused_and_auth_status_tells_the_truth() {
    let w = world(false, Limits::default());
    let s = &w.server;
    let (token, did) = user(s, "alice@example.org").await;
    let status = ok(s, Some(&token), "auth_status", json!({})).await;
    assert_eq!(
        (
            &status["authenticated"],
            &status["mode"],
            &status["user_email"],
            &status["did"]
        ),
        (
            &json!(true),
            &json!("multi-user"),
            &json!("alice@example.org"),
            &json!(did)
        )
    );
    assert!(!status.to_string().contains(&token));
    let admin = ok(s, Some(ADMIN), "auth_status", json!({})).await;
    assert_eq!(
        (&admin["authenticated"], &admin["did"]),
        (&json!(true), &json!(w.store.links.did()))
    );
    assert!(admin["message"].as_str().unwrap().contains("admin"));
    let guest = ok(s, None, "auth_status", json!({})).await;
    assert_eq!(
        (&guest["authenticated"], &guest["mode"]),
        (&json!(false), &json!("multi-user"))
    );
    assert!(guest.get("did").is_none() && guest.get("user_email").is_none());
    // stdio is the node's owner.
    let stdio = s
        .call("auth_status", None, Caller::Stdio)
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(
        (&stdio["authenticated"], &stdio["did"]),
        (&json!(true), &json!(w.store.links.did()))
    );

    let now = 1_798_106_400_i64; // the fixed clock, in seconds
    let claims = json!({ "sub": did, "email": "alice@example.org", "iss": DEFAULT_ISSUER, "aud": DEFAULT_AUDIENCE, "iat": now, "exp": now + 3600 });
    let hs256 = json!({ "alg": "HS256", "typ": "JWT" });
    // The forger gets it right with the real secret: a sanity check of `forge`.
    assert_eq!(
        ok(s, Some(&forge(Some(SECRET), &hs256, &claims)), "get_my_did", json!({})).await["did"],
        did.as_str()
    );
    let (head, rest) = token.split_once('.').unwrap();
    let (payload, signature) = rest.split_once('.').unwrap();
    let mut flipped = payload.as_bytes().to_vec();
    flipped[10] = if flipped[10] == b'x' { b'y' } else { b'x' };
    let tampered = format!("{head}.{}.{signature}", String::from_utf8(flipped).unwrap());
    let mut expired_claims = claims.clone();
    expired_claims["iat"] = json!(now - 7200);
    expired_claims["exp"] = json!(now - 3600);
    let mut elsewhere = claims.clone();
    elsewhere["aud"] = json!("another-server");
    let cases = [
        ("tampered", tampered, "signature"),
        ("expired", forge(Some(SECRET), &hs256, &expired_claims), "expired"),
        (
            "wrongly signed",
            forge(Some(b"another secret, thirty-two bytes or more"), &hs256, &claims),
            "signature",
        ),
        (
            "alg none",
            forge(None, &json!({ "alg": "none", "typ": "JWT" }), &claims),
            "HS256",
        ),
        (
            "alg none, signed",
            forge(Some(SECRET), &json!({ "alg": "none" }), &claims),
            "HS256",
        ),
        (
            "another audience",
            forge(Some(SECRET), &hs256, &elsewhere),
            "another server",
        ),
        ("garbage", "garbage".to_string(), "well-formed"),
    ];
    for (what, bad, why) in cases {
        let answer = refused(s, Some(&bad), "list_perspectives", json!({})).await;
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.starts_with("Not authenticated") && error.contains(why),
            "{what}: {answer}"
        );
        assert!(!answer.to_string().contains(&bad), "{what}: the token is not echoed");
        let status = ok(s, Some(&bad), "auth_status", json!({})).await;
        assert_eq!(status["authenticated"], false, "{what}");
        assert!(status["message"].as_str().unwrap().contains(why), "{what}: {status}");
    }
    // A token expires with time.
    w.clock.advance(24 * 3600 * 1_000_000);
    let answer = refused(s, Some(&token), "list_perspectives", json!({})).await;
    assert!(answer["error"].as_str().unwrap().contains("expired"), "{answer}");
}

#[tokio::test]
async fn signup_checks_and_refuses_duplicates() {
    let w = world(false, Limits::default());
    let s = &w.server;
    let short = refused(
        s,
        None,
        "signup",
        json!({ "email": "not-an-email", "password": "short-pw" }),
    )
    .await;
    let error = short["error"].as_str().unwrap();
    assert!(
        error.contains("at least 10 characters") && error.contains("email"),
        "{short}"
    );
    assert!(!short.to_string().contains("short-pw"), "the password is never echoed");
    ok(
        s,
        None,
        "signup",
        json!({ "email": "ada@example.org", "password": PASSWORD }),
    )
    .await;
    let again = refused(
        s,
        None,
        "signup",
        json!({ "email": " ADA@example.org", "password": PASSWORD }),
    )
    .await;
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .starts_with("Could not create an account"),
        "{again}"
    );
    assert!(again.get("did").is_none());
    let wrong = refused(
        s,
        None,
        "login_email",
        json!({ "email": "ada@example.org", "password": "wrong password" }),
    )
    .await;
    let nobody = refused(
        s,
        None,
        "login_email",
        json!({ "email": "nobody@example.org", "password": "wrong password" }),
    )
    .await;
    assert_eq!(wrong, nobody, "a wrong password and an unknown email answer alike");
    // Verification is off: the code tools say so.
    let off = refused(
        s,
        None,
        "request_login_verification",
        json!({ "email": "ada@example.org" }),
    )
    .await;
    assert!(off["error"].as_str().unwrap().contains("off"), "{off}");
}

#[tokio::test]
async fn failed_logins_are_rate_limited_per_account_and_per_address() {
    let short = |max| Limit {
        max,
        window: Duration::from_secs(600),
    };
    let limits = Limits {
        failures_per_account: short(3),
        failures_per_address: short(5),
        ..Limits::default()
    };
    let w = world(false, limits);
    let s = &w.server;
    for email in ["victim@example.org", "other@example.org", "third@example.org"] {
        ok(s, None, "signup", json!({ "email": email, "password": PASSWORD })).await;
    }
    let attempt = |email: &'static str, password: &'static str, ip: [u8; 4]| {
        let parts = parts(None, ip, None);
        async move {
            call_from(
                s,
                &parts,
                "login_email",
                json!({ "email": email, "password": password }),
            )
            .await
        }
    };
    for _ in 0..3 {
        let (failed, answer) = attempt("victim@example.org", "wrong password", [10, 0, 0, 1]).await;
        assert!(
            failed && answer["error"].as_str().unwrap().starts_with("Login failed"),
            "{answer}"
        );
    }
    // The account waits now, even with the right password, from any address.
    let (failed, answer) = attempt("victim@example.org", PASSWORD, [10, 0, 0, 2]).await;
    let error = answer["error"].as_str().unwrap();
    assert!(
        failed && error.starts_with("Too many failed attempts for this account"),
        "{answer}"
    );
    assert!(error.contains("try again in") && answer["hint"].as_str().unwrap().contains("Retry after"));
    // Other accounts are fine, until the address has had its share.
    let (failed, _) = attempt("other@example.org", PASSWORD, [10, 0, 0, 1]).await;
    assert!(!failed);
    for _ in 0..2 {
        attempt("other@example.org", "wrong password", [10, 0, 0, 1]).await;
    }
    let (failed, answer) = attempt("third@example.org", PASSWORD, [10, 0, 0, 1]).await;
    assert!(
        failed && answer["error"].as_str().unwrap().contains("from your address"),
        "{answer}"
    );
    let (failed, _) = attempt("third@example.org", PASSWORD, [10, 0, 0, 3]).await;
    assert!(!failed, "another address may log in");
}

/// The code in the newest message of the outbox to `to`.
fn code_for(outbox: &Path, to: &str) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(outbox).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let text = files
        .iter()
        .rev()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .find(|t| t.contains(&format!("\r\nTo: {to}\r\n")))
        .unwrap_or_else(|| panic!("no mail to {to}"));
    let body = text.split_once("\r\n\r\n").unwrap().1;
    let at = body.find(": ").unwrap() + 2;
    body[at..at + 6].to_string()
}

#[tokio::test]
async fn email_verification_through_the_outbox() {
    // Limits wide enough that only the codes' own rules refuse here.
    let wide = Limit {
        max: 100,
        window: Duration::from_secs(600),
    };
    let limits = Limits {
        failures_per_account: wide,
        failures_per_address: wide,
        sends_per_account: wide,
        sends_per_address: wide,
    };
    let w = world(true, limits);
    let s = &w.server;
    let signed = ok(
        s,
        None,
        "signup",
        json!({ "email": "eve@example.org", "password": PASSWORD }),
    )
    .await;
    assert!(signed["message"].as_str().unwrap().contains("verify_email_code"));
    let refused_login = refused(
        s,
        None,
        "login_email",
        json!({ "email": "eve@example.org", "password": PASSWORD }),
    )
    .await;
    assert!(
        refused_login["error"].as_str().unwrap().contains("not verified"),
        "{refused_login}"
    );
    let code = code_for(&w.outbox.0, "eve@example.org");
    assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()), "{code}");
    let wrong = if code == "000000" { "000001" } else { "000000" };
    let verify =
        |code: &str, kind: &str| json!({ "email": "eve@example.org", "code": code, "verification_type": kind });
    // A signup code does not log in as a login code.
    refused(s, None, "verify_email_code", verify(&code, "login")).await;
    let bad = refused(s, None, "verify_email_code", verify(wrong, "signup")).await;
    assert!(!bad.to_string().contains(&code));
    let done = ok(s, None, "verify_email_code", verify(&code, "signup")).await;
    let token = done["token"].as_str().unwrap().to_string();
    assert_eq!(
        ok(s, Some(&token), "auth_status", json!({})).await["user_email"],
        "eve@example.org"
    );
    // Single use.
    refused(s, None, "verify_email_code", verify(&code, "signup")).await;
    // Verified: the password works now.
    ok(
        s,
        None,
        "login_email",
        json!({ "email": "eve@example.org", "password": PASSWORD }),
    )
    .await;

    // A login code; the same answer for an address without an account (no mail then).
    let asked = ok(
        s,
        None,
        "request_login_verification",
        json!({ "email": "eve@example.org" }),
    )
    .await;
    let nobody = ok(
        s,
        None,
        "request_login_verification",
        json!({ "email": "nobody@example.org" }),
    )
    .await;
    assert_eq!(
        asked["message"].as_str().unwrap().replace("eve@example.org", "<E>"),
        nobody["message"].as_str().unwrap().replace("nobody@example.org", "<E>")
    );
    let code = code_for(&w.outbox.0, "eve@example.org");
    let wrong = if code == "000000" { "000001" } else { "000000" };
    for _ in 0..5 {
        refused(s, None, "verify_email_code", verify(wrong, "login")).await;
    }
    // Out of attempts: the right code is dead too.
    refused(s, None, "verify_email_code", verify(&code, "login")).await;
    ok(
        s,
        None,
        "request_login_verification",
        json!({ "email": "eve@example.org" }),
    )
    .await;
    let code = code_for(&w.outbox.0, "eve@example.org");
    // Expired after ten minutes.
    w.clock.advance(11 * 60 * 1_000_000);
    refused(s, None, "verify_email_code", verify(&code, "login")).await;
    ok(
        s,
        None,
        "request_login_verification",
        json!({ "email": "eve@example.org" }),
    )
    .await;
    let code = code_for(&w.outbox.0, "eve@example.org");
    let logged = ok(s, None, "verify_email_code", verify(&code, "login")).await;
    assert!(logged["token"].is_string());
}

#[tokio::test]
async fn a_session_remembers_its_login() {
    let w = world(false, Limits::default());
    user(&w.server, "sam@example.org").await;
    let session = w.server.for_session();
    let other = w.server.for_session();
    let in_session = parts(None, HOME, Some("session-1"));
    let (failed, _) = call_from(&session, &in_session, "list_perspectives", json!({})).await;
    assert!(failed, "not logged in yet");
    let (failed, login) = call_from(
        &session,
        &in_session,
        "login_email",
        json!({ "email": "sam@example.org", "password": PASSWORD }),
    )
    .await;
    assert!(!failed, "{login}");
    let (failed, status) = call_from(&session, &in_session, "auth_status", json!({})).await;
    assert!(!failed);
    assert_eq!(status["user_email"], "sam@example.org");
    let (failed, _) = call_from(&session, &in_session, "add_perspective", json!({ "name": "S" })).await;
    assert!(!failed, "the session's token is used");
    // Another session, and stateless requests, know nothing of it.
    let (failed, _) = call_from(
        &other,
        &parts(None, HOME, Some("session-2")),
        "list_perspectives",
        json!({}),
    )
    .await;
    assert!(failed);
    let (failed, _) = call_from(&w.server, &parts(None, HOME, None), "list_perspectives", json!({})).await;
    assert!(failed);
}

#[test]
fn the_token_secret_is_generated_once_into_a_private_file() {
    let dir = TempDir::new();
    let db = dir.0.join("store.db");
    let first = load_jwt_secret(&db, None).unwrap();
    let file = secret_file(&db);
    assert_eq!(file, dir.0.join("store.db.jwt-secret"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let again = load_jwt_secret(&db, None).unwrap();
    let claims = Claims {
        sub: "did:key:z6Mkx".into(),
        email: "a@b.cd".into(),
        iat: 1,
        exp: 10,
    };
    let token = first.issue(&claims, "i", "a");
    assert_eq!(again.verify(&token, "i", "a", 5), Ok(claims.clone()));
    assert!(format!("{first:?}") == "JwtKey(***)");
    // The environment wins, and must be long enough.
    let env = load_jwt_secret(&db, Some("x".repeat(40))).unwrap();
    assert!(env.verify(&token, "i", "a", 5).is_err());
    assert!(load_jwt_secret(&db, Some("short".into())).is_err());
    // In memory: a fresh secret each time, no file.
    let memory = Path::new(":memory:");
    assert!(load_jwt_secret(memory, None).is_ok());
    assert!(!Path::new(":memory:.jwt-secret").exists());
}

/// A folder under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "shacl-mcp-multi-user-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
