//! A SHACL Core validator (W3C SHACL §2–§5): every target kind, every property path form,
//! every Core constraint component, severities, messages, `sh:deactivated` and the standard
//! validation report.
//!
//! ```text
//! data graph ──┐                  ┌─► Report ─► Turtle (sh:ValidationReport) / JSON / text
//!              ├─► validate ──────┤
//! Shapes ──────┘  (targets, value └─ conforms
//!   ▲              nodes, components)
//!   ├─ Shapes::from_graph (a shapes graph in Turtle)
//!   ├─ dna::shapes (a DNA's classes derived from its model)
//!   └─ complete::complete_shapes (a DNA's shapes graph and derived classes: every validation of a perspective)
//! ```
//!
//! The validator reads graphs through the small [`Graph`] trait: [`MemoryGraph`] holds data
//! read from Turtle; the runtime implements it over a perspective's links. Where a constraint
//! also exists in the per-write checks it is the same code: patterns with flags compile as
//! [`crate::model::Pattern::regex_source`] says, integer datatypes keep the model's ranges,
//! lengths count code points, and the texts come from [`crate::problems`].

pub mod complete;
pub mod dna;
pub mod graph;
pub mod list;
pub mod path;
pub mod reach;
mod read;
pub mod report;
pub mod shapes;
pub mod term;
mod turtle;
pub mod validator;
pub mod vocab;
pub mod xsd;

pub use complete::{DnaGraph, complete_shapes};
pub use graph::{Graph, GraphBuilder, MemoryGraph};
pub use path::Path;
pub use shapes::{Component, Constraint, NodeKind, Shape, ShapeRef, Shapes, Target};
pub use term::{Literal, Term};
pub use turtle::SyntaxError;
pub use validator::{Report, ValidationResult, validate, validate_focus, validate_nodes};
