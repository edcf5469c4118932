#[shacl_mcp::shacl_model(target_class = "app://Task")]
pub struct Task {
    #[shacl(path = "app://due1")]
    due_date: Option<String>,
    #[shacl(path = "app://due2", name = "dueDate")]
    due: Option<String>,
}

fn main() {}
