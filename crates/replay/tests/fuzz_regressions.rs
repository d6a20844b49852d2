//! The fuzz oracles this crate owns, replayed on every input under `fuzz/regressions/<target>/`
//! (docs/fuzzing.md): `scenario` (`fuzz/checks/scenario.rs`: compiled scenarios read cleanly and
//! carry a valid capability history; seeded with the shipped scenarios) and `replay_walk`
//! (`fuzz/checks/replay_walk.rs`: the walk that carries checks from request to request builds
//! what the walk from scratch builds; seeded with small fixture sessions).

#[path = "../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;
#[path = "../../../fuzz/checks/replay_walk.rs"]
mod replay_walk;
#[path = "../../../fuzz/checks/scenario.rs"]
mod scenario;

use replay_inputs::{files_in, fixtures, replay, repo_root, whole_files};

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

#[test]
fn replay_walk_regressions_and_small_fixture_sessions() {
    // Small sessions only: `carried_checks_build_what_requests_from_scratch_build_on_every_fixture`
    // walks every leaf of every fixture; this replays the oracle (and its leaf and option picks).
    replay(
        "replay_walk",
        whole_files(&fixtures(".jsonl", 16 << 10)),
        replay_walk::check,
    );
}
