//! cargo-fuzz target `capability_resource`: the oracle in `fuzz/checks/capability_resource.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/capability_resource.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
