//! The `shacl-mcp` command.

fn main() -> std::process::ExitCode {
    shacl_mcp::cli::main()
}
