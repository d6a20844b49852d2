//! Which Pi release wrote a file, read during the corpus scan: the markers of
//! [`forge_replay_model::release::MARKERS`], as [`forge_replay_session::release::detect`] finds
//! them for one session, so a corpus prices each session with the catalog of the release that
//! wrote it, as `usage SESSION` does.
//!
//! The fast scanner sees every key of a line on its way: the markers that are message keys
//! (`thinkingLevel`, `durationMs`, `nestedCalls`), the `customType` of a `custom` entry and
//! `usage.cost.totalFromProvider` cost nothing more. The two nested deeper (a tool call's
//! `argumentsError` in the message content, a diagnostic's `type`) are looked for in the raw line
//! with `memmem` and confirmed by parsing only the lines that contain them, as `detect` does; the
//! `argumentsError` search stops once the file shows a marker at least as new. A line the serde
//! fallback parses gets the same answer from `of_line`. A `compaction` or `branch_summary`
//! entry's own `usage.cost.totalFromProvider` is found the same way (memmem, then a parse).
//!
//! `thinking-level-on-branch` is the one marker the scan does not look for: it is a pattern of
//! the tree (a repeated level on a branch tree navigation moved to), not of a line. A session
//! whose only 1.6 evidence it is is priced with the 1.3.0 catalog here, while `detect` says 1.6.0.

use forge_replay_model::release::{Marker, PiRelease};
use forge_replay_session::release::{Evidence, Found};
use memchr::memmem;
use serde_json::Value;

/// One bit per marker, in [`MARKERS`](forge_replay_model::release::MARKERS) order.
pub const NAMES: [&str; 12] = [
    "assistant-thinking-level",
    "assistant-duration",
    "tool-result-duration",
    "tool-result-nested-calls",
    "tool-call-arguments-error",
    "virtual-model-state",
    "anthropic-strict-tools-fallback",
    "cost-total-from-provider",
    "anthropic-thread-fallback",
    "openai-input-transformations",
    "bedrock-strict-tools-fallback",
    // Not looked for by the scan: it takes the tree (a branch's levels), which the scan does not
    // keep; `forge_replay_session::release::detect` finds it.
    "thinking-level-on-branch",
];

pub(crate) const THINKING_LEVEL: u16 = 1 << 0;
pub(crate) const ASSISTANT_DURATION: u16 = 1 << 1;
pub(crate) const TOOL_RESULT_DURATION: u16 = 1 << 2;
pub(crate) const NESTED_CALLS: u16 = 1 << 3;
pub(crate) const ARGUMENTS_ERROR: u16 = 1 << 4;
pub(crate) const VIRTUAL_MODEL_STATE: u16 = 1 << 5;
pub(crate) const COST_FROM_PROVIDER: u16 = 1 << 7;

/// The diagnostic `type`s that are markers, with their bits.
const DIAGNOSTICS: [(&str, u16); 4] = [
    ("anthropic_strict_tools_fallback", 1 << 6),
    ("anthropic_thread_fallback", 1 << 8),
    ("openai_input_transformations", 1 << 9),
    ("bedrock_strict_tools_fallback", 1 << 10),
];

/// The `customType` of a virtual-model router's state entry.
pub(crate) const VIRTUAL_STATE_TYPE: &str = "pi.virtual-model-state";

/// Message keys the fast scanner notes (bits of `RawMessage::keys`).
pub(crate) const KEY_THINKING_LEVEL: u8 = 1;
pub(crate) const KEY_DURATION: u8 = 2;
pub(crate) const KEY_NESTED_CALLS: u8 = 4;
pub(crate) const KEY_DIAGNOSTICS: u8 = 8;

/// The markers a message's keys are, by role (`keys`: `KEY_*` bits).
pub(crate) fn of_keys(role: Option<&str>, keys: u8, cost_from_provider: bool) -> u16 {
    let mut m = 0;
    match role {
        Some("assistant") => {
            if keys & KEY_THINKING_LEVEL != 0 {
                m |= THINKING_LEVEL;
            }
            if keys & KEY_DURATION != 0 {
                m |= ASSISTANT_DURATION;
            }
            if cost_from_provider {
                m |= COST_FROM_PROVIDER;
            }
        }
        Some("toolResult") => {
            if keys & KEY_DURATION != 0 {
                m |= TOOL_RESULT_DURATION;
            }
            if keys & KEY_NESTED_CALLS != 0 {
                m |= NESTED_CALLS;
            }
        }
        _ => {}
    }
    m
}

/// Needles of the markers a line may hold (any of them sends a serde-parsed line to [`of_line`]).
const NEEDLES: [&str; 7] = [
    "\"thinkingLevel\"",
    "\"durationMs\"",
    "\"nestedCalls\"",
    "\"argumentsError\"",
    "\"totalFromProvider\"",
    "\"diagnostics\"",
    VIRTUAL_STATE_TYPE,
];

/// Whether `text` may hold a marker (a cheap filter before [`of_line`]).
pub(crate) fn may_hold(text: &str) -> bool {
    let b = text.as_bytes();
    NEEDLES
        .iter()
        .any(|n| memmem::find(b, n.as_bytes()).is_some())
}

/// Whether an assistant line may hold a tool call's `argumentsError`.
pub(crate) fn may_hold_arguments_error(text: &str) -> bool {
    memmem::find(text.as_bytes(), b"\"argumentsError\"").is_some()
}

/// The markers of one line, parsed in full (only lines that may hold one are): the rules of
/// `detect` for a message entry (or a sub-agent transcript's message record) and a custom entry.
pub(crate) fn of_line(text: &str) -> u16 {
    // `JSON.parse`'s reading (a lone surrogate is a character, not an error), as `detect`'s.
    let Ok(v) = forge_replay_model::json::parse(text) else {
        return 0;
    };
    let mut m = 0;
    let ty = v.get("type").and_then(Value::as_str);
    // Compaction and branch summaries record the usage of their summarization request.
    if matches!(ty, Some("compaction" | "branch_summary"))
        && v.pointer("/usage/cost/totalFromProvider").is_some()
    {
        m |= COST_FROM_PROVIDER;
    }
    if ty == Some("custom")
        && v.get("customType").and_then(Value::as_str) == Some(VIRTUAL_STATE_TYPE)
    {
        m |= VIRTUAL_MODEL_STATE;
    }
    let is_message = ty == Some("message")
        || (ty.is_none() && v.get("recordType").and_then(Value::as_str) == Some("message"));
    let Some(msg) = v.get("message").filter(|_| is_message) else {
        return m;
    };
    let Some(obj) = msg.as_object() else {
        return m;
    };
    let role = obj.get("role").and_then(Value::as_str);
    let keys = [
        ("thinkingLevel", KEY_THINKING_LEVEL),
        ("durationMs", KEY_DURATION),
        ("nestedCalls", KEY_NESTED_CALLS),
    ]
    .iter()
    .filter(|(k, _)| obj.contains_key(*k))
    .fold(0, |a, (_, b)| a | b);
    m |= of_keys(
        role,
        keys,
        msg.pointer("/usage/cost/totalFromProvider").is_some(),
    );
    if role == Some("assistant") {
        if msg["content"].as_array().is_some_and(|c| {
            c.iter()
                .any(|b| b["type"] == "toolCall" && b.get("argumentsError").is_some())
        }) {
            m |= ARGUMENTS_ERROR;
        }
        if let Some(ds) = msg["diagnostics"].as_array() {
            for (ty, bit) in DIAGNOSTICS {
                if ds.iter().any(|d| d["type"] == ty) {
                    m |= bit;
                }
            }
        }
    }
    m
}

/// What one file shows about the release that wrote it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReleaseMarkers {
    /// One bit per marker of [`NAMES`].
    pub bits: u16,
    /// Assistant messages in the file.
    pub assistant_messages: u64,
}

impl ReleaseMarkers {
    /// Notes one entry.
    pub(crate) fn add(&mut self, markers: u16, assistant: bool) {
        self.bits |= markers;
        self.assistant_messages += u64::from(assistant);
    }

    /// Whether a tool call's `argumentsError` could still change the verdict: no marker is
    /// found yet (every marker is at least as new as it, a test checks).
    pub(crate) fn wants_arguments_error(&self) -> bool {
        self.bits == 0
    }

    /// The evidence as [`forge_replay_session::release::detect`] words it (counts are not
    /// kept: each found marker counts once).
    pub fn evidence(&self) -> Evidence {
        let found = NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.bits & (1 << i) != 0)
            .filter_map(|(_, n)| Marker::named(n))
            .map(|marker| Found {
                marker,
                count: 1,
                first_line: 0,
            })
            .collect();
        Evidence {
            found,
            assistant_messages: self.assistant_messages,
            ..Evidence::default()
        }
    }

    /// The release to follow, as `usage SESSION` chooses it without `--pi`.
    pub fn release(&self) -> PiRelease {
        self.evidence().release()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use forge_replay_model::release::MARKERS;

    #[test]
    fn bits_follow_the_marker_table() {
        let names: Vec<&str> = MARKERS.iter().map(|m| m.name).collect();
        assert_eq!(names, NAMES);
        for (ty, bit) in DIAGNOSTICS {
            let i = bit.trailing_zeros() as usize;
            assert_eq!(NAMES[i], ty.replace('_', "-"));
        }
    }

    #[test]
    fn no_marker_is_older_than_arguments_error() {
        let since = Marker::named("tool-call-arguments-error").map(|m| m.since);
        for m in MARKERS {
            assert!(
                PiRelease::compare_versions(m.since, since.unwrap_or("")).is_ge(),
                "{}",
                m.name
            );
        }
    }

    #[test]
    fn arguments_error_is_wanted_until_a_marker_is_found() {
        let mut m = ReleaseMarkers::default();
        assert!(m.wants_arguments_error());
        m.add(0, true);
        assert!(m.wants_arguments_error());
        assert_eq!(m.release(), PiRelease::V0_87_1);
        m.add(THINKING_LEVEL, true);
        assert!(!m.wants_arguments_error());
        assert_eq!(m.release(), PiRelease::V1_3_0);
        let mut m = ReleaseMarkers::default();
        m.add(COST_FROM_PROVIDER, true);
        assert!(!m.wants_arguments_error());
        assert_eq!(m.release(), PiRelease::LATEST);
    }
}
