#[shacl_mcp::shacl_model(target_class = "app://Thing")]
pub struct Thing {
    title: String,
    id: String,
}

fn main() {}
