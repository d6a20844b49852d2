//! cargo-fuzz target `usage_scanner`: the oracle in `fuzz/checks/usage_scanner.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../../checks/usage_scanner.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
