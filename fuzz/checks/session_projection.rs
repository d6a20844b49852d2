//! Fuzz oracle `session_projection`: the session reader and Pi's context projection on any
//! bytes.
//!
//! Reading never panics. For a file it accepts: every entry's cheap head (read in one pass
//! without a tree) agrees with the entry's fully parsed JSON; and at a pseudo-random leaf (chosen
//! from a hash of the input, so a regression replays the same leaf), plus the default leaf, the
//! three ways of projecting agree: [`Session::context`], the incremental
//! [`forge_replay_session::ContextBuilder`] pushed along the path (holding its messages, and on
//! demand), and the streaming
//! [`forge_replay_session::ContextPlan`] with its raw-text fast path (what `forge-replay context`
//! prints).
//!
//! Shared by `fuzz/fuzz_targets/session_projection.rs` and
//! `crates/session/tests/session/fuzz_regressions.rs`.

use forge_replay_model::json;
use forge_replay_model::transcode;
use forge_replay_session::{llm, EntryType, Session};
use serde_json::Value;

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let Ok((session, _diagnostics)) = Session::from_reader(data, "fuzz.jsonl") else {
        return;
    };
    for entry in session.entries() {
        heads_agree(&entry);
    }
    let n = session.entries().len();
    let mut leaves = vec![session.default_leaf()];
    if n > 0 {
        leaves.push(Some((fnv(data) % n as u64) as usize));
    }
    leaves.push(session.tree().leaves().next());
    leaves.dedup();
    for leaf in leaves {
        projections_agree(&session, leaf);
    }
}

/// The head the reader captured equals what the full parse of the line says.
fn heads_agree(entry: &forge_replay_session::Entry) {
    let value = entry.value().unwrap_or_else(|e| {
        panic!(
            "line {}: the reader kept a line json::parse refuses ({e}): {:?}",
            entry.line(),
            entry.raw()
        )
    });
    let line = entry.line();
    assert_eq!(
        entry.is_object(),
        value.is_object(),
        "line {line}: is_object"
    );
    if !value.is_object() {
        return;
    }
    assert_eq!(
        entry.id_value().as_ref(),
        value.get("id"),
        "line {line}: id"
    );
    assert_eq!(
        entry.parent_id_value().as_ref(),
        value.get("parentId"),
        "line {line}: parentId"
    );
    let role = value
        .get("message")
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str);
    assert_eq!(entry.role(), role, "line {line}: message.role");
    let expected = match value.get("type").and_then(Value::as_str) {
        Some(t) => EntryType::from_name(t),
        None => EntryType::Missing,
    };
    assert_eq!(entry.entry_type(), &expected, "line {line}: type");
}

/// `context`, the incremental builder and the streaming plan give the same projection.
fn projections_agree(session: &Session, leaf: Option<usize>) {
    let Ok(projection) = session.context(leaf) else {
        // A line the reader kept always parses (checked above), so projecting cannot fail.
        panic!(
            "projection at {leaf:?} failed: {}",
            session
                .context(leaf)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
    };
    if let Some(l) = leaf {
        // A builder holding its messages, and one building them again on demand.
        for on_demand in [false, true] {
            let mut builder = session.builder();
            if on_demand {
                builder = builder.on_demand();
            }
            for i in session.path_to(l) {
                builder
                    .push(i)
                    .unwrap_or_else(|e| panic!("builder push {i}: {e}"));
            }
            let snapshot = builder
                .snapshot()
                .unwrap_or_else(|e| panic!("builder snapshot at {l}: {e}"));
            assert_eq!(
                snapshot.messages, projection.messages,
                "builder (on demand: {on_demand}) messages differ from context() at leaf {l}"
            );
            assert_eq!(
                snapshot.model, projection.model,
                "builder model at leaf {l}"
            );
            assert_eq!(
                snapshot.thinking_level, projection.thinking_level,
                "builder thinking level at leaf {l}"
            );
            let mut count = 0;
            for k in 0..builder.slot_count() {
                let (index, messages) = builder
                    .slot(k)
                    .unwrap_or_else(|e| panic!("builder slot {k} at {l}: {e}"));
                assert_eq!(
                    index, snapshot.entries[k].index,
                    "slot {k} entry at leaf {l}"
                );
                count += messages.len();
            }
            assert_eq!(
                count,
                projection.messages.len(),
                "builder message count at leaf {l}"
            );
        }
    }
    // The streaming plan with the raw-text fast path of `forge-replay context`.
    let plan = session.plan(leaf);
    assert_eq!(plan.model(), &projection.model, "plan model at {leaf:?}");
    let mut streamed = Vec::new();
    for pos in 0..plan.entries().len() {
        let messages = plan
            .entry_messages(pos)
            .unwrap_or_else(|e| panic!("plan entry {pos}: {e}"));
        if let Some(raw) = plan.entry_message_raw(pos) {
            let mut text = String::new();
            if transcode::transcode_pretty_requiring(&raw, 2, "content", &mut text) {
                assert_eq!(
                    messages.len(),
                    1,
                    "the raw fast path stands for one message, the plan has {}",
                    messages.len()
                );
                let mut expected = String::new();
                json::write_pretty_at(&mut expected, &messages[0], 2);
                assert_eq!(
                    text, expected,
                    "the raw fast path of `context` differs from the projected message {pos} at {leaf:?}"
                );
            }
        }
        streamed.extend(messages);
    }
    assert_eq!(
        streamed, projection.messages,
        "streamed plan messages differ from context() at {leaf:?}"
    );
    // convertToLlm and the printed document never fail.
    let _ = llm::convert_to_llm(&projection.messages);
    let doc = projection.to_context_json(true);
    let text = json::stringify_pretty(&doc);
    assert_eq!(
        json::parse(&text)
            .map(|v| json::stringify_pretty(&v))
            .ok()
            .as_deref(),
        Some(text.as_str()),
        "the context document does not round-trip"
    );
}

/// FNV-1a of the input: a leaf choice every replay of the same bytes repeats.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
