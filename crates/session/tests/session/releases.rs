//! Release detection on the real agent sessions of every supported release: each session written
//! by real Pi 0.87.1 (`fixtures/agent`), 1.3.0 and 1.6.0 (`fixtures/releases/<release>/agent`)
//! `AgentSession` runs is detected as the release that wrote it, unless its content holds nothing
//! that release writes and the one before it does not (then it is detected as the one before,
//! and the test proves there was nothing to tell them apart by). The reader knows every field
//! 1.6 writes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use forge_replay_model::release::PiRelease;
use forge_replay_session::release::{detect, Verdict};
use forge_replay_session::Session;
use serde_json::Value;

fn root() -> PathBuf {
    forge_replay_testkit::fixtures_root()
}

fn agent_dir(release: PiRelease) -> PathBuf {
    match release {
        PiRelease::V0_87_1 => root().join("agent"),
        r => root().join(format!("releases/{}/agent", r.version())),
    }
}

/// `(name, session.jsonl)` of every agent run of `release`.
fn sessions(release: PiRelease) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(agent_dir(release))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("session.jsonl").is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                p.join("session.jsonl"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every `(entry type or message role, field path)` a file holds (array indices dropped).
fn field_paths(path: &Path) -> BTreeSet<String> {
    fn walk(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = format!("{prefix}.{k}");
                    out.insert(p.clone());
                    walk(x, &p, out);
                }
            }
            Value::Array(a) => {
                for x in a {
                    walk(x, &format!("{prefix}[]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let mut kind = v["type"].as_str().unwrap_or("?").to_string();
        if let Some(role) = v["message"]["role"].as_str() {
            kind = format!("{kind}/{role}");
        }
        walk(&v, &kind, &mut out);
    }
    out
}

/// Fields a 1.6.0 run records that the 1.3.0 runs do not, although pi-ai 1.3.0 writes them too:
/// the 1.6 runs' fetch stub answers Anthropic with a message id (threads need it), and pi-ai 1.3.0
/// records it as well (`dist/api/anthropic-messages.js`: `output.responseId = event.message.id`).
const HARNESS_ONLY: &[&str] = &["message/assistant.message.responseId"];

#[test]
fn every_real_agent_session_is_detected_as_the_release_that_wrote_it() {
    let mut failures = Vec::new();
    let mut indistinguishable = Vec::new();
    let mut detected = [0usize; 3];
    for (ri, release) in PiRelease::ALL.into_iter().enumerate() {
        let runs = sessions(release);
        assert!(runs.len() >= 14, "{release}: {} sessions", runs.len());
        // What the release before writes, over all its runs.
        let before: Option<BTreeSet<String>> = ri.checked_sub(1).map(|i| {
            sessions(PiRelease::ALL[i])
                .iter()
                .flat_map(|(_, p)| field_paths(p))
                .chain(HARNESS_ONLY.iter().map(|s| s.to_string()))
                .collect()
        });
        for (name, path) in runs {
            let (session, _) = Session::open(&path).unwrap();
            let verdict = detect(&session).verdict();
            if verdict == Verdict::Release(release) {
                detected[ri] += 1;
                continue;
            }
            // Not detected as its release: allowed only as the release before, for a file that
            // holds no field the earlier release's runs lack.
            let (Some(before), true) = (
                &before,
                verdict == Verdict::Release(PiRelease::ALL[ri.saturating_sub(1)]),
            ) else {
                failures.push(format!("{release} {name}: detected as {verdict:?}"));
                continue;
            };
            let new: Vec<String> = field_paths(&path).difference(before).cloned().collect();
            if new.is_empty() {
                indistinguishable.push(format!("{release} {name}"));
            } else {
                failures.push(format!(
                    "{release} {name}: detected as {verdict:?}, but it holds {new:?}, which no {} run writes",
                    PiRelease::ALL[ri - 1]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "detected as their release: {detected:?}; no marker in the content: {indistinguishable:?}"
    );
    // 0.87.1 and 1.3.0 are always told apart (1.3 records the thinking level on every response);
    // 1.6.0 where its runs wrote a marker (compaction usage, a thread fallback, /tree navigation
    // after a thinking change).
    assert_eq!(detected[0], sessions(PiRelease::V0_87_1).len());
    assert_eq!(detected[1], sessions(PiRelease::V1_3_0).len());
    assert!(detected[2] >= 6, "{detected:?}");
}

/// The reader reports no field of a real 1.6.0 session as unknown (`check` prints the reader's
/// diagnostics), and no `thinking_level_change` 1.6 re-records after navigation as anything else.
#[test]
fn the_reader_knows_every_field_of_the_real_1_6_0_sessions() {
    for (name, path) in sessions(PiRelease::V1_6_0) {
        let (_, diags) = Session::open(&path).unwrap();
        let unknown: Vec<String> = diags
            .iter()
            .filter(|d| d.code.starts_with("unknown"))
            .map(|d| format!("{:?} {}", d.line, d.message))
            .collect();
        assert!(unknown.is_empty(), "{name}: {unknown:?}");
    }
}

fn session(lines: &[String]) -> Session {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
    );
    for l in lines {
        text.push('\n');
        text.push_str(l);
    }
    text.push('\n');
    Session::from_reader(text.as_bytes(), Path::new("s.jsonl"))
        .unwrap()
        .0
}

fn entry(ty: &str, id: &str, parent: Option<&str>, rest: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"{ty}","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z"{rest}}}"#
    )
}

fn user(id: &str, parent: &str) -> String {
    entry(
        "message",
        id,
        Some(parent),
        r#","message":{"role":"user","content":"hi","timestamp":1}"#,
    )
}

fn assistant(id: &str, parent: &str, level: &str) -> String {
    entry(
        "message",
        id,
        Some(parent),
        &format!(
            r#","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"api":"openai-responses","provider":"openai","model":"gpt-5.5","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":2,"thinkingLevel":"{level}","durationMs":1}}"#
        ),
    )
}

fn level(id: &str, parent: &str, level: &str) -> String {
    entry(
        "thinking_level_change",
        id,
        Some(parent),
        &format!(r#","thinkingLevel":"{level}""#),
    )
}

/// `responses-tree-thinking` in small: `low`, a turn, `high`, a turn, then navigation back to the
/// first turn and a prompt. 1.6 writes `high` on the new branch before the prompt; 1.3 does not.
fn navigation(rerecorded: bool) -> Vec<String> {
    let mut l = vec![
        level("t1", "m", "low"),
        user("u1", "t1"),
        assistant("a1", "u1", "low"),
        level("t2", "a1", "high"),
        user("u2", "t2"),
        assistant("a2", "u2", "high"),
    ];
    if rerecorded {
        l.push(level("t3", "a1", "high"));
        l.push(user("u3", "t3"));
    } else {
        l.push(user("u3", "a1"));
    }
    l.push(assistant("a3", "u3", "high"));
    l.insert(
        0,
        entry(
            "model_change",
            "m",
            None,
            r#","provider":"openai","modelId":"gpt-5.5""#,
        ),
    );
    l
}

#[test]
fn a_thinking_level_re_recorded_after_navigation_is_1_6() {
    let ev = detect(&session(&navigation(true)));
    assert_eq!(ev.verdict(), Verdict::Release(PiRelease::V1_6_0));
    let found = ev
        .found
        .iter()
        .find(|f| f.marker.name == "thinking-level-on-branch")
        .expect("marker");
    assert_eq!(found.first_line, 9);
    assert_eq!(
        detect(&session(&navigation(false))).verdict(),
        Verdict::Release(PiRelease::V1_3_0)
    );
    // A change to another level after navigation is what every release writes.
    let mut l = navigation(true);
    l[7] = level("t3", "a1", "medium");
    assert_eq!(
        detect(&session(&l)).verdict(),
        Verdict::Release(PiRelease::V1_3_0)
    );
    // The same level as the branch's: nothing to re-record.
    let mut l = navigation(true);
    l[7] = level("t3", "a2", "high");
    assert_eq!(
        detect(&session(&l)).verdict(),
        Verdict::Release(PiRelease::V1_3_0)
    );
    // Without a user prompt right after it, it is not `_recordSelection`'s.
    let mut l = navigation(true);
    l[8] = assistant("u3", "t3", "high");
    assert_eq!(
        detect(&session(&l)).verdict(),
        Verdict::Release(PiRelease::V1_3_0)
    );
    // In a session whose responses do not record their level (0.87.1), the pattern is no
    // evidence of a later release.
    let l: Vec<String> = navigation(true)
        .into_iter()
        .map(|x| {
            x.replace(r#","thinkingLevel":"low","durationMs":1"#, "")
                .replace(r#","thinkingLevel":"high","durationMs":1"#, "")
        })
        .collect();
    assert_eq!(
        detect(&session(&l)).verdict(),
        Verdict::Release(PiRelease::V0_87_1)
    );
}

#[test]
fn summary_usage_with_total_from_provider_is_1_6() {
    let mut l = navigation(false);
    l.push(entry(
        "compaction",
        "c",
        Some("a3"),
        r#","summary":"s","firstKeptEntryId":"u3","tokensBefore":10,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}}"#,
    ));
    let s = session(&l);
    let ev = detect(&s);
    assert_eq!(ev.verdict(), Verdict::Release(PiRelease::V1_6_0));
    assert!(
        ev.describe()
            .contains("`totalFromProvider` (1×, first on line 11)"),
        "{}",
        ev.describe()
    );
    // A summary that only mentions it is not.
    let mut l = navigation(false);
    l.push(entry(
        "branch_summary",
        "b",
        Some("a3"),
        r#","fromId":"a1","summary":"\"totalFromProvider\": true""#,
    ));
    assert_eq!(
        detect(&session(&l)).verdict(),
        Verdict::Release(PiRelease::V1_3_0)
    );
}
