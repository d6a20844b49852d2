//! [T-EVT] decoder: check order and exact error texts (spec §2.2–§2.4).

use forge_replay_capability::event::{decode_event, Op, Scope, Source};
use forge_replay_model::json;
use serde_json::{json, Value};

use crate::{activate, activate_as, bound, deactivate, reset, unbound};

fn err(v: &Value) -> String {
    decode_event(v).unwrap_err()
}

fn good() -> Value {
    activate("e1", "act-1", Source::Manual, "Rule 1", &[], &[], 1000.0)
}

#[test]
fn json_round_trip_keeps_key_order() {
    let v = activate_as(
        "agent",
        "e1",
        "a1",
        bound(
            Scope::Global,
            "strict",
            (Scope::Project, "default"),
            "bind-1",
        ),
        Some("Test Mode"),
        "Roundtrip content",
        &["t1"],
        &["t2"],
        5.0,
    );
    let text = json::stringify(&v);
    let ev = decode_event(&json::parse(&text).unwrap()).unwrap();
    assert_eq!(json::stringify(&ev.to_value()), text);
    assert!(text.starts_with(r#"{"schemaVersion":1,"eventId":"e1","op":"activate","actor":"agent","createdAt":5,"snapshot":{"activationId":"a1","source":{"kind":"capability","key":{"scope":"global","id":"strict"},"binding":{"preset":{"scope":"project","id":"default"},"id":"bind-1"}},"name":"Test Mode","content":"Roundtrip content","tools":{"add":["t1"],"remove":["t2"]},"fingerprint":"sha256:v1:28ea137b"#));
}

#[test]
fn tampered_fingerprint_and_content() {
    let mut v = good();
    v["snapshot"]["fingerprint"] = json!(format!("sha256:v1:{}", "0".repeat(64)));
    assert_eq!(err(&v), "Snapshot fingerprint mismatch");
    let mut v = good();
    v["snapshot"]["content"] = json!("Rule 2");
    assert_eq!(err(&v), "Snapshot fingerprint mismatch");
    let mut v = good();
    v["snapshot"]["fingerprint"] = json!("sha256:v1:XYZ");
    assert_eq!(err(&v), "Invalid snapshot fingerprint format");
}

#[test]
fn envelope_checks_in_order() {
    assert_eq!(err(&json!([])), "Event must be a plain object");
    assert_eq!(err(&json!(null)), "Event must be a plain object");
    let mut v = good();
    v["schemaVersion"] = json!(2);
    v["eventId"] = json!("");
    assert_eq!(err(&v), "schemaVersion must be 1");
    let mut v = good();
    v["eventId"] = json!("x".repeat(129));
    assert_eq!(err(&v), "Invalid eventId");
    let mut v = good();
    v["eventId"] = json!("x".repeat(128));
    assert!(decode_event(&v).is_ok());
    for bad in [json!(-1), json!("1"), json!(null)] {
        let mut v = good();
        v["createdAt"] = bad;
        assert_eq!(err(&v), "createdAt must be a non-negative finite number");
    }
    // -0 is accepted and canonicalizes to 0.
    let v =
        json::parse(&json::stringify(&good()).replace("\"createdAt\":1000", "\"createdAt\":-0"))
            .unwrap();
    assert_eq!(decode_event(&v).unwrap().created_at, 0.0);
}

#[test]
fn unknown_and_hostile_ops() {
    let mut v = good();
    v["op"] = json!("explode");
    assert_eq!(err(&v), "Invalid op: explode");
    v["op"] = json!(7.0);
    assert_eq!(err(&v), "Invalid op: 7");
    v["op"] = json!(true);
    assert_eq!(err(&v), "Invalid op: true");
    v["op"] = json!({"toString": "x"});
    assert_eq!(err(&v), "Invalid op");
    v["op"] = json!(["activate"]);
    assert_eq!(err(&v), "Invalid op");
    let mut v = good();
    v["snapshot"]["source"] = json!({"kind": {"evil": 1}});
    assert_eq!(err(&v), "Invalid source kind");
    v["snapshot"]["source"] = json!({"kind": "magic"});
    assert_eq!(err(&v), "Invalid source kind: magic");
}

#[test]
fn activate_checks() {
    let mut v = good();
    v["extra"] = json!(1);
    assert_eq!(err(&v), "Unexpected property on activate event: extra");
    let mut v = good();
    v["actor"] = json!("lifecycle");
    assert_eq!(err(&v), "Activate actor must be user or agent");
    let mut v = good();
    v["snapshot"] = json!([]);
    assert_eq!(err(&v), "snapshot must be a plain object");
    let mut v = good();
    v["snapshot"]["extra"] = json!(1);
    assert_eq!(err(&v), "Unexpected property on snapshot: extra");
    let mut v = good();
    v["snapshot"]["activationId"] = json!("bad id");
    assert_eq!(err(&v), "Invalid snapshot activationId");
    // Agent may only activate bound capabilities.
    let v = activate_as("agent", "e", "a", Source::Manual, None, "x", &[], &[], 1.0);
    assert_eq!(
        err(&v),
        "agent activation must have source capability with binding"
    );
    let v = activate_as(
        "agent",
        "e",
        "a",
        unbound(Scope::Project, "r"),
        None,
        "x",
        &[],
        &[],
        1.0,
    );
    assert_eq!(
        err(&v),
        "agent activation must have source capability with binding"
    );
    let mut v = good();
    v["snapshot"]["name"] = json!("n".repeat(1001));
    assert_eq!(err(&v), "name must be a string <= 1000");
    let mut v = good();
    v["snapshot"]["content"] = json!(1);
    assert_eq!(err(&v), "content must be a string <= 100000");
}

#[test]
fn source_errors() {
    let cases: Vec<(Value, &str)> = vec![
        (json!("manual"), "source must be a plain object"),
        (
            json!({"kind":"manual","x":1}),
            "manual source must only have kind property",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"x":1}),
            "source has unknown property: x",
        ),
        (
            json!({"kind":"capability"}),
            "capability source requires key object",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a","x":1}}),
            "capability key must only contain scope and id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"team","id":"a"}}),
            "Invalid capability key scope",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"-a"}}),
            "Invalid capability key id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":1}),
            "binding must be a plain object",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{},"id":"b","x":1}}),
            "binding must only contain preset and id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":1,"id":"b"}}),
            "binding preset must be a plain object",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{"scope":"project","id":"p","x":1},"id":"b"}}),
            "binding preset must only contain scope and id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{"scope":"x","id":"p"},"id":"b"}}),
            "Invalid binding preset scope",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{"scope":"project","id":""},"id":"b"}}),
            "Invalid binding preset id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{"scope":"project","id":"p"},"id":"b c"}}),
            "Invalid binding id",
        ),
        (
            json!({"kind":"capability","key":{"scope":"project","id":"a"},"binding":{"preset":{"scope":"global","id":"p"},"id":"b"}}),
            "Global preset cannot bind project capability",
        ),
    ];
    for (src, want) in cases {
        let mut v = good();
        v["snapshot"]["source"] = src.clone();
        assert_eq!(err(&v), want, "{src}");
    }
}

#[test]
fn tools_errors() {
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), "tools must be a plain object"),
        (
            json!({"add":[]}),
            "tools must contain exactly add and remove arrays",
        ),
        (
            json!({"add":[],"remove":[],"x":[]}),
            "tools must contain exactly add and remove arrays",
        ),
        (json!({"add":"a","remove":[]}), "tools.add must be an array"),
        (
            json!({"add":[],"remove":{}}),
            "tools.remove must be an array",
        ),
        (
            json!({"add":vec!["a"; 257],"remove":[]}),
            "tools.add exceeds max length 256",
        ),
        (
            json!({"add":[],"remove":vec!["a"; 257]}),
            "tools.remove exceeds max length 256",
        ),
        (
            json!({"add":["ok","has space"],"remove":[]}),
            "Invalid tool name in tools.add at index 1",
        ),
        (
            json!({"add":[],"remove":["wild*"]}),
            "Invalid tool name in tools.remove at index 0",
        ),
    ];
    for (tools, want) in cases {
        let mut v = good();
        v["snapshot"]["tools"] = tools.clone();
        assert_eq!(err(&v), want, "{tools}");
    }
    let mut v = good();
    v["snapshot"]["content"] = json!(" \n");
    assert_eq!(
        err(&v),
        "Snapshot must have non-empty content or at least one tool effect"
    );
}

#[test]
fn deactivate_and_reset() {
    let mut v = deactivate("e2", "user", "act-1", 2.0);
    assert!(matches!(
        decode_event(&v).unwrap().op,
        Op::Deactivate { .. }
    ));
    v["extra"] = json!(1);
    assert_eq!(err(&v), "Unexpected property on deactivate event: extra");
    let v = deactivate("e2", "system", "act-1", 2.0);
    assert_eq!(
        err(&v),
        "Deactivate actor must be user, agent, or lifecycle"
    );
    let v = deactivate("e2", "user", "", 2.0);
    assert_eq!(err(&v), "Invalid activationId");
    let mut v = reset("e3", 3.0);
    assert!(decode_event(&v).is_ok());
    v["activationId"] = json!("x");
    assert_eq!(err(&v), "Unexpected property on reset event: activationId");
    let mut v = reset("e3", 3.0);
    v["actor"] = json!("agent");
    assert_eq!(err(&v), "Reset actor must be user");
}

#[test]
fn long_resource_ids_in_sources_are_accepted() {
    let long = "r".repeat(200);
    let v = activate(
        "e1",
        "a1",
        bound(Scope::Project, &long, (Scope::Project, &long), &long),
        "x",
        &[],
        &[],
        1.0,
    );
    assert!(decode_event(&v).is_ok());
}
