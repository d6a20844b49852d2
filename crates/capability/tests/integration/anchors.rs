//! [T-ANCHORS], [T-ANCHOR-RECOVERY]: anchor data, alignment, materialization, history reading.

use forge_replay_capability::anchor::{
    anchor_message, context_alignment, context_matches, has_pending_tool_calls, is_anchor_entry,
    materialize_anchors, ContextEntry, NO_UNIQUE_ALIGNMENT,
};
use forge_replay_capability::event::Source;
use forge_replay_capability::history::{validate_anchor_data, HistoryBuilder};
use serde_json::{json, Value};

use crate::{activate, deactivate};

const P: &str = "Invalid capability anchor metadata: ";

#[test]
fn anchor_data_validation_strings() {
    let cases: Vec<(Value, String)> = vec![
        (json!(null), format!("{P}data must be a non-null object")),
        (json!([]), format!("{P}data must be a non-null object")),
        (
            json!({"schemaVersion":1,"throughEventId":"e","x":1}),
            format!("{P}unexpected extra field \"x\""),
        ),
        (
            json!({"throughEventId":"e"}),
            format!("{P}missing required field schemaVersion"),
        ),
        (
            json!({"schemaVersion":1}),
            format!("{P}missing required field throughEventId"),
        ),
        (
            json!({"schemaVersion":9,"throughEventId":"e"}),
            format!("{P}unsupported schemaVersion 9, expected 1"),
        ),
        (
            json!({"schemaVersion":"1","throughEventId":"e"}),
            format!("{P}unsupported schemaVersion 1, expected 1"),
        ),
        (
            json!({"schemaVersion":1,"throughEventId":""}),
            format!("{P}throughEventId must be a non-empty string"),
        ),
        (
            json!({"schemaVersion":1,"throughEventId":5}),
            format!("{P}throughEventId must be a non-empty string"),
        ),
        (
            json!({"schemaVersion":1,"throughEventId":"x".repeat(129)}),
            format!("{P}throughEventId length exceeds 128 characters (129)"),
        ),
    ];
    for (data, want) in cases {
        assert_eq!(validate_anchor_data(&data).unwrap_err(), want, "{data}");
    }
    assert!(
        validate_anchor_data(&json!({"schemaVersion":1,"throughEventId":"x".repeat(128)})).is_ok()
    );
    for c in ["a\nb", "a\tb", "a\0b", "a\u{7f}b", "a\u{1d}b", "a\u{9f}b"] {
        assert_eq!(
            validate_anchor_data(&json!({"schemaVersion":1,"throughEventId":c})).unwrap_err(),
            format!("{P}throughEventId contains control characters")
        );
    }
}

#[test]
fn anchor_entry_and_message_shape() {
    let e = json!({"type":"custom","customType":"pi-forge-capability-delivery","data":{"schemaVersion":1,"throughEventId":"ev"},"id":"a1","parentId":null,"timestamp":"2026-09-21T00:00:00.000Z"});
    assert!(is_anchor_entry(&e));
    let mut cm = e.clone();
    cm["type"] = json!("custom_message");
    assert!(!is_anchor_entry(&cm));
    assert_eq!(
        anchor_message("ev", e.get("timestamp")),
        json!({"role":"custom","customType":"pi-forge-capability-delivery","content":[],"display":false,"details":{"schemaVersion":1,"throughEventId":"ev"},"timestamp":1_789_948_800_000u64})
    );
    assert_eq!(
        anchor_message("ev", Some(&json!(42)))["timestamp"],
        json!(42)
    );
    assert_eq!(
        anchor_message("ev", Some(&json!("garbage")))["timestamp"],
        json!(0)
    );
}

fn u(t: &str) -> Value {
    json!({"role":"user","content":t,"timestamp":1})
}
fn a(t: &str) -> Value {
    json!({"role":"assistant","content":[{"type":"text","text":t}],"timestamp":2})
}
fn c(t: &str, ts: u64) -> Value {
    json!({"role":"custom","customType":"note","content":t,"display":true,"details":null,"timestamp":ts})
}

#[test]
fn alignment_rejects_foreign_rewrites() {
    let e = vec![u("one"), a("two"), u("three")];
    assert!(context_matches(&e, &e));
    assert!(!context_matches(
        &e,
        &[u("one"), u("x"), a("two"), u("three")]
    ));
    assert!(!context_matches(&e, &[u("one"), u("three")]));
    assert!(!context_matches(&e, &[u("one"), a("twX"), u("three")]));
    assert!(!context_matches(&e, &[u("one"), u("two"), u("three")]));
    assert!(!context_matches(
        &e,
        &[u("one"), a("two"), u("three"), u("four")]
    ));
    // Numbers compare as doubles, key order does not matter.
    let reordered = json!({"timestamp":1.0,"content":"one","role":"user"});
    assert!(context_matches(&[u("one")], &[reordered]));
}

#[test]
fn queued_custom_omission_and_ambiguity() {
    // Live context misses the first custom message; timestamps of custom messages are ignored.
    let e = vec![u("q"), c("x", 1), c("y", 2), a("r")];
    let al = context_alignment(&e, &[u("q"), c("y", 99), a("r")]).unwrap();
    assert_eq!(al, vec![Some(0), None, Some(1), Some(2)]);
    // Two identical expected customs, one incoming: ambiguous.
    let e = vec![c("x", 1), c("x", 2)];
    assert!(!context_matches(&e, &[c("x", 3)]));
}

fn embeddings(e: &[char], i: &[char]) -> usize {
    if i.is_empty() {
        return 1;
    }
    if e.is_empty() {
        return 0;
    }
    let mut n = embeddings(&e[1..], i);
    if e[0] == i[0] {
        n += embeddings(&e[1..], &i[1..]);
    }
    n
}

fn seqs(max: usize) -> Vec<Vec<char>> {
    let mut out = vec![vec![]];
    let mut frontier = vec![vec![]];
    for _ in 0..max {
        let mut next = Vec::new();
        for s in &frontier {
            for ch in ['A', 'B'] {
                let mut t: Vec<char> = s.clone();
                t.push(ch);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

#[test]
fn exhaustive_uniqueness_enumeration() {
    let all = seqs(5);
    let to_msgs = |s: &[char]| -> Vec<Value> { s.iter().map(|ch| c(&ch.to_string(), 0)).collect() };
    for e in &all {
        for i in &all {
            let want = embeddings(e, i) == 1;
            assert_eq!(
                context_matches(&to_msgs(e), &to_msgs(i)),
                want,
                "{e:?} / {i:?}"
            );
        }
    }
}

fn entry(id: &str, kind: &str) -> Value {
    json!({"type":kind,"id":id,"parentId":null,"timestamp":"2026-09-21T00:00:00.000Z"})
}

fn anchor_entry(id: &str, through: &str) -> Value {
    json!({"type":"custom","customType":"pi-forge-capability-delivery","data":{"schemaVersion":1,"throughEventId":through},"id":id,"parentId":null,"timestamp":"2026-09-21T00:00:00.000Z"})
}

#[test]
fn materialization_places_anchors_ordinally_and_keeps_head_first() {
    let head = json!({"role":"system","content":"PI_HEAD","timestamp":0});
    let raws = [
        anchor_entry("x1", "prefix-a"),
        anchor_entry("x2", "prefix-b"),
        entry("s", "message"),
        entry("m1", "message"),
        anchor_entry("x3", "tail-c"),
    ];
    let counts = [0, 0, 1, 1, 0];
    let entries: Vec<ContextEntry> = raws
        .iter()
        .zip(counts)
        .map(|(raw, n)| ContextEntry {
            raw,
            line: None,
            message_count: n,
        })
        .collect();
    let expected = vec![head.clone(), u("hi")];
    let out = materialize_anchors(&entries, &expected, expected.clone()).unwrap();
    let cursors: Vec<&str> = out
        .messages
        .iter()
        .filter_map(|m| m["details"]["throughEventId"].as_str())
        .collect();
    assert_eq!(cursors, vec!["prefix-a", "prefix-b", "tail-c"]);
    assert_eq!(out.messages[0], head);
    assert_eq!(out.messages[3], u("hi"));
    assert_eq!(out.messages.len(), 5);
    // A foreign rewrite fails closed.
    let err = materialize_anchors(&entries, &expected, vec![head, u("HI")]).unwrap_err();
    assert_eq!(err.message, NO_UNIQUE_ALIGNMENT);
}

#[test]
fn no_visible_anchor_returns_incoming_untouched() {
    let raws = [entry("m1", "message")];
    let entries = [ContextEntry {
        raw: &raws[0],
        line: None,
        message_count: 1,
    }];
    let incoming = vec![u("completely different"), u("and longer")];
    let out = materialize_anchors(&entries, &[u("x")], incoming.clone()).unwrap();
    assert_eq!(out.messages, incoming);
    assert!(!out.had_anchors);
}

#[test]
fn invalid_visible_anchor_fails() {
    let mut bad = anchor_entry("x", "e");
    bad["data"]["schemaVersion"] = json!(9);
    let entries = [ContextEntry {
        raw: &bad,
        line: Some(7),
        message_count: 0,
    }];
    let err = materialize_anchors(&entries, &[], vec![]).unwrap_err();
    assert_eq!(
        err.message,
        format!("{P}unsupported schemaVersion 9, expected 1")
    );
    assert_eq!(err.location.unwrap().line, Some(7));
}

#[test]
fn pending_tool_call_detector() {
    let call = json!({"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"ls","arguments":{}}]});
    let result = json!({"role":"toolResult","toolCallId":"t1","content":[]});
    assert!(has_pending_tool_calls(std::slice::from_ref(&call)));
    assert!(!has_pending_tool_calls(&[call.clone(), result.clone()]));
    assert!(!has_pending_tool_calls(&[call.clone(), u("next")]));
    assert!(has_pending_tool_calls(&[call.clone(), c("x", 1)]));
    let empty_id = json!({"role":"assistant","content":[{"type":"toolCall","id":"","name":"ls"}]});
    assert!(!has_pending_tool_calls(&[empty_id]));
}

fn ev_entry(id: &str, data: Value) -> Value {
    json!({"type":"custom","customType":"pi-forge-capability-event","data":data,"id":id,"parentId":null,"timestamp":"2026-09-21T00:00:00.000Z"})
}

fn read(
    entries: &[Value],
) -> Result<
    forge_replay_capability::history::CapabilityHistory,
    forge_replay_capability::history::HistoryError,
> {
    HistoryBuilder::read(entries.iter().enumerate().map(|(i, e)| (e, Some(i + 2))))
}

#[test]
fn history_rejects_bad_anchors() {
    let e1 = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let e2 = ev_entry(
        "x2",
        activate("e2", "a2", Source::Manual, "S", &[], &[], 2.0),
    );
    let mut bad = anchor_entry("x3", "e1");
    bad["data"]["schemaVersion"] = json!(9);
    let err = read(&[e1.clone(), bad]).unwrap_err();
    assert_eq!(
        err.message,
        format!("{P}unsupported schemaVersion 9, expected 1")
    );
    assert_eq!(err.location.line, Some(3));
    let err = read(&[e1.clone(), anchor_entry("x3", "nope")]).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid Forge capability delivery anchor: unknown or future cursor \"nope\""
    );
    let err = read(&[anchor_entry("x0", "e1"), e1.clone()]).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid Forge capability delivery anchor: unknown or future cursor \"e1\""
    );
    let err = read(&[
        e1.clone(),
        e2.clone(),
        anchor_entry("x3", "e2"),
        anchor_entry("x4", "e1"),
    ])
    .unwrap_err();
    assert_eq!(
        err.message,
        "Invalid Forge capability delivery anchor: out-of-order cursor \"e1\" (index 0 < 1)"
    );
    assert_eq!(err.location.entry_id.as_deref(), Some("x4"));
    // Equal cursors are fine.
    let h = read(&[
        e1.clone(),
        anchor_entry("x3", "e1"),
        anchor_entry("x4", "e1"),
    ])
    .unwrap();
    assert_eq!(h.last_anchored_index, 0);
}

#[test]
fn legacy_carrier_counts_as_anchored_and_legacy_state_fails() {
    let e1 = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let carrier = json!({"type":"custom_message","customType":"pi-forge-capability-delivery","content":"","display":false,"details":{"throughEventId":"e1"},"id":"c1","parentId":null,"timestamp":"2026-09-21T00:00:00.000Z"});
    let h = read(&[e1.clone(), carrier]).unwrap();
    assert_eq!(h.last_anchored_index, 0);
    assert!(h.pending_events().is_empty());
    for ct in [
        "pi-forge-instruction-event",
        "pi-forge-instruction-tools",
        "pi-forge-instruction-delivery",
    ] {
        let legacy = json!({"type":"custom","customType":ct,"data":{},"id":"l","parentId":null,"timestamp":"t"});
        assert_eq!(read(&[legacy]).unwrap_err().message, "This session contains legacy pre-capability state. Start a new session; old capability state is not restored.");
    }
    let legacy = json!({"type":"custom_message","customType":"pi-forge-instruction-delivery","content":"","display":false,"id":"l","parentId":null,"timestamp":"t"});
    assert_eq!(read(&[legacy]).unwrap_err().message, "This session contains legacy pre-capability delivery state. Start a new session; old capability state is not restored.");
}

#[test]
fn checkpoint_covers_unanchored_events() {
    let e1 = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let comp = json!({"type":"compaction","id":"c","parentId":"x1","timestamp":"t","summary":"s","firstKeptEntryId":"c","tokensBefore":1});
    let h = read(&[e1, comp]).unwrap();
    assert_eq!(h.checkpoint_through.as_deref(), Some("e1"));
    assert!(h.pending_events().is_empty());
}

#[test]
fn history_errors_name_the_entry() {
    let good = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let mut bad_data = activate("e2", "a2", Source::Manual, "R", &[], &[], 1.0);
    bad_data["snapshot"]["content"] = json!("tampered");
    let err = read(&[good.clone(), ev_entry("x2", bad_data)]).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid Forge capability history: Snapshot fingerprint mismatch"
    );
    assert_eq!(err.location.line, Some(3));
    // Reduction failures are reported after the walk, at the failing event.
    let off = ev_entry("x2", deactivate("e2", "lifecycle", "a1", 2.0));
    let err = read(&[good.clone(), off]).unwrap_err();
    assert_eq!(err.message, "Invalid Forge capability event 1: Lifecycle can only deactivate capability with binding: a1");
    assert_eq!(err.location.entry_id.as_deref(), Some("x2"));
    // ...but a later walk error (a bad anchor) wins over an earlier reduction failure.
    let off = ev_entry("x2", deactivate("e2", "lifecycle", "a1", 2.0));
    let err = read(&[good, off, anchor_entry("x3", "nope")]).unwrap_err();
    assert!(err.message.contains("unknown or future cursor"));
}

#[test]
fn tool_baseline_entry() {
    let tools = |data: Value| json!({"type":"custom","customType":"pi-forge-capability-tools","data":data,"id":"t","parentId":null,"timestamp":"t"});
    let h = read(&[tools(json!({"schemaVersion":1,"baseline":["read"],"lastApplied":[]})), tools(json!({"schemaVersion":1,"baseline":["read","bash","edit"],"lastApplied":["read","edit"]}))]).unwrap();
    assert_eq!(h.tools.unwrap().last_applied, vec!["read", "edit"]);
    assert_eq!(
        read(&[tools(json!([]))]).unwrap_err().message,
        "Invalid Forge tool baseline."
    );
    assert_eq!(
        read(&[tools(
            json!({"schemaVersion":1,"baseline":[],"lastApplied":[],"x":1})
        )])
        .unwrap_err()
        .message,
        "Unsupported Forge tool baseline schema."
    );
    assert_eq!(
        read(&[tools(
            json!({"schemaVersion":1,"baseline":[""],"lastApplied":[]})
        )])
        .unwrap_err()
        .message,
        "Invalid Forge tool baseline baseline."
    );
    assert_eq!(
        read(&[tools(
            json!({"schemaVersion":1,"baseline":[],"lastApplied":"x"})
        )])
        .unwrap_err()
        .message,
        "Invalid Forge tool baseline lastApplied."
    );
}

#[test]
fn unknown_order_reduction_error_before_bad_tools_entry() {
    // UNKNOWN (spec §2.7): Forge decodes the last tools entry and reduces the events after the
    // walk; we report the reduction failure first. This test pins that choice.
    let on = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let bad_off = ev_entry("x2", deactivate("e2", "lifecycle", "a1", 2.0));
    let bad_tools = json!({"type":"custom","customType":"pi-forge-capability-tools","data":[],"id":"t","parentId":null,"timestamp":"t"});
    let err = read(&[on, bad_off, bad_tools]).unwrap_err();
    assert!(
        err.message.starts_with("Invalid Forge capability event 1:"),
        "{}",
        err.message
    );
}

#[test]
fn anchor_timestamp_without_offset_is_utc() {
    // JavaScript reads a date-time without an offset as local time; Pi always writes `Z`, and we
    // read such strings as UTC (documented choice).
    assert_eq!(
        anchor_message("e", Some(&json!("1970-01-01T00:00:01.000")))["timestamp"],
        json!(1000)
    );
}

#[test]
fn pending_events_follow_the_latest_anchor() {
    let e1 = ev_entry(
        "x1",
        activate("e1", "a1", Source::Manual, "R", &[], &[], 1.0),
    );
    let e2 = ev_entry(
        "x2",
        activate("e2", "a2", Source::Manual, "S", &[], &[], 2.0),
    );
    let e3 = ev_entry("x3", deactivate("e3", "user", "a1", 3.0));
    let h = read(&[e1.clone(), anchor_entry("y1", "e1"), e2.clone(), e3.clone()]).unwrap();
    let ids: Vec<&str> = h
        .pending_events()
        .iter()
        .map(|e| e.event_id.as_str())
        .collect();
    assert_eq!(ids, vec!["e2", "e3"]);
    // An identical replay of e1 after the anchor is not pending (first occurrences only).
    let h = read(&[e1.clone(), anchor_entry("y1", "e1"), e1]).unwrap();
    assert!(h.pending_events().is_empty());
    assert_eq!(h.events.iter().filter(|e| e.first).count(), 1);
    assert_eq!(h.events.len(), 2);
}
