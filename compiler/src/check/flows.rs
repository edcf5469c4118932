//! Flows: every state, transition, class and property a flow names must exist; action names
//! must make identifiers; every state should be reachable. Problems carry the JSON pointer of
//! what is at fault, like every other diagnostic.

use std::collections::{HashMap, HashSet};

use super::actions;
use crate::diagnostic::{Diagnostic, Diagnostics, Severity};
use crate::literal::is_iri;
use crate::model::{Class, Flow, FlowState, Transition};
use crate::naming::{snake, type_ident};
use crate::shape::{FlowShape, StateShape, TransitionShape};

mod queries;

use queries::{known_class, query, rule};

/// Checks every flow against the DNA's classes; the flows that checked, in order.
pub(crate) fn check(shapes: &[FlowShape], classes: &[Class], diags: &mut Diagnostics) -> Vec<Flow> {
    let mut flows: Vec<Flow> = Vec::new();
    for shape in shapes {
        let Some(flow) = flow(shape, classes, diags) else {
            continue;
        };
        if flows.iter().any(|f| f.name == flow.name) {
            diags.push(
                Diagnostic::error(
                    "duplicate-flow",
                    shape.origin.child("name"),
                    format!("flow `{}` is declared twice", flow.name),
                )
                .help("give each flow a distinct name"),
            );
            continue;
        }
        flows.push(flow);
    }
    flows
}

/// One flow given on its own (add_flow), checked against `classes`.
pub fn check_flow(shape: &FlowShape, classes: &[Class]) -> (Option<Flow>, Diagnostics) {
    let mut diags = Diagnostics::default();
    let flow = flow(shape, classes, &mut diags);
    (flow, diags)
}

/// One flow; `None` when it has an error (reported).
fn flow(shape: &FlowShape, classes: &[Class], diags: &mut Diagnostics) -> Option<Flow> {
    let before = diags.errors();
    let (name, namespace) = (shape.name.clone()?, shape.namespace.clone()?);
    if name.is_empty() || name.chars().any(char::is_whitespace) || !is_iri(&format!("{namespace}{name}Flow")) {
        diags.push(
            Diagnostic::error(
                "invalid-iri",
                shape.origin.child("name"),
                format!("flow `{name}` in namespace `{namespace}` does not make an IRI"),
            )
            .help("write a namespace such as `app://` and a name without spaces such as `TaskLifecycle`"),
        );
    }
    let input_types = input_types(shape, classes, diags);
    let states = states(&shape.states, classes, diags);
    if shape.states.is_empty() {
        diags.push(
            Diagnostic::error(
                "missing-key",
                shape.origin.child("states"),
                format!("flow `{name}` has no state"),
            )
            .help("give the flow at least one state `{ \"name\", \"value\" }`"),
        );
    }
    let names: HashSet<&str> = shape.states.iter().filter_map(|s| s.name.as_deref()).collect();
    let transitions = transitions(&shape.transitions, &names, &name, diags);
    let start_actions = actions::convert(&shape.start_actions, false, &name, None, diags);
    let consensus = shape.consensus.as_ref().and_then(|r| rule(r, classes, diags));
    let flow = Flow {
        name,
        namespace,
        interpretation_hint: shape.interpretation_hint.clone(),
        input_types,
        states,
        transitions,
        start_actions,
        consensus,
    };
    unreachable(&flow, shape, diags);
    (diags.errors() == before).then_some(flow)
}

fn input_types(shape: &FlowShape, classes: &[Class], diags: &mut Diagnostics) -> Vec<String> {
    // Absent means any node (AD4M's flows without input types accept every subject).
    let Some(written) = &shape.input_types else {
        return Vec::new();
    };
    if written.iter().any(|t| t.value == "any") {
        return Vec::new();
    }
    let mut names = Vec::new();
    for t in written {
        match known_class(classes, &t.value, &t.origin, diags) {
            Some(class) => names.push(class.name.clone()),
            None => continue,
        }
    }
    names
}

fn states(shapes: &[StateShape], classes: &[Class], diags: &mut Diagnostics) -> Vec<FlowState> {
    let mut states: Vec<FlowState> = Vec::new();
    for s in shapes {
        let (Some(name), Some(value)) = (&s.name, &s.value) else {
            continue;
        };
        // Compiled code has an enum of the states: two names of one variant are one state.
        let same = states.iter().find(|other| type_ident(&other.name) == type_ident(name));
        if let Some(other) = same {
            diags.push(
                Diagnostic::error(
                    "duplicate-state",
                    s.origin.child("name"),
                    format!("state `{name}` is declared twice (as `{}`)", other.name),
                )
                .help("give each state a distinct name (compared as a Rust type name: `in_progress` is `inProgress`)"),
            );
            continue;
        }
        if let Some(problem) = identifier_problem(name) {
            diags.push(
                Diagnostic::error("invalid-state-name", s.origin.child("name"), format!("state name `{name}` {problem}"))
                    .help("write a state name such as `open` or `in_progress`: letters, digits and `_`, starting with a letter"),
            );
            continue;
        }
        let requires = s.requires.iter().filter_map(|q| query(q, classes, diags)).collect();
        states.push(FlowState {
            name: name.clone(),
            value: value.clone(),
            interpretation_hint: s.interpretation_hint.clone(),
            requires,
            consensus: s.consensus.as_ref().and_then(|r| rule(r, classes, diags)),
        });
    }
    states
}

fn transitions(
    shapes: &[TransitionShape],
    states: &HashSet<&str>,
    flow: &str,
    diags: &mut Diagnostics,
) -> Vec<Transition> {
    let mut out: Vec<Transition> = Vec::new();
    for t in shapes {
        let (Some(action), Some(from), Some(to)) = (&t.action_name, &t.from_state, &t.to_state) else {
            continue;
        };
        let mut ok = true;
        for end in [from, to] {
            if !states.contains(end.value.as_str()) {
                ok = false;
                let mut known: Vec<&str> = states.iter().copied().collect();
                known.sort_unstable();
                diags.push(
                    Diagnostic::error(
                        "unknown-state",
                        end.origin.clone(),
                        format!("unknown state `{}` in flow `{flow}`", end.value),
                    )
                    .help(format!("the states are: {}", known.join(", "))),
                );
            }
        }
        if let Some(problem) = identifier_problem(&action.value) {
            ok = false;
            diags.push(
                Diagnostic::error("invalid-action-name", action.origin.clone(), format!("action name `{}` {problem}", action.value))
                    .help("write an action name such as `finish` or `start_review`: letters, digits and `_`, starting with a letter"),
            );
        }
        let same_action = out
            .iter()
            .find(|o| o.from_state == from.value && snake(&o.action_name) == snake(&action.value));
        if let Some(other) = same_action {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "duplicate-action",
                    action.origin.clone(),
                    format!(
                        "a second transition out of state `{}` is named `{}` (the first leads to `{}`)",
                        from.value, action.value, other.to_state
                    ),
                )
                .help("an action leaves a state one way: rename one of them"),
            );
        }
        let spelled = out
            .iter()
            .find(|o| o.action_name != action.value && type_ident(&o.action_name) == type_ident(&action.value));
        if let Some(other) = spelled.filter(|_| same_action.is_none()) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "duplicate-action",
                    action.origin.clone(),
                    format!(
                        "action `{}` is `{}` spelled another way",
                        action.value, other.action_name
                    ),
                )
                .help("one action, one spelling: compiled code has one enum variant per action name"),
            );
        }
        if let Some(other) = out
            .iter()
            .find(|o| o.from_state == from.value && o.to_state == to.value)
        {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "duplicate-transition",
                    t.origin.clone(),
                    format!(
                        "two transitions lead from `{}` to `{}` (also `{}`)",
                        from.value, to.value, other.action_name
                    ),
                )
                .help("AD4M names a transition by its two states (`{from}To{to}`): keep one of them"),
            );
        }
        let actions = actions::convert(&t.actions, false, flow, None, diags);
        if ok {
            out.push(Transition {
                action_name: action.value.clone(),
                from_state: from.value.clone(),
                to_state: to.value.clone(),
                actions,
                description: t.description.clone(),
            });
        }
    }
    out
}

/// Why an action name cannot become a tool argument and a Rust enum variant, if it cannot.
fn identifier_problem(name: &str) -> Option<&'static str> {
    let snake = snake(name);
    let starts_with_letter = snake.chars().next().is_some_and(|c| c.is_ascii_lowercase());
    let word_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '));
    if !word_chars {
        Some("has characters other than letters, digits, `_`, `-` and spaces")
    } else if !starts_with_letter {
        Some("does not start with a letter")
    } else {
        None
    }
}

/// States no transition chain from the start state reaches: a warning, since a flow may be
/// meant to grow.
fn unreachable(flow: &Flow, shape: &FlowShape, diags: &mut Diagnostics) {
    let Some(start) = flow.start_state() else { return };
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for t in &flow.transitions {
        next.entry(t.from_state.as_str()).or_default().push(&t.to_state);
    }
    let mut seen: HashSet<&str> = HashSet::from([start.name.as_str()]);
    let mut todo = vec![start.name.as_str()];
    while let Some(state) = todo.pop() {
        for &to in next.get(state).into_iter().flatten() {
            if seen.insert(to) {
                todo.push(to);
            }
        }
    }
    for state in &flow.states {
        let written = shape
            .states
            .iter()
            .find(|s| s.name.as_deref() == Some(state.name.as_str()));
        if let Some(written) = written.filter(|_| !seen.contains(state.name.as_str())) {
            diags.push(
                Diagnostic::new(
                    Severity::Warning,
                    "unreachable-state",
                    written.origin.clone(),
                    format!(
                        "no transition reaches state `{}` from the start state `{}`",
                        state.name, start.name
                    ),
                )
                .help("add a transition into it, or remove it"),
            );
        }
    }
}
