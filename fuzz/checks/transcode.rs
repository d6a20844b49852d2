//! Fuzz oracle `transcode`: `forge_replay_model::transcode` either writes exactly the tree
//! path's bytes (`JSON.stringify(JSON.parse(text), null, 2)` through `json::parse` and
//! `json::write_pretty_at`) or declines and leaves its output untouched; it never declines the
//! canonical text of a value it is documented to copy; `member_raw` returns the text of the
//! member `JSON.parse` keeps.
//!
//! Shared by `fuzz/fuzz_targets/transcode.rs` and `crates/model/tests/fuzz_regressions.rs`.

use forge_replay_model::cursor::MAX_DEPTH;
use forge_replay_model::json;
use forge_replay_model::transcode::{member_raw, transcode_pretty, transcode_pretty_requiring};
use serde_json::Value;

const PREFIX: &str = "prefix\n";

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    // The nesting the value is written at: 0..=2, from the text itself so that every input
    // replays the same way.
    let depth = text.len() % 3;
    let tree = json::parse(text).ok();
    let accepted = transcodes_like_the_tree(text, depth, tree.as_ref());
    required_member(text, depth, tree.as_ref(), accepted);
    if let Some(value) = &tree {
        canonical_text_transcodes(value);
        members(text, value);
    }
}

/// `transcode_pretty` equals the tree path when it answers; returns whether it answered.
fn transcodes_like_the_tree(text: &str, depth: usize, tree: Option<&Value>) -> bool {
    let mut out = String::from(PREFIX);
    let ok = transcode_pretty(text, depth, &mut out);
    if !ok {
        assert_eq!(
            out, PREFIX,
            "a declined transcode changed its output: {text:?}"
        );
        return false;
    }
    let tree = tree.unwrap_or_else(|| {
        panic!(
            "the transcoder accepted text json::parse refuses ({}): {text:?}",
            json::parse(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        )
    });
    let mut expected = String::from(PREFIX);
    json::write_pretty_at(&mut expected, tree, depth);
    assert_eq!(
        out, expected,
        "transcode differs from the tree path on {text:?}"
    );
    true
}

/// `transcode_pretty_requiring(_, "content")` is `transcode_pretty` of an object whose
/// `content` is present and not `null`.
fn required_member(text: &str, depth: usize, tree: Option<&Value>, accepted: bool) {
    let mut out = String::from(PREFIX);
    let ok = transcode_pretty_requiring(text, depth, "content", &mut out);
    let has_content = tree
        .and_then(|v| v.get("content"))
        .is_some_and(|c| !c.is_null());
    assert_eq!(
        ok,
        accepted && has_content,
        "transcode_pretty_requiring(content) = {ok}, transcode_pretty = {accepted}, content present and not null = {has_content}: {text:?}"
    );
    if ok {
        let mut plain = String::from(PREFIX);
        transcode_pretty(text, depth, &mut plain);
        assert_eq!(
            out, plain,
            "requiring a member changed the output: {text:?}"
        );
    } else {
        assert_eq!(
            out, PREFIX,
            "a declined transcode changed its output: {text:?}"
        );
    }
}

/// What `JSON.stringify` writes, the transcoder copies, unless it holds what the transcoder is
/// documented to decline: a `\u` escape, a lone-surrogate stand-in, an array-index key, a key
/// written with an escape, or nesting past the cursor's limit.
fn canonical_text_transcodes(value: &Value) {
    let compact = json::stringify(value);
    if compact.contains("\\u")
        || compact.bytes().any(|b| b == 0xF3)
        || has_key(value, &|k| {
            is_index(k) || json::stringify(&Value::from(k)).contains('\\')
        })
        || depth_of(value) >= MAX_DEPTH as usize
    {
        return;
    }
    let mut out = String::new();
    assert!(
        transcode_pretty(&compact, 0, &mut out),
        "the transcoder declined canonical text: {compact:?}"
    );
    assert_eq!(
        out,
        json::stringify_pretty(value),
        "on canonical {compact:?}"
    );
}

/// `member_raw` of each top-level key: the text of the value `JSON.parse` keeps, or `None`.
fn members(text: &str, value: &Value) {
    let Value::Object(map) = value else {
        return;
    };
    for (key, kept) in map.iter().take(8) {
        if let Some(raw) = member_raw(text, key) {
            let parsed = json::parse(raw).unwrap_or_else(|e| {
                panic!("member_raw({key:?}) gave invalid JSON {raw:?} ({e}) in {text:?}")
            });
            assert_eq!(
                &parsed, kept,
                "member_raw({key:?}) is not the member JSON.parse keeps in {text:?}"
            );
        }
    }
}

fn is_index(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 10
        && k.bytes().all(|b| b.is_ascii_digit())
        && (k.len() == 1 || !k.starts_with('0'))
        && k.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// Whether any object key, at any depth, satisfies `f`.
fn has_key(value: &Value, f: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::Object(m) => m.iter().any(|(k, v)| f(k) || has_key(v, f)),
        Value::Array(items) => items.iter().any(|v| has_key(v, f)),
        _ => false,
    }
}

fn depth_of(value: &Value) -> usize {
    match value {
        Value::Object(m) => 1 + m.values().map(depth_of).max().unwrap_or(0),
        Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}
