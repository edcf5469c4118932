//! Agent, accounts and erasure: get_my_did, auth_status, the account tools of multi-user mode
//! (signup, login_email, request_login_verification, verify_email_code) and forget.

use serde_json::{Value, json};

use super::fragments::{
    array_of, boolean, closed_object, count, described, link_triple, no_parameters, perspective_id, string, tool, typed,
};
use crate::surface::{ToolAnnotations, ToolSpec};

pub(super) fn get_my_did() -> ToolSpec {
    tool(
        "get_my_did",
        "My DID",
        ToolAnnotations::READ,
        concat!(
            "Return your agent's DID (did:key:z6Mk…, an Ed25519 key): the author of every link you write, and ",
            "the value to give a property that should name you, such as a Task's assignee.\n",
            r#"Example: get_my_did({}) → {"did": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}"#,
        ),
        no_parameters(),
        closed_object(json!({ "did": typed("string") }), &["did"]),
    )
}

pub(super) fn auth_status() -> ToolSpec {
    tool(
        "auth_status",
        "Authentication status",
        ToolAnnotations::READ,
        concat!(
            "Tell whether this connection is authenticated, in which mode the server runs, and as whom ",
            "(user_email in multi-user mode, did). Needs no credential: call it when a tool answers that you are ",
            "not authenticated. In multi-user mode log in with login_email, or signup then verify_email_code.\n",
            r#"Example: auth_status({}) → {"authenticated": true, "mode": "multi-user", "#,
            r#""user_email": "ada@example.org", "did": "did:key:z6Mk…", "message": "…"}"#,
        ),
        no_parameters(),
        closed_object(
            json!({
                "authenticated": typed("boolean"),
                "mode": described("How this server authenticates callers, e.g. multi-user.", typed("string")),
                "user_email": typed("string"),
                "did": typed("string"),
                "message": described("What to do next, when anything.", typed("string")),
            }),
            &["authenticated", "mode", "message"],
        ),
    )
}

pub(super) fn signup() -> ToolSpec {
    tool(
        "signup",
        "Sign up",
        ToolAnnotations::WRITE,
        concat!(
            "Create a user account on this multi-user server: the user gets their own DID and perspectives. ",
            "A verification code is sent to the email address; finish with verify_email_code and ",
            "verification_type \"signup\", which returns the token. Existing users log in with login_email.\n",
            r#"Example: signup({"email": "ada@example.org", "password": "…"}) → {"success": true, "#,
            r#""did": "did:key:z6Mk…", "message": "…"}"#,
        ),
        email_and_password(),
        closed_object(
            json!({ "success": typed("boolean"), "did": typed("string"), "message": typed("string") }),
            &["success", "did", "message"],
        ),
    )
}

pub(super) fn login_email() -> ToolSpec {
    tool(
        "login_email",
        "Log in",
        ToolAnnotations::WRITE,
        concat!(
            "Log in to this multi-user server with email and password. The token returned authenticates the ",
            "requests that follow (Authorization: Bearer <token>); it is a secret, never repeat it. Without the ",
            "password use request_login_verification, then verify_email_code.\n",
            r#"Example: login_email({"email": "ada@example.org", "password": "…"}) → {"success": true, "#,
            r#""token": "<JWT>", "message": "…"}"#,
        ),
        email_and_password(),
        closed_object(
            json!({ "success": typed("boolean"), "token": token(), "message": typed("string") }),
            &["success", "token", "message"],
        ),
    )
}

pub(super) fn request_login_verification() -> ToolSpec {
    tool(
        "request_login_verification",
        "Request login code",
        ToolAnnotations::WRITE,
        concat!(
            "Send a one-time login code to the email address of a user of this multi-user server. Then call ",
            "verify_email_code with that code and verification_type \"login\" to get a token. Use login_email ",
            "instead when you have the password.\n",
            r#"Example: request_login_verification({"email": "ada@example.org"}) → {"success": true, "#,
            r#""message": "…"}"#,
        ),
        closed_object(json!({ "email": email() }), &["email"]),
        closed_object(
            json!({ "success": typed("boolean"), "message": typed("string") }),
            &["success", "message"],
        ),
    )
}

pub(super) fn verify_email_code() -> ToolSpec {
    tool(
        "verify_email_code",
        "Verify email code",
        ToolAnnotations::WRITE,
        concat!(
            "Finish a signup or a code login with the code sent by email: verification_type \"signup\" after ",
            "signup, \"login\" after request_login_verification. The token returned authenticates the requests ",
            "that follow (Authorization: Bearer <token>); it is a secret, never repeat it.\n",
            r#"Example: verify_email_code({"email": "ada@example.org", "code": "123456", "#,
            r#""verification_type": "login"}) → {"success": true, "token": "<JWT>", "message": "…"}"#,
        ),
        closed_object(
            json!({
                "email": email(),
                "code": string("The code from the email."),
                "verification_type": {
                    "type": "string",
                    "description": "signup after signup, login after request_login_verification.",
                    "enum": ["signup", "login"],
                },
            }),
            &["email", "code", "verification_type"],
        ),
        closed_object(
            json!({ "success": typed("boolean"), "token": token(), "message": typed("string") }),
            &["success", "message"],
        ),
    )
}

pub(super) fn forget() -> ToolSpec {
    tool(
        "forget",
        "Erase for good",
        ToolAnnotations::DELETE,
        concat!(
            "Erase a record from a perspective for good and attest it. Give exactly one of base_uri (a node or ",
            "instance: its links both ways, collection memberships, has_child edges, index entries), link (one ",
            "link) or whole_perspective: true. All of it goes in one transaction and the freed storage is ",
            "overwritten. The answer counts what was erased; remaining lists what the server could not reach, ",
            "above all links in other perspectives that still point at the record; complete is false whenever ",
            "remaining is not empty. Irreversible. To delete an instance in the ordinary way, use ",
            "instance_remove.\n",
            r#"Example: forget({"perspective_id": "<P>", "base_uri": "<T>"}) → {"erased": {"links": 7, "#,
            r#""instances": 1}, "remaining": [], "complete": true}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "base_uri": string("IRI of the node or instance to erase, with every link in or out of it."),
                "link": link_triple("One link to erase, as stored."),
                "whole_perspective": boolean("true erases everything in the perspective."),
            }),
            &["perspective_id"],
        ),
        closed_object(
            json!({
                "erased": {
                    "type": "object",
                    "description": "How many of each kind of thing were erased.",
                    "properties": { "links": count(), "instances": count() },
                    "required": ["links", "instances"],
                    "additionalProperties": count(),
                },
                "remaining": described(
                    "What the server knows it could not erase, and why.",
                    array_of(closed_object(
                        json!({ "what": typed("string"), "why": typed("string") }),
                        &["what", "why"],
                    )),
                ),
                "complete": described("false whenever remaining is not empty.", typed("boolean")),
            }),
            &["erased", "remaining", "complete"],
        ),
    )
}

fn email() -> Value {
    string("The user's email address.")
}

fn email_and_password() -> Value {
    closed_object(
        json!({ "email": email(), "password": string("The user's password.") }),
        &["email", "password"],
    )
}

/// A session token (a JWT): a secret.
fn token() -> Value {
    described("Bearer token for the requests that follow. A secret.", typed("string"))
}
