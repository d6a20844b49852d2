//! Fuzz oracle `json_cursor`: the validating cursor (`forge_replay_model::cursor`) accepts
//! exactly the texts `JSON.parse` accepts, up to its documented nesting limit.
//!
//! The reference is serde_json's syntax check (`IgnoredAny`), which follows the same grammar as
//! V8's `JSON.parse`: lone surrogate escapes and numbers beyond the double range are valid there
//! too. The cursor gives up ("not for me") on containers nested `MAX_DEPTH` deep, so only that may
//! separate them. The V8 error checker (`js::json_parse_error`, `None` when V8 accepts) agrees
//! with both. Shared by `fuzz/fuzz_targets/json_cursor.rs` and the stable regression test
//! in `crates/model/tests/fuzz_regressions.rs`.

use forge_replay_model::cursor::{Cursor, MAX_DEPTH};
use forge_replay_model::json;

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let serde_ok = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    let (cursor_ok, end) = skips(Cursor::new(text));
    if cursor_ok {
        assert!(
            serde_ok,
            "the cursor accepted text serde_json refuses: {text:?}"
        );
    } else if serde_ok {
        assert!(
            nesting(text) >= MAX_DEPTH as usize,
            "the cursor refused valid JSON nested {} deep (limit {MAX_DEPTH}): {text:?}",
            nesting(text)
        );
    }
    if serde_ok {
        // A line the reader accepted is scanned with `new_valid` (no control-byte pre-pass):
        // same answer, same end.
        let (valid_ok, valid_end) = skips(Cursor::new_valid(text));
        assert_eq!(
            (valid_ok, valid_end),
            (cursor_ok, end),
            "Cursor::new_valid and Cursor::new disagree on {text:?}"
        );
    }
    if cursor_ok {
        // The tree parser refuses only what V8 accepts and serde_json cannot hold.
        if let Err(e) = json::parse(text) {
            assert!(
                e.message.contains("number out of range") || e.message.contains("recursion limit"),
                "the cursor accepted text json::parse refuses ({e}): {text:?}"
            );
        }
    }
    // serde_json stops at 128 nested containers, V8 does not.
    let v8_ok = forge_replay_model::js::json_parse_error(text).is_none();
    if v8_ok != serde_ok {
        assert!(
            v8_ok && nesting(text) >= 128,
            "js::json_parse_error says V8 {} text serde_json {}: {text:?}",
            if v8_ok { "accepts" } else { "refuses" },
            if serde_ok { "accepts" } else { "refuses" }
        );
    }
    string_token(text);
}

/// `ws skip ws end` over the whole text; whether it held and where the cursor stopped.
fn skips(mut c: Cursor<'_>) -> (bool, usize) {
    c.ws();
    let ok = c.skip(0).is_some() && {
        c.ws();
        c.at_end()
    };
    (ok, c.i)
}

/// The deepest container nesting of valid JSON text.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A text that is one string token: `string()` returns its raw contents, flags escapes, and
/// when it reports no non-canonical escape, `JSON.stringify(JSON.parse(text))` gives the text
/// back (what the transcoder relies on to copy strings).
fn string_token(text: &str) {
    let mut c = Cursor::new(text);
    let Some((raw, escaped)) = c.string() else {
        return;
    };
    if !c.at_end() {
        return;
    }
    assert_eq!(
        &text[1..text.len() - 1],
        raw,
        "string() contents of {text:?}"
    );
    assert_eq!(escaped, raw.contains('\\'), "escape flag of {text:?}");
    let value = json::parse(text).unwrap_or_else(|e| {
        panic!("string() accepted a string json::parse refuses ({e}): {text:?}")
    });
    // Raw U+F0000..U+F07FF characters are the lone-surrogate stand-ins `stringify` writes back
    // as escapes; the transcoder sends such text to the tree path before it looks at escapes.
    let stand_in = raw.chars().any(json::is_lone_surrogate_stand_in);
    if !c.saw_noncanonical_escape() && !stand_in {
        assert_eq!(
            json::stringify(&value),
            text,
            "string() called {text:?} canonical, JSON.stringify writes it differently"
        );
    }
    if !escaped {
        assert_eq!(value.as_str(), Some(raw), "unescaped contents of {text:?}");
    }
}
