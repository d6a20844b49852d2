//! Fuzz oracle `scenario`: the scenario TOML compiler on any text.
//!
//! [`scenario::parse`] and [`scenario::compile`] never panic: bad input is a `ScenarioError`
//! naming file, line and field. A scenario that compiles is a session Pi would load as written:
//! the reader takes it without an error or a warning, it holds as many entries as the compiler
//! says, every named step is an entry, Forge's capability history along every leaf's path is
//! valid (the compiler writes events, baselines and anchors as pi-forge does), and compiling is
//! deterministic.
//!
//! The scenario is read as `<dir>/fuzz.toml`, so references resolve inside `dir` (the shipped
//! `scenarios/` folder, whose `capabilities/` library the seeds use). Shared by
//! `fuzz/fuzz_targets/scenario.rs` and `crates/replay/tests/replay.rs`.

use std::path::Path;

use forge_replay_capability::context::{project_at, Options};
use forge_replay_capability::projection::Presentation;
use forge_replay_engine::scenario;
use forge_replay_session::{Session, Severity};

/// Runs the oracle on one input, with scenario references resolved in `dir`; panics on a
/// divergence.
pub fn check(data: &[u8], dir: &Path) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = dir.join("fuzz.toml");
    let Ok(loaded) = scenario::parse(&path, text.to_string()) else {
        return;
    };
    let Ok(compiled) = scenario::compile(&loaded) else {
        return;
    };
    let again = scenario::compile(&loaded).expect("a scenario compiled once compiles again");
    assert_eq!(
        compiled.session_jsonl, again.session_jsonl,
        "compiling is not deterministic"
    );
    let (session, diagnostics) = Session::from_reader(compiled.session_jsonl.as_bytes(), &path)
        .unwrap_or_else(|e| panic!("the compiled session does not read: {e}\n{text}"));
    let problems: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .map(|d| d.display_with_code(&path).to_string())
        .collect();
    assert!(
        problems.is_empty(),
        "the compiled session has problems:\n{}\nscenario:\n{text}\nsession:\n{}",
        problems.join("\n"),
        compiled.session_jsonl
    );
    assert_eq!(
        session.entries().len(),
        compiled.entries,
        "entry count of the compiled session"
    );
    for (name, id) in &compiled.names {
        assert!(
            session.find(id).is_some(),
            "step {name:?} names entry {id:?}, which the session does not have"
        );
    }
    let leaves: Vec<usize> = session.tree().leaves().take(4).collect();
    for leaf in leaves {
        for presentation in [Presentation::Native, Presentation::Fallback] {
            if let Err(e) = project_at(&session, Some(leaf), Options::new(presentation)) {
                panic!(
                    "the compiled session's capability history fails at entry {leaf} ({presentation:?}): {}\nscenario:\n{text}\nsession:\n{}",
                    forge_replay_model::error::chain(&e),
                    compiled.session_jsonl
                );
            }
        }
    }
}
