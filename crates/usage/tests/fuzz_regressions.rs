//! The `usage_scanner` fuzz oracle (`fuzz/checks/usage_scanner.rs`): the fast line scanner equals
//! the serde path on every input under `fuzz/regressions/usage_scanner/` and on the committed
//! fixture sessions (docs/fuzzing.md).

#[path = "../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../fuzz/checks/usage_scanner.rs"]
mod usage_scanner;

use replay_inputs::{fixtures, replay, whole_files};

#[test]
fn usage_scanner_regressions_and_fixture_sessions() {
    replay(
        "usage_scanner",
        whole_files(&fixtures(".jsonl", 1 << 20)),
        usage_scanner::check,
    );
}
