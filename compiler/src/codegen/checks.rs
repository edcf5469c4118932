//! The generated validator: per constrained property, the checks of one value with the shape's
//! constants compiled in (`in`, pattern, lengths, range), in the order of docs/errors.md (The
//! validation envelope), with the texts of `crate::problems`.
//!
//! The rest of a value's checks are the same for every class and live once in the runtime,
//! which runs them from the model on both paths: the type check before these (so they read the
//! value as its type without testing it again), the node kind and the reference after.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::model::{Property, ValueType};
use crate::problems as words;

/// How the compiled checks read a value of the property, if they read it at all.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    Text,
    Number,
    Flag,
}

fn reading(p: &Property) -> Option<Reading> {
    match p.value_type {
        ValueType::String | ValueType::Reference | ValueType::DateTime(_) | ValueType::LangString => {
            Some(Reading::Text)
        }
        ValueType::Integer(_) | ValueType::Number => Some(Reading::Number),
        ValueType::Boolean => Some(Reading::Flag),
        // Its other facets are the engine's: nothing after the type check reads the value.
        ValueType::AnyOf => None,
    }
}

/// The checks of one value beyond its type, in order; empty when the shape constrains the
/// property no further (then nothing is generated for it).
fn checks(p: &Property, rt: &TokenStream) -> Vec<TokenStream> {
    let Some(reading) = reading(p) else { return Vec::new() };
    let c = &p.constraints;
    let mut body = Vec::new();
    let texts: Option<Vec<&str>> = c.in_values.iter().map(|v| v.value.as_str()).collect();
    if let (Reading::Text, Some(texts)) = (reading, &texts)
        && !texts.is_empty()
    {
        body.push(quote!(item.in_texts(&[#(#texts),*]);));
    } else if !c.in_values.is_empty() {
        let values: Vec<Value> = c.in_values.iter().map(|v| v.value.clone()).collect();
        let (message, component) = (words::in_text(&values), words::component::IN);
        let allowed = allowed(reading, &values);
        body.push(quote!(if !(#allowed) { item.problem(#component, #message); }));
    }
    if reading == Reading::Text
        && let Some(pattern) = &c.pattern
    {
        let source = pattern.regex_source();
        let (message, component) = (words::pattern_text(&pattern.source), words::component::PATTERN);
        body.push(quote! {
            static PATTERN: #rt::__private::Pattern = #rt::__private::Pattern::new(#source);
            if !PATTERN.is_match(item.text()) { item.problem(#component, #message); }
        });
    }
    if reading == Reading::Text && (c.min_length.is_some() || c.max_length.is_some()) {
        if let Some(min) = c.min_length {
            body.push(quote!(item.min_length(#min);));
        }
        if let Some(max) = c.max_length {
            body.push(quote!(item.max_length(#max);));
        }
    }
    let bounds = words::bounds(p);
    if reading == Reading::Number && !bounds.is_empty() {
        let entries = bounds.iter().map(|b| {
            let (op, text) = (b.op, &b.text);
            let value = Literal::f64_suffixed(b.value);
            let holds = match b.op {
                ">=" => quote!(x >= #value),
                "<=" => quote!(x <= #value),
                ">" => quote!(x > #value),
                _ => quote!(x < #value),
            };
            quote!((#op, #text, #holds))
        });
        body.push(quote! {
            let x = item.number();
            item.out_of_range(&[#(#entries),*]);
        });
    }
    body
}

/// Whether the shape constrains `p` beyond its type, so that it has a generated check.
pub fn has_checks(p: &Property) -> bool {
    !checks(p, &TokenStream::new()).is_empty()
}

/// `fn check_<property>(item)` for one constrained property (`None` for the others).
pub fn check_fn(p: &Property, rt: &TokenStream) -> Option<TokenStream> {
    let body = checks(p, rt);
    if body.is_empty() {
        return None;
    }
    let name = check_fn_name(p);
    Some(quote! {
        fn #name(item: &mut #rt::compiled::Item<'_>) {
            #(#body)*
        }
    })
}

/// The name of the check function of a property.
pub fn check_fn_name(p: &Property) -> syn::Ident {
    format_ident!("check_{}", crate::naming::rust_safe(&crate::naming::snake(&p.name)))
}

/// The `in` test: string values by text, numbers numerically, booleans by value.
fn allowed(reading: Reading, values: &[Value]) -> TokenStream {
    let tests: Vec<TokenStream> = values
        .iter()
        .map(|v| match (reading, v) {
            (Reading::Number, Value::Number(n)) => {
                let f = Literal::f64_suffixed(n.as_f64().unwrap_or_default());
                quote!(item.number() == #f)
            }
            (Reading::Flag, Value::Bool(b)) => quote!(item.flag() == #b),
            (Reading::Text, Value::String(s)) => quote!(item.text() == #s),
            // `check` refuses `in` values of another type than the property's.
            _ => quote!(false),
        })
        .collect();
    if tests.is_empty() {
        quote!(false)
    } else {
        quote!(#(#tests)||*)
    }
}
