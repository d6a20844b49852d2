//! The `scenario` fuzz oracle (`fuzz/checks/scenario.rs`): compiled scenarios read cleanly and
//! carry a valid capability history, on every input under `fuzz/regressions/scenario/` and on
//! the shipped scenarios (docs/fuzzing.md).

#[path = "../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../fuzz/checks/scenario.rs"]
mod scenario;

use replay_inputs::{files_in, replay, repo_root, whole_files};

#[test]
fn scenario_regressions_and_shipped_scenarios() {
    let shipped: Vec<_> = files_in("scenarios")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    let dir = repo_root().join("scenarios");
    replay("scenario", whole_files(&shipped), |data| {
        scenario::check(data, &dir)
    });
}
