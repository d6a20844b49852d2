//! cargo-fuzz target `json_cursor`: the oracle in `fuzz/checks/json_cursor.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/json_cursor.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
