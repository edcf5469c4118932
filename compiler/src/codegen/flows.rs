//! The flows of a DNA as Rust: per flow a unit struct with typed calls, an enum of its states
//! and an enum of its actions. The calls go through the engine's flow methods, the code the
//! flow tools run, so a typed step and a tool call write the same links.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::idents;
use crate::model::{Dna, Flow};

/// `pub mod flows { … }` (`flows_` when a class module is called `flows`); nothing without flows.
pub fn module(dna: &Dna, rt: &TokenStream) -> TokenStream {
    if dna.flows.is_empty() {
        return quote!();
    }
    let taken = dna.classes.iter().any(|c| idents::field(&c.name) == "flows");
    let name = if taken {
        format_ident!("flows_")
    } else {
        format_ident!("flows")
    };
    let flows = dna.flows.iter().map(|f| flow(f, rt));
    quote! {
        /// The DNA's flows: for each, its states and actions as enums and typed calls through
        /// the engine (the same code as the flow tools).
        pub mod #name {
            #(#flows)*
        }
    }
}

fn flow(flow: &Flow, rt: &TokenStream) -> TokenStream {
    let ty = idents::type_name(&flow.name);
    let state_ty = format_ident!("{}State", ty);
    let action_ty = format_ident!("{}Action", ty);
    let name = &flow.name;
    let mut doc = format!(" Flow `{name}`");
    if let Some(hint) = &flow.interpretation_hint {
        doc.push_str(&format!(": {hint}"));
    }
    let states: Vec<&str> = flow.states.iter().map(|s| s.name.as_str()).collect();
    let mut actions: Vec<&str> = Vec::new();
    for t in &flow.transitions {
        if !actions.contains(&t.action_name.as_str()) {
            actions.push(&t.action_name);
        }
    }
    let state_enum = named_enum(&state_ty, &states, " A state of the flow, in declaration order.");
    let action_enum = named_enum(
        &action_ty,
        &actions,
        " An action of the flow (a transition's `action_name`).",
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;

        #state_enum
        #action_enum

        impl #ty {
            /// The flow's name, as the flow tools take it.
            pub const NAME: &'static str = #name;

            /// `flow_start`: enters the flow's first state.
            pub fn start(
                engine: &#rt::engine::Engine,
                perspective: &str,
                subject: &str,
            ) -> ::std::result::Result<#rt::serde_json::Value, #rt::engine::ToolError> {
                engine.flow_start(perspective, Self::NAME, subject)
            }

            /// `flow_run_action`: one step, or a proposal under a consensus rule.
            pub fn run(
                engine: &#rt::engine::Engine,
                perspective: &str,
                subject: &str,
                action: #action_ty,
            ) -> ::std::result::Result<#rt::serde_json::Value, #rt::engine::ToolError> {
                engine.flow_run_action(perspective, Self::NAME, subject, action.name())
            }

            /// `flow_actions`: what may be done next, and why the rest is blocked.
            pub fn actions(
                engine: &#rt::engine::Engine,
                perspective: &str,
                subject: &str,
            ) -> ::std::result::Result<#rt::serde_json::Value, #rt::engine::ToolError> {
                engine.flow_actions(perspective, Self::NAME, subject)
            }

            /// The subject's state; `None` when the flow was not started for it.
            pub fn state(
                engine: &#rt::engine::Engine,
                perspective: &str,
                subject: &str,
            ) -> ::std::result::Result<::std::option::Option<#state_ty>, #rt::engine::ToolError> {
                let state = engine.flow_state(perspective, Self::NAME, subject)?;
                ::std::result::Result::Ok(state.get("state").and_then(|s| s.as_str()).and_then(#state_ty::from_name))
            }
        }
    }
}

/// An enum whose variants stand for `names`, with `name()` and `from_name()`.
fn named_enum(ty: &syn::Ident, names: &[&str], doc: &str) -> TokenStream {
    let variants: Vec<syn::Ident> = names.iter().map(|n| idents::type_name(n)).collect();
    let docs: Vec<String> = names.iter().map(|n| format!(" `{n}`")).collect();
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #ty {
            #(#[doc = #docs] #variants,)*
        }

        impl #ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [#ty] = &[#(#ty::#variants),*];

            /// The name as the DNA writes it.
            pub const fn name(self) -> &'static str {
                match self {
                    #(#ty::#variants => #names,)*
                }
            }

            /// The value of a name as the DNA writes it.
            pub fn from_name(name: &str) -> ::std::option::Option<#ty> {
                match name {
                    #(#names => ::std::option::Option::Some(#ty::#variants),)*
                    _ => ::std::option::Option::None,
                }
            }
        }
    }
}
