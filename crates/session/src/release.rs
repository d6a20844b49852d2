//! Which Pi release wrote a session: the markers of [`forge_replay_model::release::MARKERS`] found
//! in it.
//!
//! No release writes its version into a session. What each writes that older ones do not is the
//! evidence: from 1.3 every response records `thinkingLevel` and `durationMs`, tool results
//! `durationMs` (and `nestedCalls` when a tool called tools), malformed tool arguments
//! `argumentsError`, virtual-model routers `pi.virtual-model-state` entries, Anthropic's strict
//! fallback a diagnostic; 1.6 adds `usage.cost.totalFromProvider` (on responses, compaction and
//! branch summaries), new diagnostics, and re-records the thinking level on a branch tree
//! navigation moved to (`BranchLevels`). A session
//! whose responses carry none of them was written by 0.87.1 (or a release between, which
//! forge-replay does not model).
//!
//! [`detect`] is one pass over the entries already read: message keys come from the reader's
//! head, and the few markers nested deeper are looked for in the raw line with `memmem` and
//! confirmed by parsing only the lines that contain them.

use std::path::Path;

use forge_replay_model::release::{Marker, PiRelease, MARKERS};
use forge_replay_model::session::EntryType;
use memchr::memmem;
use serde_json::Value;

use crate::diag::{Diagnostic, Severity};
use crate::session::Session;

/// Code of the [`diagnostic`] `forge-replay check` reports for the release a session shows.
pub const CODE: &str = "pi-release";

/// Message fields a later release writes, with the marker each is (`(role, field, marker)`).
/// The reader does not report them as unknown fields.
pub const LATER_MESSAGE_FIELDS: &[(&str, &str, &str)] = &[
    ("assistant", "thinkingLevel", "assistant-thinking-level"),
    ("assistant", "durationMs", "assistant-duration"),
    ("toolResult", "durationMs", "tool-result-duration"),
    ("toolResult", "nestedCalls", "tool-result-nested-calls"),
];

/// Whether `field` of a `role` message is one a later supported or known release writes.
pub fn is_later_message_field(role: &str, field: &str) -> bool {
    LATER_MESSAGE_FIELDS
        .iter()
        .any(|(r, f, _)| *r == role && *f == field)
}

/// One marker found in a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub marker: &'static Marker,
    /// How many entries carry it.
    pub count: u64,
    /// The first line that does.
    pub first_line: u64,
}

/// What a session shows about the release that wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Markers found, in [`MARKERS`] order.
    pub found: Vec<Found>,
    /// Assistant messages in the file.
    pub assistant_messages: u64,
    /// Assistant messages without `thinkingLevel` (written by a release before 1.3, or a 1.3
    /// error response that never reached the model), and the first one's line.
    pub assistant_without_thinking_level: u64,
    pub first_without_thinking_level: Option<u64>,
}

/// The release a session shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Markers of this supported release (the newest whose markers are present), or, for
    /// 0.87.1, responses without any later marker.
    Release(PiRelease),
    /// Markers of a release newer than every supported one (`version` is the newest marker's).
    Newer { version: &'static str },
    /// Nothing to go by (no response in the file).
    Unknown,
}

impl Evidence {
    /// The version of the newest marker found.
    pub fn newest_marker_version(&self) -> Option<&'static str> {
        self.found
            .iter()
            .map(|f| f.marker.since)
            .max_by(|a, b| PiRelease::compare_versions(a, b))
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        if let Some(v) = self.newest_marker_version() {
            return match PiRelease::from_version(v) {
                Some(r) => Verdict::Release(r),
                None if PiRelease::compare_versions(v, PiRelease::LATEST.version()).is_gt() => {
                    Verdict::Newer { version: v }
                }
                // A marker of an unsupported release between two supported ones: the newest
                // supported release before it.
                None => Verdict::Release(
                    PiRelease::ALL
                        .into_iter()
                        .rev()
                        .find(|r| PiRelease::compare_versions(r.version(), v).is_lt())
                        .unwrap_or(PiRelease::DEFAULT),
                ),
            };
        }
        if self.assistant_messages > 0 {
            Verdict::Release(PiRelease::V0_87_1)
        } else {
            Verdict::Unknown
        }
    }

    /// The release to follow when none is asked for: the verdict's, the newest supported one for
    /// a newer session, [`PiRelease::DEFAULT`] without evidence.
    pub fn release(&self) -> PiRelease {
        match self.verdict() {
            Verdict::Release(r) => r,
            Verdict::Newer { .. } => PiRelease::LATEST,
            Verdict::Unknown => PiRelease::DEFAULT,
        }
    }

    /// The evidence in a few words (`12 assistant messages with thinkingLevel, first on line 5`).
    pub fn describe(&self) -> String {
        if self.found.is_empty() {
            return if self.assistant_messages == 0 {
                "no response in the file".to_string()
            } else {
                format!(
                    "none of its {} carries a marker of a later release",
                    forge_replay_model::text::count(
                        self.assistant_messages as usize,
                        "response",
                        "responses"
                    )
                )
            };
        }
        let newest = self.newest_marker_version();
        self.found
            .iter()
            .filter(|f| Some(f.marker.since) == newest)
            .map(|f| {
                format!(
                    "{} ({}×, first on line {})",
                    f.marker.what, f.count, f.first_line
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Why `release` contradicts the evidence, if it does: a session with markers of a later
    /// release, or a session without any marker of `release` when it writes them on every
    /// response.
    pub fn contradiction(&self, release: PiRelease) -> Option<String> {
        match self.verdict() {
            Verdict::Release(r) if r == release => None,
            Verdict::Unknown => None,
            Verdict::Release(r) if r > release => {
                Some(format!("it was written by Pi {r}: {}", self.describe()))
            }
            Verdict::Newer { version } => Some(format!(
                "it was written by Pi {version} or later: {}",
                self.describe()
            )),
            Verdict::Release(r) => Some(format!(
                "it shows Pi {r}: {}, which Pi {release} writes on every response",
                self.describe()
            )),
        }
    }

    /// Whether earlier responses lack the thinking level a later release records (the session
    /// was continued by a newer release).
    pub fn mixed(&self) -> bool {
        self.found
            .iter()
            .any(|f| f.marker.name == "assistant-thinking-level")
            && self.assistant_without_thinking_level > 0
    }

    fn note(&mut self, name: &str, line: u64) {
        let Some(marker) = Marker::named(name) else {
            return;
        };
        match self.found.iter_mut().find(|f| f.marker.name == name) {
            Some(f) => f.count += 1,
            None => self.found.push(Found {
                marker,
                count: 1,
                first_line: line,
            }),
        }
    }
}

/// What `forge-replay check` says about the release: a note naming the release whose markers a
/// session holds (nothing for a session without markers: the default 0.87.1), a warning when it
/// shows a release newer than every supported one or one other than `expected` (`check --pi`).
pub fn diagnostic(ev: &Evidence, expected: Option<PiRelease>) -> Option<Diagnostic> {
    let line = ev.found.first().map(|f| f.first_line);
    if let Some(r) = expected {
        if let Some(why) = ev.contradiction(r) {
            return Some(Diagnostic::new(
                Severity::Warning,
                CODE,
                line.or(ev.first_without_thinking_level),
                format!("expected a session of Pi {r}, but {why}"),
            ));
        }
    }
    match ev.verdict() {
        Verdict::Release(_) if ev.found.is_empty() => None,
        Verdict::Release(r) => Some(Diagnostic::new(
            Severity::Info,
            CODE,
            line,
            format!("written by Pi {r}: {}", ev.describe()),
        )),
        Verdict::Newer { version } => Some(Diagnostic::new(
            Severity::Warning,
            CODE,
            line,
            format!(
                "written by Pi {version} or later, which this forge-replay does not support (newest: {}): {}",
                PiRelease::LATEST,
                ev.describe()
            ),
        )),
        Verdict::Unknown => None,
    }
}

/// The release to follow for the session at `path` showing `ev`, and the lines that say so on
/// stderr. `asked` (a release and how it was asked for: `--pi` or `FORGE_REPLAY_PI`) is
/// followed, with a warning when the session shows another; else the release the session shows
/// ([`Evidence::release`]), with a note naming it (and a warning for a newer, unsupported one).
pub fn follow(
    ev: &Evidence,
    path: &Path,
    asked: Option<(PiRelease, &str)>,
) -> (PiRelease, Vec<String>) {
    let path = path.display();
    if let Some((r, by)) = asked {
        let warning = ev.contradiction(r).map(|why| {
            format!("forge-replay: warning: {path}: following {by} {r} as asked, but {why}")
        });
        return (r, warning.into_iter().collect());
    }
    let release = ev.release();
    let mut lines = Vec::new();
    match ev.verdict() {
        Verdict::Release(r) => {
            lines.push(format!(
                "forge-replay: note: {path}: following Pi {r}, the release that wrote it ({}; --pi to choose another)",
                ev.describe()
            ));
            if ev.mixed() {
                let n = ev.assistant_without_thinking_level;
                lines.push(format!(
                    "forge-replay: note: {path}: {} no thinkingLevel (first on line {}): an older Pi wrote them before Pi {r} continued the session",
                    if n == 1 {
                        "1 earlier response carries".to_owned()
                    } else {
                        format!("{n} earlier responses carry")
                    },
                    ev.first_without_thinking_level.unwrap_or(0)
                ));
            }
        }
        Verdict::Newer { version } => lines.push(format!(
            "forge-replay: warning: {path}: written by Pi {version} or later ({}), which this forge-replay does not support; following {release}, the newest supported release (--pi to choose)",
            ev.describe()
        )),
        Verdict::Unknown => lines.push(format!(
            "forge-replay: note: {path}: {}, nothing tells which Pi release wrote it; following the default {release} (--pi to choose)",
            ev.describe()
        )),
    }
    (release, lines)
}

/// Nested markers looked for in raw assistant lines: `(needle, marker)`.
const ASSISTANT_NEEDLES: &[(&str, &str)] = &[
    ("\"argumentsError\"", "tool-call-arguments-error"),
    ("\"totalFromProvider\"", "cost-total-from-provider"),
];

/// Diagnostic types that are markers.
const DIAGNOSTIC_MARKERS: &[(&str, &str)] = &[
    (
        "anthropic_strict_tools_fallback",
        "anthropic-strict-tools-fallback",
    ),
    ("anthropic_thread_fallback", "anthropic-thread-fallback"),
    (
        "openai_input_transformations",
        "openai-input-transformations",
    ),
    (
        "bedrock_strict_tools_fallback",
        "bedrock-strict-tools-fallback",
    ),
];

/// The markers `session` holds.
pub fn detect(session: &Session) -> Evidence {
    let mut ev = Evidence::default();
    let finders: Vec<(memmem::Finder<'_>, &str)> = ASSISTANT_NEEDLES
        .iter()
        .map(|(n, m)| (memmem::Finder::new(n.as_bytes()), *m))
        .collect();
    let virtual_state = memmem::Finder::new(b"pi.virtual-model-state");
    let from_provider = memmem::Finder::new(b"\"totalFromProvider\"");
    let mut branch_levels = BranchLevels::default();
    for e in session.entries() {
        let line = e.line();
        branch_levels.see(session, &e);
        match e.entry_type() {
            // Compaction and branch summaries record the usage of their summarization request.
            EntryType::Compaction | EntryType::BranchSummary
                if e.raw()
                    .is_ok_and(|raw| from_provider.find(raw.as_bytes()).is_some())
                    && e.value()
                        .ok()
                        .is_some_and(|v| v.pointer("/usage/cost/totalFromProvider").is_some()) =>
            {
                ev.note("cost-total-from-provider", line);
            }
            EntryType::Custom
                if e.raw()
                    .is_ok_and(|raw| virtual_state.find(raw.as_bytes()).is_some())
                    && e.value().ok().and_then(|v| {
                        v.get("customType")
                            .and_then(Value::as_str)
                            .map(|t| t == "pi.virtual-model-state")
                    }) == Some(true) =>
            {
                ev.note("virtual-model-state", line);
            }
            EntryType::Message => {
                // The index keeps no message head: the line is read again and scanned (the cheap
                // head, not a full parse).
                let Ok(raw) = e.raw() else { continue };
                let Ok(crate::head::Parsed::Object(head)) = crate::head::scan(&raw) else {
                    continue;
                };
                let Some(m) = head.message.as_deref() else {
                    continue;
                };
                let Some(role) = m.role.as_deref() else {
                    continue;
                };
                let has = |field: &str| m.other_keys.iter().any(|k| &**k == field);
                for (r, field, marker) in LATER_MESSAGE_FIELDS {
                    if *r == role && has(field) {
                        ev.note(marker, line);
                    }
                }
                if role != "assistant" {
                    continue;
                }
                ev.assistant_messages += 1;
                if !has("thinkingLevel") {
                    ev.assistant_without_thinking_level += 1;
                    ev.first_without_thinking_level.get_or_insert(line);
                }
                let raw = raw.as_bytes();
                let hits: Vec<&str> = finders
                    .iter()
                    .filter(|(f, _)| f.find(raw).is_some())
                    .map(|(_, m)| *m)
                    .collect();
                let diagnostics =
                    m.keys & crate::head::key_bit(&crate::head::MESSAGE_KEYS, "diagnostics") != 0;
                if hits.is_empty() && !diagnostics {
                    continue;
                }
                let Ok(v) = e.value() else { continue };
                let msg = &v["message"];
                for marker in hits {
                    let confirmed = match marker {
                        "tool-call-arguments-error" => msg["content"].as_array().is_some_and(|c| {
                            c.iter().any(|b| {
                                b["type"] == "toolCall" && b.get("argumentsError").is_some()
                            })
                        }),
                        "cost-total-from-provider" => {
                            msg.pointer("/usage/cost/totalFromProvider").is_some()
                        }
                        _ => false,
                    };
                    if confirmed {
                        ev.note(marker, line);
                    }
                }
                if let Some(ds) = msg["diagnostics"].as_array() {
                    for (ty, marker) in DIAGNOSTIC_MARKERS {
                        if ds.iter().any(|d| d["type"] == *ty) {
                            ev.note(marker, line);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The pattern separates 1.6 from 1.3 (whose agent kept the level without recording it); it is
    // evidence only in a session whose responses already record their thinking level (1.3 and
    // later), never against 0.87.1.
    if ev
        .found
        .iter()
        .any(|f| f.marker.name == "assistant-thinking-level")
    {
        for line in branch_levels.found {
            ev.note("thinking-level-on-branch", line);
        }
    }
    ev.found.sort_by_key(|f| {
        MARKERS
            .iter()
            .position(|m| m.name == f.marker.name)
            .unwrap_or(usize::MAX)
    });
    ev
}

/// Finds the `thinking_level_change` entries 1.6's `_recordThinkingLevel` writes: before a prompt
/// on a branch that tree navigation moved to, the agent's level (the last one recorded anywhere in
/// the file) is appended when the branch implies another one. Such an entry
///
/// * repeats the level of the previous `thinking_level_change` in the file,
/// * is not a child of the entry on the line before it (navigation moved the leaf),
/// * differs from the level of the nearest `thinking_level_change` on its own branch,
/// * and is followed, on the next line, by a user message that is its child.
///
/// Earlier releases write a `thinking_level_change` only when the level changes against the
/// agent's, so the first condition does not hold for them after navigation.
#[derive(Default)]
struct BranchLevels {
    /// The entry on the line before, and the last level recorded in the file.
    previous_id: Option<String>,
    last_level: Option<Value>,
    /// A candidate waiting for its next line: its id and line.
    candidate: Option<(String, u64)>,
    found: Vec<u64>,
}

impl BranchLevels {
    fn see(&mut self, session: &Session, e: &crate::entry::Entry<'_>) {
        if let Some((id, line)) = self.candidate.take() {
            if *e.entry_type() == EntryType::Message
                && e.role() == Some("user")
                && e.parent_id() == Some(id.as_str())
            {
                self.found.push(line);
            }
        }
        if *e.entry_type() == EntryType::ThinkingLevelChange {
            let level = e.thinking_level_value().cloned();
            if let (Some(level), Some(id)) = (&level, e.id()) {
                if self.last_level.as_ref() == Some(level)
                    && e.parent_id().is_some()
                    && e.parent_id() != self.previous_id.as_deref()
                    && branch_level(session, e.parent_id()).is_some_and(|b| &b != level)
                {
                    self.candidate = Some((id.to_string(), e.line()));
                }
            }
            if level.is_some() {
                self.last_level = level;
            }
        }
        self.previous_id = e.id().map(str::to_string);
    }
}

/// The level of the nearest `thinking_level_change` on the path from `id` to the root (a walk of
/// one branch, done only for the rare candidates of [`BranchLevels`]; a cycle ends it).
fn branch_level<'a>(session: &'a Session, mut id: Option<&'a str>) -> Option<Value> {
    let mut steps = 0usize;
    while let Some(i) = id.and_then(|id| session.find(id)) {
        let e = session.entry(i);
        if *e.entry_type() == EntryType::ThinkingLevelChange {
            if let Some(v) = e.thinking_level_value() {
                return Some(v.clone());
            }
        }
        steps += 1;
        if steps > session.entry_count() {
            return None;
        }
        id = e.parent_id();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> Session {
        let mut text = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        for l in lines {
            text.push('\n');
            text.push_str(l);
        }
        text.push('\n');
        Session::from_reader(text.as_bytes(), std::path::Path::new("s.jsonl"))
            .expect("session")
            .0
    }

    const USER: &str = r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;

    fn assistant(id: &str, extra: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":2{extra}}}}}"#
        )
    }

    #[test]
    fn responses_without_markers_are_0_87_1() {
        let s = session(&[USER, &assistant("a", "")]);
        let ev = detect(&s);
        assert_eq!(ev.verdict(), Verdict::Release(PiRelease::V0_87_1));
        assert!(ev.contradiction(PiRelease::V0_87_1).is_none());
        let why = ev
            .contradiction(PiRelease::V1_3_0)
            .expect("contradicts 1.3.0");
        assert!(why.contains("none of its 1 response carries"), "{why}");
        assert_eq!(detect(&session(&[USER])).verdict(), Verdict::Unknown);
    }

    #[test]
    fn follow_says_the_release_it_follows_and_warns_against_the_evidence() {
        let path = std::path::Path::new("s.jsonl");
        let ev = detect(&session(&[
            USER,
            &assistant("a", ""),
            &assistant("b", r#","thinkingLevel":"off""#),
        ]));
        let (r, lines) = follow(&ev, path, None);
        assert_eq!(r, PiRelease::V1_3_0);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with(
            "forge-replay: note: s.jsonl: following Pi 1.3.0, the release that wrote it ("
        ));
        assert!(lines[1].contains("1 earlier response carries no thinkingLevel (first on line 3)"));
        let (r, lines) = follow(&ev, path, Some((PiRelease::V0_87_1, "--pi")));
        assert_eq!(r, PiRelease::V0_87_1);
        assert!(lines[0].starts_with("forge-replay: warning: s.jsonl: following --pi 0.87.1 as asked, but it was written by Pi 1.3.0"));
        let (r, lines) = follow(&detect(&session(&[USER])), path, None);
        assert_eq!(r, PiRelease::DEFAULT);
        assert!(lines[0].contains("nothing tells which Pi release wrote it"));
        assert!(
            follow(&ev, path, Some((PiRelease::V1_3_0, "FORGE_REPLAY_PI")))
                .1
                .is_empty()
        );
    }

    #[test]
    fn thinking_level_and_durations_are_1_3_0() {
        let s = session(&[
            USER,
            &assistant("a", r#","thinkingLevel":"high","durationMs":812"#),
        ]);
        let ev = detect(&s);
        assert_eq!(ev.verdict(), Verdict::Release(PiRelease::V1_3_0));
        assert_eq!(ev.release(), PiRelease::V1_3_0);
        assert_eq!(ev.found.len(), 2);
        assert_eq!(ev.found[0].first_line, 3);
        assert!(ev
            .describe()
            .contains("`thinkingLevel` (1×, first on line 3)"));
        let why = ev.contradiction(PiRelease::V0_87_1).expect("contradicts");
        assert!(why.starts_with("it was written by Pi 1.3.0"), "{why}");
        assert!(!ev.mixed());
        let mixed = detect(&session(&[
            USER,
            &assistant("a", ""),
            &assistant("b", r#","thinkingLevel":"off""#),
        ]));
        assert!(mixed.mixed());
    }

    #[test]
    fn nested_markers_are_confirmed_and_name_their_release() {
        // A text that mentions a marker is not one.
        let s = session(&[
            USER,
            &assistant("a", "").replace(
                r#""text":"ok""#,
                r#""text":"\"argumentsError\" totalFromProvider""#,
            ),
        ]);
        assert_eq!(detect(&s).verdict(), Verdict::Release(PiRelease::V0_87_1));
        let s = session(&[
            USER,
            &assistant("a", r#","thinkingLevel":"low""#)
                .replace(r#""total":0}"#, r#""total":0,"totalFromProvider":0.1}"#),
        ]);
        let ev = detect(&s);
        assert_eq!(ev.verdict(), Verdict::Release(PiRelease::V1_6_0));
        assert_eq!(ev.release(), PiRelease::LATEST);
        let s = session(&[
            USER,
            r#"{"type":"custom","id":"c","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","customType":"pi.virtual-model-state","data":{}}"#,
        ]);
        assert_eq!(detect(&s).verdict(), Verdict::Release(PiRelease::V1_3_0));
    }
}
