//! cargo-fuzz target `capability_event`: the oracle in `fuzz/checks/capability_event.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/capability_event.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
