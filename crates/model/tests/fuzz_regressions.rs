//! The fuzz oracles of the model crate's hand-written parsers (`fuzz/checks/`), replayed on
//! every input under `fuzz/regressions/<target>/` and on the committed fixtures' session lines,
//! so stable CI checks what fuzzing found (docs/fuzzing.md).

#[path = "../../../fuzz/checks/json_cursor.rs"]
mod json_cursor;
#[path = "../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../fuzz/checks/transcode.rs"]
mod transcode;

use replay_inputs::{fixtures, lines_of, replay};

#[test]
fn json_cursor_regressions_and_fixture_lines() {
    replay(
        "json_cursor",
        lines_of(&fixtures(".jsonl", 64 << 10)),
        json_cursor::check,
    );
}

#[test]
fn transcode_regressions_and_fixture_lines() {
    replay(
        "transcode",
        lines_of(&fixtures(".jsonl", 64 << 10)),
        transcode::check,
    );
}
