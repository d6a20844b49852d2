//! cargo-fuzz target `transcode`: the oracle in `fuzz/checks/transcode.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/transcode.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
