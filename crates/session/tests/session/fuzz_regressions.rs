//! The `session_projection` fuzz oracle (`fuzz/checks/session_projection.rs`), replayed on every
//! input under `fuzz/regressions/session_projection/` and on the committed fixture sessions
//! (docs/fuzzing.md).

#[path = "../../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../../fuzz/checks/session_projection.rs"]
mod session_projection;

use replay_inputs::{fixtures, replay, whole_files};

#[test]
fn session_projection_regressions_and_fixture_sessions() {
    replay(
        "session_projection",
        whole_files(&fixtures(".jsonl", 256 << 10)),
        session_projection::check,
    );
}
