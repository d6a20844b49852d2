//! Recovery checks: does every leaf of a session recover the right capability state, and is every
//! request well formed? (`forge-replay check`, beyond the structural checks.)
//!
//! The tree is walked depth first once with one incremental [`Replayer`] that is extended on the
//! way down and taken back on the way up ([`Replayer::pop`]), so each entry is pushed once
//! whatever the shape of the tree. Requests and leaves are not projected one by one: the checks
//! keep their own state along the path (open tool calls, declared tools, capability ids seen)
//! and read only what the path added since the last request (see [`check`]). Findings are
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

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use forge_replay_capability::context::{
    CapabilityContext, CapabilityFailure, ContextError, Options, Replayer,
};
use forge_replay_capability::event::Op;
use forge_replay_capability::history::CapabilityHistory;
use forge_replay_capability::projection::{Presentation, UpdateKind};
use forge_replay_model::error::chain as error_chain;
use forge_replay_session::{llm, Diagnostic, EntryType, Session, Severity};
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

/// The first implementation of [`check`]: the replayer is copied at every branch point and every
/// request and leaf is projected from scratch (work and memory grow with the square of the
/// path). Kept as the reference [`check`] is tested against.
#[doc(hidden)]
pub fn check_reference(session: &Session) -> Vec<Diagnostic> {
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
    check_checkpoint(session, i, &ctx, out);
}

/// The checkpoint part of [`check_leaf`].
fn check_checkpoint(
    session: &Session,
    i: usize,
    ctx: &CapabilityContext,
    out: &mut Vec<Diagnostic>,
) {
    let history = &ctx.history;
    let Some(cp_id) = history.checkpoint_through.as_deref() else {
        return;
    };
    // The text state at the checkpoint, reduced independently of the projection.
    let state = checkpoint_state(history, cp_id);
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

/// Runs every recovery check on `session`: the same findings as the request-by-request
/// projection ([`check_reference`]), in time and memory linear in the tree.
///
/// What makes it linear: along one path, Pi's projection only grows by appending context slots
/// (a compaction or a context edit rewrites earlier ones, and then the state is rebuilt from
/// there); the capability step adds only system messages with sections, which neither the tool
/// checks nor the leak check look at, and it can only fail through the history (which the
/// replayer checks without building anything). So the tool-pairing state of a request is the
/// state of the previous request extended by the messages added since, and the capability ids of
/// a leaf are those of its parent's path plus what the leaf added. Shapes this does not cover
/// (a legacy `custom_message` delivery carrier in the context, a compaction whose checkpoint
/// position depends on the capability scan) are checked by projecting that request or leaf in
/// full, as before.
pub fn check(session: &Session) -> Vec<Diagnostic> {
    let mut w = Walker {
        session,
        // Pi's messages are read from the file slot by slot as the checks need them, not held
        // for the whole path.
        rp: Replayer::with_undo(session).on_demand(),
        out: Vec::new(),
        reported: HashSet::new(),
        tx: Transcript::default(),
        facts: Facts::default(),
        read: Vec::new(),
        checkpoints: HashMap::new(),
    };
    enum Step {
        Enter(usize),
        Exit,
    }
    let tree = session.tree();
    let roots: Vec<usize> = tree.roots().collect();
    let mut stack: Vec<Step> = roots.into_iter().rev().map(Step::Enter).collect();
    while let Some(step) = stack.pop() {
        let i = match step {
            Step::Exit => {
                let effect = w.rp.pop();
                let keep =
                    w.rp.context()
                        .slot_count()
                        .min(effect.rewrote_from.unwrap_or(usize::MAX));
                w.tx.truncate(keep);
                w.facts.truncate(keep);
                continue;
            }
            Step::Enter(i) => i,
        };
        if session.entry(i).is_assistant_message() {
            w.request(i);
        }
        match w.rp.push_effect(i) {
            Err(err) => {
                w.out.push(finding(
                    session,
                    i,
                    code::REQUEST_PROJECTION,
                    error_chain(&err),
                ));
                continue;
            }
            Ok(effect) => {
                if let Some(r) = effect.rewrote_from {
                    w.tx.truncate(r);
                    w.facts.truncate(r);
                }
            }
        }
        stack.push(Step::Exit);
        let n = tree.child_count(i);
        if n == 0 {
            w.leaf(i);
            continue;
        }
        // The visiting order of `check_reference`: the last child first, then the others in
        // file order.
        let children: Vec<usize> = tree.children(i).collect();
        for &c in children[..n - 1].iter().rev() {
            stack.push(Step::Enter(c));
        }
        stack.push(Step::Enter(children[n - 1]));
    }
    let mut out = w.out;
    out.sort_by_key(|d| d.line);
    out
}

/// The state of one depth-first walk.
struct Walker<'s> {
    session: &'s Session,
    rp: Replayer<'s>,
    out: Vec<Diagnostic>,
    reported: HashSet<String>,
    tx: Transcript,
    facts: Facts,
    /// Messages of the slots [`Facts`] read at this request that [`Transcript`] still needs.
    read: ReadSlots,
    /// Per compaction entry: the checkpoint checks that depend only on the path up to it.
    checkpoints: HashMap<usize, Checkpoint>,
}

/// What the checkpoint check needs at every leaf below a compaction.
struct Checkpoint {
    /// The text state at the checkpoint event, reduced independently of the projection.
    expected: Vec<(String, String)>,
    /// The sections of the checkpoint message the projection writes (`None`: it writes none).
    projected: Option<Value>,
}

impl<'s> Walker<'s> {
    /// A capability failure of the history, reported once (as `project` reports it).
    fn capability_failure(&mut self, i: usize, f: CapabilityFailure) {
        let key = format!("{:?}{}", f.location, f.message);
        if !self.reported.insert(key) {
            return;
        }
        let c = if f.message.contains("delivery anchor") || f.message.contains("marker") {
            code::ANCHOR_ORDER
        } else {
            code::CAPABILITY_HISTORY
        };
        let e = self.session.entry(i);
        let (line, id) = match &f.location {
            Some(l) => (l.line.map(|n| n as u64), l.entry_id.clone()),
            None => (Some(e.line()), e.id().map(String::from)),
        };
        self.out.push(Diagnostic::new(
            Severity::Error,
            c,
            line,
            format!("entry {}: {}", id.as_deref().unwrap_or("?"), f.message),
        ));
    }

    /// The request of assistant entry `i` (the path ends at its parent).
    fn request(&mut self, i: usize) {
        if let Err(f) = self.rp.history_status() {
            self.capability_failure(i, f);
            return;
        }
        // The slots new since the last request are read once, for both: the facts keep the
        // messages the transcript state has not taken in yet.
        self.read.clear();
        self.facts.update(
            self.session,
            &self.rp,
            &mut self.out,
            &mut self.reported,
            Some((self.tx.done, &mut self.read)),
        );
        if self.facts.markers > 0 {
            // A legacy delivery carrier among Pi's messages: the projection's marker checks
            // decide, so this request is projected in full.
            let mut rp = self.full_replayer();
            check_request(self.session, i, &mut rp, &mut self.out, &mut self.reported);
            return;
        }
        self.tx.update(
            self.session,
            i,
            &self.rp,
            &mut self.out,
            &mut self.reported,
            &self.read,
        );
        self.read.clear();
        // Calls still open at the end of the request's context.
        for (id, name) in self.tx.open_calls() {
            if !self.reported.insert(format!("unpaired:{id}")) {
                continue;
            }
            self.out.push(finding(
                self.session,
                i,
                code::UNPAIRED_TOOL_CALL,
                format!("the request has tool call {id} ({name}) without a result; pi-ai sends \"No result provided\""),
            ));
        }
    }

    /// A replayer at the current path, built from scratch (for the cases checked in full).
    fn full_replayer(&self) -> Replayer<'s> {
        let mut rp = Replayer::new(self.session);
        if let Some(last) = self.rp.last() {
            for p in self.session.path_to(last) {
                // The walk already pushed this path successfully.
                let _ = rp.push(p);
            }
        }
        rp
    }

    /// The leaf `i` (just pushed).
    fn leaf(&mut self, i: usize) {
        if let Err(f) = self.rp.history_status() {
            self.capability_failure(i, f);
            return;
        }
        self.facts.update(
            self.session,
            &self.rp,
            &mut self.out,
            &mut self.reported,
            None,
        );
        if self.facts.markers > 0 {
            let mut rp = self.full_replayer();
            check_leaf(self.session, i, &mut rp, &mut self.out, &mut self.reported);
            return;
        }
        // Capability text of activations not on this path, in order of first appearance.
        let history = self.rp.history_builder();
        for id in &self.facts.ids {
            if !history.has_activation(id) {
                self.out.push(finding(
                    self.session,
                    i,
                    code::CAPABILITY_LEAK,
                    format!("capability {id} appears in the context but was not activated on this branch"),
                ));
            }
        }
        let Some(cp_id) = history.checkpoint_through().map(str::to_string) else {
            return;
        };
        // The usual shape: Pi's context starts with the compaction's system message and its
        // summary, so the checkpoint goes right after the system message and before the summary.
        let ctx = self.rp.context();
        let (first, first_messages) = if ctx.slot_count() > 0 {
            (
                ctx.slot_entry(0),
                slot_messages(self.session, &self.rp, 0, &mut self.out, &mut self.reported),
            )
        } else {
            (usize::MAX, Cow::Borrowed(&[][..]))
        };
        let fast = first != usize::MAX
            && *self.session.entry(first).entry_type() == EntryType::Compaction
            && first_messages.len() == 2
            && first_messages[0]["role"] == "system"
            && first_messages[1]["role"] == "compactionSummary";
        if !fast {
            let mut rp = self.full_replayer();
            if let Some(ctx) = project(self.session, i, &mut rp, &mut self.out, &mut self.reported)
            {
                check_checkpoint(self.session, i, &ctx, &mut self.out);
            }
            return;
        }
        if !self.checkpoints.contains_key(&first) {
            let Ok(history) = self.rp.history() else {
                return;
            };
            let cp = checkpoint_facts(&history, &cp_id);
            self.checkpoints.insert(first, cp);
        }
        let cp = &self.checkpoints[&first];
        let Some(got) = &cp.projected else {
            if !cp.expected.is_empty() {
                self.out.push(finding(
                    self.session,
                    i,
                    code::CHECKPOINT_STATE,
                    format!(
                        "no compaction checkpoint restates the {} capabilities active at event {cp_id}",
                        cp.expected.len()
                    ),
                ));
            }
            return;
        };
        let expected: serde_json::Map<String, Value> = cp
            .expected
            .iter()
            .map(|(a, c)| (format!("{SECTION_PREFIX}{a}"), Value::String(c.clone())))
            .collect();
        if *got != Value::Object(expected.clone()) {
            self.out.push(finding(
                self.session,
                i,
                code::CHECKPOINT_STATE,
                format!(
                    "the compaction checkpoint restates {} but the state at event {cp_id} is {}",
                    forge_replay_model::json::stringify(got),
                    forge_replay_model::json::stringify(&Value::Object(expected))
                ),
            ));
        }
        // Placement: message 1, after the leading system message, before the summary (2).
    }
}

/// The messages of context slot `k` of the walk's replayer, which builds them again from the
/// file: a line that cannot be read again (the file changed) is one request-projection finding
/// at its entry, and no messages.
fn slot_messages<'a>(
    session: &Session,
    rp: &'a Replayer<'_>,
    k: usize,
    out: &mut Vec<Diagnostic>,
    reported: &mut HashSet<String>,
) -> Cow<'a, [Value]> {
    match rp.context().slot(k) {
        Ok((_, messages)) => messages,
        Err(err) => {
            let i = rp.context().slot_entry(k);
            if reported.insert(format!("reread:{i}")) {
                out.push(finding(
                    session,
                    i,
                    code::REQUEST_PROJECTION,
                    error_chain(&err),
                ));
            }
            Cow::Borrowed(&[])
        }
    }
}

/// The capabilities active through event `cp_id` (activation id, text), in activation order,
/// reduced from the events alone (independently of the projection).
fn checkpoint_state(history: &CapabilityHistory, cp_id: &str) -> Vec<(String, String)> {
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
    state
}

/// The checkpoint state the projection writes and the one the events give, at `cp_id`.
fn checkpoint_facts(history: &CapabilityHistory, cp_id: &str) -> Checkpoint {
    let expected = checkpoint_state(history, cp_id);
    // The projection of an empty context: the checkpoint message (if any) comes first.
    let unique: Vec<_> = history.unique_events().collect();
    let projected = forge_replay_capability::projection::project_unique_events(
        Vec::<Value>::new(),
        &unique,
        Some(cp_id),
        Presentation::Native,
    )
    .ok()
    .and_then(|p| {
        p.updates
            .iter()
            .find(|(_, k)| *k == UpdateKind::Checkpoint)
            .map(|(pos, _)| {
                p.messages[*pos]
                    .get("sections")
                    .cloned()
                    .unwrap_or(Value::Null)
            })
    });
    Checkpoint {
        expected,
        projected,
    }
}

/// One undoable change to the tool-pairing state.
enum TxOp {
    /// A tool name added to (`true`) or removed from (`false`) `declared`, that was not already
    /// in that state.
    Declared(String, bool),
    /// An open call pushed.
    Opened,
    /// An open call closed by its result (position and the call).
    Closed(usize, (String, String)),
    /// Every open call, cleared by a user or assistant message.
    Flushed(Vec<Option<(String, String)>>),
    /// A call id seen for the first time.
    Called(String),
}

/// The tool-pairing state of the transcript along the path: `check_request`'s loop, run once
/// per message instead of once per request.
#[derive(Default)]
struct Transcript {
    /// Context slots processed (their messages are in the state).
    done: usize,
    declared: HashSet<String>,
    /// Open calls in order (`None`: closed since).
    open: Vec<Option<(String, String)>>,
    open_at: HashMap<String, Vec<usize>>,
    called: HashSet<String>,
    log: Vec<TxOp>,
    /// `log.len()` before each processed slot.
    marks: Vec<u32>,
}

impl Transcript {
    fn open_calls(&self) -> impl Iterator<Item = &(String, String)> {
        self.open.iter().flatten()
    }

    fn reindex_open(&mut self) {
        self.open_at.clear();
        for (k, c) in self.open.iter().enumerate() {
            if let Some((id, _)) = c {
                self.open_at.entry(id.clone()).or_default().push(k);
            }
        }
    }

    /// Rolls the state back to the first `slots` context slots.
    fn truncate(&mut self, slots: usize) {
        if slots >= self.done {
            return;
        }
        let mark = self.marks[slots] as usize;
        while self.log.len() > mark {
            match self.log.pop().expect("log entry") {
                TxOp::Declared(name, added) => {
                    if added {
                        self.declared.remove(&name);
                    } else {
                        self.declared.insert(name);
                    }
                }
                TxOp::Opened => {
                    if let Some(Some((id, _))) = self.open.pop() {
                        if let Some(at) = self.open_at.get_mut(&id) {
                            at.pop();
                            if at.is_empty() {
                                self.open_at.remove(&id);
                            }
                        }
                    }
                }
                TxOp::Closed(k, call) => {
                    self.open[k] = Some(call);
                    self.reindex_open();
                }
                TxOp::Flushed(open) => {
                    self.open = open;
                    self.reindex_open();
                }
                TxOp::Called(id) => {
                    self.called.remove(&id);
                }
            }
        }
        self.marks.truncate(slots);
        self.done = slots;
    }

    /// Brings the state up to the replayer's context: the messages of the slots added since the
    /// last request, with their findings at request `i`.
    fn update(
        &mut self,
        session: &Session,
        i: usize,
        rp: &Replayer<'_>,
        out: &mut Vec<Diagnostic>,
        reported: &mut HashSet<String>,
        read: &[(usize, Vec<Value>)],
    ) {
        let ctx = rp.context();
        while self.done < ctx.slot_count() {
            self.marks
                .push(u32::try_from(self.log.len()).unwrap_or(u32::MAX));
            // `read` holds consecutive slots.
            let kept = read
                .first()
                .and_then(|(k0, _)| self.done.checked_sub(*k0))
                .and_then(|at| read.get(at))
                .filter(|(k, _)| *k == self.done);
            let messages = match kept {
                Some((_, m)) => Cow::Borrowed(m.as_slice()),
                None => slot_messages(session, rp, self.done, out, reported),
            };
            for m in messages.iter() {
                // `convertToLlm`: the four LLM roles as they are (not copied), the others
                // converted or dropped.
                let passes = matches!(
                    m.get("role").and_then(Value::as_str),
                    Some("system" | "user" | "assistant" | "toolResult")
                );
                if passes {
                    self.message(session, i, m, out, reported);
                } else if let Some(m) = llm::convert_message(m) {
                    self.message(session, i, &m, out, reported);
                }
            }
            self.done += 1;
        }
    }

    fn flush(
        &mut self,
        session: &Session,
        i: usize,
        out: &mut Vec<Diagnostic>,
        reported: &mut HashSet<String>,
    ) {
        if self.open.is_empty() {
            return;
        }
        for (id, name) in self.open.iter().flatten() {
            if !reported.insert(format!("unpaired:{id}")) {
                continue;
            }
            out.push(finding(
                session,
                i,
                code::UNPAIRED_TOOL_CALL,
                format!("the request has tool call {id} ({name}) without a result; pi-ai sends \"No result provided\""),
            ));
        }
        let open = std::mem::take(&mut self.open);
        self.open_at.clear();
        self.log.push(TxOp::Flushed(open));
    }

    /// One transcript message, as `check_request`'s loop handles it.
    fn message(
        &mut self,
        session: &Session,
        i: usize,
        m: &Value,
        out: &mut Vec<Diagnostic>,
        reported: &mut HashSet<String>,
    ) {
        match m["role"].as_str() {
            Some("system") => {
                for r in m["toolsRemoved"].as_array().into_iter().flatten() {
                    if let Some(n) = r["name"].as_str() {
                        if self.declared.remove(n) {
                            self.log.push(TxOp::Declared(n.to_string(), false));
                        }
                    }
                }
                for a in m["toolsAdded"].as_array().into_iter().flatten() {
                    if let Some(n) = a["name"].as_str() {
                        if self.declared.insert(n.to_string()) {
                            self.log.push(TxOp::Declared(n.to_string(), true));
                        }
                    }
                }
            }
            Some("assistant") => {
                self.flush(session, i, out, reported);
                if matches!(m["stopReason"].as_str(), Some("error" | "aborted")) {
                    return;
                }
                for b in m["content"].as_array().into_iter().flatten() {
                    if b["type"] != "toolCall" {
                        continue;
                    }
                    let id = b["id"].as_str().unwrap_or_default().to_string();
                    let name = b["name"].as_str().unwrap_or_default().to_string();
                    if !self.declared.contains(&name) && reported.insert(format!("undeclared:{id}"))
                    {
                        out.push(finding(
                            session,
                            i,
                            code::UNDECLARED_TOOL,
                            format!("tool call {id} uses {name:?}, which the transcript did not declare at that point"),
                        ));
                    }
                    if self.called.insert(id.clone()) {
                        self.log.push(TxOp::Called(id.clone()));
                    }
                    self.open_at
                        .entry(id.clone())
                        .or_default()
                        .push(self.open.len());
                    self.open.push(Some((id, name)));
                    self.log.push(TxOp::Opened);
                }
            }
            Some("toolResult") => {
                let id = m["toolCallId"].as_str().unwrap_or_default();
                let closed = self.open_at.remove(id).unwrap_or_default();
                let any = !closed.is_empty();
                for k in closed {
                    if let Some(call) = self.open[k].take() {
                        self.log.push(TxOp::Closed(k, call));
                    }
                }
                if !any && !self.called.contains(id) && reported.insert(format!("orphan:{id}")) {
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
            Some("user") => self.flush(session, i, out, reported),
            _ => {}
        }
    }
}

/// What the leaf checks read from Pi's messages along the path: the capability ids their text
/// names (first appearance order) and how many are delivery markers.
#[derive(Default)]
struct Facts {
    done: usize,
    /// Messages that are delivery markers (legacy carriers: checked in full).
    markers: usize,
    /// Distinct capability ids in order of first appearance, with their counts.
    ids: Vec<String>,
    counts: HashMap<String, u32>,
    /// The ids the processed slots counted, slot after slot, and where each slot's start
    /// (a few bytes per slot: most count none).
    counted: Vec<String>,
    starts: Vec<u32>,
    /// `(slot, markers)` of the processed slots that had delivery markers.
    marked: Vec<(usize, usize)>,
}

impl Facts {
    fn truncate(&mut self, slots: usize) {
        while self.done > slots {
            self.done -= 1;
            let start = self.starts.pop().expect("slot facts") as usize;
            for id in self.counted.drain(start..).rev() {
                let n = self.counts.get_mut(&id).expect("counted id");
                *n -= 1;
                if *n == 0 {
                    self.counts.remove(&id);
                    self.ids.pop();
                }
            }
            if self.marked.last().is_some_and(|&(k, _)| k == self.done) {
                let (_, m) = self.marked.pop().expect("marked slot");
                self.markers -= m;
            }
        }
    }

    fn update(
        &mut self,
        session: &Session,
        rp: &Replayer<'_>,
        out: &mut Vec<Diagnostic>,
        reported: &mut HashSet<String>,
        mut keep: Option<(usize, &mut ReadSlots)>,
    ) {
        let ctx = rp.context();
        while self.done < ctx.slot_count() {
            let mut markers = 0;
            let start = self.counted.len();
            let messages = slot_messages(session, rp, self.done, out, reported);
            for m in messages.iter() {
                if forge_replay_capability::projection::is_marker(m) {
                    markers += 1;
                }
                capability_ids(m, &mut self.counted);
            }
            for id in &self.counted[start..] {
                let n = self.counts.entry(id.clone()).or_insert(0);
                if *n == 0 {
                    self.ids.push(id.clone());
                }
                *n += 1;
            }
            self.starts.push(u32::try_from(start).unwrap_or(u32::MAX));
            if let Some((from, kept)) = &mut keep {
                if self.done >= *from {
                    kept.push((self.done, messages.into_owned()));
                }
            }
            if markers > 0 {
                self.marked.push((self.done, markers));
                self.markers += markers;
            }
            self.done += 1;
        }
    }
}

/// The capability ids a message names: its `forge-capability-*` sections, then the
/// `section "forge-capability-…"` mentions of its string content (as `check_leaks` reads them).
fn capability_ids(m: &Value, ids: &mut Vec<String>) {
    if let Some(secs) = m["sections"].as_object() {
        ids.extend(
            secs.keys()
                .filter_map(|k| k.strip_prefix(SECTION_PREFIX))
                .map(String::from),
        );
    }
    let mut rest = m["content"].as_str().unwrap_or_default();
    while let Some(p) = rest.find("section \"forge-capability-") {
        rest = &rest[p + "section \"".len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        if let Some(id) = rest[..end].strip_prefix(SECTION_PREFIX) {
            ids.push(id.to_string());
        }
        rest = &rest[end..];
    }
}

/// Messages of consecutive context slots, with their positions.
type ReadSlots = Vec<(usize, Vec<Value>)>;
