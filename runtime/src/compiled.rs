//! What generated code hands the runtime: the DNA's sources, and per class the generated
//! validator (the checks of each value, with the constants compiled in) and the per-class
//! tools as static data. See `shacl_mcp_compiler::codegen`.

use crate::engine::validate::{Item, PropertyInfo, ReferenceCheck};
use crate::store::StoreError;

/// A DNA compiled by build.rs or `#[shacl_model]`: serve it with the runtime's server.
pub trait CompiledDna: 'static {
    /// The DNA's name.
    const NAME: &'static str;
    /// The sources it was compiled from (the model is loaded from them, so the compiled and the
    /// interpreted paths share one model).
    const SOURCES: &'static [Source];
    /// Every class, in declaration order.
    const CLASSES: &'static [CompiledClass];
}

/// One DNA source file, embedded.
#[derive(Debug)]
pub struct Source {
    pub file: &'static str,
    pub text: &'static str,
    pub turtle: bool,
}

/// One compiled class.
pub struct CompiledClass {
    pub name: &'static str,
    /// Its visible properties, in property order.
    pub properties: &'static [PropertyInfo],
    /// The checks of one value of property number `index`.
    pub check_item:
        fn(index: usize, item: &mut Item<'_>, references: &mut ReferenceCheck<'_>) -> Result<(), StoreError>,
    /// Its per-class tools' `tools/list` entries as JSON, in list order.
    pub tools: &'static [&'static str],
}

impl std::fmt::Debug for CompiledClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledClass")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
