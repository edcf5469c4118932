//! The account tools of multi-user mode (signup, login_email, request_login_verification,
//! verify_email_code), from a call's arguments to [`Accounts`].

use serde_json::{Map, Value};

use super::table::StaticTool;
use crate::accounts::{Accounts, CodeKind};
use crate::engine::ToolError;

/// The account tools (`auth_status` is answered by the handler itself); the table knows them as
/// [`StaticTool::is_account_tool`].
#[cfg(test)]
pub const ACCOUNT_TOOLS: &[&str] = &[
    "signup",
    "login_email",
    "request_login_verification",
    "verify_email_code",
];

/// Runs one account tool (blocking: password hashing, mail). `client` names the caller's
/// address for the rate limits.
pub fn call(
    accounts: &Accounts,
    tool: StaticTool,
    args: &Map<String, Value>,
    client: &str,
) -> Result<Value, ToolError> {
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
    match tool {
        StaticTool::Signup => accounts.signup(text("email"), text("password"), client),
        StaticTool::LoginEmail => accounts.login(text("email"), text("password"), client),
        StaticTool::RequestLoginVerification => accounts.request_code(text("email"), client),
        StaticTool::VerifyEmailCode => {
            // The inputSchema's enum admits nothing else.
            let kind = CodeKind::parse(text("verification_type")).unwrap_or(CodeKind::Login);
            accounts.verify_code(text("email"), text("code"), kind, client)
        }
        other => Err(ToolError::Internal(format!(
            "'{}' is not an account tool",
            other.name()
        ))),
    }
}
