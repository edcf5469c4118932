//! `#[shacl_model]`, the attribute front end of shacl-mcp's code generator.
//!
//! The attribute arrives with the macro issue; the crate is a workspace member now so that
//! the layout of DESIGN.md holds from the first commit.
