//! One class's module: its typed value, its constrained value types, the argument struct of
//! each per-class tool, typed access through the engine, the generated validator, and its
//! tools as static data.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::checks::{check_fn, check_fn_name, property_info};
use super::idents::{field, raw_string, type_name};
use crate::model::{Class, Property, TemporalKind, ValueType};
use crate::surface::{self, ClassToolKind};

/// The module for `class`: `pub mod <class> { ... }`.
pub fn module(class: &Class, rt: &TokenStream) -> TokenStream {
    let module = field(&class.name);
    let struct_name = type_name(&class.name);
    let visible: Vec<&Property> = class.visible_properties().collect();
    let readable: Vec<&Property> = visible.iter().copied().filter(|p| p.getter.is_none()).collect();
    let plan = surface::plan(class);

    let newtypes = visible.iter().filter(|p| constrained(p)).map(|p| newtype(class, p, rt));
    let fields = readable.iter().map(|p| struct_field(class, p, rt));
    let meta = meta_field(&readable, rt);
    let class_doc = class_doc(class, &plan);
    let create_args = create_args(class, &visible, rt);
    let setter_args = plan.iter().filter_map(|t| match t.kind {
        ClassToolKind::Set(p) => Some(value_args(
            class,
            &format!("Set{}Args", type_name(&p.name)),
            &t.name,
            p,
            rt,
            true,
        )),
        ClassToolKind::Add(p) => Some(value_args(
            class,
            &format!("Add{}Args", type_name(&p.name)),
            &t.name,
            p,
            rt,
            false,
        )),
        ClassToolKind::Remove(p) => Some(value_args(
            class,
            &format!("Remove{}Args", type_name(&p.name)),
            &t.name,
            p,
            rt,
            false,
        )),
        _ => None,
    });
    let access = access_impl(class, &plan, rt);
    let checks = visible.iter().map(|p| check_fn(p, rt));
    let infos = visible.iter().map(|p| property_info(p, rt));
    let arms = visible.iter().enumerate().map(|(i, p)| {
        let name = check_fn_name(p);
        quote!(#i => #name(item, references),)
    });
    // A class without visible properties (a shape that only constrains its instances through
    // the engine) has nothing to check item by item: no match, and the parameters unused.
    let (index_param, item_param, refs_param, check_body) = if visible.is_empty() {
        (
            quote!(_index),
            quote!(_item),
            quote!(_references),
            quote!(::std::result::Result::Ok(())),
        )
    } else {
        (
            quote!(index),
            quote!(item),
            quote!(references),
            quote! {
                match index {
                    #(#arms)*
                    _ => ::std::result::Result::Ok(()),
                }
            },
        )
    };
    let tools: Vec<TokenStream> = surface::class_tools(class)
        .iter()
        .map(|t| raw_string(&t.to_json().to_string()))
        .collect();
    let class_name = &class.name;
    let serde_crate = format!("{}::__private::serde", rt.to_string().replace(' ', ""));
    let module_doc = format!(
        " Class `{}` (`{}`): its value, its tools' arguments and its validator.",
        class.name, class.target_class
    );

    quote! {
        #[doc = #module_doc]
        pub mod #module {
            #[doc = #class_doc]
            #[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::cmp::PartialEq, #rt::__private::serde::Serialize, #rt::__private::serde::Deserialize)]
            #[serde(crate = #serde_crate)]
            pub struct #struct_name {
                /// The instance's IRI.
                pub id: #rt::Iri,
                #(#fields)*
                #meta
            }

            #(#newtypes)*

            #create_args

            /// Arguments of the query tool.
            pub type QueryArgs = #rt::__private::args::Query;
            /// Arguments of the list tool.
            pub type ListArgs = #rt::__private::args::List;
            /// Arguments of the get, delete and get-collection tools: one instance.
            pub type InstanceArgs = #rt::__private::args::Instance;

            #(#setter_args)*

            #access

            /// The generated validator's view of each visible property, in property order.
            const PROPERTIES: &[#rt::__private::PropertyInfo] = &[#(#infos),*];

            fn check_item(
                #index_param: usize,
                #item_param: &mut #rt::__private::Item<'_>,
                #refs_param: &mut #rt::__private::ReferenceCheck<'_>,
            ) -> ::std::result::Result<(), #rt::__private::StoreError> {
                #check_body
            }

            #(#checks)*

            /// The per-class tools' `tools/list` entries, as the compiler derived them.
            const TOOLS: &[&str] = &[#(#tools),*];

            pub(super) const CLASS: #rt::__private::CompiledClass = #rt::__private::CompiledClass {
                name: #class_name,
                properties: PROPERTIES,
                check_item,
                tools: TOOLS,
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

/// A value needs its own type when the shape constrains it beyond its JSON type.
fn constrained(p: &Property) -> bool {
    let c = &p.constraints;
    !c.in_values.is_empty()
        || c.pattern.is_some()
        || c.min_length.is_some()
        || c.max_length.is_some()
        || c.min_inclusive.is_some()
        || c.max_inclusive.is_some()
        || c.min_exclusive.is_some()
        || c.max_exclusive.is_some()
}

/// The Rust type of one value of `p`.
fn value_type(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    if constrained(p) {
        let name = newtype_name(class, p);
        return quote!(#name);
    }
    base_type(p, rt)
}

/// `TaskStatus`-like names read badly inside `mod task`: the property's own name (`Status`),
/// unless it would clash with the class or an argument struct.
fn newtype_name(class: &Class, p: &Property) -> syn::Ident {
    let name = type_name(&p.name).to_string();
    let clashes = type_name(&class.name) == name || name.ends_with("Args") || name == "Self_";
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

/// A type for a constrained value, checked on construction by the generated checks.
fn newtype(class: &Class, p: &Property, rt: &TokenStream) -> TokenStream {
    let name = newtype_name(class, p);
    let base = base_type(p, rt);
    let check = check_fn_name(p);
    let index = class.visible_properties().position(|q| q.name == p.name).unwrap_or(0);
    let doc = format!(
        " A value of `{}.{}`: {}.",
        class.name,
        p.name,
        crate::surface::summary(p)
    );
    let raw = match p.value_type {
        ValueType::String => quote!(::std::string::String),
        ValueType::DateTime(_) | ValueType::Reference => quote!(::std::string::String),
        _ => base.clone(),
    };
    let to_json = match p.value_type {
        ValueType::DateTime(_) | ValueType::Reference => {
            quote!(#rt::__private::Value::from(::std::string::String::from(value.clone())))
        }
        _ => quote!(#rt::__private::serde_json::json!(value)),
    };
    let from_raw = match p.value_type {
        ValueType::DateTime(_) | ValueType::Reference => quote! {
            let value = #base::try_from(value)?;
        },
        _ => quote!(),
    };
    let into_raw = match p.value_type {
        ValueType::DateTime(_) | ValueType::Reference => quote!(::std::string::String::from(value.0)),
        _ => quote!(value.0),
    };
    let serde_crate = format!("{}::__private::serde", rt.to_string().replace(' ', ""));
    let raw_text = raw.to_string().replace(' ', "");
    quote! {
        #[doc = #doc]
        #[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::cmp::PartialEq, #rt::__private::serde::Serialize, #rt::__private::serde::Deserialize)]
        #[serde(crate = #serde_crate, try_from = #raw_text, into = #raw_text)]
        pub struct #name(#base);

        impl #name {
            /// The value inside.
            pub fn get(&self) -> &#base {
                &self.0
            }
        }

        impl ::std::convert::TryFrom<#raw> for #name {
            type Error = #rt::ValueError;
            fn try_from(value: #raw) -> ::std::result::Result<Self, #rt::ValueError> {
                #from_raw
                #rt::__private::check_alone(#to_json, &PROPERTIES[#index], #check)?;
                ::std::result::Result::Ok(#name(value))
            }
        }

        impl ::std::convert::From<#name> for #raw {
            fn from(value: #name) -> #raw {
                #into_raw
            }
        }
    }
}

/// `CreateArgs`: the arguments of `<class>_create` (unknown keys refused), with `new` taking
/// the required properties.
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
        let attrs = serde_attrs_args(p);
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
        #[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::cmp::PartialEq, #rt::__private::serde::Serialize, #rt::__private::serde::Deserialize)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        pub struct CreateArgs {
            /// The perspective to create the instance in.
            pub perspective_id: ::std::string::String,
            /// The new instance's IRI; minted when `None`.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub expression_address: ::std::option::Option<::std::string::String>,
            /// An IRI to put the new instance under.
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub parent: ::std::option::Option<::std::string::String>,
            #(#fields)*
        }

        impl CreateArgs {
            /// The required properties; everything else empty.
            pub fn new(perspective_id: impl ::std::convert::Into<::std::string::String>, #(#params),*) -> Self {
                CreateArgs {
                    perspective_id: perspective_id.into(),
                    expression_address: ::std::option::Option::None,
                    parent: ::std::option::Option::None,
                    #(#inits),*
                }
            }
        }
    }
}

/// Like [`serde_attrs`], with empty collections left out when serializing.
fn serde_attrs_args(p: &Property) -> TokenStream {
    let mut parts = Vec::new();
    if crate::naming::field_ident(&p.name) != p.name {
        let name = &p.name;
        parts.push(quote!(rename = #name));
    }
    if p.collection {
        parts.push(quote!(default, skip_serializing_if = "::std::vec::Vec::is_empty"));
    } else if !p.required {
        parts.push(quote!(default, skip_serializing_if = "::std::option::Option::is_none"));
    }
    if parts.is_empty() {
        quote!()
    } else {
        quote!(#[serde(#(#parts),*)])
    }
}

/// The arguments of a tool that takes one `value`: a setter (`null` clears an optional scalar)
/// or a collection's add and remove.
fn value_args(
    class: &Class,
    struct_name: &str,
    tool: &str,
    p: &Property,
    rt: &TokenStream,
    setter: bool,
) -> TokenStream {
    let name = format_ident!("{}", struct_name);
    let value = value_type(class, p, rt);
    let ty = if setter && p.is_optional_scalar() {
        quote!(::std::option::Option<#value>)
    } else {
        value
    };
    let serde_crate = format!("{}::__private::serde", rt.to_string().replace(' ', ""));
    let doc = format!(" Arguments of `{tool}`.");
    quote! {
        #[doc = #doc]
        #[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::cmp::PartialEq, #rt::__private::serde::Serialize, #rt::__private::serde::Deserialize)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        pub struct #name {
            pub perspective_id: ::std::string::String,
            pub expression_address: ::std::string::String,
            pub value: #ty,
        }
    }
}

/// Typed access: the class through the engine, with Rust types.
fn access_impl(class: &Class, plan: &[surface::ClassTool<'_>], rt: &TokenStream) -> TokenStream {
    let struct_name = type_name(&class.name);
    let class_name = &class.name;
    let methods = plan.iter().filter_map(|t| {
        let tool = &t.name;
        match t.kind {
            ClassToolKind::Set(p) => {
                let method = format_ident!("set_{}", crate::naming::rust_safe(&crate::naming::snake(&p.name)));
                let value = value_type(class, p, rt);
                let ty = if p.is_optional_scalar() { quote!(::std::option::Option<#value>) } else { value };
                let property = &p.name;
                let doc = format!(" `{tool}`: sets `{property}`{}.", if p.is_optional_scalar() { " (`None` clears it)" } else { "" });
                Some(quote! {
                    #[doc = #doc]
                    pub fn #method(engine: &#rt::__private::Engine, perspective_id: &str, id: &str, value: #ty) -> ::std::result::Result<(), #rt::__private::ToolError> {
                        #rt::__private::set(engine, #class_name, perspective_id, id, #property, &value)
                    }
                })
            }
            ClassToolKind::Add(p) | ClassToolKind::Remove(p) => {
                let adding = matches!(t.kind, ClassToolKind::Add(_));
                let verb = if adding { "add" } else { "remove" };
                let method = format_ident!("{}_{}", verb, crate::naming::rust_safe(&crate::naming::snake(&p.name)));
                let value = value_type(class, p, rt);
                let collection = &p.name;
                let call = if adding { quote!(add) } else { quote!(remove) };
                let doc = format!(" `{tool}`: {verb}s one item of `{collection}`.");
                Some(quote! {
                    #[doc = #doc]
                    pub fn #method(engine: &#rt::__private::Engine, perspective_id: &str, id: &str, item: &#value) -> ::std::result::Result<(), #rt::__private::ToolError> {
                        #rt::__private::#call(engine, #class_name, perspective_id, id, #collection, item)
                    }
                })
            }
            _ => None,
        }
    });
    let create_doc = format!(
        " `{}`: creates a {class_name} and reads it back.",
        crate::naming::class_tool(&class.name, "create")
    );
    quote! {
        impl #struct_name {
            /// The class name the tools take as `class_name`.
            pub const CLASS_NAME: &'static str = #class_name;

            #[doc = #create_doc]
            pub fn create(engine: &#rt::__private::Engine, args: &CreateArgs) -> ::std::result::Result<Self, #rt::__private::ToolError> {
                #rt::__private::create(engine, #class_name, args)
            }

            /// Reads one instance.
            pub fn get(engine: &#rt::__private::Engine, perspective_id: &str, id: &str) -> ::std::result::Result<Self, #rt::__private::ToolError> {
                #rt::__private::get(engine, #class_name, perspective_id, id)
            }

            /// Instances matching `args` (a filter, paging, order), as instance_query finds them.
            pub fn query(engine: &#rt::__private::Engine, perspective_id: &str, args: #rt::__private::QueryArgs) -> ::std::result::Result<::std::vec::Vec<Self>, #rt::__private::ToolError> {
                #rt::__private::query(engine, #class_name, perspective_id, args)
            }

            /// Removes the instance: its destructor, then every link in or out of it.
            pub fn delete(engine: &#rt::__private::Engine, perspective_id: &str, id: &str) -> ::std::result::Result<(), #rt::__private::ToolError> {
                #rt::__private::delete(engine, #class_name, perspective_id, id)
            }

            #(#methods)*
        }
    }
}
