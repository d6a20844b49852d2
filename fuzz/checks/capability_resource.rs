//! Fuzz oracle `capability_resource`: pi-forge's capability resource codec.
//!
//! [`parse_capability`] never panics. A usable capability is written in its canonical form
//! (`JSON.stringify(_, null, 2) + "\n"`), and that text reads back usable as the same
//! capability and is written again byte for byte; an unusable one says why.
//! Text `json::parse` refuses gets `Failed to parse JSON: <V8's message>`.
//!
//! Shared by `fuzz/fuzz_targets/capability_resource.rs` and
//! `crates/capability/tests/integration/fuzz_regressions.rs`.

use forge_replay_capability::resource::parse_capability;

/// Runs the oracle on one input; panics on a divergence.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let decoded = parse_capability(text, "fuzz-fallback");
    if forge_replay_model::json::parse(text).is_err() {
        let first = decoded.first_error().unwrap_or_default();
        assert!(
            first.starts_with("Failed to parse JSON: "),
            "text json::parse refuses gave {first:?}: {text:?}"
        );
    }
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
