//! cargo-fuzz target `scenario`: the oracle in `fuzz/checks/scenario.rs` (see docs/fuzzing.md).
//! References resolve in the shipped `scenarios/` folder.
#![no_main]

#[path = "../checks/scenario.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios"));
    check::check(data, dir)
});
