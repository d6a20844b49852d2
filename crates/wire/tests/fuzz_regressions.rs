//! The `wire_case` fuzz oracle (`fuzz/checks/wire_case.rs`): the case reader and assembly on all
//! ten APIs, replayed on every input under `fuzz/regressions/wire_case/` and on a sample of the
//! committed golden cases (docs/fuzzing.md).

#[path = "../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../fuzz/checks/wire_case.rs"]
mod wire_case;

use replay_inputs::{fixtures, replay, whole_files};

#[test]
fn wire_case_regressions_and_golden_cases() {
    // Every eighth case: each is assembled eleven times, and the goldens run in full elsewhere.
    let cases: Vec<_> = fixtures(".case.json", 1 << 20)
        .into_iter()
        .step_by(8)
        .collect();
    replay("wire_case", whole_files(&cases), wire_case::check);
}
