//! The `/capability status` view of a branch (spec Appendix A), computed offline.

use forge_replay_session::Session;
use serde::Serialize;
use serde_json::Value;

use crate::event::{Actor, Source};
use crate::history::{CapabilityHistory, EntryLocation, ToolBaseline};
use crate::projection::Presentation;
use crate::resource::ToolPatch;
use crate::tools::{compute_effective, ToolPolicy};

/// Fixed line of the status text.
pub const TOOL_TRANSPORT_NOTE: &str = "Tool transport is provider-managed: native text does not guarantee incremental tools. Full schema resubmission and cache changes are possible; prepared does not guarantee delivery or cache hits.";

/// Delivery state of the latest event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// No capability event on the branch.
    None,
    /// The latest event has not been projected into a request yet.
    Pending,
    /// A request was built after the latest event.
    Prepared,
}

impl Delivery {
    /// The status text's delivery phrase.
    pub fn status_text(self) -> &'static str {
        match self {
            Delivery::None => "none",
            Delivery::Pending => "pending next request",
            Delivery::Prepared => {
                "request prepared (not a model-obedience or delivery acknowledgment)"
            }
        }
    }
}

/// One active activation as the status view shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveView {
    pub activation_id: String,
    /// `manual` or `scope:id`.
    pub source_label: String,
    pub source: Source,
    pub actor: Actor,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub fingerprint: String,
    pub tools: ToolPatch,
    pub content: String,
    pub event_id: String,
    pub created_at: f64,
    /// Where the activating event is in the file.
    pub location: EntryLocation,
}

/// The whole status view.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusView {
    pub leaf_id: Value,
    pub presentation: Presentation,
    pub delivery: Delivery,
    pub active: Vec<ActiveView>,
    /// The effective tool set (`None` when neither a tools entry nor Pi tool declarations tell
    /// the baseline).
    pub effective_tools: Option<Vec<String>>,
    /// Where the baseline came from: `tools-entry`, `transcript` or `unknown`.
    pub baseline_source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_baseline: Option<ToolBaseline>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event_id: Option<String>,
    /// First-occurrence events not yet anchored or covered by a compaction checkpoint.
    pub pending_event_ids: Vec<String>,
    pub event_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_through: Option<String>,
}

/// pi-ai's `getCurrentTools(messages)`: tool names declared by system messages, in Map order.
pub fn current_tools(messages: &[Value]) -> Option<Vec<String>> {
    let mut tools = DeclaredTools::default();
    for m in messages {
        tools.add(m);
    }
    tools.finish()
}

/// [`current_tools`] one message at a time (for a context read as a stream).
#[derive(Debug, Clone, Default)]
pub struct DeclaredTools {
    seen: bool,
    tools: Vec<String>,
}

impl DeclaredTools {
    /// Takes in the next message.
    pub fn add(&mut self, m: &Value) {
        if m.get("role").and_then(Value::as_str) != Some("system") {
            return;
        }
        for t in m
            .get("toolsRemoved")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.seen = true;
            if let Some(n) = t.get("name").and_then(Value::as_str) {
                self.tools.retain(|x| x != n);
            }
        }
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.seen = true;
            if let Some(n) = t.get("name").and_then(Value::as_str) {
                if !self.tools.iter().any(|x| x == n) {
                    self.tools.push(n.to_string());
                }
            }
        }
    }

    /// The declared tools (`None`: no message declared or removed any).
    pub fn finish(self) -> Option<Vec<String>> {
        self.seen.then_some(self.tools)
    }
}

/// Builds the status view at `leaf` from the branch's history and Pi's projected messages.
///
/// Offline approximations (documented in `docs/capabilities.md`): delivery is `prepared` when
/// the last assistant message after the latest new event on the path (a request built after
/// it) was made with `model`, else `pending`; the tool baseline is the last tools entry's `baseline`, else the tools
/// Pi's transcript declares; the preset policy and Pi's tool registry are unknown offline, so
/// the policy is empty and every named tool counts as registered.
///
/// `model` is the `(provider, id)` the presentation was chosen for: Forge reports `prepared`
/// only when the last projection was for the same model, so a request after the latest event
/// made with another model leaves the state `pending`.
pub fn status_view(
    session: &Session,
    leaf: Option<usize>,
    history: &CapabilityHistory,
    pi_messages: &[Value],
    presentation: Presentation,
    model: Option<(&str, &str)>,
) -> StatusView {
    status_view_with_tools(
        session,
        leaf,
        history,
        current_tools(pi_messages),
        presentation,
        model,
    )
}

/// [`status_view`] given [`current_tools`] of Pi's messages instead of the messages
/// ([`crate::context::status_inputs_at`] reads them as a stream).
pub fn status_view_with_tools(
    session: &Session,
    leaf: Option<usize>,
    history: &CapabilityHistory,
    transcript_tools: Option<Vec<String>>,
    presentation: Presentation,
    model: Option<(&str, &str)>,
) -> StatusView {
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let active: Vec<ActiveView> = history
        .active
        .iter()
        .map(|a| {
            let location = history
                .events
                .iter()
                .find(|e| e.first && e.event.event_id == a.event_id)
                .map(|e| e.location.clone())
                .unwrap_or_default();
            ActiveView {
                activation_id: a.snapshot.activation_id.clone(),
                source_label: a.snapshot.source.label(),
                source: a.snapshot.source.clone(),
                actor: a.actor,
                name: a.snapshot.name.clone(),
                fingerprint: a.snapshot.fingerprint.clone(),
                tools: a.snapshot.tools.clone(),
                content: a.snapshot.content.clone(),
                event_id: a.event_id.clone(),
                created_at: a.created_at,
                location,
            }
        })
        .collect();
    let delivery = match history.last_new_event_position {
        None => Delivery::None,
        Some(pos) => {
            let last_request = path
                .iter()
                .skip(pos + 1)
                .rev()
                .find(|&&i| session.entry(i).is_assistant_message());
            let same_model = |i: usize| {
                let Some(want) = model else { return true };
                let Ok(v) = session.entry(i).value() else {
                    return false;
                };
                let m = &v["message"];
                m["provider"].as_str() == Some(want.0) && m["model"].as_str() == Some(want.1)
            };
            match last_request {
                Some(&i) if same_model(i) => Delivery::Prepared,
                _ => Delivery::Pending,
            }
        }
    };
    let (baseline, baseline_source) = match &history.tools {
        Some(t) => (Some(t.baseline.clone()), "tools-entry"),
        None => match transcript_tools {
            Some(t) => (Some(t), "transcript"),
            None => (None, "unknown"),
        },
    };
    let patches: Vec<&ToolPatch> = active.iter().map(|a| &a.tools).collect();
    let effective_tools =
        baseline.map(|b| compute_effective(&ToolPolicy::default(), &b, None, &patches));
    StatusView {
        leaf_id: leaf
            .and_then(|l| session.entry(l).id_value())
            .unwrap_or(Value::Null),
        presentation,
        delivery,
        effective_tools,
        baseline_source,
        tool_baseline: history.tools.clone(),
        last_event_id: history.last_event_id.clone(),
        pending_event_ids: history
            .pending_events()
            .iter()
            .map(|e| e.event_id.clone())
            .collect(),
        event_count: history.events.len(),
        checkpoint_through: history.checkpoint_through.clone(),
        active,
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}

impl StatusView {
    /// The `/capability status` text, with forge-replay's extra per-item lines (`name:`,
    /// `fingerprint:`, `event:`) marked by a leading `  ·`.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        out.push(format!(
            "Capability capabilities: {}; {}; {}",
            self.active.len(),
            self.presentation.status_text(),
            self.delivery.status_text()
        ));
        out.push(format!(
            "Currently selected tools: {}",
            match &self.effective_tools {
                Some(t) if !t.is_empty() => t.join(", "),
                Some(_) => "(none)".to_string(),
                None => "(unknown: no tools entry or tool declarations on this branch)".into(),
            }
        ));
        out.push(TOOL_TRANSPORT_NOTE.to_string());
        for a in &self.active {
            out.push(format!(
                "{} · {} · {}",
                a.activation_id,
                a.source_label,
                a.actor.as_str()
            ));
            if let Some(n) = &a.name {
                out.push(format!("  · name: {n}"));
            }
            out.push(format!("  · fingerprint: {}", a.fingerprint));
            out.push(format!("  · event: {} at {}", a.event_id, a.location));
            out.push(format!(
                "  +tools: {}; -tools: {}",
                list(&a.tools.add),
                list(&a.tools.remove)
            ));
            out.push(a.content.clone());
        }
        if !self.pending_event_ids.is_empty() {
            out.push(format!(
                "Unanchored events (replayed at the end of the next request): {}",
                self.pending_event_ids.join(", ")
            ));
        }
        let mut s = out.join("\n");
        s.push('\n');
        s
    }
}
