//! The static tools of tool-surface.md, the same for every DNA.

use super::{SurfaceOptions, ToolSpec};

/// The static tools in the order of tool-surface.md.
pub fn static_tools(_options: SurfaceOptions) -> Vec<ToolSpec> {
    // Being written: see the static-tools task.
    Vec::new()
}
