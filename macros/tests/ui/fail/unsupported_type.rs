#[shacl_mcp::shacl_model(target_class = "app://Thing")]
pub struct Thing {
    title: String,
    weights: std::collections::HashMap<String, f64>,
}

fn main() {}
