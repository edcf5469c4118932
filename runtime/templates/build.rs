//! Compiles the DNA into Rust at build time: `$OUT_DIR/{{dna_module}}.rs`, which src/main.rs
//! includes. An error in the DNA fails the build with every diagnostic, file and line.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    shacl_mcp_compiler::Builder::new().dna("dna/{{dna_file}}").compile()?;
    Ok(())
}
