//! Identifiers and paths for generated code, through [`crate::naming`].

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::naming;

/// An identifier from a name `naming` already escaped (`r#type`, `self_`).
pub fn ident(escaped: &str) -> Ident {
    match escaped.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(escaped, Span::call_site()),
    }
}

/// The field name of a property: `dueDate` → `due_date`.
pub fn field(name: &str) -> Ident {
    ident(&naming::field_ident(name))
}

/// A type name: `todoItem` → `TodoItem`.
pub fn type_name(name: &str) -> Ident {
    ident(&naming::type_ident(name))
}

/// The runtime path (`::shacl_mcp`) as tokens.
pub fn runtime(path: &str) -> TokenStream {
    path.parse().unwrap_or_else(|_| quote!(::shacl_mcp))
}

/// `r#"..."#` with enough `#`s for the text: long data (JSON, DNA sources) reads as written.
pub fn raw_string(text: &str) -> TokenStream {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    let literal = format!("r{hashes}\"{text}\"{hashes}");
    literal.parse().unwrap_or_else(|_| {
        let plain = proc_macro2::Literal::string(text);
        quote!(#plain)
    })
}
