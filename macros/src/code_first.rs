//! The code-first form: the shape from a Rust struct. Field types give the datatype and the
//! cardinality (`Option` is optional, `Vec` a collection, anything else required), `#[shacl]`
//! gives the path and constraints, doc comments the hints. The derived SHACL JSON is compiled
//! exactly as if it had been written in a file, and is kept as `SHACL_JSON`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value, json};
use shacl_mcp_compiler::codegen::{self, Source};
use shacl_mcp_compiler::parse::Format;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Field, ItemStruct, Lit, Type};

use crate::args::Args;

pub fn expand(args: Args, mut item: ItemStruct) -> syn::Result<TokenStream> {
    let Some(target) = &args.target_class else {
        return Err(syn::Error::new_spanned(
            &item.ident,
            "#[shacl_model] on a struct needs `target_class = \"app://Name\"`",
        ));
    };
    if let Some(path) = &args.path {
        return Err(syn::Error::new_spanned(
            path,
            "`path` is for the module form: `#[shacl_model(path = ...)] pub mod name {}`",
        ));
    }
    let target_class = target.value();
    let namespace =
        target_class[..target_class.len() - shacl_mcp_compiler::model::local_name(&target_class).len()].to_string();
    let syn::Fields::Named(fields) = &mut item.fields else {
        return Err(syn::Error::new_spanned(
            &item.ident,
            "a code-first model is a struct with named fields",
        ));
    };
    let mut errors: Option<syn::Error> = None;
    let mut push_error = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut properties = Vec::new();
    let mut spans = Vec::new();
    for field in fields.named.iter_mut() {
        match property(field, &namespace) {
            Ok(p) => {
                properties.push(p);
                spans.push(field.ident.as_ref().map_or_else(|| field.span(), |i| i.span()));
            }
            Err(e) => push_error(e),
        }
        field.attrs.retain(|a| !a.path().is_ident("shacl"));
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let mut shape = Map::new();
    shape.insert("target_class".into(), target_class.clone().into());
    if let Some(hint) = docs(&item.attrs) {
        shape.insert("interpretation_hint".into(), hint.into());
    }
    shape.insert("properties".into(), Value::Array(properties));
    let text = serde_json::to_string_pretty(&Value::Object(shape)).unwrap_or_default();
    let source = Source {
        text: text.clone(),
        file: format!("{} (code first)", item.ident),
        format: Format::Json,
    };
    let (dna, _) = codegen::load_sources(std::slice::from_ref(&source)).map_err(|diags| {
        let mut all: Option<syn::Error> = None;
        for d in diags.iter().filter(|d| d.is_error()) {
            // `/properties/<i>/...` points at field i.
            let span = d
                .origin
                .pointer
                .as_deref()
                .and_then(|p| p.strip_prefix("/properties/"))
                .and_then(|rest| rest.split('/').next())
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| spans.get(i).copied())
                .unwrap_or_else(|| item.ident.span());
            let message = match &d.help {
                Some(help) => format!("{} ({help})", d.message),
                None => d.message.clone(),
            };
            let e = syn::Error::new(span, message);
            match &mut all {
                Some(a) => a.combine(e),
                None => all = Some(e),
            }
        }
        all.unwrap_or_else(|| syn::Error::new(item.ident.span(), "the derived shape does not check"))
    })?;
    let generated = codegen::tokens(&dna, std::slice::from_ref(&source), &args.options());
    let module = format_ident!(
        "{}_model",
        shacl_mcp_compiler::naming::rust_safe(&shacl_mcp_compiler::naming::snake(&item.ident.to_string()))
    );
    let ident = &item.ident;
    let vis = &item.vis;
    let doc = format!(" The code generated from [`{ident}`]'s shape: its `Dna`, tools, typed value and validator.");
    Ok(quote! {
        #item

        impl #ident {
            /// The SHACL JSON derived from this struct, as `add_model` and the compiler take it.
            pub const SHACL_JSON: &'static str = #text;
        }

        #[doc = #doc]
        #vis mod #module {
            #generated
        }
    })
}

/// One field as a property shape.
fn property(field: &Field, namespace: &str) -> syn::Result<Value> {
    let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_default();
    let (cardinality, inner) = cardinality(&field.ty);
    let mut p = Map::new();
    let mut path = format!("{namespace}{name}");
    let mut shape_name = name.clone();
    let mut extra = Map::new();
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("shacl")) {
        attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            let value: Expr = meta.value()?.parse()?;
            let json = literal(&value)?;
            match key.as_str() {
                "path" => {
                    path = json
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| meta.error("`path` is a string"))?
                }
                "name" => {
                    shape_name = json
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| meta.error("`name` is a string"))?
                }
                "hint" => {
                    extra.insert("interpretation_hint".into(), json);
                }
                "min_length" | "max_length" | "pattern" | "flags" | "min_inclusive" | "max_inclusive"
                | "min_exclusive" | "max_exclusive" | "class" | "writable" | "min_count" | "max_count" | "identity"
                | "local" => {
                    extra.insert(key, json);
                }
                "in" => {
                    let values = json
                        .as_array()
                        .cloned()
                        .ok_or_else(|| meta.error("`in` is an array: in = [\"a\", \"b\"]"))?;
                    extra.insert("in".into(), values.into_iter().map(|v| json!({ "value": v })).collect());
                }
                _ => {
                    return Err(meta.error(
                        "unknown key: #[shacl] takes path, name, hint, in, pattern, flags, min_length, max_length, \
                         min_inclusive, max_inclusive, min_exclusive, max_exclusive, class, writable, min_count, \
                         max_count, identity, local",
                    ));
                }
            }
            Ok(())
        })?;
    }
    p.insert("path".into(), path.into());
    p.insert("name".into(), shape_name.into());
    match value_kind(inner)? {
        Kind::Datatype(d) => {
            p.insert("datatype".into(), d.into());
        }
        Kind::Iri => {
            p.insert("node_kind".into(), "sh:IRI".into());
        }
    }
    match cardinality {
        Cardinality::Required => {
            p.insert("min_count".into(), 1.into());
            p.insert("max_count".into(), 1.into());
        }
        Cardinality::Optional => {
            p.insert("max_count".into(), 1.into());
        }
        Cardinality::Many => {
            p.insert("collection".into(), true.into());
        }
    }
    p.insert("writable".into(), true.into());
    if let Some(hint) = docs(&field.attrs) {
        p.insert("interpretation_hint".into(), hint.into());
    }
    for (k, v) in extra {
        p.insert(k, v);
    }
    Ok(Value::Object(p))
}

enum Cardinality {
    Required,
    Optional,
    Many,
}

fn cardinality(ty: &Type) -> (Cardinality, &Type) {
    for (wrapper, kind) in [("Option", Cardinality::Optional), ("Vec", Cardinality::Many)] {
        if let Some(inner) = generic_argument(ty, wrapper) {
            return (kind, inner);
        }
    }
    (Cardinality::Required, ty)
}

fn generic_argument<'t>(ty: &'t Type, wrapper: &str) -> Option<&'t Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

enum Kind {
    Datatype(&'static str),
    Iri,
}

fn value_kind(ty: &Type) -> syn::Result<Kind> {
    let name = match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        _ => String::new(),
    };
    Ok(match name.as_str() {
        "String" => Kind::Datatype("xsd:string"),
        "bool" => Kind::Datatype("xsd:boolean"),
        "i64" | "isize" => Kind::Datatype("xsd:integer"),
        "i32" => Kind::Datatype("xsd:int"),
        "i16" => Kind::Datatype("xsd:short"),
        "i8" => Kind::Datatype("xsd:byte"),
        "u64" | "usize" => Kind::Datatype("xsd:unsignedLong"),
        "u32" => Kind::Datatype("xsd:unsignedInt"),
        "u16" => Kind::Datatype("xsd:unsignedShort"),
        "u8" => Kind::Datatype("xsd:unsignedByte"),
        "f64" | "f32" => Kind::Datatype("xsd:double"),
        "DateTime" => Kind::Datatype("xsd:dateTime"),
        "Date" => Kind::Datatype("xsd:date"),
        "Time" => Kind::Datatype("xsd:time"),
        "LangString" => Kind::Datatype("rdf:langString"),
        "Iri" => Kind::Iri,
        _ => {
            return Err(syn::Error::new_spanned(
                ty,
                "unsupported field type: use String, bool, an integer type, f64, shacl_mcp::Iri, DateTime, Date, Time or \
                 LangString, \
                 in Option<..> for an optional value or Vec<..> for a collection",
            ));
        }
    })
}

/// A literal attribute value as JSON: strings, numbers, booleans, arrays of them, `-n`.
fn literal(expr: &Expr) -> syn::Result<Value> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Ok(s.value().into()),
            Lit::Bool(b) => Ok(b.value.into()),
            Lit::Int(i) => i.base10_parse::<i64>().map(Value::from),
            Lit::Float(f) => f.base10_parse::<f64>().map(Value::from),
            other => Err(syn::Error::new_spanned(other, "expected a string, number or boolean")),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match literal(&u.expr)? {
            Value::Number(n) if n.is_i64() => Ok((-n.as_i64().unwrap_or_default()).into()),
            Value::Number(n) => Ok((-n.as_f64().unwrap_or_default()).into()),
            _ => Err(syn::Error::new_spanned(u, "expected a number")),
        },
        Expr::Array(a) => a
            .elems
            .iter()
            .map(literal)
            .collect::<syn::Result<Vec<_>>>()
            .map(Value::from),
        other => Err(syn::Error::new_spanned(other, "expected a literal")),
    }
}

/// The doc comment of an item, lines joined.
fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value().trim().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join(" ").trim().to_string();
    (!text.is_empty()).then_some(text)
}
