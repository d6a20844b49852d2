//! Conformance tests for `forge-replay-capability`: every vector of spec §8 and Appendix C that
//! can be expressed without Pi's runtime, plus Pi-format session fixtures for each projection rule.

mod anchors;
mod codec;
mod discovery;
mod events;
mod fingerprints;
mod fuzz_regressions;
mod preset;
mod projection;
mod reducer;
mod sessions;
mod tools;
mod warning;

use forge_replay_capability::event::{
    make_snapshot, patch, BindingRef, ResourceKey, Scope, Source,
};
use serde_json::{json, Value};

/// A valid activate event value.
pub fn activate(
    event_id: &str,
    activation_id: &str,
    source: Source,
    content: &str,
    add: &[&str],
    remove: &[&str],
    created_at: f64,
) -> Value {
    activate_as(
        "user",
        event_id,
        activation_id,
        source,
        None,
        content,
        add,
        remove,
        created_at,
    )
}

#[allow(clippy::too_many_arguments)]
pub fn activate_as(
    actor: &str,
    event_id: &str,
    activation_id: &str,
    source: Source,
    name: Option<&str>,
    content: &str,
    add: &[&str],
    remove: &[&str],
    created_at: f64,
) -> Value {
    let snap = make_snapshot(activation_id, source, name, content, patch(add, remove));
    json!({"schemaVersion":1,"eventId":event_id,"op":"activate","actor":actor,"createdAt":created_at,"snapshot":snap.to_value()})
}

pub fn deactivate(event_id: &str, actor: &str, activation_id: &str, created_at: f64) -> Value {
    json!({"schemaVersion":1,"eventId":event_id,"op":"deactivate","actor":actor,"createdAt":created_at,"activationId":activation_id})
}

pub fn reset(event_id: &str, created_at: f64) -> Value {
    json!({"schemaVersion":1,"eventId":event_id,"op":"reset","actor":"user","createdAt":created_at})
}

pub fn key(scope: Scope, id: &str) -> ResourceKey {
    ResourceKey {
        scope,
        id: id.to_string(),
    }
}

pub fn unbound(scope: Scope, id: &str) -> Source {
    Source::Capability {
        key: key(scope, id),
        binding: None,
    }
}

pub fn bound(scope: Scope, id: &str, preset: (Scope, &str), binding_id: &str) -> Source {
    Source::Capability {
        key: key(scope, id),
        binding: Some(BindingRef {
            preset: key(preset.0, preset.1),
            id: binding_id.to_string(),
        }),
    }
}
