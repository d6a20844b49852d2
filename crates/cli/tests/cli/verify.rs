//! `verify` finds goldens beside the scenarios, never in the working directory (issue 19.6).

use std::path::Path;

use super::support::{repo_root, Test};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A project `<dir>/<name>` with the shipped scenarios and the goldens of `goldens`.
fn project(dir: &Path, name: &str, goldens: &[&str]) -> std::path::PathBuf {
    let root = dir.join(name);
    copy_dir(&repo_root().join("scenarios"), &root.join("scenarios"));
    for g in goldens {
        copy_dir(
            &repo_root().join("fixtures/golden").join(g),
            &root.join("fixtures/golden").join(g),
        );
    }
    root
}

const SCENARIO: &str = "01-read-first-worker";

#[test]
fn goldens_are_found_beside_the_scenarios_from_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    let proj = project(dir.path(), "proj", &[SCENARIO]);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let scenario = proj.join(format!("scenarios/{SCENARIO}.toml"));
    for cwd in [&elsewhere, &proj.join("scenarios"), &repo_root()] {
        Test::new()
            .current_dir(cwd)
            .args([
                "verify",
                scenario.to_str().unwrap(),
                "--apis",
                "anthropic-messages",
            ])
            .status(0)
            .stdout_contains("1 case, 7 requests: 1 passed, 0 failed, 0 errors")
            .run();
    }
    // Relative to the working directory too.
    Test::new()
        .current_dir(dir.path())
        .args([
            "verify",
            &format!("proj/scenarios/{SCENARIO}.toml"),
            "--apis",
            "anthropic-messages",
        ])
        .status(0)
        .stdout_contains("1 passed")
        .run();
}

#[test]
fn scenarios_without_a_golden_tree_ask_for_golden_dir() {
    let dir = tempfile::tempdir().unwrap();
    let loose = project(dir.path(), "loose", &[]);
    // The working directory has goldens for these very scenarios: they are not looked at.
    Test::new()
        .current_dir(repo_root())
        .args(["verify", loose.join("scenarios").to_str().unwrap()])
        .status(2)
        .stdout("")
        .stderr_contains("forge-replay: error: ")
        .stderr_contains(
            "no fixtures/golden directory beside or above this scenario; pass --golden-dir DIR",
        )
        .run();
}

#[test]
fn bless_refuses_a_tree_that_holds_none_of_the_scenarios_goldens() {
    let dir = tempfile::tempdir().unwrap();
    let loose = project(dir.path(), "loose", &[]);
    let other = project(dir.path(), "other", &["02-review-removes-tools"]);
    let tree = other.join("fixtures/golden");
    let scenario = loose.join(format!("scenarios/{SCENARIO}.toml"));
    let bless = |golden: &Path| {
        Test::new().current_dir(dir.path()).args([
            "verify",
            scenario.to_str().unwrap(),
            "--apis",
            "anthropic-messages",
            "--bless",
            "--golden-dir",
            golden.to_str().unwrap(),
        ])
    };
    bless(&tree)
        .status(2)
        .stderr_contains(
            "this golden tree holds none of these scenarios' goldens; refusing to bless into it",
        )
        .run();
    assert!(
        !tree.join(SCENARIO).exists(),
        "blessed into another project's tree"
    );
    // A new tree is fine, and so is blessing again into the tree that now holds them.
    let own = loose.join("fixtures/golden");
    bless(&own).status(0).stdout_contains("blessed").run();
    bless(&own).status(0).run();
    // A new scenario in a project's own scenarios/ may be blessed into that project's tree.
    Test::new()
        .current_dir(dir.path())
        .args([
            "verify",
            other
                .join(format!("scenarios/{SCENARIO}.toml"))
                .to_str()
                .unwrap(),
            "--apis",
            "anthropic-messages",
            "--bless",
        ])
        .status(0)
        .stdout_contains("blessed")
        .run();
    assert!(tree.join(SCENARIO).is_dir());
}

/// A file given as the golden tree is one error up front, not one per case.
#[test]
fn a_golden_dir_that_is_a_file_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("golden");
    std::fs::write(&file, "not a tree").unwrap();
    for bless in [false, true] {
        let mut args = vec![
            "verify".to_owned(),
            repo_root()
                .join(format!("scenarios/{SCENARIO}.toml"))
                .display()
                .to_string(),
            "--golden-dir".to_owned(),
            file.display().to_string(),
        ];
        if bless {
            args.push("--bless".to_owned());
        }
        let out = Test::new()
            .args(&args)
            .status(2)
            .stderr_contains(format!("--golden-dir {}: not a directory", file.display()))
            .run();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"not a tree");
    }
}

/// `--models` naming no model (an empty shell variable) is a bad argument, exit 2 with one error
/// line for the scenario, not a panic.
#[test]
fn models_naming_no_model_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let proj = project(dir.path(), "proj", &[SCENARIO]);
    let scenario = proj.join(format!("scenarios/{SCENARIO}.toml"));
    for models in ["", ","] {
        Test::new()
            .args(["verify", scenario.to_str().unwrap(), "--models", models])
            .status(2)
            .stderr_contains(format!(
                "forge-replay: error: {}: no model to verify",
                scenario.display()
            ))
            .stderr_not_contains("panicked")
            .run();
    }
}
