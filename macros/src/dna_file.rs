//! The module form: `#[shacl_model(path = "dna/chat.json")] pub mod chat {}` expands to the
//! code build.rs would write to `$OUT_DIR/chat.rs`, in that module.

use std::path::PathBuf;

use quote::quote;
use shacl_mcp_compiler::codegen::{self, Source};
use shacl_mcp_compiler::parse::Format;
use syn::ItemMod;

use crate::args::{Args, diagnostics_message};

pub fn expand(args: Args, module: ItemMod) -> syn::Result<proc_macro2::TokenStream> {
    let Some(path) = &args.path else {
        return Err(syn::Error::new_spanned(
            &module.ident,
            "#[shacl_model] on a module needs `path = \"dna/<file>.json\"`",
        ));
    };
    if args.target_class.is_some() {
        return Err(syn::Error::new_spanned(
            path,
            "`target_class` is for the code-first form on a struct",
        ));
    }
    let written = path.value();
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let absolute = base.join(&written);
    let text = std::fs::read_to_string(&absolute).map_err(|e| {
        syn::Error::new_spanned(
            path,
            // The base, not the absolute path: the message reads the same wherever the crate lives.
            format!(
                "cannot read the DNA {written}: {e} (a path relative to the directory of package \
                 `{}`'s Cargo.toml)",
                std::env::var("CARGO_PKG_NAME").unwrap_or_default()
            ),
        )
    })?;
    let source = Source {
        text,
        file: written.clone(),
        format: Format::from_path(&absolute),
    };
    let (dna, _notes) = codegen::load_sources(std::slice::from_ref(&source))
        .map_err(|diags| syn::Error::new_spanned(path, diagnostics_message(&diags)))?;
    let generated = codegen::tokens(&dna, std::slice::from_ref(&source), &args.options());
    // On stable Rust a proc-macro tracks a file by including it: edits to the DNA rebuild.
    let tracked = absolute.display().to_string();
    let ItemMod {
        attrs,
        vis,
        ident,
        content,
        ..
    } = module;
    let existing = content.map(|(_, items)| items).unwrap_or_default();
    Ok(quote! {
        #(#attrs)*
        #vis mod #ident {
            const _: &[u8] = include_bytes!(#tracked);
            #generated
            #(#existing)*
        }
    })
}
