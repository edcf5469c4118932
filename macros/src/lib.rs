//! `#[shacl_model]`, the attribute front end of shacl-mcp's code generator: the same compiler
//! function and option names as build.rs (`shacl_mcp_compiler::Builder`) and
//! `shacl-mcp generate`. Nothing else lives here.
//!
//! ```rust,ignore
//! // A DNA file (path relative to CARGO_MANIFEST_DIR; edits rebuild):
//! #[shacl_mcp::shacl_model(path = "dna/chat.json")]
//! pub mod chat {}
//!
//! // Code first: the shape from a Rust struct.
//! /// A unit of work.
//! #[shacl_mcp::shacl_model(target_class = "todo://Task")]
//! pub struct Task {
//!     #[shacl(path = "todo://title", min_length = 1)]
//!     title: String,
//!     #[shacl(path = "todo://tag")]
//!     tags: Vec<String>,
//! }
//! // → Task::SHACL_JSON, and `task_model` with the generated code (`task_model::Dna`, tools, ...).
//! ```

mod args;
mod code_first;
mod dna_file;

use proc_macro::TokenStream;

/// Generates the typed model, validators and per-class tools of a DNA; see the crate docs.
#[proc_macro_attribute]
pub fn shacl_model(attr: TokenStream, item: TokenStream) -> TokenStream {
    let result = args::Args::parse(attr.into()).and_then(|args| {
        let item: syn::Item = syn::parse(item)?;
        match item {
            syn::Item::Mod(module) => dna_file::expand(args, module),
            syn::Item::Struct(strukt) => code_first::expand(args, strukt),
            other => Err(syn::Error::new_spanned(
                other,
                "#[shacl_model] goes on a module (`#[shacl_model(path = \"dna/x.json\")] pub mod x {}`) or on a struct (code first)",
            )),
        }
    });
    result.unwrap_or_else(syn::Error::into_compile_error).into()
}
