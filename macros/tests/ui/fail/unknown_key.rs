#[shacl_mcp::shacl_model(target_class = "app://Thing")]
pub struct Thing {
    #[shacl(path = "app://title", maxlength = 3)]
    title: String,
}

#[shacl_mcp::shacl_model(paht = "dna/chat.json")]
pub mod chat {}

fn main() {}
