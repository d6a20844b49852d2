//! Strict-tool limit fallbacks: a request whose `prefer` strict tools exceed Claude's limits is
//! resent with them non-strict.
//!
//! * 1.3 Anthropic ([`Change::AnthropicStrictToolsFallback`], `streamAnthropic`): when the API
//!   rejects a request that sent a `prefer` tool strict (`hasPreferredStrictTools`) with a 400
//!   `invalid_request_error` naming a limit ([`LIMIT_MESSAGES`]), pi-ai rebuilds the params with
//!   `disablePreferredStrictTools` (every `prefer` tool non-strict; `require` tools stay strict),
//!   calls `onPayload` again and resends once; the reply records an
//!   `anthropic_strict_tools_fallback` diagnostic ([`ANTHROPIC_DIAGNOSTIC`]). Nothing is
//!   remembered: the next request tries strict again.
//! * 1.6 Bedrock ([`Change::BedrockStrictToolsFallback`], `streamBedrock`): the same on a
//!   `ValidationException`, diagnostic `bedrock_strict_tools_fallback` ([`BEDROCK_DIAGNOSTIC`]).
//! * 1.6 both ([`Change::StrictToolLimitsPerSession`], `api/strict-tool-limits.js`): the
//!   fallback marks the request's `sessionId` ([`StrictLimits`], per process, at most 10,000
//!   sessions, the oldest dropped first, freed by `cleanupSessionResources` when the agent
//!   session is disposed), and every later request of a marked session starts non-strict: no
//!   rejection, no diagnostic.
//!
//! [`StrictTools`] carries the flag into a builder and the builder's answer back
//! (`hasPreferredStrictTools`); [`fallback_diagnostic`] is pi-ai's retry condition.

use std::cell::Cell;
use std::collections::{HashSet, VecDeque};

use forge_replay_model::json::stringify;
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::Api;
use crate::constrained::prefers_json_schema_strict_sampling;
use crate::error::AssembleError;
use crate::js::Field;

/// The `anthropic_strict_tools_fallback` diagnostic type.
pub const ANTHROPIC_DIAGNOSTIC: &str = "anthropic_strict_tools_fallback";

/// The `bedrock_strict_tools_fallback` diagnostic type.
pub const BEDROCK_DIAGNOSTIC: &str = "bedrock_strict_tools_fallback";

/// The rejection messages that name a strict-tool limit (`STRICT_TOOL_LIMIT_ERROR_MESSAGES`; 1.3
/// Anthropic has the same list inline).
pub const LIMIT_MESSAGES: [&str; 3] = [
    "The compiled grammar is too large",
    "Too many strict tools (",
    "Schemas contains too many parameters with union types (",
];

/// `isStrictToolLimitErrorMessage(message)`.
pub fn is_limit_message(message: &str) -> bool {
    LIMIT_MESSAGES.iter().any(|m| message.contains(m))
}

/// `MAX_SESSIONS_OVER_STRICT_TOOL_LIMITS`.
pub const MAX_SESSIONS: usize = 10_000;

/// The diagnostic type of `api`'s fallback, when `release` has one.
pub fn diagnostic(release: PiRelease, api: Api) -> Option<&'static str> {
    match api {
        Api::AnthropicMessages if release.has(Change::AnthropicStrictToolsFallback) => {
            Some(ANTHROPIC_DIAGNOSTIC)
        }
        Api::BedrockConverseStream if release.has(Change::BedrockStrictToolsFallback) => {
            Some(BEDROCK_DIAGNOSTIC)
        }
        _ => None,
    }
}

/// The strict-tools side of one build: whether `prefer` tools are sent non-strict
/// (`disablePreferredStrictTools`) and, after the build, whether a `prefer` tool went out strict
/// (`hasPreferredStrictTools`).
#[derive(Debug, Default)]
pub struct StrictTools {
    disable_preferred: bool,
    preferred_sent: Cell<bool>,
}

impl StrictTools {
    /// `disablePreferredStrictTools = disable`.
    pub fn new(disable_preferred: bool) -> StrictTools {
        StrictTools {
            disable_preferred,
            preferred_sent: Cell::new(false),
        }
    }

    /// Whether `prefer` tools are sent non-strict.
    pub fn disables_preferred(&self) -> bool {
        self.disable_preferred
    }

    /// Whether a `prefer` tool was sent strict.
    pub fn preferred_sent(&self) -> bool {
        self.preferred_sent.get()
    }

    /// Notes that a `prefer` tool was sent strict (by the part of a request a resumed assembly
    /// took over from the previous one).
    pub(crate) fn note_preferred_sent(&self) {
        self.preferred_sent.set(true);
    }

    /// A tool's strictness: `undefined` for a `prefer` tool when they are disabled, else what
    /// `resolve` (`resolveJsonSchemaStrictSampling`) says; notes a `prefer` tool sent strict.
    pub fn resolve(
        &self,
        tool: &Value,
        resolve: impl FnOnce() -> Result<Option<bool>, AssembleError>,
    ) -> Result<Option<bool>, AssembleError> {
        let prefer = prefers_json_schema_strict_sampling(tool);
        let strict = if self.disable_preferred && prefer {
            None
        } else {
            resolve()?
        };
        if strict == Some(true) && prefer {
            self.preferred_sent.set(true);
        }
        Ok(strict)
    }
}

/// How a request's first attempt was rejected, as pi-ai's retry condition sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected<'a> {
    /// The HTTP status (Anthropic; `None` for a Bedrock exception).
    pub status: Option<u16>,
    /// `error.message` (Anthropic: the SDK's `"400 {…}"` text; Bedrock: the exception's message).
    pub message: &'a str,
}

/// pi-ai's retry condition: the diagnostic pi-ai records when it resends a request built with
/// `disable_preferred` that sent a `prefer` tool strict (`preferred_sent`) after the endpoint
/// rejected it with `rejected`; `None` when it passes the error on.
pub fn fallback_diagnostic(
    release: PiRelease,
    api: Api,
    disable_preferred: bool,
    preferred_sent: bool,
    rejected: &Rejected<'_>,
) -> Option<&'static str> {
    let diagnostic = diagnostic(release, api)?;
    if disable_preferred || !preferred_sent || !is_limit_message(rejected.message) {
        return None;
    }
    // Anthropic: `error.status === 400 && error.type === "invalid_request_error"` (the
    // rejections modelled here are invalid-request errors). Bedrock: a `ValidationException`.
    if api == Api::AnthropicMessages && rejected.status != Some(400) {
        return None;
    }
    Some(diagnostic)
}

/// The state key of a request's `options.sessionId` (`undefined`: none).
pub fn session_key(options: &Map<String, Value>) -> Option<String> {
    options.field("sessionId").map(stringify)
}

/// `sessionsOverStrictToolLimits` of one process: the sessions whose strict tools Claude
/// rejected ([`Change::StrictToolLimitsPerSession`]).
#[derive(Debug, Clone, Default)]
pub struct StrictLimits {
    order: VecDeque<String>,
    sessions: HashSet<String>,
}

impl StrictLimits {
    /// A fresh process: no session is marked.
    pub fn new() -> StrictLimits {
        StrictLimits::default()
    }

    /// `markStrictToolLimitsExceeded(sessionId)`: nothing without a session; keeps at most
    /// [`MAX_SESSIONS`] sessions, dropping the first marked (a `Set` keeps insertion order, and
    /// marking a marked session again does not move it).
    pub fn mark(&mut self, session: Option<&str>) {
        let Some(session) = session else { return };
        if self.sessions.insert(session.to_string()) {
            self.order.push_back(session.to_string());
        }
        if self.sessions.len() > MAX_SESSIONS {
            if let Some(oldest) = self.order.pop_front() {
                self.sessions.remove(&oldest);
            }
        }
    }

    /// `hasExceededStrictToolLimits(sessionId)`.
    pub fn has(&self, session: Option<&str>) -> bool {
        session.is_some_and(|s| self.sessions.contains(s))
    }

    /// `cleanupSessionResources(sessionId)`: forgets one session.
    pub fn forget(&mut self, session: &str) {
        if self.sessions.remove(session) {
            self.order.retain(|s| s != session);
        }
    }

    /// `cleanupSessionResources()` without a session, or a new process: forgets every session.
    pub fn clear(&mut self) {
        self.sessions.clear();
        self.order.clear();
    }

    /// How many sessions are marked.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is marked.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Whether a request of `api` under `release` for `options` starts with `prefer` tools
    /// non-strict (`hasExceededStrictToolLimits(options.sessionId)`, 1.6).
    pub fn starts_non_strict(
        &self,
        release: PiRelease,
        api: Api,
        options: &Map<String, Value>,
    ) -> bool {
        release.has(Change::StrictToolLimitsPerSession)
            && diagnostic(release, api).is_some()
            && self.has(session_key(options).as_deref())
    }

    /// After a fallback of a request for `options`: marks its session (1.6).
    pub fn after_fallback(&mut self, release: PiRelease, options: &Map<String, Value>) {
        if release.has(Change::StrictToolLimitsPerSession) {
            self.mark(session_key(options).as_deref());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limit_messages_match_anywhere_in_the_sdk_text() {
        assert!(is_limit_message(
            r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"Too many strict tools (21 > 20)"}}"#
        ));
        assert!(is_limit_message("The compiled grammar is too large"));
        assert!(!is_limit_message("Too many strict tools"));
        assert!(!is_limit_message("prompt is too long"));
    }

    #[test]
    fn retry_condition_follows_pi_ai() {
        let r = Rejected {
            status: Some(400),
            message: "400 Too many strict tools (21 > 20)",
        };
        let a = Api::AnthropicMessages;
        let b = Api::BedrockConverseStream;
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_3_0, a, false, true, &r),
            Some(ANTHROPIC_DIAGNOSTIC)
        );
        assert_eq!(
            fallback_diagnostic(PiRelease::V0_87_1, a, false, true, &r),
            None
        );
        // Already non-strict, or nothing preferred went out strict: the error is passed on.
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_3_0, a, true, true, &r),
            None
        );
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_3_0, a, false, false, &r),
            None
        );
        let s500 = Rejected {
            status: Some(500),
            ..r.clone()
        };
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_6_0, a, false, true, &s500),
            None
        );
        // Bedrock has it from 1.6.
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_3_0, b, false, true, &r),
            None
        );
        assert_eq!(
            fallback_diagnostic(PiRelease::V1_6_0, b, false, true, &r),
            Some(BEDROCK_DIAGNOSTIC)
        );
    }

    #[test]
    fn sessions_are_capped_oldest_first() {
        let mut l = StrictLimits::new();
        l.mark(None);
        assert!(l.is_empty());
        for i in 0..MAX_SESSIONS {
            l.mark(Some(&format!("\"s{i}\"")));
        }
        // Marking again does not move a session.
        l.mark(Some("\"s0\""));
        assert_eq!(l.len(), MAX_SESSIONS);
        l.mark(Some("\"new\""));
        assert_eq!(l.len(), MAX_SESSIONS);
        assert!(!l.has(Some("\"s0\"")) && l.has(Some("\"s1\"")) && l.has(Some("\"new\"")));
        l.forget("\"s1\"");
        assert!(!l.has(Some("\"s1\"")));
        l.clear();
        assert!(l.is_empty());
    }

    #[test]
    fn only_1_6_remembers_a_session() {
        let options = json!({"sessionId": "abc"}).as_object().cloned().unwrap();
        for release in PiRelease::ALL {
            let mut l = StrictLimits::new();
            l.after_fallback(release, &options);
            let sticky = release.has(Change::StrictToolLimitsPerSession);
            assert_eq!(
                l.starts_non_strict(release, Api::AnthropicMessages, &options),
                sticky
            );
            assert_eq!(
                l.starts_non_strict(release, Api::BedrockConverseStream, &options),
                sticky
            );
            assert!(!l.starts_non_strict(release, Api::OpenAiResponses, &options));
        }
        let none = Map::new();
        let mut l = StrictLimits::new();
        l.after_fallback(PiRelease::V1_6_0, &none);
        assert!(l.is_empty());
    }
}
