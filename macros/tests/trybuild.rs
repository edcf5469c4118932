//! The attribute on real crates: pass cases compile (and run), fail cases give the errors in
//! their `.stderr`, pointing at the tokens at fault. trybuild builds each case in its own crate
//! under `target/tests/trybuild/`, so DNA paths in the cases are relative to that folder.
//! After a deliberate change: `TRYBUILD=overwrite cargo test -p shacl-mcp-macros`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
