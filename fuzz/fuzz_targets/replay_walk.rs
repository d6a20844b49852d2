//! cargo-fuzz target `replay_walk`: the oracle in `fuzz/checks/replay_walk.rs` (see docs/fuzzing.md).
#![no_main]

#[path = "../checks/replay_walk.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
