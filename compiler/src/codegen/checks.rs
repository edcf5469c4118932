//! The generated validator: per property, the checks of one value with the constants of the
//! shape compiled in, in the order of docs/errors.md (The validation envelope), with the texts
//! of `crate::problems`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::model::{Access, NodeKind, Nodes, Property, ReadOnlyReason, TemporalKind, ValueType};
use crate::problems as words;

/// `fn check_<property>(item, refs)` for one property.
pub fn check_fn(p: &Property, rt: &TokenStream) -> TokenStream {
    let name = check_fn_name(p);
    let type_text = words::type_problem(p);
    let type_text = type_text.as_ref();
    let doc = format!(" The checks of one value of `{}`.", p.name);
    let (prologue, text_var, number_var) = prologue(p, type_text, rt);
    let mut body = Vec::new();
    let c = &p.constraints;
    if !c.in_values.is_empty() {
        let values: Vec<Value> = c.in_values.iter().map(|v| v.value.clone()).collect();
        let message = words::in_text(&values);
        let allowed = allowed(p, &values);
        let component = words::component::IN;
        body.push(quote! {
            if !(#allowed) {
                item.problem(#component, #message);
            }
        });
    }
    if text_var && let Some(pattern) = &c.pattern {
        let source = pattern.regex_source();
        let message = words::pattern_text(&pattern.source);
        let component = words::component::PATTERN;
        body.push(quote! {
            static PATTERN: #rt::__private::Pattern = #rt::__private::Pattern::new(#source);
            if !PATTERN.is_match(text) {
                item.problem(#component, #message);
            }
        });
    }
    if text_var && (c.min_length.is_some() || c.max_length.is_some()) {
        let mut checks = vec![quote!(let length = text.chars().count() as u64;)];
        if let Some(min) = c.min_length {
            let (message, component) = (words::too_short(min), words::component::MIN_LENGTH);
            checks.push(quote!(if length < #min { item.problem(#component, #message); }));
        }
        if let Some(max) = c.max_length {
            let (message, component) = (words::too_long(max), words::component::MAX_LENGTH);
            checks.push(quote!(if length > #max { item.problem(#component, #message); }));
        }
        body.push(quote!(#(#checks)*));
    }
    let bounds = words::bounds(p);
    if number_var && !bounds.is_empty() {
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
        body.push(quote!(#rt::__private::out_of_range(item, &[#(#entries),*]);));
    }
    let needs_iri = p.value_type == ValueType::Reference || p.node_kind == Some(NodeKind::Iri);
    if text_var && needs_iri {
        let (not_iri, component) = (words::not_a_node(p.nodes()), words::component::NODE_KIND);
        let reference = match &p.target_class {
            Some(target) => quote!(else { item.reference(text, #target, references)?; }),
            None => quote!(),
        };
        let allowed = match p.nodes() {
            Nodes::Iri => quote!(#rt::__private::is_iri(text)),
            Nodes::Blank => quote!(#rt::__private::is_blank(text)),
            Nodes::IriOrBlank => quote!(#rt::__private::is_node(text)),
        };
        body.push(quote! {
            if !#allowed {
                item.problem(#component, #not_iri);
            } #reference
        });
    }
    let uses_refs = needs_iri && p.target_class.is_some();
    // Bind the value only where a later check reads it (generated code compiles under
    // `#![deny(warnings)]`).
    let body_text = quote!(#(#body)*).to_string();
    let prologue = match (text_var || number_var, body_text.is_empty()) {
        (_, true) => unbound(p, type_text, rt),
        _ => prologue,
    };
    let prologue = if !body_text.is_empty() && matches!(p.value_type, ValueType::Boolean) && !body_text.contains("flag")
    {
        unbound(p, type_text, rt)
    } else {
        prologue
    };
    let refs_param = if uses_refs {
        quote!(references)
    } else {
        quote!(_references)
    };
    quote! {
        #[doc = #doc]
        fn #name(
            item: &mut #rt::__private::Item<'_>,
            #refs_param: &mut #rt::__private::ReferenceCheck<'_>,
        ) -> ::std::result::Result<(), #rt::__private::StoreError> {
            #prologue
            #(#body)*
            ::std::result::Result::Ok(())
        }
    }
}

/// The type check alone, when no later check reads the value.
fn unbound(p: &Property, type_text: &str, rt: &TokenStream) -> TokenStream {
    let ok = match p.value_type {
        ValueType::String | ValueType::Reference => quote!(item.value.is_string()),
        ValueType::LangString => quote!(#rt::__private::lang_value(item.value).is_some()),
        ValueType::DateTime(kind) => {
            let kind = match kind {
                TemporalKind::DateTime => quote!(DateTime),
                TemporalKind::Date => quote!(Date),
                TemporalKind::Time => quote!(Time),
            };
            quote!(item.value.as_str().is_some_and(|text| #rt::__private::temporal_ok(#rt::__private::TemporalKind::#kind, text)))
        }
        ValueType::Boolean => quote!(item.value.is_boolean()),
        ValueType::Integer(_) => quote!(#rt::__private::is_whole(item.value)),
        ValueType::Number => quote!(item.value.is_number()),
        ValueType::AnyOf => {
            let datatypes = p.any_of.iter().flat_map(|a| &a.alternatives).map(|a| &a.datatype);
            quote!(#rt::__private::any_of_ok(&[#(#datatypes),*], item.value))
        }
    };
    let component = words::type_component(p);
    quote! {
        if !(#ok) {
            item.problem(#component, #type_text);
        }
    }
}

/// The name of the check function of a property.
pub fn check_fn_name(p: &Property) -> syn::Ident {
    format_ident!("check_{}", crate::naming::rust_safe(&crate::naming::snake(&p.name)))
}

/// The type check (alone: nothing else is checked when it fails), binding `text` or `x`.
fn prologue(p: &Property, type_text: &str, rt: &TokenStream) -> (TokenStream, bool, bool) {
    let component = words::type_component(p);
    let fail = quote! {
        item.problem(#component, #type_text);
        return ::std::result::Result::Ok(());
    };
    match p.value_type {
        ValueType::String | ValueType::Reference => (
            quote! { let ::std::option::Option::Some(text) = item.value.as_str() else { #fail }; },
            true,
            false,
        ),
        ValueType::DateTime(kind) => {
            let kind = match kind {
                TemporalKind::DateTime => quote!(DateTime),
                TemporalKind::Date => quote!(Date),
                TemporalKind::Time => quote!(Time),
            };
            (
                quote! {
                    let ::std::option::Option::Some(text) = item
                        .value
                        .as_str()
                        .filter(|text| #rt::__private::temporal_ok(#rt::__private::TemporalKind::#kind, text))
                    else { #fail };
                },
                true,
                false,
            )
        }
        // The text of the JSON-LD value object: pattern and lengths are of the text.
        ValueType::LangString => (
            quote! {
                let ::std::option::Option::Some((text, _)) = #rt::__private::lang_value(item.value) else { #fail };
            },
            true,
            false,
        ),
        ValueType::Boolean => (
            quote! { let ::std::option::Option::Some(flag) = item.value.as_bool() else { #fail }; },
            false,
            false,
        ),
        ValueType::Integer(_) => (
            quote! {
                let ::std::option::Option::Some(x) = item.value.as_f64().filter(|_| #rt::__private::is_whole(item.value)) else { #fail };
            },
            false,
            true,
        ),
        ValueType::Number => (
            quote! { let ::std::option::Option::Some(x) = item.value.as_f64() else { #fail }; },
            false,
            true,
        ),
        // Its other facets are the engine's: nothing after the type check reads the value.
        ValueType::AnyOf => (unbound(p, type_text, rt), false, false),
    }
}

/// The `in` test: string values by text, numbers numerically, booleans by value.
fn allowed(p: &Property, values: &[Value]) -> TokenStream {
    let tests = values.iter().map(|v| match (p.value_type, v) {
        (ValueType::Integer(_) | ValueType::Number, Value::Number(n)) => {
            let f = Literal::f64_suffixed(n.as_f64().unwrap_or_default());
            quote!(x == #f)
        }
        (ValueType::Boolean, Value::Bool(b)) => quote!(flag == #b),
        (_, Value::String(s)) => quote!(text == #s),
        // `check` refuses `in` values of another type than the property's.
        _ => quote!(false),
    });
    let tests: Vec<TokenStream> = tests.collect();
    if tests.is_empty() {
        quote!(false)
    } else {
        quote!(#(#tests)||*)
    }
}

/// A `PropertyInfo` constant.
pub fn property_info(p: &Property, rt: &TokenStream) -> TokenStream {
    let name = &p.name;
    let access = match p.access {
        Access::Writable => quote!(#rt::__private::Access::Writable),
        Access::CreateOnly => quote!(#rt::__private::Access::CreateOnly),
        Access::ReadOnly(reason) => {
            let reason = match reason {
                ReadOnlyReason::Marker => quote!(Marker),
                ReadOnlyReason::Getter => quote!(Getter),
                ReadOnlyReason::ReverseRelation => quote!(ReverseRelation),
                ReadOnlyReason::Declared => quote!(Declared),
                ReadOnlyReason::NoSetter => quote!(NoSetter),
            };
            quote!(#rt::__private::Access::ReadOnly(#rt::__private::ReadOnlyReason::#reason))
        }
    };
    let collection = p.collection;
    let required = p.required;
    let min_count = p.min_count;
    let max_count = match p.max_count {
        Some(n) => quote!(::std::option::Option::Some(#n)),
        None => quote!(::std::option::Option::None),
    };
    let expected_type = words::expected_type(p);
    let expected_type = expected_type.as_ref();
    let cardinality = p.cardinality_text();
    quote! {
        #rt::__private::PropertyInfo {
            name: #name,
            access: #access,
            collection: #collection,
            required: #required,
            min_count: #min_count,
            max_count: #max_count,
            expected_type: #expected_type,
            cardinality: #cardinality,
        }
    }
}
