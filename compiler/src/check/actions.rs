//! Link actions: their kind, source and predicate, and the defaults a property gets.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::literal::is_iri;
use crate::model::{Action, ActionKind};
use crate::shape::ActionShape;

/// Converts written actions, reporting an unknown kind or a source or predicate that is not
/// `this` or an IRI. `local` from the property is pushed down into every action.
pub(crate) fn convert(
    written: &[ActionShape],
    local: bool,
    class: &str,
    property: Option<&str>,
    diags: &mut Diagnostics,
) -> Vec<Action> {
    let mut actions = Vec::new();
    for a in written {
        let report = |d: Diagnostic| {
            let d = d.class(class);
            match property {
                Some(p) => d.property(p),
                None => d,
            }
        };
        let Some(kind) = ActionKind::parse(&a.action) else {
            diags.push(report(
                Diagnostic::error(
                    "unknown-action",
                    a.origin.child("action"),
                    format!("unknown action `{}`", a.action),
                )
                .help("use `addLink`, `removeLink` or `setSingleTarget`"),
            ));
            continue;
        };
        if a.source != "this" && !is_iri(&a.source) {
            diags.push(report(
                Diagnostic::error(
                    "invalid-iri",
                    a.origin.child("source"),
                    format!("action source `{}` is neither `this` nor an IRI", a.source),
                )
                .help("write `this` for the instance, or an IRI"),
            ));
        }
        if !is_iri(&a.predicate) {
            diags.push(report(
                Diagnostic::error(
                    "invalid-iri",
                    a.origin.child("predicate"),
                    format!("action predicate `{}` is not an IRI", a.predicate),
                )
                .help("write the predicate as an IRI such as `app://has_name`"),
            ));
        }
        actions.push(Action {
            kind,
            source: a.source.clone(),
            predicate: a.predicate.clone(),
            target: a.target.clone(),
            local: local || a.local.unwrap_or(false),
        });
    }
    actions
}

/// `kind(this, path, value)`: the default setter, adder and remover.
pub(crate) fn default_action(kind: ActionKind, path: &str, local: bool) -> Vec<Action> {
    vec![Action {
        kind,
        source: "this".to_string(),
        predicate: path.to_string(),
        target: "value".to_string(),
        local,
    }]
}

/// A target that is taken as written: an IRI or an encoded literal (anything with a `:`).
pub(crate) fn is_constant(target: &str) -> bool {
    target.contains(':')
}
