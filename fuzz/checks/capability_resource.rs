//! Fuzz oracle `capability_resource`: pi-forge's capability resource codec and the V8
//! `JSON.parse` error checkers.
//!
//! [`parse_capability`] never panics. A usable capability is written in its canonical form
//! (`JSON.stringify(_, null, 2) + "\n"`), and that text reads back usable as the same
//! capability and is written again byte for byte; an unusable one says why.
//! The V8 syntax checker behind `Failed to parse JSON: …` (`capability::v8json`) accepts exactly
//! what `json::parse` accepts, apart from what V8 takes and serde_json cannot hold (numbers beyond
//! the double range, nesting past serde_json's limit).
//!
//! Shared by `fuzz/fuzz_targets/capability_resource.rs` and
//! `crates/capability/tests/integration/fuzz_regressions.rs`.

use forge_replay_capability::resource::parse_capability;
use forge_replay_model::json;

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    v8_checker_agrees(text);
    let decoded = parse_capability(text, "fuzz-fallback");
    if !decoded.is_usable() {
        assert!(
            decoded.first_error().is_some(),
            "an unusable capability without an error diagnostic: {text:?}"
        );
        return;
    }
    let written = decoded.capability.serialize();
    let again = parse_capability(&written, "other-fallback");
    assert!(
        again.is_usable(),
        "the canonical form of a usable capability is unusable ({:?}): {written:?}",
        again.diagnostics
    );
    assert_eq!(
        again.capability, decoded.capability,
        "the canonical form reads back as another capability: {written:?}"
    );
    assert_eq!(
        again.capability.serialize(),
        written,
        "the canonical form is not stable"
    );
}

/// The V8 checker against `json::parse`.
fn v8_checker_agrees(text: &str) {
    let parsed = json::parse(text);
    let capability = forge_replay_capability::v8json::v8_parse_error(text);
    match &parsed {
        Ok(_) => assert!(
            capability.is_none(),
            "V8 checker refuses ({capability:?}) text json::parse accepts: {text:?}"
        ),
        Err(e) => {
            let v8_may_accept = e.message.contains("number out of range")
                || e.message.contains("recursion limit");
            assert!(
                capability.is_some() || v8_may_accept,
                "V8 checker accepts text json::parse refuses ({e}): {text:?}"
            );
        }
    }
}
