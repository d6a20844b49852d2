//! Integration tests of forge-replay-engine over the shipped scenarios and fixtures.

use std::path::{Path, PathBuf};

use forge_replay_engine::scenario;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenarios() -> Vec<PathBuf> {
    scenario::discover(&[root().join("scenarios")]).expect("scenarios dir")
}

#[test]
fn ships_at_least_twelve_scenarios_that_compile() {
    let files = scenarios();
    assert!(files.len() >= 12, "only {} scenarios", files.len());
    let dump = std::env::var_os("FORGE_REPLAY_DUMP_SCENARIOS").map(PathBuf::from);
    for f in files {
        let loaded = scenario::load(&f).unwrap_or_else(|e| panic!("{e}"));
        let compiled = scenario::compile(&loaded).unwrap_or_else(|e| panic!("{e}"));
        assert!(compiled.entries > 3, "{}", f.display());
        if let Some(d) = &dump {
            scenario::write(&compiled, &d.join(&compiled.name)).unwrap();
        }
    }
}
