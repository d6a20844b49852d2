//! Fuzz oracle `replay_walk`: the replay walk with the checks it carries from request to request
//! (`ReplayOptions::incremental`, `wire::Resume`) builds what the walk that assembles every
//! request from scratch builds, on any session.
//!
//! For a session the reader accepts, at its default leaf and at a leaf picked from a hash of the
//! input (so a regression replays the same one): the recorded models under every release, and the
//! representative model of every API under one release picked from the hash; the other walk
//! options (`after_tree`, `wire_bodies`, `hash_transcript`) are picked from the hash too. Both
//! walks, and the carried walk that builds each request in the previous one's payload
//! (`replay_each_recycling`), must give the same requests (as `Request::into_json` writes them)
//! or the same error.
//!
//! Shared by `fuzz/fuzz_targets/replay_walk.rs` and `crates/replay/tests/fuzz_regressions.rs`.

use forge_replay_engine::replay::{
    replay, replay_each_recycling, AfterTree, ReplayOptions, Target,
};
use forge_replay_model::release::PiRelease;
use forge_replay_session::Session;
use forge_replay_wire::Catalog;

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let Ok((session, _diagnostics)) = Session::from_reader(data, "fuzz.jsonl") else {
        return;
    };
    let h = fnv(data);
    let n = session.entries().len();
    let mut leaves = vec![session.default_leaf()];
    if n > 0 {
        leaves.push(Some((h % n as u64) as usize));
    }
    leaves.dedup();
    let picked = PiRelease::ALL[(h >> 8) as usize % PiRelease::ALL.len()];
    for (k, leaf) in leaves.into_iter().enumerate() {
        for release in PiRelease::ALL {
            let catalog = Catalog::builtin(release);
            let mut targets = vec![Target::Recorded];
            if k == 0 && release == picked {
                targets.push(Target::all_apis(catalog));
            }
            for target in targets {
                let mut opts = ReplayOptions::new(catalog);
                opts.leaf = leaf.and_then(|i| session.entry(i).id().map(str::to_string));
                opts.target = target;
                opts.after_tree = if h >> 16 & 1 == 0 {
                    AfterTree::Live
                } else {
                    AfterTree::Path
                };
                opts.wire_bodies = h >> 17 & 1 == 0;
                opts.hash_transcript = h >> 18 & 1 == 0;
                let carried = requests(&session, &opts);
                let recycled = recycled(&session, &opts, &mut 0);
                opts.incremental = false;
                let scratch = requests(&session, &opts);
                assert_eq!(
                    carried, scratch,
                    "leaf {leaf:?} on {release}: the carried walk differs from the one from scratch"
                );
                assert_eq!(
                    recycled, scratch,
                    "leaf {leaf:?} on {release}: the walk built in earlier payloads differs"
                );
            }
        }
    }
}

/// [`requests`] of a walk whose sink hands every payload back (`replay_each_recycling`), so
/// each request is built in the previous one's; what a request says it kept of the previous
/// payload's messages must be the previous payload's, text for text (`kept` adds them up).
/// Also used by `crates/replay/tests/replay.rs`.
pub fn recycled(
    session: &Session,
    opts: &ReplayOptions<'_>,
    kept: &mut usize,
) -> Result<Vec<serde_json::Value>, String> {
    use forge_replay_model::json::stringify;
    let mut out = Vec::new();
    let mut lists: std::collections::HashMap<u64, Vec<String>> = Default::default();
    replay_each_recycling(session, opts, |r| {
        let list: Vec<String> = r.payload["messages"]
            .as_array()
            .map(|a| a.iter().map(stringify).collect())
            .unwrap_or_default();
        if r.reuse.after != 0 {
            let before = &lists[&r.reuse.after];
            let n = r.reuse.kept;
            assert!(
                n <= before.len() && n <= list.len(),
                "kept {n} of {}",
                before.len()
            );
            assert_eq!(
                &list[..n],
                &before[..n],
                "request {}: kept messages differ",
                r.index
            );
            *kept += n;
        }
        lists.insert(r.reuse.token, list);
        out.push(r.to_json());
        Ok(Some(r.payload))
    })
    .map(|()| out)
    .map_err(|e| forge_replay_model::error::chain(&e))
}

/// The requests of a walk as JSON, or its error as one line.
fn requests(session: &Session, opts: &ReplayOptions<'_>) -> Result<Vec<serde_json::Value>, String> {
    replay(session, opts)
        .map(|rs| rs.into_iter().map(|r| r.into_json()).collect())
        .map_err(|e| forge_replay_model::error::chain(&e))
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
