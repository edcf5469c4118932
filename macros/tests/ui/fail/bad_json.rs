#[shacl_mcp::shacl_model(path = "../../../../tests/bad-dna/syntax.json")]
pub mod broken {}

fn main() {}
