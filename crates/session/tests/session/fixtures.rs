//! Every case of every `fixtures/{sessions,agent}/*/expected.json` (written by tools/pi-oracle
//! from the real `@earendil-works/pi-coding-agent@0.87.1`): `buildSessionContext(...).messages`,
//! `convertToLlm(...)`, model and thinking level must equal ours, as JSON and as
//! `JSON.stringify` bytes (key order included).

use std::path::{Path, PathBuf};

use forge_replay_model::json;
use forge_replay_session::{llm, Session};
use serde_json::Value;

fn fixture_dirs() -> Vec<PathBuf> {
    let root = forge_replay_testkit::fixtures_root();
    let mut dirs = Vec::new();
    for group in ["sessions", "agent"] {
        let Ok(rd) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for e in rd.flatten() {
            if e.path().join("expected.json").is_file() && e.path().join("session.jsonl").is_file()
            {
                dirs.push(e.path());
            }
        }
    }
    dirs.sort();
    dirs
}

fn load_expected(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    json::parse(&text).unwrap()
}

/// Compares two values; on difference, names the first differing message.
fn assert_same(what: &str, ours: &Value, theirs: &Value) -> Result<(), String> {
    if ours == theirs && json::stringify(ours) == json::stringify(theirs) {
        return Ok(());
    }
    if let (Some(a), Some(b)) = (ours.as_array(), theirs.as_array()) {
        if a.len() != b.len() {
            return Err(format!(
                "{what}: {} messages, expected {}",
                a.len(),
                b.len()
            ));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let (sx, sy) = (json::stringify(x), json::stringify(y));
            if sx != sy {
                return Err(format!("{what}[{i}]:\n  ours:     {sx}\n  expected: {sy}"));
            }
        }
    }
    Err(format!(
        "{what}:\n  ours:     {}\n  expected: {}",
        json::stringify(ours),
        json::stringify(theirs)
    ))
}

#[test]
fn fixtures_exist() {
    let n = fixture_dirs()
        .iter()
        .filter(|d| d.parent().is_some_and(|p| p.ends_with("sessions")))
        .count();
    assert!(n >= 8, "expected at least 8 fixtures/sessions/*, found {n}");
}

#[test]
fn projections_equal_pi_on_every_case() {
    let mut failures = Vec::new();
    let mut cases = 0;
    for dir in fixture_dirs() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let (session, _diags) = Session::open(dir.join("session.jsonl")).unwrap();
        let expected = load_expected(&dir);
        let default_id = session
            .default_leaf()
            .and_then(|l| session.entry(l).id_value())
            .unwrap_or(Value::Null);
        if let Some(d) = expected.get("defaultLeafId") {
            if *d != default_id {
                failures.push(format!("{name}: default leaf {default_id}, expected {d}"));
            }
        }
        for case in expected["cases"].as_array().unwrap() {
            cases += 1;
            let leaf_id = case["leafId"].as_str().unwrap();
            let kind = case["kind"].as_str().unwrap_or("?");
            let leaf = if kind == "default" {
                session.default_leaf()
            } else {
                Some(
                    session
                        .find(leaf_id)
                        .unwrap_or_else(|| panic!("{name}: no entry {leaf_id}")),
                )
            };
            let p = session.context(leaf).unwrap();
            let tag = format!("{name} @ {leaf_id} ({kind})");
            let ours_messages = Value::Array(p.messages.clone());
            let ours_llm = Value::Array(llm::convert_to_llm(&p.messages));
            for (what, ours, theirs) in [
                ("messages", &ours_messages, &case["messages"]),
                ("llm", &ours_llm, &case["llm"]),
                ("model", &p.model, &case["model"]),
            ] {
                if let Err(e) = assert_same(&format!("{tag} {what}"), ours, theirs) {
                    failures.push(e);
                }
            }
            if p.thinking_level.as_ref() != case.get("thinkingLevel") {
                failures.push(format!(
                    "{tag} thinkingLevel: {:?}, expected {:?}",
                    p.thinking_level,
                    case.get("thinkingLevel")
                ));
            }
        }
    }
    assert!(cases > 0, "no cases found");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A builder that holds its messages, or one that builds them on demand.
fn builder(session: &Session, on_demand: bool) -> forge_replay_session::ContextBuilder<'_> {
    let b = session.builder();
    if on_demand {
        b.on_demand()
    } else {
        b
    }
}

/// The incremental builder gives the same projection as projecting each entry from scratch,
/// whether it holds its messages or builds them on demand.
#[test]
fn builder_matches_full_projection_on_every_entry() {
    for dir in fixture_dirs() {
        let (session, _) = Session::open(dir.join("session.jsonl")).unwrap();
        let full: Vec<_> = (0..session.entry_count())
            .map(|i| session.context(Some(i)).unwrap())
            .collect();
        for on_demand in [false, true] {
            for leaf in session.tree().leaves() {
                let mut b = builder(&session, on_demand);
                for i in session.path_to(leaf) {
                    b.push(i).unwrap();
                    let at = session.entry(i).line();
                    let snap = b.snapshot().unwrap();
                    assert_eq!(snap, full[i], "{} at line {at}", dir.display());
                    // The borrowed snapshot is the same projection; a builder that holds its
                    // messages lends them, an on-demand one builds them.
                    let lent = b.snapshot_borrowed().unwrap();
                    let borrowed = lent
                        .messages
                        .iter()
                        .filter(|m| matches!(m, std::borrow::Cow::Borrowed(_)))
                        .count();
                    let expect = if on_demand { 0 } else { lent.messages.len() };
                    assert_eq!(borrowed, expect, "{} at line {at}", dir.display());
                    let lent = forge_replay_session::Projection {
                        leaf: lent.leaf,
                        leaf_id: lent.leaf_id,
                        messages: lent.messages.into_iter().map(|m| m.into_owned()).collect(),
                        entries: lent.entries,
                        model: lent.model,
                        thinking_level: lent.thinking_level,
                    };
                    assert_eq!(lent, snap, "{} at line {at} (borrowed)", dir.display());
                    // Slot by slot, the messages are the projection's.
                    for (k, ce) in snap.entries.iter().enumerate() {
                        let (index, messages) = b.slot(k).unwrap();
                        assert_eq!(index, ce.index);
                        assert_eq!(&messages[..], &snap.messages[ce.messages.clone()]);
                    }
                }
            }
            // Jumping between branches restarts cleanly (pushing entries in file order jumps
            // at every branch point).
            let mut b = builder(&session, on_demand);
            for (i, f) in full.iter().enumerate() {
                b.push(i).unwrap();
                if session.tree().child_count(i) != 1 {
                    assert_eq!(&b.snapshot().unwrap(), f);
                }
            }
        }
    }
}

/// A builder that takes pushes back walks the whole tree depth first with one path: after every
/// push it equals projecting that entry from scratch, and after every pop it equals what it
/// was before the push (holding its messages or building them on demand).
#[test]
fn builder_pop_restores_the_context_on_every_branch() {
    for dir in fixture_dirs() {
        let (session, _) = Session::open(dir.join("session.jsonl")).unwrap();
        let tree = session.tree();
        for on_demand in [false, true] {
            let mut b = builder(&session, on_demand).with_undo();
            // (entry, entered)
            let mut stack: Vec<(usize, bool)> = tree.roots().map(|r| (r, false)).collect();
            let mut before: Vec<forge_replay_session::Projection> = Vec::new();
            while let Some((i, entered)) = stack.pop() {
                if entered {
                    b.pop();
                    let was = before.pop().unwrap();
                    assert_eq!(
                        b.snapshot().unwrap(),
                        was,
                        "{} after popping {i}",
                        dir.display()
                    );
                    continue;
                }
                before.push(b.snapshot().unwrap());
                b.push(i).unwrap();
                assert_eq!(
                    b.snapshot().unwrap(),
                    session.context(Some(i)).unwrap(),
                    "{} at entry {i}",
                    dir.display()
                );
                stack.push((i, true));
                stack.extend(tree.children(i).map(|c| (c, false)));
            }
        }
    }
}

/// Writing entries back gives the same JSON (`JSON.stringify` bytes of what Pi parsed).
#[test]
fn entries_round_trip() {
    for dir in fixture_dirs() {
        let text = std::fs::read_to_string(dir.join("session.jsonl")).unwrap();
        let (session, _) = Session::open(dir.join("session.jsonl")).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        let migrated = session.header().version() != json::parse(lines[0]).unwrap().get("version");
        for e in session.entries() {
            let v = e.value().unwrap();
            if !migrated {
                let original = lines[e.line() as usize - 1];
                assert_eq!(e.raw().unwrap(), original);
            }
            assert_eq!(json::parse(&json::stringify(&v)).unwrap(), v);
        }
    }
}

/// `message_count` (heads only, used by `forge-replay tree`) agrees with the full projection.
#[test]
fn message_counts_match_projection() {
    for dir in fixture_dirs() {
        let (session, _) = Session::open(dir.join("session.jsonl")).unwrap();
        for i in 0..session.entries().len() {
            assert_eq!(
                forge_replay_session::project::message_count(&session, i),
                session.context(Some(i)).unwrap().messages.len(),
                "{} at line {}",
                dir.display(),
                session.entry(i).line()
            );
        }
    }
}
