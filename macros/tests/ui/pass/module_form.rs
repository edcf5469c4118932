//! Every sample DNA through the module form; the generated items are usable.

#![deny(warnings)]

#[shacl_mcp::shacl_model(path = "../../../../dna/chat.json")]
pub mod chat {}

#[shacl_mcp::shacl_model(path = "../../../../dna/chat.ttl")]
pub mod chat_ttl {}

#[shacl_mcp::shacl_model(path = "../../../../dna/tasks.json")]
pub mod tasks {
    /// Items of the module stay beside the generated ones.
    pub fn open() -> &'static str {
        "open"
    }
}

#[shacl_mcp::shacl_model(path = "../../../../dna/zoo.json", shacl_mcp_path = "::shacl_mcp")]
pub mod zoo {}

fn main() {
    use shacl_mcp::CompiledDna;
    assert_eq!(<chat::Dna as CompiledDna>::NAME, "chat");
    assert_eq!(<tasks::Dna as CompiledDna>::CLASSES.len(), 2);
    assert_eq!(<zoo::Dna as CompiledDna>::CLASSES[1].name, "Dog");
    assert_eq!(<chat_ttl::Dna as CompiledDna>::CLASSES[0].name, "Channel");
    let status: tasks::task::Status = tasks::open().parse().expect("an allowed value");
    assert_eq!(status, tasks::task::Status::Open);
    assert_eq!(tasks::task::Status::InProgress.to_string(), "in_progress");
    assert!("closed".parse::<tasks::task::Status>().is_err());
    assert!(tasks::task::Priority::try_from(9).is_err());
    let args = chat::channel::CreateArgs::new("general".to_string());
    assert_eq!(args.name, "general");
}
