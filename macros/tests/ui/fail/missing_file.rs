#[shacl_mcp::shacl_model(path = "dna/nowhere.json")]
pub mod nowhere {}

fn main() {}
