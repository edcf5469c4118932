//! SHACL JSON: parse + check must never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shacl_mcp_compiler::parse::Format;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (dna, diagnostics) = shacl_mcp_compiler::load_str(&text, "fuzz.json", Format::Json);
    // Rendering the diagnostics is part of the front end too.
    let _ = diagnostics.to_string();
    let _ = dna.is_some();
});
