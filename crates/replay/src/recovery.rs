//! Recovery checks: does every leaf of a session recover the right capability state, and is every
//! request well formed? (`forge-replay check`, beyond the structural checks.)
//!
//! The tree is walked depth first once, forking the incremental [`Replayer`] at branch points, so
//! each entry is projected once per path through it. Findings are
//! [`forge_replay_session::Diagnostic`]s with a code ([`code`]), the entry's line and its id in
//! the message:
//!
//! * on every leaf: the capability history decodes and reduces, anchors are in order
//!   ([`code::CAPABILITY_HISTORY`], [`code::ANCHOR_ORDER`]); the compaction checkpoint restates
//!   the state at the last event before the compaction and sits right after the leading system
//!   message, before the summary ([`code::CHECKPOINT_STATE`], [`code::CHECKPOINT_PLACEMENT`]);
//!   no capability text comes from an activation that is not on the leaf's own path
//!   ([`code::CAPABILITY_LEAK`]);
//! * for every request (assistant entry): each tool call has its result and each tool result its
//!   call ([`code::UNPAIRED_TOOL_CALL`], [`code::ORPHAN_TOOL_RESULT`]), and every called tool was
//!   declared by the transcript when it was called ([`code::UNDECLARED_TOOL`]).

use std::collections::{HashMap, HashSet};

use forge_replay_capability::context::{CapabilityContext, ContextError, Options, Replayer};
use forge_replay_capability::event::Op;
use forge_replay_capability::history::CapabilityHistory;
use forge_replay_capability::projection::{Presentation, UpdateKind};
use forge_replay_model::error::chain as error_chain;
use forge_replay_session::{llm, Diagnostic, Session, Severity};
use serde_json::{json, Value};

/// Finding codes.
pub mod code {
    /// The branch's capability history does not decode or reduce (Forge fails closed).
    pub const CAPABILITY_HISTORY: &str = "capability-history";
    /// A delivery anchor points at an unknown, future or earlier event.
    pub const ANCHOR_ORDER: &str = "anchor-order";
    /// The compaction checkpoint does not restate the state at the checkpoint event.
    pub const CHECKPOINT_STATE: &str = "checkpoint-state";
    /// The checkpoint is not right after the leading system message, before the summary.
    pub const CHECKPOINT_PLACEMENT: &str = "checkpoint-placement";
    /// Capability text of an activation that is not on this leaf's path.
    pub const CAPABILITY_LEAK: &str = "capability-leak";
    /// A tool call without a result in the request (pi-ai sends "No result provided").
    pub const UNPAIRED_TOOL_CALL: &str = "unpaired-tool-call";
    /// A tool result without a preceding call.
    pub const ORPHAN_TOOL_RESULT: &str = "orphan-tool-result";
    /// A tool called while the transcript did not declare it.
    pub const UNDECLARED_TOOL: &str = "undeclared-tool";
    /// Pi's projection of the request failed.
    pub const REQUEST_PROJECTION: &str = "request-projection";
}

const SECTION_PREFIX: &str = "forge-capability-";

/// Runs every recovery check on `session`.
pub fn check(session: &Session) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let tree = session.tree();
    let mut stack: Vec<(usize, Replayer<'_>)> = tree
        .roots()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|r| (r, Replayer::new(session)))
        .collect();
    let mut reported: HashSet<String> = HashSet::new();
    while let Some((i, mut rp)) = stack.pop() {
        let e = session.entry(i);
        if e.is_assistant_message() {
            check_request(session, i, &mut rp, &mut out, &mut reported);
        }
        if let Err(err) = rp.push(i) {
            out.push(finding(
                session,
                i,
                code::REQUEST_PROJECTION,
                error_chain(&err),
            ));
            continue;
        }
        let children: Vec<usize> = tree.children(i).collect();
        if children.is_empty() {
            check_leaf(session, i, &mut rp, &mut out, &mut reported);
            continue;
        }
        let last = children.len() - 1;
        for (k, c) in children.into_iter().enumerate().rev() {
            if k == last {
                continue;
            }
            stack.push((c, rp.clone()));
        }
        // The last child (pushed last, popped first) takes the replayer itself.
        let c = tree.children(i).last().expect("non-empty");
        stack.push((c, rp));
    }
    out.sort_by_key(|d| d.line);
    out
}

fn finding(session: &Session, i: usize, code: &'static str, message: String) -> Diagnostic {
    let e = session.entry(i);
    Diagnostic::new(
        Severity::Error,
        code,
        Some(e.line()),
        format!("entry {}: {message}", e.id().unwrap_or("?")),
    )
}

/// The context for one request or leaf; capability failures become one finding per failing
/// entry (reported once, at the entry Forge fails on).
fn project(
    session: &Session,
    i: usize,
    rp: &mut Replayer<'_>,
    out: &mut Vec<Diagnostic>,
    reported: &mut HashSet<String>,
) -> Option<CapabilityContext> {
    match rp.project(Options::new(Presentation::Native)) {
        Ok(c) => Some(c),
        Err(ContextError::Capability(f)) => {
            let key = format!("{:?}{}", f.location, f.message);
            if reported.insert(key) {
                let c = if f.message.contains("delivery anchor") || f.message.contains("marker") {
                    code::ANCHOR_ORDER
                } else {
                    code::CAPABILITY_HISTORY
                };
                let (line, id) = match &f.location {
                    Some(l) => (l.line.map(|n| n as u64), l.entry_id.clone()),
                    None => (
                        Some(session.entry(i).line()),
                        session.entry(i).id().map(String::from),
                    ),
                };
                out.push(Diagnostic::new(
                    Severity::Error,
                    c,
                    line,
                    format!("entry {}: {}", id.as_deref().unwrap_or("?"), f.message),
                ));
            }
            None
        }
        Err(e) => {
            out.push(finding(
                session,
                i,
                code::REQUEST_PROJECTION,
                error_chain(&e),
            ));
            None
        }
    }
}

fn check_request(
    session: &Session,
    i: usize,
    rp: &mut Replayer<'_>,
    out: &mut Vec<Diagnostic>,
    reported: &mut HashSet<String>,
) {
    let Some(ctx) = project(session, i, rp, out, reported) else {
        return;
    };
    let context = json!({"messages": llm::convert_to_llm(&ctx.messages)});
    let Ok(transcript) = forge_replay_wire::normalize_context(&context) else {
        return;
    };
    let mut declared: HashSet<String> = HashSet::new();
    // Open calls: id → (tool name); cleared at the next user or assistant message.
    let mut open: Vec<(String, String)> = Vec::new();
    let mut called: HashSet<String> = HashSet::new();
    // A defect stays in every later request's history: report it at the first request only.
    let mut once = |key: String| reported.insert(key);
    let flush = |open: &mut Vec<(String, String)>,
                 out: &mut Vec<Diagnostic>,
                 once: &mut dyn FnMut(String) -> bool| {
        for (id, name) in open.drain(..) {
            if !once(format!("unpaired:{id}")) {
                continue;
            }
            out.push(finding(
                session,
                i,
                code::UNPAIRED_TOOL_CALL,
                format!("the request has tool call {id} ({name}) without a result; pi-ai sends \"No result provided\""),
            ));
        }
    };
    for m in &transcript {
        match m["role"].as_str() {
            Some("system") => {
                for r in m["toolsRemoved"].as_array().into_iter().flatten() {
                    if let Some(n) = r["name"].as_str() {
                        declared.remove(n);
                    }
                }
                for a in m["toolsAdded"].as_array().into_iter().flatten() {
                    if let Some(n) = a["name"].as_str() {
                        declared.insert(n.to_string());
                    }
                }
            }
            Some("assistant") => {
                flush(&mut open, out, &mut once);
                if matches!(m["stopReason"].as_str(), Some("error" | "aborted")) {
                    continue;
                }
                for b in m["content"].as_array().into_iter().flatten() {
                    if b["type"] != "toolCall" {
                        continue;
                    }
                    let id = b["id"].as_str().unwrap_or_default().to_string();
                    let name = b["name"].as_str().unwrap_or_default().to_string();
                    if !declared.contains(&name) && once(format!("undeclared:{id}")) {
                        out.push(finding(
                            session,
                            i,
                            code::UNDECLARED_TOOL,
                            format!("tool call {id} uses {name:?}, which the transcript did not declare at that point"),
                        ));
                    }
                    called.insert(id.clone());
                    open.push((id, name));
                }
            }
            Some("toolResult") => {
                let id = m["toolCallId"].as_str().unwrap_or_default();
                let before = open.len();
                open.retain(|(o, _)| o != id);
                if open.len() == before && !called.contains(id) && once(format!("orphan:{id}")) {
                    out.push(finding(
                        session,
                        i,
                        code::ORPHAN_TOOL_RESULT,
                        if id.is_empty() {
                            "tool result with an empty toolCallId has no matching tool call"
                                .to_string()
                        } else {
                            format!("tool result for {id} has no matching tool call")
                        },
                    ));
                }
            }
            Some("user") => flush(&mut open, out, &mut once),
            _ => {}
        }
    }
    // Calls still open at the end of a request's context are the ones being answered now only
    // if the request is the follow-up; a request never ends with an unanswered call.
    flush(&mut open, out, &mut once);
}

fn check_leaf(
    session: &Session,
    i: usize,
    rp: &mut Replayer<'_>,
    out: &mut Vec<Diagnostic>,
    reported: &mut HashSet<String>,
) {
    let Some(ctx) = project(session, i, rp, out, reported) else {
        return;
    };
    let history = &ctx.history;
    check_leaks(session, i, &ctx, history, out);
    let Some(cp_id) = history.checkpoint_through.as_deref() else {
        return;
    };
    // The text state at the checkpoint, reduced independently of the projection.
    let mut state: Vec<(String, String)> = Vec::new();
    for ev in history.unique_events() {
        match &ev.op {
            Op::Activate(s) => {
                if !forge_replay_model::js::trim(&s.content).is_empty() {
                    state.push((s.activation_id.clone(), s.content.clone()));
                }
            }
            Op::Deactivate { activation_id } => state.retain(|(a, _)| a != activation_id),
            Op::Reset => state.clear(),
        }
        if ev.event_id == cp_id {
            break;
        }
    }
    let checkpoint = ctx
        .updates
        .iter()
        .find(|(_, k)| *k == UpdateKind::Checkpoint)
        .map(|(p, _)| *p);
    let Some(pos) = checkpoint else {
        if !state.is_empty() {
            out.push(finding(
                session,
                i,
                code::CHECKPOINT_STATE,
                format!(
                    "no compaction checkpoint restates the {} capabilities active at event {cp_id}",
                    state.len()
                ),
            ));
        }
        return;
    };
    let expected: serde_json::Map<String, Value> = state
        .iter()
        .map(|(a, c)| (format!("{SECTION_PREFIX}{a}"), Value::String(c.clone())))
        .collect();
    let got = ctx.messages[pos]
        .get("sections")
        .cloned()
        .unwrap_or(Value::Null);
    if got != Value::Object(expected.clone()) {
        out.push(finding(
            session,
            i,
            code::CHECKPOINT_STATE,
            format!(
                "the compaction checkpoint restates {} but the state at event {cp_id} is {}",
                forge_replay_model::json::stringify(&got),
                forge_replay_model::json::stringify(&Value::Object(expected))
            ),
        ));
    }
    let leading_system = ctx.messages.first().is_some_and(|m| m["role"] == "system");
    let summary = ctx
        .messages
        .iter()
        .position(|m| m["role"] == "compactionSummary");
    let placed = (!leading_system || pos == 1) && summary.is_none_or(|s| s > pos);
    if !placed {
        out.push(finding(
            session,
            i,
            code::CHECKPOINT_PLACEMENT,
            format!(
                "the compaction checkpoint is message {pos}; it belongs right after the leading system message and before the summary (message {})",
                summary.map_or("-".to_string(), |s| s.to_string())
            ),
        ));
    }
}

fn check_leaks(
    session: &Session,
    i: usize,
    ctx: &CapabilityContext,
    history: &CapabilityHistory,
    out: &mut Vec<Diagnostic>,
) {
    let own: HashSet<&str> = history
        .unique_events()
        .filter_map(|e| match &e.op {
            Op::Activate(s) => Some(s.activation_id.as_str()),
            _ => None,
        })
        .collect();
    let mut seen: HashMap<String, ()> = HashMap::new();
    for m in &ctx.messages {
        let mut ids = Vec::new();
        if let Some(secs) = m["sections"].as_object() {
            ids.extend(
                secs.keys()
                    .filter_map(|k| k.strip_prefix(SECTION_PREFIX))
                    .map(String::from),
            );
        }
        for text in [m["content"].as_str().unwrap_or_default()] {
            let mut rest = text;
            while let Some(p) = rest.find("section \"forge-capability-") {
                rest = &rest[p + "section \"".len()..];
                let end = rest.find('"').unwrap_or(rest.len());
                if let Some(id) = rest[..end].strip_prefix(SECTION_PREFIX) {
                    ids.push(id.to_string());
                }
                rest = &rest[end..];
            }
        }
        for id in ids {
            if !own.contains(id.as_str()) && seen.insert(id.clone(), ()).is_none() {
                out.push(finding(
                    session,
                    i,
                    code::CAPABILITY_LEAK,
                    format!("capability {id} appears in the context but was not activated on this branch"),
                ));
            }
        }
    }
}
