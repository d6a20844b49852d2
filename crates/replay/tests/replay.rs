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

/// `fixtures/scenarios-opened.json` was written by `tools/pi-oracle/src/open-scenario-sessions.mjs`
/// after opening every compiled scenario with the real `SessionManager` 0.87.1. A fresh compile
/// must produce exactly the bytes Pi opened (same SHA-256), and Pi must have read them unchanged.
#[test]
fn compiled_scenarios_are_the_sessions_real_pi_opened() {
    let text = std::fs::read_to_string(root().join("fixtures/scenarios-opened.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let opened = doc["scenarios"].as_array().unwrap();
    let files = scenarios();
    assert_eq!(
        opened.len(),
        files.len(),
        "re-run open-scenario-sessions.mjs"
    );
    for f in files {
        let compiled = scenario::compile(&scenario::load(&f).unwrap()).unwrap();
        let o = opened
            .iter()
            .find(|o| o["name"] == compiled.name.as_str())
            .unwrap_or_else(|| panic!("{} missing from the oracle fixture", compiled.name));
        assert_eq!(o["headerEqual"], true, "{}", compiled.name);
        assert_eq!(o["entriesEqual"], true, "{}", compiled.name);
        assert_eq!(o["unchangedOnDisk"], true, "{}", compiled.name);
        assert_eq!(
            o["sessionSha256"].as_str(),
            Some(compiled.session_sha256().as_str()),
            "{}: compiler output changed since the oracle opened it; re-run the oracle script",
            compiled.name
        );
    }
}

#[test]
fn malformed_scenarios_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"anthropic/claude-opus-4-8\"\ntools = [\"read\"]\n\n[[step]]\nuser = \"hi\"\n\n[[step]]\nassistant.txt = \"typo\"\n",
    )
    .unwrap();
    let e = scenario::load(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.toml:10"), "{e}");
    assert!(e.contains("txt"), "{e}");

    std::fs::write(
        &bad,
        "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"anthropic/claude-opus-4-8\"\ntools = [\"read\"]\n\n[[step]]\nuser = \"hi\"\n\n[[step]]\nbranch = { to = \"nowhere\" }\n",
    )
    .unwrap();
    let e = scenario::compile(&scenario::load(&bad).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.toml:9: field `step.branch.to`"), "{e}");

    std::fs::write(
        &bad,
        "format = \"forge-replay-scenario\"\nversion = 2\nmodel = \"a/b\"\ntools = []\n",
    )
    .unwrap();
    let e = scenario::load(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.toml:2: field `version`"), "{e}");
}

#[test]
fn scenario_files_outside_the_directory_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"a/b\"\ntools = []\n";
    let f = dir.path().join("s.toml");
    std::fs::write(&f, format!("{base}library = \"../elsewhere\"\n")).unwrap();
    let e = scenario::compile(&scenario::load(&f).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("escapes with `..`"), "{e}");
    assert!(e.contains("s.toml:5"), "{e}");
    std::fs::write(&f, format!("{base}library = \"/etc\"\n")).unwrap();
    let e = scenario::compile(&scenario::load(&f).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("absolute path"), "{e}");
}
