//! One class's module: its typed value, its constrained value types, the arguments of its
//! create tool, typed access through the engine, and the checks of its constrained properties.
//!
//! Types are named by absolute paths (a class called `String` or `Option` cannot break them);
//! std's derives are named bare, since derive macros live in the macro namespace, which no
//! generated item enters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::checks::{check_fn, check_fn_name, has_checks};
use super::idents::{field, type_name};
use crate::model::{Class, Property, TemporalKind, ValueType};
use crate::surface;

/// The module for `class`: `pub mod <class> { ... }`.
pub fn module(class: &Class, rt: &TokenStream) -> TokenStream {
    let module = field(&class.name);
    let struct_name = type_name(&class.name);
    let visible: Vec<&Property> = class.visible_properties().collect();
    let readable: Vec<&Property> = visible.iter().copied().filter(|p| p.getter.is_none()).collect();
    let plan = surface::plan(class);

    let newtypes = visible.iter().filter_map(|p| match choices(p) {
        Some(values) => Some(choice(class, p, &values, rt)),
        None => has_checks(p).then(|| newtype(class, p, rt)),
    });
    let fields = readable.iter().map(|p| struct_field(class, p, rt));
    let meta = meta_field(&readable, rt);
    let class_doc = class_doc(class, &plan);
    let create_args = create_args(class, &visible, rt);
    let access = access_impl(class, &plan, rt);
    let checks = visible.iter().filter_map(|p| check_fn(p, rt));
    // The checks by property number: a table, `unchecked` where the type says everything.
    let table = visible.iter().map(|p| match has_checks(p) {
        true => {
            let name = check_fn_name(p);
            quote!(#name)
        }
        false => quote!(#rt::compiled::unchecked),
    });
    let class_name = &class.name;
    let serde_crate = format!("{}::__private::serde", rt.to_string().replace(' ', ""));
    let module_doc = format!(
        " Class `{}` (`{}`): its value, its create arguments, typed access and its checks.",
        class.name, class.target_class
    );

    quote! {
        #[doc = #module_doc]
        pub mod #module {
            #[doc = #class_doc]
            #[derive(Clone, Debug, PartialEq)]
            #[derive(#rt::__private::Serialize, #rt::__private::Deserialize)]
            #[serde(crate = #serde_crate)]
            pub struct #struct_name {
                /// The instance's IRI.
                pub id: #rt::Iri,
                #(#fields)*
                #meta
            }

            #(#newtypes)*

            #create_args

            #access

            #(#checks)*

            pub(super) const CLASS: #rt::compiled::CompiledClass = #rt::compiled::CompiledClass {
                name: #class_name,
                checks: &[#(#table),*],
            };
        }
    }
}

fn class_doc(class: &Class, plan: &[surface::ClassTool<'_>]) -> String {
    let mut doc = String::new();
    if let Some(hint) = &class.interpretation_hint {
        doc.push_str(&format!(" {hint}\n\n"));
    }
    doc.push_str(&format!(" An instance of `{}`.", class.target_class));
    if !class.parents.is_empty() {
        doc.push_str(&format!(" Inherits from {}.", class.parents.join(", ")));
    }
    let tools: Vec<String> = plan.iter().map(|t| format!("`{}`", t.name)).collect();
    doc.push_str(&format!("\n\n Tools: {}.", tools.join(", ")));
    doc
}

/// The Rust type of one value of `p`.
fn value_type(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    if choices(p).is_some() || has_checks(p) {
        let name = newtype_name(class, p);
        return quote!(#name);
    }
    base_type(p, rt)
}

/// `TaskStatus`-like names read badly inside `mod task`: the property's own name (`Status`),
/// unless it would clash with the class or an argument struct.
fn newtype_name(class: &Class, p: &Property) -> syn::Ident {
    let name = type_name(&p.name).to_string();
    let clashes = type_name(&class.name) == name || name.ends_with("Args") || name.ends_with("Rule") || name == "Self_";
    if clashes {
        format_ident!("{}Value", name.trim_start_matches("r#"))
    } else {
        type_name(&p.name)
    }
}

fn base_type(p: &Property, rt: &TokenStream) -> TokenStream {
    match p.value_type {
        ValueType::String => quote!(::std::string::String),
        ValueType::Boolean => quote!(bool),
        ValueType::Integer(_) => quote!(i64),
        ValueType::Number => quote!(f64),
        ValueType::DateTime(TemporalKind::DateTime) => quote!(#rt::DateTime),
        ValueType::DateTime(TemporalKind::Date) => quote!(#rt::Date),
        ValueType::DateTime(TemporalKind::Time) => quote!(#rt::Time),
        ValueType::LangString => quote!(#rt::LangString),
        ValueType::Reference => quote!(#rt::Iri),
        ValueType::AnyOf => quote!(#rt::AnyOfValue),
    }
}

/// The type of the whole property: `Vec` for collections, `Option` for optional scalars.
fn property_type(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    let value = value_type(class, p, rt);
    if p.collection {
        quote!(::std::vec::Vec<#value>)
    } else if p.required {
        value
    } else {
        quote!(::std::option::Option<#value>)
    }
}

/// `#[serde(...)]` for a property field: the original name, defaults for absent values.
fn serde_attrs(p: &Property) -> TokenStream {
    let mut parts = Vec::new();
    if crate::naming::field_ident(&p.name) != p.name {
        let name = &p.name;
        parts.push(quote!(rename = #name));
    }
    if p.collection {
        parts.push(quote!(default));
    } else if !p.required {
        parts.push(quote!(default, skip_serializing_if = "::std::option::Option::is_none"));
    }
    if parts.is_empty() {
        quote!()
    } else {
        quote!(#[serde(#(#parts),*)])
    }
}

fn property_doc(p: &Property) -> String {
    let summary = crate::surface::summary(p);
    match &p.interpretation_hint {
        Some(hint) => format!(" {hint}\n\n `{}`: {summary}.", p.name),
        None => format!(" `{}`: {summary}.", p.name),
    }
}

fn struct_field(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    let name = field(&p.name);
    let ty = property_type(class, p, rt);
    let attrs = serde_attrs(p);
    let doc = property_doc(p);
    quote! {
        #[doc = #doc]
        #attrs
        pub #name: #ty,
    }
}

/// The instance's own facts (createdAt, updatedAt, author, timestamp), under a name no
/// property takes.
fn meta_field(readable: &[&Property], rt: &TokenStream) -> TokenStream {
    let mut name = "instance".to_string();
    while readable.iter().any(|p| crate::naming::field_ident(&p.name) == name) {
        name.push('_');
    }
    let name = format_ident!("{}", name);
    quote! {
        /// When and by whom the instance was made and last changed.
        #[serde(flatten)]
        pub #name: #rt::InstanceMeta,
    }
}

/// The allowed values of a string property with `sh:in`: its values become an enum.
fn choices(p: &Property) -> Option<Vec<&str>> {
    let values = &p.constraints.in_values;
    if p.value_type != ValueType::String || values.is_empty() {
        return None;
    }
    values.iter().map(|v| v.value.as_str()).collect()
}

/// The variants of a choice: each value as a type name, numbered where two would clash.
fn variant_names(values: &[&str]) -> Vec<syn::Ident> {
    let mut taken: Vec<String> = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let mut name = crate::naming::type_ident(value);
        if taken.contains(&name) {
            name = format!("{}_{i}", name.trim_start_matches("r#"));
        }
        taken.push(name);
    }
    taken.iter().map(|n| super::idents::ident(n)).collect()
}

/// An enum for a string property with `sh:in`: one variant per value, serialized as the DNA
/// spells it, with `Display` and `FromStr` in the same spelling.
fn choice(class: &Class, p: &Property, values: &[&str], rt: &TokenStream) -> TokenStream {
    let name = newtype_name(class, p);
    let variants = variant_names(values);
    let docs = p.constraints.in_values.iter().map(|v| match &v.label {
        Some(label) => format!(" `{}`: {label}.", v.value),
        None => format!(" `{}`.", v.value),
    });
    let doc = format!(
        " A value of `{}.{}`: {}.",
        class.name,
        p.name,
        crate::surface::summary(p)
    );
    // The impls (ALL, as_str, Display, FromStr, serde by spelling) are the runtime's macro.
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #name {
            #(#[doc = #docs] #variants,)*
        }

        #rt::__private::choice!(#name, [#(#variants = #values),*]);
    }
}

/// The type of a constrained value: the runtime's `Checked` of its base type under a rule,
/// an uninhabited type whose `CHECK` is the property's generated checks.
fn newtype(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    let name = newtype_name(class, p);
    let rule = format_ident!("{}Rule", name.to_string().trim_start_matches("r#"));
    let base = base_type(p, rt);
    let check = check_fn_name(p);
    let summary = crate::surface::summary(p);
    let doc = format!(" A value of `{}.{}`: {summary}.", class.name, p.name);
    let rule_doc = format!(" The rule of [`{name}`]: {summary}.");
    quote! {
        #[doc = #doc]
        pub type #name = #rt::typed::Checked<#base, #rule>;

        #[doc = #rule_doc]
        pub enum #rule {}

        #rt::__private::rule!(#rule, #check);
    }
}

/// `CreateArgs`: the arguments of `<class>_create`, with `new` taking the required properties.
/// Serialize only: the typed create writes it as the tool's arguments, and nothing reads one
/// (a derived `Deserialize` was a quarter of a large DNA's expanded code).
fn create_args(class: &Class, visible: &[&Property], rt: &TokenStream) -> TokenStream {
    let tool = crate::naming::class_tool(&class.name, "create");
    let creatable: Vec<&Property> = visible
        .iter()
        .copied()
        .filter(|p| {
            if p.collection {
                p.is_writable()
            } else {
                p.is_creatable()
            }
        })
        .collect();
    let fields = creatable.iter().map(|p| {
        let name = field(&p.name);
        let ty = property_type(class, p, rt);
        let attrs = rename_attr(p);
        let doc = property_doc(p);
        quote! {
            #[doc = #doc]
            #attrs
            pub #name: #ty,
        }
    });
    let required: Vec<&Property> = creatable
        .iter()
        .copied()
        .filter(|p| p.required && !p.collection)
        .collect();
    // Without required properties every field has an empty value: `Default` is `new()`.
    let default = if required.is_empty() {
        quote!(, Default)
    } else {
        quote!()
    };
    let params = required.iter().map(|p| {
        let name = field(&p.name);
        let ty = value_type(class, p, rt);
        quote!(#name: #ty)
    });
    let inits = creatable.iter().map(|p| {
        let name = field(&p.name);
        if p.required && !p.collection {
            quote!(#name)
        } else if p.collection {
            quote!(#name: ::std::vec::Vec::new())
        } else {
            quote!(#name: ::std::option::Option::None)
        }
    });
    let serde_crate = format!("{}::__private::serde", rt.to_string().replace(' ', ""));
    let doc = format!(" Arguments of `{tool}`.");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq #default)]
        #[derive(#rt::__private::Serialize)]
        #[serde(crate = #serde_crate)]
        pub struct CreateArgs {
            /// The new instance's IRI; minted when `None`.
            pub expression_address: ::std::option::Option<::std::string::String>,
            /// An IRI to put the new instance under.
            pub parent: ::std::option::Option<::std::string::String>,
            #(#fields)*
        }

        impl CreateArgs {
            /// The required properties; everything else empty.
            pub fn new(#(#params),*) -> Self {
                CreateArgs {
                    expression_address: ::std::option::Option::None,
                    parent: ::std::option::Option::None,
                    #(#inits),*
                }
            }
        }
    }
}

/// A `CreateArgs` field's serde attribute: its DNA name, where the field's differs. Empty
/// values are written as `null` and `[]`, which the typed create leaves out (it sends only the
/// properties given).
fn rename_attr(p: &Property) -> TokenStream {
    let name = &p.name;
    if crate::naming::field_ident(name) != *name {
        quote!(#[serde(rename = #name)])
    } else {
        quote!()
    }
}

/// Typed access: the class's [`Model`] constants and a handle per property; the methods are
/// the runtime's (`shacl_mcp::typed`).
fn access_impl(class: &Class, plan: &[surface::ClassTool<'_>], rt: &TokenStream) -> TokenStream {
    let struct_name = type_name(&class.name);
    let class_name = &class.name;
    let handles = class.visible_properties().filter(|p| p.getter.is_none()).map(|p| {
        let constant = format_ident!(
            "{}",
            crate::naming::field_ident(&p.name)
                .trim_start_matches("r#")
                .to_uppercase()
        );
        let value = value_type(class, p, rt);
        let tools: Vec<String> = plan
            .iter()
            .filter(|t| t.kind.property().is_some_and(|q| q.name == p.name))
            .map(|t| format!("`{}`", t.name))
            .collect();
        let mut doc = property_doc(p);
        if !tools.is_empty() {
            doc.push_str(&format!(" Tools: {}.", tools.join(", ")));
        }
        let handle = if p.collection { quote!(__Many) } else { quote!(__Scalar) };
        let name = &p.name;
        quote! {
            #[doc = #doc]
            pub const #constant: #handle<Self, #value> = #handle::new(#name);
        }
    });
    // The handle types under names no class, property or value can take (generated names are
    // CamelCase): each handle fits on one line.
    let (scalars, collections) = class
        .visible_properties()
        .filter(|p| p.getter.is_none())
        .fold((false, false), |(s, c), p| (s || !p.collection, c || p.collection));
    let scalar = scalars.then(|| quote!(use #rt::typed::Scalar as __Scalar;));
    let collection = collections.then(|| quote!(use #rt::typed::Collection as __Many;));
    quote! {
        #scalar
        #collection

        impl #rt::typed::Model for #struct_name {
            const CLASS_NAME: &'static str = #class_name;
            type Create = CreateArgs;
        }

        impl #struct_name {
            #(#handles)*
        }
    }
}
