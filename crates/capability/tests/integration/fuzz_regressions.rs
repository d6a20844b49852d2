//! The capability fuzz oracles (`fuzz/checks/capability_resource.rs`,
//! `fuzz/checks/capability_event.rs`), replayed on every input under
//! `fuzz/regressions/capability_{resource,event}/` and on the committed fixtures: the library's
//! resource files, and each capability session's custom entries as one branch
//! (docs/fuzzing.md).

#[path = "../../../../fuzz/checks/capability_event.rs"]
mod capability_event;
#[path = "../../../../fuzz/checks/capability_resource.rs"]
mod capability_resource;
#[path = "../../../../fuzz/checks/replay_inputs.rs"]
mod replay_inputs;

use replay_inputs::{files_in, fixtures, replay, whole_files};
use serde_json::Value;

#[test]
fn capability_resource_regressions_and_library_files() {
    let mut files = files_in("fixtures/capabilities/library/.pi/forge/capabilities");
    files.extend(files_in("scenarios/capabilities"));
    replay(
        "capability_resource",
        whole_files(&files),
        capability_resource::check,
    );
}

#[test]
fn capability_event_regressions_and_fixture_branches() {
    let seeds = fixtures(".jsonl", 1 << 20)
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let branch: Vec<Value> = text
                .lines()
                .filter_map(|l| forge_replay_model::json::parse(l).ok())
                .filter(|v| v.get("type").and_then(Value::as_str) == Some("custom"))
                .filter_map(|v| v.get("data").cloned())
                .collect();
            (!branch.is_empty()).then(|| {
                let text = forge_replay_model::json::stringify(&Value::Array(branch));
                (p.display().to_string(), text.into_bytes())
            })
        })
        .collect();
    replay("capability_event", seeds, capability_event::check);
}
