//! The incremental index: a corpus scanned through it equals the corpus scanned without it,
//! over random sequences of appends, rewrites, truncations, deletions, new files and branch
//! changes; a damaged index is rebuilt; concurrent runs leave a valid index.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;

use forge_replay_model::rng::XorShift64;
use forge_replay_usage::corpus::{Corpus, CorpusPricing, Filter, GroupBy};
use forge_replay_usage::gen::{generate, GenOptions};
use forge_replay_usage::index::{index_path, IndexStats};
use forge_replay_usage::report::{CorpusReport, FiltersView};

/// Everything a scan found, as text (the fields that could differ between the two ways).
fn fingerprint(c: &Corpus) -> String {
    let report = CorpusReport::build(
        c,
        &Filter::default(),
        FiltersView::default(),
        GroupBy::Model,
        &c.group(
            &c.frame(&Filter::default()).unwrap(),
            GroupBy::Model,
            &Filter::default(),
        )
        .unwrap(),
    );
    // The groups the CLI reports (straight from the requests), for two groupings.
    let groups: Vec<_> = [GroupBy::Session, GroupBy::Day]
        .into_iter()
        .map(|by| c.group_rows(by, &Filter::default()))
        .collect();
    format!(
        "{}\n{groups:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        serde_json::to_string(&report).unwrap(),
        c.files,
        c.requests,
        c.nested,
        c.dicts,
        c.reconciliation,
        c.releases
    )
}

/// A generated corpus in a temporary directory: the directory (kept alive), its `sessions` and
/// a `cache` directory beside it.
fn corpus(sessions: usize, entries: usize, seed: u64, forks: f64) -> (TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sessions");
    let cache = root.path().join("cache");
    let options = GenOptions {
        sessions,
        entries,
        seed,
        forks,
    };
    generate(&dir, &options).unwrap();
    (root, dir, cache)
}

fn scan_both(dir: &Path, cache: &Path) -> (String, IndexStats) {
    let dirs = [dir.to_owned()];
    let plain = Corpus::scan(&dirs);
    let (indexed, stats) = Corpus::scan_indexed(&dirs, &CorpusPricing::Detected, cache);
    let (a, b) = (fingerprint(&plain), fingerprint(&indexed));
    if a != b {
        let at = a
            .bytes()
            .zip(b.bytes())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        panic!(
            "indexed scan differs at byte {at}:\n  plain:   {}\n  indexed: {}\n({stats:?})",
            &a[at.saturating_sub(80)..(at + 120).min(a.len())],
            &b[at.saturating_sub(80)..(at + 120).min(b.len())],
        );
    }
    (a, stats)
}

/// Two spellings of one directory each keep their own index: a re-run with either spelling reads
/// nothing again, however the runs alternate (one shared index would be missed and rewritten by
/// every other run, since it stores the paths as the walk spells them).
#[test]
fn each_spelling_of_a_directory_keeps_its_index() {
    let (root, dir, cache) = corpus(4, 30, 5, 0.0);
    let other = root.path().join("x").join("..").join("sessions");
    std::fs::create_dir(root.path().join("x")).unwrap();
    assert_ne!(
        index_path(&cache, std::slice::from_ref(&dir)),
        index_path(&cache, std::slice::from_ref(&other))
    );
    let spellings = [&dir, &other].map(|d| (d, scan_both(d, &cache).0));
    // Alternating runs: each spelling finds every file in its own index.
    for round in 0..2 {
        for (d, first) in &spellings {
            let (again, stats) = scan_both(d, &cache);
            assert_eq!(&again, first);
            let (read, written) = (stats.read, stats.written);
            assert_eq!(
                (read, written),
                (0, false),
                "round {round}, {d:?}: {stats:?}"
            );
        }
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    forge_replay_usage::corpus::find_session_files(&[dir.to_owned()]).0
}

/// Marks a file as modified later (a rewrite within one timestamp tick keeps its mtime; a real
/// edit moves it).
fn touch_later(p: &Path, n: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(10 + n))
        .unwrap();
}

fn last_id(p: &Path) -> Option<String> {
    let text = std::fs::read_to_string(p).ok()?;
    text.lines().rev().find_map(|l| {
        serde_json::from_str::<serde_json::Value>(l)
            .ok()?
            .get("id")?
            .as_str()
            .map(str::to_owned)
    })
}

fn some_id(p: &Path, rng: &mut XorShift64) -> Option<String> {
    let text = std::fs::read_to_string(p).ok()?;
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()?
                .get("id")?
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    (!ids.is_empty()).then(|| ids[rng.index(ids.len())].clone())
}

fn assistant(id: &str, parent: &str, n: u64, extra: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-02-0{}T10:00:00.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"more"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-5-5","usage":{{"input":{},"output":7,"cacheRead":{},"cacheWrite":3,"totalTokens":1,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.01}}}},"stopReason":"stop","timestamp":{n}{extra}}}}}"#,
        1 + n % 8,
        100 + n,
        1000 + n * 3
    )
}

fn append(p: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn the_index_changes_nothing_over_random_edits() {
    let (_root, dir, cache) = corpus(14, 60, 7, 0.3);
    // Sub-agent layouts too (fork copies, run sessions, transcripts).
    let fixtures = forge_replay_testkit::fixture("usage/subagents");
    for layout in ["fork", "run", "transcript"] {
        copy_dir(&fixtures.join(layout), &dir.join(format!("sub-{layout}")));
    }

    // First run: nothing indexed yet.
    let (_, stats) = scan_both(&dir, &cache);
    assert_eq!(stats.rebuilt.as_deref(), Some("absent"));
    assert!(
        stats.written && stats.hits == 0 && stats.read > 0,
        "{stats:?}"
    );
    // Second run: every file from the index, nothing written.
    let (_, stats) = scan_both(&dir, &cache);
    assert_eq!(
        (stats.rebuilt.clone(), stats.read, stats.appended),
        (None, 0, 0),
        "{stats:?}"
    );
    assert!(stats.hits > 0 && !stats.written, "{stats:?}");

    let mut rng = XorShift64::new(0x1D3C);
    let mut appended_seen = 0;
    let (mut deltas, mut bases) = (0, 0);
    for step in 0..40u64 {
        let list = files(&dir);
        let p = &list[rng.index(list.len())];
        let op = rng.below(9);
        match op {
            // Append a request after the last entry (the common case).
            0..=2 => {
                if let Some(last) = last_id(p) {
                    append(p, &(assistant(&format!("x{step}"), &last, step, "") + "\n"));
                }
            }
            // Append a branch: a request whose parent is an earlier entry (the active path
            // moves; requests become abandoned).
            3 => {
                if let Some(parent) = some_id(p, &mut rng) {
                    append(
                        p,
                        &(assistant(&format!("b{step}"), &parent, step, "") + "\n"),
                    );
                }
            }
            // Append a 1.3.0 response (the file's release, and so its prices, change).
            4 => {
                if let Some(last) = last_id(p) {
                    let line = assistant(
                        &format!("t{step}"),
                        &last,
                        step,
                        r#","thinkingLevel":"high""#,
                    );
                    append(p, &(line + "\n"));
                }
            }
            // A malformed line, or a line without its newline (completed on a later append).
            5 => append(
                p,
                if rng.below(2) == 0 {
                    "{\"type\":\"message\",\"id\":\n"
                } else {
                    "{\"type\":\"custom\""
                },
            ),
            // Rewrite in place: the same size, other bytes in the middle.
            6 => {
                let mut b = std::fs::read(p).unwrap();
                if let Some(i) = b.iter().rposition(|c| c.is_ascii_digit()).map(|i| i / 2) {
                    if let Some(j) = b[i..].iter().position(|c| c.is_ascii_digit()) {
                        b[i + j] = if b[i + j] == b'1' { b'2' } else { b'1' };
                    }
                }
                std::fs::write(p, &b).unwrap();
                touch_later(p, step);
            }
            // Truncate to an earlier line and add another one (a rewrite, shorter or not).
            7 => {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                let keep: Vec<&str> = text.lines().take(text.lines().count() / 2 + 1).collect();
                let mut t = keep.join("\n") + "\n";
                if let Some(last) = keep.last().and_then(|l| {
                    serde_json::from_str::<serde_json::Value>(l).ok()?["id"]
                        .as_str()
                        .map(str::to_owned)
                }) {
                    t.push_str(&assistant(&format!("r{step}"), &last, step, ""));
                    t.push('\n');
                }
                std::fs::write(p, t).unwrap();
                touch_later(p, step);
            }
            // Delete a file, or add a copy of one under a new name.
            _ => {
                if rng.below(2) == 0 {
                    std::fs::remove_file(p).unwrap();
                } else {
                    let q = p.with_file_name(format!("zz-copy-{step}.jsonl"));
                    std::fs::copy(p, q).unwrap();
                }
            }
        }
        let (_, stats) = scan_both(&dir, &cache);
        assert!(stats.write_error.is_none(), "{stats:?}");
        appended_seen += stats.appended;
        if stats.written {
            if stats.delta {
                deltas += 1;
            } else {
                bases += 1;
            }
        }
        if op <= 4 {
            assert!(
                stats.hits + 1 >= files(&dir).len(),
                "step {step}: {stats:?}"
            );
        }
    }
    assert!(
        appended_seen >= 5,
        "appends were read from their old end: {appended_seen}"
    );
    // Most steps change one file: a delta beside the base; as the delta grows, a new base.
    assert!(deltas >= 10 && bases >= 1, "deltas {deltas}, bases {bases}");
}

#[test]
fn a_damaged_index_is_rebuilt_and_concurrent_runs_leave_a_valid_one() {
    let (_root, dir, cache) = corpus(6, 40, 3, 0.2);
    let (expected, _) = scan_both(&dir, &cache);
    let idx = index_path(&cache, std::slice::from_ref(&dir));
    let good = std::fs::read(&idx).unwrap();
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("flipped byte", {
            let mut b = good.clone();
            let at = b.len() / 2;
            b[at] ^= 0x40;
            b
        }),
        ("truncated", good[..good.len() - 9].to_vec()),
        ("half-written", good[..good.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("not an index", b"{\"hello\": 1}".to_vec()),
        ("another version", {
            let mut b = good.clone();
            // the schema string follows the magic and its length
            b[12] = b'X';
            b
        }),
    ];
    for (what, bytes) in damages {
        std::fs::write(&idx, &bytes).unwrap();
        let (got, stats) = scan_both(&dir, &cache);
        assert_eq!(got, expected, "{what}");
        let why = stats.rebuilt.unwrap_or_default();
        assert!(
            why.starts_with("corrupt") || why.starts_with("written by another version"),
            "{what}: {why}"
        );
        assert!(stats.written, "{what}");
        let (_, again) = scan_both(&dir, &cache);
        assert!(
            again.rebuilt.is_none() && again.read == 0,
            "{what}: {again:?}"
        );
    }
    // A delta beside the base (one file grew); a damaged or stale delta is ignored: the
    // files it held are read again, the results are the same.
    let list = files(&dir);
    let grow = |k: u64| {
        let p = &list[k as usize % list.len()];
        let last = last_id(p).unwrap();
        append(p, &(assistant(&format!("d{k}"), &last, k, "") + "\n"));
    };
    grow(0);
    let (_, stats) = scan_both(&dir, &cache);
    assert!(
        stats.written && stats.delta && stats.appended == 1,
        "{stats:?}"
    );
    let delta = forge_replay_usage::index::delta_path(&idx);
    let good_delta = std::fs::read(&delta).unwrap();
    let (_, stats) = scan_both(&dir, &cache);
    assert!(
        stats.read == 0 && stats.appended == 0 && !stats.written,
        "{stats:?}"
    );
    let mut bad = good_delta.clone();
    let at = bad.len() / 2;
    bad[at] ^= 0x40;
    for (what, bytes) in [
        ("flipped byte", bad),
        ("half-written", good_delta[..good_delta.len() / 2].to_vec()),
    ] {
        std::fs::write(&delta, &bytes).unwrap();
        let (_, stats) = scan_both(&dir, &cache);
        assert!(
            stats.rebuilt.is_none() && stats.written,
            "{what}: {stats:?}"
        );
        // The base holds the grown file as it was: read on from its old end again.
        assert_eq!(stats.hits + 1, list.len(), "{what}: {stats:?}");
        assert_eq!(stats.appended, 1, "{what}: {stats:?}");
    }
    // A damaged base is rebuilt whole, and the delta of the old base removed; a delta naming
    // another base is ignored.
    let mut other = std::fs::read(&idx).unwrap();
    let n = other.len();
    other[n - 1] ^= 1; // the base's checksum
    std::fs::write(&idx, &other).unwrap();
    let (_, stats) = scan_both(&dir, &cache);
    assert!(
        stats.rebuilt.is_some() && stats.written && !stats.delta,
        "{stats:?}"
    );
    assert!(!delta.exists(), "a new base removes the old delta");
    grow(1);
    std::fs::write(&delta, &good_delta).unwrap();
    let (_, stats) = scan_both(&dir, &cache);
    assert_eq!(
        (stats.hits + 1, stats.appended),
        (list.len(), 1),
        "{stats:?}"
    );

    // Concurrent runs on one index, while files grow.
    let list = files(&dir);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (dir, cache, list) = (&dir, &cache, &list);
            s.spawn(move || {
                for k in 0..3u64 {
                    if t == 0 {
                        let p = &list[k as usize % list.len()];
                        if let Some(last) = last_id(p) {
                            append(p, &(assistant(&format!("c{k}"), &last, k, "") + "\n"));
                        }
                    }
                    let (c, stats) = Corpus::scan_indexed(
                        std::slice::from_ref(dir),
                        &CorpusPricing::Detected,
                        cache,
                    );
                    assert!(stats.write_error.is_none(), "{stats:?}");
                    assert!(!c.files.is_empty());
                }
            });
        }
    });
    let (_, stats) = scan_both(&dir, &cache);
    assert!(stats.rebuilt.is_none(), "{stats:?}");
}

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
