//! Security and output integrity (issue 20): derived paths stay inside their roots, `--bless`
//! deletes only what its index lists, outputs are sets, stale temporaries are removed and
//! ignored, and one rule decides what is a Pi session.

use std::path::{Path, PathBuf};

use crate::support::Test;

/// Every file under `dir` (relative path → bytes), sorted.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Names under `dir` (recursively) that are forge-replay temporaries.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_name()
                .to_string_lossy()
                .starts_with(".forge-replay-tmp.")
            {
                out.push(e.path());
            } else if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

/// A scenario with `requests` assistant turns; `variant` changes every request's text.
pub fn scenario_text(name: Option<&str>, requests: usize, variant: &str) -> String {
    let mut s = String::from("format = \"forge-replay-scenario\"\nversion = 1\n");
    if let Some(n) = name {
        s.push_str(&format!("name = {}\n", toml_string(n)));
    }
    s.push_str("model = \"anthropic/claude-opus-4-8\"\ntools = [\"read\"]\n");
    for i in 0..requests {
        s.push_str(&format!(
            "\n[[step]]\nuser = \"question {i} ({variant})\"\n\n[[step]]\nassistant.text = \"answer {i}\"\nassistant.usage = {{ input = 10, output = 5 }}\n"
        ));
    }
    s
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn bless(scenario: &Path, golden: &Path) -> Test {
    Test::new().args([
        "verify",
        scenario.to_str().unwrap(),
        "--apis",
        "anthropic-messages",
        "--bless",
        "--golden-dir",
        golden.to_str().unwrap(),
    ])
}

/// Bug (issue 20): a scenario `name` that is absolute, has `..`, is empty or `.`, goes through a
/// symlink or is too long made `verify --bless` write outside the golden tree (or into its
/// root). Each is now exit 2 naming the field, and nothing is written anywhere.
#[test]
fn bless_refuses_scenario_names_that_leave_the_golden_tree() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("notes.txt"), "mine").unwrap();
    std::fs::write(victim.join("007.json"), "{}").unwrap();
    let golden = dir.path().join("work/golden");
    std::fs::create_dir_all(&golden).unwrap();
    let long = "n".repeat(300);
    let absolute = victim.display().to_string();
    // Each case is checked on its own; the failures are listed together.
    let mut wrong = Vec::new();
    let mut check = |name: &str, expect: &[&str]| {
        let s = dir.path().join("s.toml");
        std::fs::write(&s, scenario_text(Some(name), 2, "a")).unwrap();
        let out = bless(&s, &golden).any_status().run();
        // The report on stdout names the case; the cause is the error line on stderr.
        let stdout = String::from_utf8_lossy(&out.stderr);
        let escaped = !tree(&victim)
            .iter()
            .all(|(n, _)| n == "007.json" || n == "notes.txt")
            || tree(&victim).len() != 2
            || !tree(&golden).iter().all(|(n, _)| n == "linked");
        if out.status.code() != Some(2) || escaped || !expect.iter().all(|e| stdout.contains(e)) {
            wrong.push(format!(
                "{:?}: exit {:?}, wrote outside or into the root: {escaped}, stdout: {stdout}",
                name.chars().take(40).collect::<String>(),
                out.status.code()
            ));
        }
    };
    for (name, why) in [
        (absolute.as_str(), "is an absolute path"),
        ("../../victim", "escapes its directory with `..`"),
        ("ok/../../../victim", "escapes its directory with `..`"),
        ("", "is empty"),
        (".", "`.` or `..`"),
        (long.as_str(), "300 bytes long"),
    ] {
        check(name, &["field `name`", why]);
    }
    // A directory of the golden tree that is a symlink to somewhere else.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&victim, golden.join("linked")).unwrap();
        check(
            "linked",
            &["scenario name \"linked/anthropic--claude-opus-4-8\" leads outside"],
        );
        std::fs::remove_file(golden.join("linked")).unwrap();
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        tree(&victim),
        [
            ("007.json".to_string(), b"{}".to_vec()),
            ("notes.txt".to_string(), b"mine".to_vec())
        ]
    );
    assert_eq!(
        tree(&dir.path().join("work")),
        [],
        "nothing written into the golden tree"
    );
    assert!(temporaries(dir.path()).is_empty());
}

/// Bug (issue 20): `--bless` deleted every golden-looking file of the directory it wrote to
/// (`007.json`, `user-data.json` from an unrelated folder). It now deletes only the files its own
/// `index.json` lists.
#[test]
fn bless_deletes_only_the_files_its_index_lists() {
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("golden");
    let s = dir.path().join("s.toml");
    std::fs::write(&s, scenario_text(Some("s"), 3, "a")).unwrap();
    bless(&s, &golden)
        .stdout_contains("blessed s × anthropic/claude-opus-4-8: 3 files written")
        .run();
    let case = golden.join("s/anthropic--claude-opus-4-8");
    // Files bless did not write, some of them golden-shaped.
    std::fs::write(case.join("007.json"), "{}").unwrap();
    std::fs::write(case.join("user-data.json"), "{\"mine\": true}").unwrap();
    std::fs::write(case.join("notes.txt"), "mine").unwrap();
    std::fs::write(&s, scenario_text(Some("s"), 1, "a")).unwrap();
    bless(&s, &golden).run();
    let names: Vec<String> = tree(&case).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "000.json",
            "007.json",
            "index.json",
            "notes.txt",
            "user-data.json"
        ]
    );
    let index = std::fs::read_to_string(case.join("index.json")).unwrap();
    assert!(
        index.contains("\"redacted\": true,\n  \"files\": [\n    \"000.json\"\n  ]"),
        "{index}"
    );
    // Files the index does not list are not goldens: verify passes.
    Test::new()
        .args([
            "verify",
            s.to_str().unwrap(),
            "--apis",
            "anthropic-messages",
            "--golden-dir",
            golden.to_str().unwrap(),
        ])
        .stdout_contains("1 passed, 0 failed")
        .run();
}

/// Stale temporaries of a killed writer are ignored by readers and removed by the next writer.
#[test]
fn stale_temporaries_are_ignored_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("golden");
    let s = dir.path().join("s.toml");
    std::fs::write(&s, scenario_text(Some("s"), 2, "a")).unwrap();
    bless(&s, &golden).run();
    let case = golden.join("s/anthropic--claude-opus-4-8");
    // What a process killed mid-write leaves (pid 4194304 never runs on Linux): a half-written
    // golden, a staged directory.
    let stale_file = case.join(".forge-replay-tmp.4194304-0.w.000.json");
    std::fs::write(&stale_file, "{\"format\": \"forge-replay-golden\", \"vers").unwrap();
    let stale_stage = golden.join("s/.forge-replay-tmp.4194304-1.stage.anthropic--claude-opus-4-8");
    std::fs::create_dir_all(&stale_stage).unwrap();
    std::fs::write(stale_stage.join("000.json"), "{}").unwrap();
    // An older `.NNN.json.PID.tmp` of an old version is only hidden, never a golden.
    Test::new()
        .args([
            "verify",
            s.to_str().unwrap(),
            "--apis",
            "anthropic-messages",
            "--golden-dir",
            golden.to_str().unwrap(),
        ])
        .stdout_contains("1 passed, 0 failed")
        .run();
    if cfg!(target_os = "linux") {
        bless(&s, &golden).run();
        assert!(
            temporaries(&golden).is_empty(),
            "{:?}",
            temporaries(&golden)
        );
    }
    // Sessions: `check` and `usage --corpus` skip a staged corpus.
    let corpus = dir.path().join("corpus");
    let staged = corpus.join(".forge-replay-tmp.4194304-2.new.more");
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(
        staged.join("half.jsonl"),
        "{\"type\":\"session\",\"id\":\"h\"",
    )
    .unwrap();
    std::fs::write(
        corpus.join("real.jsonl"),
        "{\"type\":\"session\",\"version\":3,\"id\":\"r\"}\n",
    )
    .unwrap();
    let o = Test::new()
        .args([
            "usage",
            "--corpus",
            corpus.to_str().unwrap(),
            "--format",
            "json",
        ])
        .run();
    let v = forge_replay_model::json::parse(&String::from_utf8(o.stdout).unwrap()).unwrap();
    assert_eq!(v["files"], 1);
    Test::new()
        .args(["check", corpus.to_str().unwrap()])
        .stdout_not_contains("half.jsonl")
        .run();
}

/// Bug (issue 20): `replay --out` built file names from entry ids, so an entry id with `/` or
/// `..` wrote outside the directory. Now exit 2 naming the entry id, and nothing is written.
#[test]
fn replay_out_refuses_entry_ids_that_are_not_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","provider":"anthropic","modelId":"claude-opus-4-8"}"#,
        r#"{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}"#,
        r#"{"type":"message","id":"../../../../escaped","parentId":"00000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}"#,
    ];
    std::fs::write(&session, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("a/b/c/out");
    Test::new()
        .args([
            "replay",
            session.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .status(2)
        .stderr_contains("s.jsonl:4: entry id \"../../../../escaped\" contains a path separator")
        .run();
    let names: Vec<String> = tree(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["s.jsonl"], "nothing written");
}

/// `--out` directories are sets: a directory of other files is never replaced, a previous output
/// is replaced whole (no file of the old run left), and the marker lists the files.
#[test]
fn output_directories_are_replaced_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = crate::support::fixture("agent/anthropic-opus-tools/session.jsonl");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    Test::new()
        .args(["replay", &fixture, "--out", out.to_str().unwrap()])
        .status(2)
        .stderr_contains("was not written by forge-replay")
        .run();
    assert_eq!(tree(&out), [("notes.txt".to_string(), b"mine".to_vec())]);

    let out = dir.path().join("fresh");
    Test::new()
        .args(["replay", &fixture, "--out", out.to_str().unwrap()])
        .stderr_contains("requests to")
        .run();
    let first = tree(&out);
    let marker = std::fs::read_to_string(out.join(".forge-replay-set")).unwrap();
    assert!(
        marker.contains("kind: replay\nredacted: true\n"),
        "{marker}"
    );
    assert_eq!(marker.matches("\nfile: ").count(), first.len() - 1);
    // Again, re-targeted: the old request files are gone, not mixed in.
    Test::new()
        .args([
            "replay",
            &fixture,
            "--api",
            "openai-responses",
            "--out",
            out.to_str().unwrap(),
        ])
        .run();
    let second = tree(&out);
    assert!(second
        .iter()
        .all(|(n, _)| n.starts_with('.') || n == "index.json" || n.contains("openai--gpt-5.5")));
    assert_eq!(second.len(), first.len());
    assert!(temporaries(dir.path()).is_empty());
}

/// Bug (issue 20): `usage FILE` refused a header with version 99 that `usage --corpus` counted,
/// and `--corpus` refused a lone surrogate in the header id that `usage FILE` read; the corpus
/// said "1 files are not Pi sessions" without naming it. One rule now, and the files are named.
#[test]
fn one_definition_of_a_pi_session() {
    let dir = tempfile::tempdir().unwrap();
    let v99 = dir.path().join("v99.jsonl");
    std::fs::write(
        &v99,
        "{\"type\":\"session\",\"version\":99,\"id\":\"a\",\"cwd\":\"/p\"}\n",
    )
    .unwrap();
    let lone = dir.path().join("lone.jsonl");
    std::fs::write(
        &lone,
        "{\"type\":\"session\",\"version\":3,\"id\":\"\\ud800x\",\"cwd\":\"/p\"}\n",
    )
    .unwrap();
    let number = dir.path().join("number.jsonl");
    std::fs::write(
        &number,
        "5\n{\"type\":\"session\",\"version\":3,\"id\":\"n\"}\n",
    )
    .unwrap();
    Test::new()
        .args(["usage", v99.to_str().unwrap()])
        .status(2)
        .stderr_contains("unsupported session version 99")
        .run();
    Test::new().args(["usage", lone.to_str().unwrap()]).run();
    Test::new()
        .args(["usage", number.to_str().unwrap()])
        .status(2)
        .stderr_contains("not an object")
        .run();
    let o = Test::new()
        .args([
            "usage",
            "--corpus",
            dir.path().to_str().unwrap(),
            "--format",
            "json",
        ])
        .run();
    let v = forge_replay_model::json::parse(&String::from_utf8(o.stdout).unwrap()).unwrap();
    assert_eq!(v["files"], 3);
    assert_eq!(v["sessions"], 1, "{v}");
    assert_eq!(v["notSessions"], 2);
    let rejected = v["notSessionFiles"].as_array().unwrap();
    assert!(rejected[0]["file"]
        .as_str()
        .unwrap()
        .ends_with("number.jsonl"));
    assert!(rejected[0]["message"]
        .as_str()
        .unwrap()
        .contains("not an object"));
    assert!(rejected[1]["file"].as_str().unwrap().ends_with("v99.jsonl"));
    assert_eq!(rejected[1]["line"], 1);
    assert!(rejected[1]["message"]
        .as_str()
        .unwrap()
        .contains("unsupported session version 99"));
    Test::new()
        .args(["usage", "--corpus", dir.path().to_str().unwrap()])
        .stderr_contains("v99.jsonl:1: skipped: unsupported session version 99")
        .stderr_contains("number.jsonl:1: skipped: not a pi session")
        .stderr_contains("2 files are not Pi sessions")
        .run();
}

// ---------------------------------------------------------------------------------------------
// Killed writers (SIGKILL at random points, and at the moments between the steps of a commit)

#[cfg(unix)]
mod killed {
    use super::*;
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    fn spawn(args: &[&str]) -> Child {
        Command::new(env!("CARGO_BIN_EXE_forge-replay"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn forge-replay")
    }

    /// Where to kill a run.
    #[derive(Debug, Clone, Copy)]
    enum When {
        /// After this fraction (in thousandths) of a complete run's duration.
        After(u64),
        /// As soon as an entry whose name contains this appears in the directory.
        Seen(&'static str),
    }

    /// Runs `args`, kills it with SIGKILL as `when` says, waits for it (so its pid is gone), and
    /// returns whether it had already finished.
    fn run_and_kill(args: &[&str], when: When, full: Duration, watch: &Path) -> bool {
        let mut child = spawn(args);
        let start = Instant::now();
        let limit = full * 3 + Duration::from_secs(5);
        loop {
            if child.try_wait().unwrap().is_some() {
                return true;
            }
            let now = start.elapsed();
            let fire = match when {
                When::After(k) => now >= full * (k as u32) / 1000,
                When::Seen(part) => {
                    now > limit
                        || std::fs::read_dir(watch)
                            .into_iter()
                            .flatten()
                            .flatten()
                            .any(|e| e.file_name().to_string_lossy().contains(part))
                }
            };
            if fire {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn without_temporaries(t: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
        t.into_iter()
            .filter(|(n, _)| !n.split('/').any(|c| c.starts_with(".forge-replay-tmp.")))
            .collect()
    }

    fn timed(args: &[&str]) -> Duration {
        let t = Instant::now();
        let s = Command::new(env!("CARGO_BIN_EXE_forge-replay"))
            .args(args)
            .output()
            .expect("run forge-replay");
        assert!(
            s.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&s.stderr)
        );
        t.elapsed()
    }

    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    fn plan(seed: u64, trials: usize, event: &'static str) -> Vec<When> {
        let mut rng = forge_replay_model::rng::XorShift64::new(seed);
        (0..trials)
            .map(|i| {
                if i % 3 == 2 {
                    When::Seen(event)
                } else {
                    When::After(rng.below(1050))
                }
            })
            .collect()
    }

    /// `verify --bless` killed anywhere leaves the old golden tree, or a journal that makes
    /// `verify` refuse the tree until the next bless finishes it: never a mix of old and new
    /// goldens that reads as complete.
    #[test]
    fn a_killed_bless_never_leaves_a_mixed_golden_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for v in ["a", "b"] {
            std::fs::create_dir_all(root.join(v)).unwrap();
            for i in 0..5 {
                std::fs::write(
                    root.join(v).join(format!("s{i}.toml")),
                    scenario_text(Some(&format!("s{i}")), 6, v),
                )
                .unwrap();
            }
        }
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let bless_args = |v: &str, golden: &Path| {
            vec![
                "verify".to_string(),
                s(&root.join(v)),
                "--bless".to_string(),
                "--golden-dir".to_string(),
                s(golden),
            ]
        };
        let mut reference = std::collections::HashMap::new();
        let mut full = Duration::ZERO;
        for v in ["a", "b"] {
            let r = root.join(format!("ref-{v}"));
            full = full.max(timed(&args(&bless_args(v, &r))));
            reference.insert(v, tree(&r));
        }
        assert_ne!(reference["a"], reference["b"]);
        let golden = root.join("golden");
        timed(&args(&bless_args("a", &golden)));
        let mut current = "a";
        let mut seen = std::collections::BTreeMap::<&str, usize>::new();
        for when in plan(20, 9, ".journal.") {
            let next = if current == "a" { "b" } else { "a" };
            let finished = run_and_kill(&args(&bless_args(next, &golden)), when, full, &golden);
            let pending = std::fs::read_dir(&golden)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().contains(".journal."));
            let visible = without_temporaries(tree(&golden));
            let verify_next = Test::new()
                .args(["verify", &s(&root.join(next)), "--golden-dir", &s(&golden)])
                .any_status()
                .run();
            if pending {
                *seen.entry("interrupted (journal)").or_default() += 1;
                assert_eq!(verify_next.status.code(), Some(2), "{when:?}");
                assert!(String::from_utf8_lossy(&verify_next.stderr)
                    .contains("an interrupted `verify --bless` left the golden tree half updated"));
            } else if visible == reference[next] {
                *seen
                    .entry(if finished { "finished" } else { "new" })
                    .or_default() += 1;
                assert_eq!(verify_next.status.code(), Some(0), "{when:?}");
            } else {
                *seen.entry("old").or_default() += 1;
                assert!(
                    visible == reference[current],
                    "{when:?}: the golden tree is neither the old nor the new set"
                );
                assert_eq!(verify_next.status.code(), Some(1), "{when:?}");
            }
            // The next bless finishes (or redoes) the job and cleans up.
            timed(&args(&bless_args(next, &golden)));
            assert_eq!(tree(&golden), reference[next], "{when:?}");
            assert!(temporaries(&golden).is_empty(), "{when:?}");
            current = next;
        }
        eprintln!("killed bless outcomes: {seen:?}");
    }

    /// `usage --corpus --parquet` killed anywhere leaves the old dataset (or, only between the two
    /// renames of the swap, none, which the next export puts back): never some partitions of the
    /// new export mixed with the old ones, and never a dataset without its completion marker.
    #[test]
    fn a_killed_parquet_export_never_leaves_a_partial_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let s = |p: &Path| p.to_str().unwrap().to_string();
        for (c, seed) in [("c1", "1"), ("c2", "2")] {
            let out = Test::new()
                .args([
                    "gen-corpus",
                    "--out",
                    &s(&root.join(c)),
                    "--sessions",
                    "120",
                    "--entries",
                    "40",
                    "--seed",
                    seed,
                ])
                .run();
            assert!(out.status.success());
        }
        let export = |c: &str, p: &Path| {
            vec![
                "usage".to_string(),
                "--corpus".to_string(),
                s(&root.join(c)),
                "--format".to_string(),
                "json".to_string(),
                "--parquet".to_string(),
                s(p),
            ]
        };
        let mut reference = std::collections::HashMap::new();
        let mut full = Duration::ZERO;
        for c in ["c1", "c2"] {
            let r = root.join(format!("ref-{c}"));
            full = full.max(timed(&args(&export(c, &r))));
            let t = tree(&r);
            assert!(t.len() > 40, "{} partitions", t.len());
            reference.insert(c, t);
        }
        assert_ne!(reference["c1"], reference["c2"]);
        let out = root.join("out/dataset");
        timed(&args(&export("c1", &out)));
        let mut current = "c1";
        let mut seen = std::collections::BTreeMap::<&str, usize>::new();
        for when in plan(17, 9, ".old.") {
            let next = if current == "c1" { "c2" } else { "c1" };
            let finished = run_and_kill(&args(&export(next, &out)), when, full, &root.join("out"));
            if out.exists() {
                // What a reader checks: the marker is there and lists exactly the files.
                let visible = tree(&out);
                let marker = std::fs::read_to_string(out.join(".forge-replay-set"))
                    .unwrap_or_else(|_| panic!("{when:?}: a dataset without its marker"));
                let listed: Vec<&str> = marker
                    .lines()
                    .filter_map(|l| l.strip_prefix("file: "))
                    .collect();
                assert_eq!(listed.len() + 1, visible.len(), "{when:?}");
                if visible == reference[next] {
                    *seen
                        .entry(if finished { "finished" } else { "new" })
                        .or_default() += 1;
                } else {
                    *seen.entry("old").or_default() += 1;
                    assert!(
                        visible == reference[current],
                        "{when:?}: the dataset is neither the old nor the new set"
                    );
                }
            } else {
                *seen.entry("absent between the renames").or_default() += 1;
            }
            timed(&args(&export(next, &out)));
            assert_eq!(tree(&out), reference[next], "{when:?}");
            assert!(temporaries(&root.join("out")).is_empty(), "{when:?}");
            current = next;
        }
        eprintln!("killed parquet export outcomes: {seen:?}");
    }
}
