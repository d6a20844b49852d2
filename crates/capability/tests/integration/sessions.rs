//! Pi-format session fixtures (`fixtures/capabilities/sessions/`, written by `generate.py`) for
//! each projection rule, in native and fallback presentation. Pi's own projection comes from the
//! session crate (verified against real Pi); the capability step must follow spec §2–§5.

use forge_replay_capability::context::{
    project_at, CapabilityContext, ContextError, Options, Replayer,
};
use forge_replay_capability::projection::Presentation;
use forge_replay_session::Session;
use serde_json::{json, Value};

pub fn fixture(name: &str) -> Session {
    let path = forge_replay_testkit::fixture(format!("capabilities/sessions/{name}.jsonl"))
        .display()
        .to_string();
    Session::open(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .0
}

pub fn at(name: &str, leaf: Option<&str>, native: bool) -> Result<CapabilityContext, ContextError> {
    let s = fixture(name);
    let leaf = s.resolve_leaf(leaf).unwrap();
    project_at(&s, leaf, Options::new(Presentation::from_native(native)))
}

/// A compact rendering of messages: `role:text` with capability updates spelled out.
pub fn brief(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or("?");
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(b) => b
                    .iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(""),
                _ => String::new(),
            };
            match m.get("sections") {
                Some(sec) if role == "system" && text.is_empty() => {
                    format!("system:{}", forge_replay_model::json::stringify(sec))
                }
                _ => format!("{role}:{text}"),
            }
        })
        .collect()
}

/// The brief form of a capability update with these sections, in either presentation.
fn upd(sections: &[(&str, Option<&str>)], native: bool) -> String {
    if native {
        let mut m = serde_json::Map::new();
        for (id, text) in sections {
            m.insert(
                format!("forge-capability-{id}"),
                text.map_or(Value::Null, Value::from),
            );
        }
        format!(
            "system:{}",
            forge_replay_model::json::stringify(&Value::Object(m))
        )
    } else {
        let parts: Vec<String> = sections
            .iter()
            .map(|(id, text)| match text {
                Some(t) => {
                    format!("Updated system prompt section \"forge-capability-{id}\":\n\n{t}")
                }
                None => format!("Removed system prompt section \"forge-capability-{id}\"."),
            })
            .collect();
        format!("user:[pi-forge capability update]\n{}", parts.join("\n\n"))
    }
}

const SYS: &str = "system:{\"preamble\":\"You are Pi.\"}";

fn check(name: &str, expected: impl Fn(bool) -> Vec<String>) {
    for native in [true, false] {
        let c = at(name, None, native).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(
            brief(&c.messages),
            expected(native),
            "{name} native={native}"
        );
    }
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn idle_on_off_places_updates_at_anchors() {
    check("idle-on-off", |n| {
        vec![
            s(SYS),
            s("user:Review the diff."),
            s("assistant:Looking."),
            upd(
                &[("act-review", Some("List findings before fixing anything."))],
                n,
            ),
            s("user:Go on."),
            s("assistant:Findings: none."),
            upd(&[("act-review", None)], n),
            s("user:Thanks."),
            s("assistant:Done."),
        ]
    });
    // Update timestamps are the anchor entries' ISO timestamps (Date.parse).
    let c = at("idle-on-off", None, true).unwrap();
    assert_eq!(ts(&c.messages[3]), json!(1_789_898_406_000u64));
    assert_eq!(c.through_event_id.as_deref(), Some("ev-off"));
    // Native update shape, key order included.
    assert_eq!(
        forge_replay_model::json::stringify(&c.messages[3]),
        r#"{"role":"system","content":"","sections":{"forge-capability-act-review":"List findings before fixing anything."},"timestamp":1789898406000}"#
    );
    let c = at("idle-on-off", None, false).unwrap();
    assert_eq!(
        forge_replay_model::json::stringify(&c.messages[6]),
        r#"{"role":"user","content":"[pi-forge capability update]\nRemoved system prompt section \"forge-capability-act-review\".","timestamp":1789898411000}"#
    );
}

#[test]
fn at_an_inner_leaf_the_later_events_do_not_exist_yet() {
    for native in [true, false] {
        // Leaf = the first anchor entry: the update is the last message.
        let c = at("idle-on-off", Some("e0000006"), native).unwrap();
        assert_eq!(
            brief(&c.messages).last().unwrap(),
            &upd(
                &[("act-review", Some("List findings before fixing anything."))],
                native
            )
        );
        // Leaf = the event entry before its anchor: pending replay at the end, createdAt timestamp.
        let c = at("idle-on-off", Some("e0000005"), native).unwrap();
        assert_eq!(c.messages.len(), 4);
        assert_eq!(ts(&c.messages[3]), json!(1_789_898_405_000u64));
    }
}

#[test]
fn unanchored_event_is_replayed_at_the_end() {
    check("pending-tail", |n| {
        vec![
            s(SYS),
            s("user:Hello."),
            s("assistant:Hi."),
            s("user:Next question."),
            upd(&[("act-1", Some("Always answer in French."))], n),
        ]
    });
    let c = at("pending-tail", None, true).unwrap();
    assert_eq!(ts(c.messages.last().unwrap()), json!(1_789_898_404_000u64));
}

#[test]
fn mid_run_anchor_follows_the_tool_results() {
    check("mid-run-tool-batch", |n| {
        vec![
            s(SYS),
            s("user:Read a.txt."),
            s("assistant:Reading."),
            s("toolResult:contents"),
            upd(&[("act-agent", Some("Prefer small diffs."))], n),
            s("assistant:Done reading."),
        ]
    });
}

#[test]
fn compaction_checkpoint_restates_state_after_the_system_message() {
    check("compaction-checkpoint", |n| {
        vec![
            s(SYS),
            upd(&[("act-1", Some("Rule 1")), ("act-2", Some("Rule 2"))], n),
            s("compactionSummary:"),
            s("user:Keep this."),
            s("assistant:Ok 2."),
            upd(&[("act-3", Some("Rule 3"))], n),
            s("user:After compaction."),
        ]
    });
    let c = at("compaction-checkpoint", None, true).unwrap();
    // Checkpoint timestamp = createdAt of the checkpoint event (ev-2).
    assert_eq!(ts(&c.messages[1]), json!(1_789_898_407_000u64));
    assert_eq!(c.history.checkpoint_through.as_deref(), Some("ev-2"));
}

#[test]
fn checkpoint_with_no_text_and_no_backfill() {
    check("compaction-no-text", |_| {
        vec![s(SYS), s("compactionSummary:"), s("user:After.")]
    });
    let c = at("compaction-no-text", None, true).unwrap();
    assert!(c.history.pending_events().is_empty());
}

#[test]
fn tool_only_capability_projects_no_text() {
    check("tool-only", |_| {
        vec![
            s(SYS),
            s("user:Hi."),
            s("assistant:Listing."),
            s("user:Bye."),
        ]
    });
}

#[test]
fn reset_duplicate_anchors_and_identical_replays() {
    check("reset-and-duplicates", |n| {
        vec![
            s(SYS),
            s("user:Hi."),
            upd(&[("act-a", Some("Rule A"))], n),
            upd(&[("act-b", Some("Rule B"))], n),
            s("assistant:Ok."),
            upd(&[("act-a", None), ("act-b", None)], n),
            s("user:Again."),
        ]
    });
}

#[test]
fn legacy_custom_message_carrier_acts_as_marker() {
    check("legacy-carrier", |n| {
        vec![
            s(SYS),
            s("user:Hi."),
            upd(&[("act-1", Some("Legacy rule"))], n),
            s("assistant:Ok."),
        ]
    });
}

#[test]
fn prefix_anchors_keep_the_system_head_first() {
    check("idle-prefix-anchors", |n| {
        vec![
            s(SYS),
            upd(&[("act-a", Some("Rule A"))], n),
            upd(&[("act-b", Some("Rule B"))], n),
            s("user:First prompt."),
            s("assistant:Ok."),
        ]
    });
}

#[test]
fn branches_are_isolated() {
    check("branches", |n| {
        vec![
            s(SYS),
            s("user:Question."),
            upd(&[("act-right", Some("Right rule"))], n),
            s("assistant:Right answer."),
        ]
    });
    for native in [true, false] {
        let c = at("branches", Some("e0000005"), native).unwrap();
        assert_eq!(
            brief(&c.messages),
            vec![
                s(SYS),
                s("user:Question."),
                upd(&[("act-left", Some("Left rule"))], native),
                s("assistant:Left answer.")
            ]
        );
    }
}

#[test]
fn untrusted_projects_get_no_capability_text() {
    let s = fixture("idle-on-off");
    let leaf = s.default_leaf();
    let c = project_at(
        &s,
        leaf,
        Options {
            presentation: Presentation::Native,
            trusted: false,
        },
    )
    .unwrap();
    assert_eq!(c.messages, s.context(leaf).unwrap().messages);
    let s = fixture("legacy-carrier");
    let leaf = s.default_leaf();
    let c = project_at(
        &s,
        leaf,
        Options {
            presentation: Presentation::Native,
            trusted: false,
        },
    )
    .unwrap();
    assert_eq!(c.messages.len(), 3);
}

fn failure(name: &str) -> (String, Option<usize>) {
    for native in [true, false] {
        let _ = at(name, None, native);
    }
    match at(name, None, true) {
        Err(ContextError::Capability(f)) => (f.message, f.location.and_then(|l| l.line)),
        other => panic!("{name}: expected a capability failure, got {other:?}"),
    }
}

#[test]
fn corrupt_histories_fail_closed_with_forge_text_and_line() {
    assert_eq!(
        failure("corrupt-fingerprint"),
        (
            s("Invalid Forge capability history: Snapshot fingerprint mismatch"),
            Some(6)
        )
    );
    assert_eq!(
        failure("corrupt-unknown-cursor"),
        (
            s("Invalid Forge capability delivery anchor: unknown or future cursor \"ev-future\""),
            Some(6)
        )
    );
    assert_eq!(failure("corrupt-out-of-order"), (s("Invalid Forge capability delivery anchor: out-of-order cursor \"ev-1\" (index 0 < 1)"), Some(8)));
    assert_eq!(failure("corrupt-lifecycle"), (s("Invalid Forge capability event 1: Lifecycle can only deactivate capability with binding: act-1"), Some(6)));
    assert_eq!(failure("legacy-state"), (s("This session contains legacy pre-capability state. Start a new session; old capability state is not restored."), Some(6)));
    assert_eq!(failure("corrupt-conflicting-duplicate"), (s("Invalid Forge capability event 1: Duplicate eventId with conflicting payload: ev-1"), Some(6)));
    // A legacy carrier is lenient while reading but strict as a projected marker.
    assert_eq!(
        failure("corrupt-legacy-carrier"),
        (
            s("Invalid capability delivery marker: schemaVersion must be 1, got 2"),
            Some(6)
        )
    );
    // Before the corrupt entry the branch is fine.
    assert!(at("corrupt-fingerprint", Some("e0000004"), true).is_ok());
}

#[test]
fn replayer_matches_project_at_on_every_entry() {
    for name in [
        "idle-on-off",
        "pending-tail",
        "mid-run-tool-batch",
        "compaction-checkpoint",
        "compaction-no-text",
        "tool-only",
        "reset-and-duplicates",
        "legacy-carrier",
        "idle-prefix-anchors",
        "branches",
        "corrupt-fingerprint",
        "corrupt-out-of-order",
    ] {
        let session = fixture(name);
        for native in [true, false] {
            let opts = Options::new(Presentation::from_native(native));
            let mut r = Replayer::new(&session);
            // File order visits both branches of `branches` (a non-child push restarts the path).
            for i in 0..session.entries().len() {
                r.push(i).unwrap();
                let a = r
                    .project(opts)
                    .map(|c| c.messages)
                    .map_err(|e| e.to_string());
                let b = project_at(&session, Some(i), opts)
                    .map(|c| c.messages)
                    .map_err(|e| e.to_string());
                assert_eq!(a, b, "{name} entry {i} native={native}");
                // The borrowed projection (what replay builds requests from) is the same
                // context, and passes Pi's messages through without a copy.
                let borrowed = r.project_borrowed(opts).map_err(|e| e.to_string());
                let c = borrowed
                    .as_ref()
                    .map(|c| c.messages.iter().map(|m| m.as_ref().clone()).collect())
                    .map_err(Clone::clone);
                assert_eq!(c, b, "{name} entry {i} native={native} (borrowed)");
                if let Ok(ctx) = &borrowed {
                    let pi = r.context().snapshot().unwrap().messages;
                    let shared = ctx
                        .messages
                        .iter()
                        .filter(|m| matches!(m, std::borrow::Cow::Borrowed(_)))
                        .count();
                    // Every message of Pi's projection the capability step keeps is borrowed
                    // (markers are dropped, updates are made).
                    let kept = pi
                        .iter()
                        .filter(|m| !forge_replay_capability::projection::is_marker(m))
                        .count();
                    assert_eq!(shared, kept, "{name} entry {i} native={native}: copies");
                }
            }
        }
    }
}

fn ts(m: &Value) -> Value {
    m["timestamp"].clone()
}

/// Every Pi fixture of the session crate, at every entry: sessions without capability entries
/// project to exactly Pi's messages; the one with a placeholder fingerprint fails closed.
#[test]
fn pi_fixtures_without_capabilities_are_unchanged() {
    let root = forge_replay_testkit::fixtures_root();
    let mut seen = 0;
    for group in ["sessions", "agent"] {
        let Ok(dirs) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for dir in dirs.flatten() {
            let path = dir.path().join("session.jsonl");
            let Ok((session, _)) = Session::open(&path) else {
                continue;
            };
            seen += 1;
            let has_forge = std::fs::read_to_string(&path)
                .unwrap()
                .contains("pi-forge-capability");
            for i in 0..session.entries().len() {
                for native in [true, false] {
                    let r = project_at(
                        &session,
                        Some(i),
                        Options::new(Presentation::from_native(native)),
                    );
                    match r {
                        Ok(c) if !has_forge => assert_eq!(
                            c.messages,
                            session.context(Some(i)).unwrap().messages,
                            "{path:?} {i}"
                        ),
                        Ok(_) => {}
                        Err(ContextError::Capability(f)) => {
                            assert!(has_forge, "{path:?}: {f:?}");
                            assert!(f.location.is_some());
                        }
                        Err(e) => panic!("{path:?} {i}: {e}"),
                    }
                }
            }
        }
    }
    assert!(seen >= 8, "session fixtures missing ({seen})");
}

/// `status_inputs_at`, which reads Pi's messages as a stream, gives what `project_at` gives the
/// status view (history, declared tools) or the same error, on every leaf of every capability
/// fixture and session fixture, in both presentations, trusted or not.
#[test]
fn status_inputs_equal_the_full_projection_on_every_leaf() {
    use forge_replay_capability::context::status_inputs_at;
    use forge_replay_capability::status::current_tools;
    let root = forge_replay_testkit::repo_root().display().to_string();
    let mut paths: Vec<std::path::PathBuf> =
        std::fs::read_dir(format!("{root}/fixtures/capabilities/sessions"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
    for d in std::fs::read_dir(format!("{root}/fixtures/sessions")).unwrap() {
        let p = d.unwrap().path().join("session.jsonl");
        if p.is_file() {
            paths.push(p);
        }
    }
    paths.sort();
    let (mut compared, mut failures) = (0, 0);
    for path in &paths {
        let (s, _) = Session::open(path).unwrap();
        let leaves: Vec<Option<usize>> = s.tree().leaves().map(Some).chain([None]).collect();
        for leaf in leaves {
            for native in [true, false] {
                for trusted in [true, false] {
                    let options = Options {
                        presentation: Presentation::from_native(native),
                        trusted,
                    };
                    let full = project_at(&s, leaf, options);
                    let streamed = status_inputs_at(&s, leaf, options);
                    let at = format!(
                        "{} at {leaf:?} native {native} trusted {trusted}",
                        path.display()
                    );
                    match (full, streamed) {
                        (Ok(f), Ok(st)) => {
                            assert_eq!(
                                format!("{:?}", f.history),
                                format!("{:?}", st.history),
                                "history, {at}"
                            );
                            assert_eq!(
                                current_tools(&f.messages),
                                st.transcript_tools,
                                "tools, {at}"
                            );
                        }
                        (Err(a), Err(b)) => {
                            failures += 1;
                            assert_eq!(
                                forge_replay_model::error::chain(&a),
                                forge_replay_model::error::chain(&b),
                                "error, {at}"
                            );
                            assert_eq!(format!("{a:?}"), format!("{b:?}"), "error detail, {at}");
                        }
                        (a, b) => panic!(
                            "{at}: project_at {:?}, status_inputs_at {:?}",
                            a.err(),
                            b.err()
                        ),
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "only {compared} cases");
    assert!(failures > 0, "no failing branch among the fixtures");
}
