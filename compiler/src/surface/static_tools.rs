//! The static tools of docs/tools.md, the same for every DNA.
//!
//! One function per tool, grouped by the sections of docs/tools.md; `fragments` holds the
//! schema builders and the parameters and results they share. The per-class tools take their
//! result schemas from these tools ("as instance_create", ...).

mod agent;
mod changes;
mod documentation;
mod flows;
pub(crate) mod fragments;
mod instances;
mod nodes;
mod perspectives;
mod sparql;
#[cfg(test)]
mod tests;
mod validation;

pub use documentation::DOCUMENTATION_TOPICS;

use super::{SurfaceOptions, ToolSpec};

/// The static tools in the order of docs/tools.md. The account tools (signup, login_email,
/// request_login_verification, verify_email_code) are listed in multi-user mode only;
/// `options.class_tools` does not change the static tools.
pub fn static_tools(options: SurfaceOptions) -> Vec<ToolSpec> {
    let mut tools = vec![
        perspectives::list_perspectives(),
        perspectives::add_perspective(),
        perspectives::add_link(),
        perspectives::query_links(),
        sparql::sparql_query(),
        changes::changes_since(),
        perspectives::add_model(),
        perspectives::describe_perspective(),
        instances::instance_create(),
        instances::instance_query(),
        instances::instance_get(),
        instances::instance_update(),
        instances::instance_add_to_collection(),
        instances::instance_remove_from_collection(),
        instances::instance_remove(),
        nodes::add_child(),
        nodes::get_children(),
        nodes::execute_commands(),
        agent::get_my_did(),
        agent::auth_status(),
        documentation::get_documentation(),
    ];
    if options.multi_user {
        tools.extend([
            agent::signup(),
            agent::login_email(),
            agent::request_login_verification(),
            agent::verify_email_code(),
        ]);
    }
    tools.push(agent::forget());
    tools.push(validation::validate_perspective());
    // Flows (docs/flows.md), in the order that page lists them.
    tools.extend([
        flows::get_flows(),
        flows::add_flow(),
        flows::flow_start(),
        flows::flow_state(),
        flows::flow_actions(),
        flows::flow_run_action(),
    ]);
    tools
}
