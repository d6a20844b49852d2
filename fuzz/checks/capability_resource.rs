//! Fuzz oracle `capability_resource`: pi-forge's capability resource codec.
//!
//! [`parse_capability`] never panics. A usable capability is written in its canonical form
//! (`JSON.stringify(_, null, 2) + "\n"`), and that text reads back usable as the same
//! capability and is written again byte for byte; an unusable one says why.
//! Text `json::parse` refuses gets `Failed to parse JSON: <V8's message>`.
//!
//! Domain: the round trip is not checked for a text holding a genuine character of
//! `U+F0000..U+F07FF` (raw, or escaped as the pair `\udb80\udc00`..`\udb81\udfff`). That range is
//! where `forge_replay_model::json` keeps lone surrogates (`LONE_SURROGATE_BASE`; its module docs
//! name the limitation): a genuine one is written back as a lone-surrogate escape, and next to a
//! real lone surrogate the two escapes read back as one astral character
//! (`fuzz/regressions/capability_resource/crash-0b7ad6c7…`). Parsing such a text must still not
//! panic and must still word its errors as below.
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
    if holds_stand_in_range(text) {
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

/// Whether `text` holds a genuine character of the lone-surrogate stand-in range, raw or as an
/// escaped surrogate pair (high `\udb80` or `\udb81`, then a low half), in any hex case.
fn holds_stand_in_range(text: &str) -> bool {
    if text
        .chars()
        .any(forge_replay_model::json::is_lone_surrogate_stand_in)
    {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    b.windows(12).any(|w| {
        (w.starts_with(b"\\udb80") || w.starts_with(b"\\udb81"))
            && w[6..8] == *b"\\u"
            && w[8] == b'd'
            && matches!(w[9], b'c'..=b'f')
    })
}
