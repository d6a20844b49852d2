//! [T-EVT] reducer rules (spec §3.1).

use forge_replay_capability::event::{Scope, Source};
use forge_replay_capability::reducer::{reduce, reduce_value};
use serde_json::{json, Value};

use crate::{activate, activate_as, bound, deactivate, reset, unbound};

fn ids(events: &[Value]) -> Vec<String> {
    reduce(events)
        .unwrap()
        .active
        .iter()
        .map(|a| a.snapshot.activation_id.clone())
        .collect()
}

fn manual(e: &str, a: &str) -> Value {
    activate(e, a, Source::Manual, &format!("Rule {a}"), &[], &[], 1.0)
}

fn b(e: &str, a: &str, actor: &str) -> Value {
    activate_as(
        actor,
        e,
        a,
        bound(Scope::Project, "cap", (Scope::Project, "default"), "bind-1"),
        None,
        "Bound",
        &[],
        &[],
        1.0,
    )
}

#[test]
fn on_off_unknown_and_reset() {
    let mut ev = vec![
        manual("e1", "act-1"),
        manual("e2", "act-2"),
        deactivate("e3", "user", "unknown", 3.0),
        deactivate("e4", "user", "act-1", 4.0),
    ];
    let r = reduce(&ev).unwrap();
    assert_eq!(ids(&ev), vec!["act-2"]);
    assert_eq!(r.last_event_id.as_deref(), Some("e4"));
    ev.push(reset("e5", 5.0));
    let r = reduce(&ev).unwrap();
    assert!(r.active.is_empty());
    assert_eq!(r.last_event_id.as_deref(), Some("e5"));
}

#[test]
fn off_then_reactivate_same_binding() {
    let ev = vec![
        b("e1", "a1", "user"),
        deactivate("e2", "user", "a1", 2.0),
        b("e3", "a2", "user"),
    ];
    assert_eq!(ids(&ev), vec!["a2"]);
}

#[test]
fn agent_cannot_deactivate_user_owned() {
    let ev = vec![b("e1", "a1", "user"), deactivate("e2", "agent", "a1", 2.0)];
    let e = reduce(&ev).unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.error, "Agent cannot deactivate user-owned activation: a1");
    let ev = vec![b("e1", "a1", "agent"), deactivate("e2", "agent", "a1", 2.0)];
    assert!(ids(&ev).is_empty());
}

#[test]
fn lifecycle_only_deactivates_bound() {
    for first in [
        manual("e1", "a1"),
        activate("e1", "a1", unbound(Scope::Project, "x"), "x", &[], &[], 1.0),
    ] {
        let e = reduce(&[first, deactivate("e2", "lifecycle", "a1", 2.0)]).unwrap_err();
        assert_eq!(
            (e.index, e.error.as_str()),
            (
                1,
                "Lifecycle can only deactivate capability with binding: a1"
            )
        );
    }
    assert!(ids(&[
        b("e1", "a1", "user"),
        deactivate("e2", "lifecycle", "a1", 2.0)
    ])
    .is_empty());
}

#[test]
fn duplicates() {
    let a = manual("e1", "a1");
    let r = reduce(&[a.clone(), a.clone()]).unwrap();
    assert_eq!(r.active.len(), 1);
    let mut changed = a.clone();
    changed["createdAt"] = json!(99);
    let e = reduce(&[a, changed]).unwrap_err();
    assert_eq!(
        (e.index, e.error.as_str()),
        (1, "Duplicate eventId with conflicting payload: e1")
    );
    let e = reduce(&[b("e1", "a1", "user"), b("e2", "a2", "user")]).unwrap_err();
    assert_eq!(
        (e.index, e.error.as_str()),
        (
            1,
            "Duplicate preset binding id currently active: project:default -> bind-1"
        )
    );
}

#[test]
fn activation_ids_are_never_reused() {
    let e = reduce(&[
        manual("e1", "a1"),
        deactivate("e2", "user", "a1", 2.0),
        manual("e3", "a1"),
    ])
    .unwrap_err();
    assert_eq!(
        (e.index, e.error.as_str()),
        (2, "activationId cannot be reused in the same branch: a1")
    );
    let e = reduce(&[manual("e1", "a1"), reset("e2", 2.0), manual("e3", "a1")]).unwrap_err();
    assert_eq!(e.index, 2);
}

#[test]
fn identical_replay_does_not_regress_last_event() {
    let a = manual("ev-a", "a1");
    let ev = vec![a.clone(), deactivate("ev-b", "user", "a1", 2.0), a];
    let r = reduce(&ev).unwrap();
    assert!(r.active.is_empty());
    assert_eq!(r.last_event_id.as_deref(), Some("ev-b"));
}

#[test]
fn noop_deactivate_still_advances_last_event() {
    let r = reduce(&[manual("e1", "a1"), deactivate("e2", "user", "zzz", 2.0)]).unwrap();
    assert_eq!(r.last_event_id.as_deref(), Some("e2"));
}

#[test]
fn decode_errors_carry_their_index_and_non_arrays_fail() {
    let e = reduce(&[manual("e1", "a1"), json!({"schemaVersion": 1})]).unwrap_err();
    assert_eq!((e.index, e.error.as_str()), (1, "Invalid eventId"));
    let e = reduce_value(&json!({})).unwrap_err();
    assert_eq!((e.index, e.error.as_str()), (0, "Events must be an array"));
}
