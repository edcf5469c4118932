//! The IRIs the validator reads and writes: SHACL, RDF, RDFS and XSD.

pub const SH: &str = "http://www.w3.org/ns/shacl#";
pub const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
pub const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
pub const RDF_FIRST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
pub const RDF_REST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
pub const RDF_NIL: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil";
pub const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
pub const RDFS_CLASS: &str = "http://www.w3.org/2000/01/rdf-schema#Class";
pub const RDFS_SUB_CLASS_OF: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";

pub const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
pub const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";
pub const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
pub const XSD_DECIMAL: &str = "http://www.w3.org/2001/XMLSchema#decimal";
pub const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";

/// `sh:` + a local name, as a full IRI.
pub fn sh(local: &str) -> String {
    format!("{SH}{local}")
}

/// `sh:Violation` for SHACL IRIs, `xsd:integer` for XSD ones, the IRI itself otherwise.
pub fn compact(iri: &str) -> String {
    if let Some(local) = iri.strip_prefix(SH) {
        format!("sh:{local}")
    } else if let Some(local) = iri.strip_prefix(XSD) {
        format!("xsd:{local}")
    } else if let Some(local) = iri.strip_prefix(RDF) {
        format!("rdf:{local}")
    } else {
        iri.to_string()
    }
}
