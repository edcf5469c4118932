//! The attribute's arguments: the option names of build.rs and `shacl-mcp generate`.

use proc_macro2::TokenStream;
use syn::LitStr;

pub struct Args {
    /// `path = "dna/chat.json"`: the module form.
    pub path: Option<LitStr>,
    /// `target_class = "todo://Task"`: the code-first form.
    pub target_class: Option<LitStr>,
    /// `shacl_mcp_path = "::shacl_mcp"`, as `Builder::shacl_mcp_path`.
    pub shacl_mcp_path: Option<LitStr>,
}

impl Args {
    pub fn parse(tokens: TokenStream) -> syn::Result<Args> {
        let mut args = Args {
            path: None,
            target_class: None,
            shacl_mcp_path: None,
        };
        let parser = syn::meta::parser(|meta| {
            let slot = if meta.path.is_ident("path") {
                &mut args.path
            } else if meta.path.is_ident("target_class") {
                &mut args.target_class
            } else if meta.path.is_ident("shacl_mcp_path") {
                &mut args.shacl_mcp_path
            } else {
                return Err(meta.error("unknown key: #[shacl_model] takes `path`, `target_class` and `shacl_mcp_path`"));
            };
            if slot.is_some() {
                return Err(meta.error("given twice"));
            }
            *slot = Some(meta.value()?.parse()?);
            Ok(())
        });
        syn::parse::Parser::parse2(parser, tokens)?;
        Ok(args)
    }

    pub fn options(&self) -> shacl_mcp_compiler::codegen::Options {
        let mut options = shacl_mcp_compiler::codegen::Options::default();
        if let Some(path) = &self.shacl_mcp_path {
            options.shacl_mcp_path = path.value();
        }
        options
    }
}

/// The diagnostics of a DNA as one error message: the same text `shacl-mcp check` prints.
pub fn diagnostics_message(diags: &shacl_mcp_compiler::Diagnostics) -> String {
    let errors: Vec<String> = diags.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
    format!("the DNA has {} error(s):\n\n{}", errors.len(), errors.join("\n\n"))
}
