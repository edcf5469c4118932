//! RDF terms as the validator handles them: cheap to clone (shared text), compared and hashed
//! as RDF term equality (a literal is its lexical form, datatype and language tag).

use std::fmt;
use std::sync::Arc;

use super::vocab::{RDF_LANG_STRING, XSD, XSD_STRING};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    Iri(Arc<str>),
    /// A blank node by its label (unique within the graph it was read from).
    Blank(Arc<str>),
    Literal(Arc<Literal>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Literal {
    pub lexical: String,
    /// The full datatype IRI: `xsd:string` for simple literals, `rdf:langString` with a language.
    pub datatype: String,
    pub language: Option<String>,
}

impl Term {
    pub fn iri(iri: &str) -> Term {
        Term::Iri(Arc::from(iri))
    }

    pub fn blank(label: &str) -> Term {
        Term::Blank(Arc::from(label))
    }

    pub fn typed(lexical: impl Into<String>, datatype: &str) -> Term {
        Term::Literal(Arc::new(Literal {
            lexical: lexical.into(),
            datatype: datatype.to_string(),
            language: None,
        }))
    }

    /// A simple literal (`xsd:string`).
    pub fn string(text: impl Into<String>) -> Term {
        Term::typed(text, XSD_STRING)
    }

    pub fn lang_string(text: impl Into<String>, language: &str) -> Term {
        Term::Literal(Arc::new(Literal {
            lexical: text.into(),
            datatype: RDF_LANG_STRING.to_string(),
            language: Some(language.to_string()),
        }))
    }

    /// A node as links spell it: `_:label` a blank node, anything else an IRI.
    pub fn node(spelled: &str) -> Term {
        match spelled.strip_prefix("_:") {
            Some(label) if crate::literal::is_blank(spelled) => Term::blank(label),
            _ => Term::iri(spelled),
        }
    }

    /// The link spelling of a node ([`Term::node`]): its IRI, or `_:label`; `None` for a literal.
    pub fn node_spelling(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Term::Iri(iri) => Some(std::borrow::Cow::Borrowed(iri)),
            Term::Blank(label) => Some(std::borrow::Cow::Owned(format!("_:{label}"))),
            Term::Literal(_) => None,
        }
    }

    pub fn as_iri(&self) -> Option<&str> {
        match self {
            Term::Iri(iri) => Some(iri),
            _ => None,
        }
    }

    pub fn as_literal(&self) -> Option<&Literal> {
        match self {
            Term::Literal(l) => Some(l),
            _ => None,
        }
    }

    pub fn is_iri(&self) -> bool {
        matches!(self, Term::Iri(_))
    }

    pub fn is_blank(&self) -> bool {
        matches!(self, Term::Blank(_))
    }

    pub fn is_literal(&self) -> bool {
        matches!(self, Term::Literal(_))
    }

    /// SPARQL's `str()`: the IRI or the lexical form; `None` for a blank node.
    pub fn text(&self) -> Option<&str> {
        match self {
            Term::Iri(iri) => Some(iri),
            Term::Blank(_) => None,
            Term::Literal(l) => Some(&l.lexical),
        }
    }

    /// Whether the term is the boolean literal `true` (exactly: `"1"^^xsd:boolean` is another
    /// term, and SHACL names only `true`).
    pub fn is_true(&self) -> bool {
        matches!(self, Term::Literal(l) if l.lexical == "true" && l.datatype == super::vocab::XSD_BOOLEAN)
    }

    pub fn from_subject(node: oxrdf::NamedOrBlankNode) -> Term {
        match node {
            oxrdf::NamedOrBlankNode::NamedNode(n) => Term::Iri(Arc::from(n.into_string())),
            oxrdf::NamedOrBlankNode::BlankNode(b) => Term::Blank(Arc::from(b.into_string())),
        }
    }

    pub fn from_oxrdf(term: oxrdf::Term) -> Term {
        // `if let` rather than `match`: with oxrdf's `rdf-12` feature there are triple terms too.
        if let oxrdf::Term::NamedNode(n) = term {
            Term::Iri(Arc::from(n.into_string()))
        } else if let oxrdf::Term::BlankNode(b) = term {
            Term::Blank(Arc::from(b.into_string()))
        } else if let oxrdf::Term::Literal(l) = term {
            let language = l.language().map(str::to_string);
            let datatype = match language {
                Some(_) => RDF_LANG_STRING.to_string(),
                None => l.datatype().as_str().to_string(),
            };
            Term::Literal(Arc::new(Literal {
                lexical: l.value().to_string(),
                datatype,
                language,
            }))
        } else {
            // An RDF 1.2 triple term: kept as its text, an opaque node.
            Term::Iri(Arc::from(term.to_string()))
        }
    }
}

/// Turtle syntax: `<iri>`, `_:label`, `"text"`, `"text"@en`, `"3"^^xsd:integer`.
impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Iri(iri) => write_iri(f, iri),
            Term::Blank(label) => write!(f, "_:{label}"),
            Term::Literal(l) => {
                write_string(f, &l.lexical)?;
                if let Some(language) = &l.language {
                    write!(f, "@{language}")
                } else if l.datatype == XSD_STRING {
                    Ok(())
                } else if let Some(local) = l.datatype.strip_prefix(XSD).filter(|l| is_local_name(l)) {
                    write!(f, "^^xsd:{local}")
                } else {
                    f.write_str("^^")?;
                    write_iri(f, &l.datatype)
                }
            }
        }
    }
}

/// `<iri>` with the characters Turtle forbids in IRIs escaped.
pub fn write_iri(f: &mut impl fmt::Write, iri: &str) -> fmt::Result {
    f.write_char('<')?;
    for c in iri.chars() {
        match c {
            '\u{0}'..='\u{20}' | '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\' => {
                write!(f, "\\u{:04X}", u32::from(c))?
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('>')
}

/// A quoted Turtle string.
pub fn write_string(f: &mut impl fmt::Write, text: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04X}", u32::from(c))?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

fn is_local_name(local: &str) -> bool {
    !local.is_empty() && local.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turtle_forms() {
        assert_eq!(Term::iri("http://ex/a").to_string(), "<http://ex/a>");
        assert_eq!(Term::string("a \"b\"\n").to_string(), r#""a \"b\"\n""#);
        assert_eq!(Term::lang_string("Hi", "en").to_string(), "\"Hi\"@en");
        assert_eq!(
            Term::typed("3", "http://www.w3.org/2001/XMLSchema#integer").to_string(),
            "\"3\"^^xsd:integer"
        );
        assert_eq!(Term::typed("x", "http://ex/dt").to_string(), "\"x\"^^<http://ex/dt>");
        assert_eq!(Term::iri("a b").to_string(), "<a\\u0020b>");
    }

    #[test]
    fn only_the_literal_true_is_true() {
        assert!(Term::typed("true", super::super::vocab::XSD_BOOLEAN).is_true());
        assert!(!Term::typed("1", super::super::vocab::XSD_BOOLEAN).is_true());
        assert!(!Term::string("true").is_true());
    }
}
