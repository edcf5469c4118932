//! Compiles `dna/chat.json` into `$OUT_DIR/chat.rs` (typed classes, validators, tool specs).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    shacl_mcp_compiler::Builder::new().dna("dna/chat.json").compile()?;
    Ok(())
}
