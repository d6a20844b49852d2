//! cargo-fuzz target `wire_case`: the oracle in `fuzz/checks/wire_case.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/wire_case.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
