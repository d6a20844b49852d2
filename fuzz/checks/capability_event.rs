//! Fuzz oracle `capability_event`: pi-forge's session event decoder, the tool baseline and
//! anchor validators, and the history reducer they feed.
//!
//! The input is JSON: one event's `data`, or an array of them (a branch). Decoding never panics;
//! a decoded event re-built with [`CapabilityEvent::to_value`] (what pi-forge persists) decodes
//! to the same event and re-builds to the same bytes. Because a random snapshot almost never
//! carries its own SHA-256 fingerprint, each snapshot is also tried with the fingerprint
//! computed from its fields, which reaches the checks after it. The branch is then pushed
//! through the history builder as `custom` entries; it fails closed with Forge's message or
//! succeeds, never panics.
//!
//! Shared by `fuzz/fuzz_targets/capability_event.rs` and
//! `crates/capability/tests/integration/fuzz_regressions.rs`.

use forge_replay_capability::event::{
    decode_event, decode_source, decode_tools, snapshot_fingerprint, CapabilityEvent,
    CAPABILITY_DELIVERY_TYPE, CAPABILITY_EVENT_ENTRY, CAPABILITY_TOOLS_ENTRY,
};
use forge_replay_capability::history::{
    decode_tool_baseline, validate_anchor_data, HistoryBuilder,
};
use forge_replay_model::json;
use serde_json::{json, Value};

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(value) = json::parse(&text) else {
        return;
    };
    let items: Vec<Value> = match value {
        Value::Array(items) => items.into_iter().take(64).collect(),
        other => vec![other],
    };
    let mut branch = Vec::new();
    for item in items {
        let fixed = with_computed_fingerprint(&item);
        for data in std::iter::once(item).chain(fixed) {
            round_trips(&data);
            let _ = decode_tool_baseline(&data);
            let _ = validate_anchor_data(&data);
            branch.push(data);
        }
    }
    history(&branch);
}

/// A decoded event re-built and decoded again is the same event, written the same way.
fn round_trips(data: &Value) {
    let Ok(event) = decode_event(data) else {
        return;
    };
    let rebuilt = event.to_value();
    let again: CapabilityEvent = decode_event(&rebuilt).unwrap_or_else(|e| {
        panic!(
            "a re-built event does not decode ({e}): {} from {}",
            json::stringify(&rebuilt),
            json::stringify(data)
        )
    });
    assert_eq!(again, event, "a re-built event decodes differently");
    assert_eq!(
        json::stringify(&again.to_value()),
        json::stringify(&rebuilt),
        "re-building is not stable"
    );
}

/// `data` with `snapshot.fingerprint` replaced by the one its source, name, content and tools
/// give, when they decode and it differs.
fn with_computed_fingerprint(data: &Value) -> Option<Value> {
    let snapshot = data.get("snapshot")?.as_object()?;
    let source = decode_source(snapshot.get("source")).ok()?;
    let tools = decode_tools(snapshot.get("tools")).ok()?;
    let name = match snapshot.get("name") {
        None => None,
        Some(Value::String(n)) => Some(n.as_str()),
        Some(_) => return None,
    };
    let content = snapshot.get("content")?.as_str()?;
    let fingerprint = snapshot_fingerprint(&source, name, content, &tools);
    if snapshot.get("fingerprint").and_then(Value::as_str) == Some(fingerprint.as_str()) {
        return None;
    }
    let mut fixed = data.clone();
    fixed["snapshot"]["fingerprint"] = Value::String(fingerprint);
    Some(fixed)
}

/// The branch as session entries through the history builder: an error or a history, never a
/// panic. An item with `baseline` is a tool baseline entry, one with `throughEventId` a delivery
/// anchor, the string `"compaction"` a compaction, anything else an event.
fn history(branch: &[Value]) {
    let mut builder = HistoryBuilder::new();
    let mut parent = Value::Null;
    for (n, data) in branch.iter().enumerate() {
        let id = format!("e{n:07}");
        let entry = if data.as_str() == Some("compaction") {
            json!({"type": "compaction", "id": id, "parentId": parent, "summary": "s", "firstKeptEntryId": parent, "tokensBefore": 1})
        } else {
            let custom_type = if data.get("baseline").is_some() {
                CAPABILITY_TOOLS_ENTRY
            } else if data.get("throughEventId").is_some() {
                CAPABILITY_DELIVERY_TYPE
            } else {
                CAPABILITY_EVENT_ENTRY
            };
            json!({"type": "custom", "customType": custom_type, "data": data, "id": id, "parentId": parent})
        };
        parent = Value::String(id);
        if builder.push(&entry, Some(n + 2)).is_err() {
            return;
        }
    }
    let _ = builder.finish();
}
