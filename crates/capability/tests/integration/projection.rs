//! [T-PROJ] `projectCapabilityMessages` (spec §5.2–§5.6).

use forge_replay_capability::event::{decode_event, CapabilityEvent, Source};
use forge_replay_capability::projection::{
    project_capability_messages, Presentation, Projected, ProjectionError,
};
use serde_json::{json, Value};

use crate::{activate, deactivate, reset};

fn evs(v: &[Value]) -> Vec<CapabilityEvent> {
    v.iter().map(|e| decode_event(e).unwrap()).collect()
}

fn on(e: &str, a: &str, content: &str, at: f64) -> Value {
    activate(e, a, Source::Manual, content, &[], &[], at)
}

fn marker(through: &str, ts: u64) -> Value {
    json!({"role":"custom","customType":"pi-forge-capability-delivery","content":[],"display":false,"details":{"schemaVersion":1,"throughEventId":through},"timestamp":ts})
}

fn user(t: &str) -> Value {
    json!({"role":"user","content":t,"timestamp":1})
}

fn sys(t: &str) -> Value {
    json!({"role":"system","content":t,"timestamp":0})
}

fn native(sections: Value, ts: u64) -> Value {
    json!({"role":"system","content":"","sections":sections,"timestamp":ts})
}

fn project(
    m: Vec<Value>,
    e: &[Value],
    cp: Option<&str>,
    native: bool,
) -> Result<Projected, ProjectionError> {
    project_capability_messages(m, &evs(e), cp, Presentation::from_native(native))
}

#[test]
fn native_on_off() {
    let e = [
        on("ev-1", "act-1", "Rule content 1", 1000.0),
        deactivate("ev-2", "user", "act-1", 2000.0),
    ];
    let p = project(
        vec![
            user("a"),
            marker("ev-1", 1100),
            user("b"),
            marker("ev-2", 2100),
        ],
        &e,
        None,
        true,
    )
    .unwrap();
    assert_eq!(
        p.messages,
        vec![
            user("a"),
            native(json!({"forge-capability-act-1":"Rule content 1"}), 1100),
            user("b"),
            native(json!({"forge-capability-act-1":null}), 2100),
        ]
    );
    assert_eq!(p.through_event_id.as_deref(), Some("ev-2"));
}

#[test]
fn foreign_messages_preserved_and_fallback_strings() {
    let foreign =
        json!({"role":"custom","customType":"other","content":"x","display":true,"timestamp":5});
    let e = [
        on("ev-1", "act-fb", "Do not run rm -rf", 1000.0),
        deactivate("ev-2", "user", "act-fb", 2000.0),
    ];
    let p = project(
        vec![foreign.clone(), marker("ev-1", 1100), marker("ev-2", 2100)],
        &e,
        None,
        false,
    )
    .unwrap();
    assert_eq!(
        p.messages,
        vec![
            foreign,
            json!({"role":"user","content":"[pi-forge capability update]\nUpdated system prompt section \"forge-capability-act-fb\":\n\nDo not run rm -rf","timestamp":1100}),
            json!({"role":"user","content":"[pi-forge capability update]\nRemoved system prompt section \"forge-capability-act-fb\".","timestamp":2100}),
        ]
    );
}

#[test]
fn compaction_checkpoint_worked_example() {
    let e = [
        on("ev-1", "act-1", "Rule 1", 1000.0),
        on("ev-2", "act-2", "Rule 2", 2000.0),
        on("ev-3", "act-3", "Rule 3", 3000.0),
    ];
    let summary =
        json!({"role":"compactionSummary","summary":"s","tokensBefore":10,"timestamp":2500});
    let m = vec![
        sys("S"),
        summary.clone(),
        user("u"),
        marker("ev-1", 1100),
        marker("ev-2", 2100),
        marker("ev-3", 3100),
    ];
    let p = project(m, &e, Some("ev-2"), true).unwrap();
    assert_eq!(
        p.messages,
        vec![
            sys("S"),
            native(
                json!({"forge-capability-act-1":"Rule 1","forge-capability-act-2":"Rule 2"}),
                2000
            ),
            summary,
            user("u"),
            native(json!({"forge-capability-act-3":"Rule 3"}), 3100),
        ]
    );
    assert_eq!(p.through_event_id.as_deref(), Some("ev-3"));
}

#[test]
fn checkpoint_without_system_goes_first_and_empty_state_emits_nothing() {
    let e = [on("ev-1", "act-1", "Rule 1", 1000.0)];
    let p = project(vec![user("u")], &e, Some("ev-1"), true).unwrap();
    assert_eq!(
        p.messages,
        vec![
            native(json!({"forge-capability-act-1":"Rule 1"}), 1000),
            user("u")
        ]
    );
    let e = [
        on("ev-1", "act-1", "Rule 1", 1000.0),
        deactivate("ev-2", "user", "act-1", 2000.0),
    ];
    let p = project(vec![user("u")], &e, Some("ev-2"), true).unwrap();
    assert_eq!(p.messages, vec![user("u")]);
}

#[test]
fn missing_marker_becomes_pending_tail() {
    let e = [
        on("ev-1", "act-1", "R1", 1000.0),
        on("ev-2", "act-2", "R2", 2000.0),
    ];
    let p = project(
        vec![user("a"), marker("ev-1", 1100), user("b")],
        &e,
        None,
        true,
    )
    .unwrap();
    assert_eq!(
        p.messages.last().unwrap(),
        &native(json!({"forge-capability-act-2":"R2"}), 2000)
    );
    assert_eq!(p.messages.len(), 4);
}

#[test]
fn cursor_errors() {
    let e = [
        on("ev-1", "act-1", "R1", 1000.0),
        on("ev-2", "act-2", "R2", 2000.0),
    ];
    let err = project(vec![marker("ghost", 1)], &e, None, true).unwrap_err();
    assert_eq!(
        err.message,
        "Delivery marker cursor \"ghost\" not found in branch events"
    );
    assert_eq!(err.message_index, Some(0));
    let err = project(vec![marker("ev-2", 1), marker("ev-1", 2)], &e, None, true).unwrap_err();
    assert_eq!(err.message, "Corrupt marker cursor: marker at \"ev-1\" (index 0) is earlier than current cursor position 1");
    let err = project(vec![], &e, Some("ghost"), true).unwrap_err();
    assert_eq!(
        err.message,
        "checkpointThrough \"ghost\" not found in branch events"
    );
    let err = project(vec![], &e, Some(""), true).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid checkpointThrough: must be a non-empty string"
    );
}

#[test]
fn malformed_markers() {
    let e = [on("ev-1", "act-1", "R1", 1000.0)];
    let mut m = marker("ev-1", 1);
    m["details"] = json!([]);
    assert_eq!(
        project(vec![m], &e, None, true).unwrap_err().message,
        "Invalid capability delivery marker: details object is required"
    );
    let mut m = marker("ev-1", 1);
    m["details"]["schemaVersion"] = json!("1");
    assert_eq!(
        project(vec![m], &e, None, true).unwrap_err().message,
        "Invalid capability delivery marker: schemaVersion must be 1, got 1"
    );
    let mut m = marker("ev-1", 1);
    m["details"]
        .as_object_mut()
        .unwrap()
        .remove("schemaVersion");
    assert_eq!(
        project(vec![m], &e, None, true).unwrap_err().message,
        "Invalid capability delivery marker: schemaVersion must be 1, got undefined"
    );
    let mut m = marker("ev-1", 1);
    m["details"]["throughEventId"] = json!("");
    assert_eq!(
        project(vec![m], &e, None, true).unwrap_err().message,
        "Invalid capability delivery marker: throughEventId must be a non-empty string"
    );
    // Validation happens before anything else: a later bad marker fails even after a good one.
    let mut bad = marker("ev-1", 1);
    bad["details"] = json!(null);
    assert!(project(vec![marker("ev-1", 1), bad], &e, None, true).is_err());
}

#[test]
fn bad_history() {
    let a = on("ev-1", "act-1", "R1", 1000.0);
    let mut conflicting = a.clone();
    conflicting["createdAt"] = json!(5);
    let err = project(vec![], &[a, conflicting], None, true).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid capability events at index 1: Duplicate eventId with conflicting payload: ev-1"
    );
}

#[test]
fn no_markers_on_off_replays_both_deltas() {
    let e = [
        on("ev-1", "act-temp", "Temp", 1000.0),
        deactivate("ev-2", "user", "act-temp", 2000.0),
    ];
    let p = project(vec![sys("S"), user("u")], &e, None, true).unwrap();
    assert_eq!(p.messages.len(), 4);
    assert_eq!(
        p.messages[3],
        native(json!({"forge-capability-act-temp":null}), 2000)
    );
    // Marker at ev-2 only: coalesced, no update at all.
    let p = project(
        vec![sys("S"), user("u"), marker("ev-2", 2100)],
        &e,
        None,
        true,
    )
    .unwrap();
    assert_eq!(p.messages, vec![sys("S"), user("u")]);
}

#[test]
fn duplicate_markers_project_once() {
    let e = [on("ev-1", "act-1", "R1", 1000.0)];
    let p = project(
        vec![marker("ev-1", 1), marker("ev-1", 2), marker("ev-1", 3)],
        &e,
        None,
        true,
    )
    .unwrap();
    assert_eq!(
        p.messages,
        vec![native(json!({"forge-capability-act-1":"R1"}), 1)]
    );
}

#[test]
fn identical_replay_is_not_a_cursor_position() {
    let a = on("a", "act-a", "A", 1.0);
    let b = on("b", "act-b", "B", 2.0);
    let p = project(
        vec![marker("a", 10), marker("b", 20)],
        &[a.clone(), b, a],
        None,
        true,
    )
    .unwrap();
    assert_eq!(p.messages.len(), 2);
    assert_eq!(p.through_event_id.as_deref(), Some("b"));
}

#[test]
fn reset_removes_all_in_previous_order() {
    let e = [
        on("e1", "A", "a", 1.0),
        on("e2", "B", "b", 2.0),
        reset("e3", 3.0),
    ];
    let p = project(vec![marker("e2", 20), marker("e3", 30)], &e, None, false).unwrap();
    assert_eq!(
        p.messages[1]["content"],
        json!("[pi-forge capability update]\nRemoved system prompt section \"forge-capability-A\".\n\nRemoved system prompt section \"forge-capability-B\".")
    );
    assert_eq!(
        p.messages[0]["content"],
        json!("[pi-forge capability update]\nUpdated system prompt section \"forge-capability-A\":\n\na\n\nUpdated system prompt section \"forge-capability-B\":\n\nb")
    );
}

#[test]
fn tool_only_capabilities_project_nothing() {
    for native_flag in [true, false] {
        let e = [
            activate("e1", "tools", Source::Manual, "", &["ls"], &[], 1.0),
            deactivate("e2", "user", "tools", 2.0),
        ];
        let p = project(
            vec![user("a"), marker("e1", 1), user("b"), marker("e2", 2)],
            &e,
            None,
            native_flag,
        )
        .unwrap();
        assert_eq!(p.messages, vec![user("a"), user("b")]);
        let p = project(vec![user("a")], &e[..1], Some("e1"), native_flag).unwrap();
        assert_eq!(p.messages, vec![user("a")]);
        // Whitespace-only content (JS trim: U+FEFF included) is tool-only too.
        let e = [activate(
            "e1",
            "t",
            Source::Manual,
            "\u{feff} ",
            &[],
            &["bash"],
            1.0,
        )];
        assert_eq!(
            project(vec![user("a")], &e, None, native_flag)
                .unwrap()
                .messages,
            vec![user("a")]
        );
    }
}

#[test]
fn non_number_marker_timestamp_is_zero() {
    let e = [on("ev-1", "act-1", "R1", 1000.0)];
    let mut m = marker("ev-1", 0);
    m["timestamp"] = json!("2026-01-01");
    let p = project(vec![m], &e, None, true).unwrap();
    assert_eq!(p.messages[0]["timestamp"], json!(0));
}

#[test]
fn input_is_not_mutated() {
    let e = [on("ev-1", "act-1", "R1", 1000.0)];
    let input = vec![user("a"), marker("ev-1", 5)];
    let copy = input.clone();
    let _ = project(input.clone(), &e, None, true).unwrap();
    assert_eq!(input, copy);
}
