//! cargo-fuzz target `session_projection`: the oracle in `fuzz/checks/session_projection.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/session_projection.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
