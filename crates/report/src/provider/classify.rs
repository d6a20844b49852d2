//! Reading assembled probe requests: every per-API cell of the report comes from here.
//!
//! The classifier knows the probe markers (`PROBE-…`), the tool names the probes add and remove,
//! and generic payload anatomy (conversation lists, request fields, tool declarations; see
//! `super::locate`). It knows nothing about any particular API: feed it a different payload and
//! the cell changes.

use std::collections::BTreeMap;

use serde_json::Value;

use super::locate::{
    declaration_paths, get, locate, name_paths, render_path, text_paths, without_cache_markers,
    Location, Seg,
};
use super::probes::{
    A1, ADDED_TOOL, AFTER_REMOVAL, BASELINE, CWD, INSTRUCTIONS, KEPT_TOOL, LEAD, MID, REDEF,
    REDEFINITION, REMOVED_TOOL, SECTION, TOOL_ADDITION, TOOL_REMOVAL, U1, U2,
};

/// A measured property of one variant, one row of the per-API tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Aspect {
    Leading,
    Instructions,
    SectionPatch,
    ToolAddition,
    ToolRemoval,
    Redefinition,
    AfterRemoval,
    PrefixInstructions,
    PrefixAddition,
    PrefixRemoval,
    PrefixRedefinition,
    PrefixLaterAddition,
}

impl Aspect {
    /// Every aspect, in display order.
    pub const ALL: [Aspect; 12] = [
        Aspect::Leading,
        Aspect::Instructions,
        Aspect::SectionPatch,
        Aspect::ToolAddition,
        Aspect::ToolRemoval,
        Aspect::Redefinition,
        Aspect::AfterRemoval,
        Aspect::PrefixInstructions,
        Aspect::PrefixAddition,
        Aspect::PrefixRemoval,
        Aspect::PrefixRedefinition,
        Aspect::PrefixLaterAddition,
    ];

    /// Row title.
    pub fn title(self) -> &'static str {
        match self {
            Aspect::Leading => "leading system prompt",
            Aspect::Instructions => "mid-conversation instructions",
            Aspect::SectionPatch => "section patch and removal",
            Aspect::ToolAddition => "tool addition",
            Aspect::ToolRemoval => "tool removal",
            Aspect::Redefinition => "tool redefinition",
            Aspect::AfterRemoval => "addition after a removal",
            Aspect::PrefixInstructions => "cached prefix: instructions",
            Aspect::PrefixAddition => "cached prefix: addition",
            Aspect::PrefixRemoval => "cached prefix: removal",
            Aspect::PrefixRedefinition => "cached prefix: redefinition",
            Aspect::PrefixLaterAddition => "cached prefix: addition after a removal",
        }
    }

    /// A stable machine name (JSON output, tests).
    pub fn key(self) -> &'static str {
        match self {
            Aspect::Leading => "leading",
            Aspect::Instructions => "instructions",
            Aspect::SectionPatch => "section_patch",
            Aspect::ToolAddition => "tool_addition",
            Aspect::ToolRemoval => "tool_removal",
            Aspect::Redefinition => "redefinition",
            Aspect::AfterRemoval => "after_removal",
            Aspect::PrefixInstructions => "prefix_instructions",
            Aspect::PrefixAddition => "prefix_addition",
            Aspect::PrefixRemoval => "prefix_removal",
            Aspect::PrefixRedefinition => "prefix_redefinition",
            Aspect::PrefixLaterAddition => "prefix_later_addition",
        }
    }

    /// The probes whose requests this aspect reads.
    pub fn probes(self) -> &'static [&'static str] {
        match self {
            Aspect::Leading => &[BASELINE],
            Aspect::Instructions | Aspect::SectionPatch => &[INSTRUCTIONS],
            Aspect::ToolAddition => &[TOOL_ADDITION],
            Aspect::ToolRemoval => &[TOOL_REMOVAL],
            Aspect::Redefinition => &[REDEFINITION],
            Aspect::AfterRemoval => &[AFTER_REMOVAL],
            Aspect::PrefixInstructions => &[BASELINE, INSTRUCTIONS],
            Aspect::PrefixAddition => &[BASELINE, TOOL_ADDITION],
            Aspect::PrefixRemoval => &[BASELINE, TOOL_REMOVAL],
            Aspect::PrefixRedefinition => &[BASELINE, REDEFINITION],
            Aspect::PrefixLaterAddition => &[TOOL_REMOVAL, AFTER_REMOVAL],
        }
    }
}

/// One table cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Computed from assembled requests.
    Measured(String),
    /// An assembler failed on a probe this cell needs.
    NotMeasured(String),
}

impl Cell {
    /// The cell text as shown in the report.
    pub fn text(&self) -> String {
        match self {
            Cell::Measured(s) => s.clone(),
            Cell::NotMeasured(e) => format!("not measured (assembler error: {e})"),
        }
    }
}

/// The assembled payload of each probe, or the assembler's error message.
pub type ProbeResults = BTreeMap<String, Result<Value, String>>;

/// Computes every aspect of one variant from its assembled probe requests.
pub fn classify(results: &ProbeResults) -> BTreeMap<Aspect, Cell> {
    let mut out = BTreeMap::new();
    for aspect in Aspect::ALL {
        let mut payloads = Vec::new();
        let mut error = None;
        for probe in aspect.probes() {
            match results.get(*probe) {
                Some(Ok(p)) => payloads.push(p),
                Some(Err(e)) => {
                    error = Some(one_line(e));
                    break;
                }
                None => {
                    error = Some(format!("probe `{probe}` was not run"));
                    break;
                }
            }
        }
        let cell = match error {
            Some(e) => Cell::NotMeasured(e),
            None => Cell::Measured(measure(aspect, &payloads)),
        };
        out.insert(aspect, cell);
    }
    out
}

fn one_line(e: &str) -> String {
    let line = e.lines().next().unwrap_or_default().trim();
    let mut s: String = line.chars().take(160).collect();
    if line.chars().count() > 160 {
        s.push('…');
    }
    s
}

fn measure(aspect: Aspect, p: &[&Value]) -> String {
    match aspect {
        Aspect::Leading => leading(p[0]),
        Aspect::Instructions => instructions(p[0]),
        Aspect::SectionPatch => section_patch(p[0]),
        Aspect::ToolAddition | Aspect::AfterRemoval => addition(p[0], ADDED_TOOL),
        Aspect::ToolRemoval => removal(p[0], REMOVED_TOOL),
        Aspect::Redefinition => redefinition(p[0]),
        Aspect::PrefixInstructions
        | Aspect::PrefixAddition
        | Aspect::PrefixRemoval
        | Aspect::PrefixRedefinition => prefix(p[0], p[1], &[U1, A1]),
        Aspect::PrefixLaterAddition => prefix(p[0], p[1], &[U1, A1, U2]),
    }
}

/// A payload with its landmarks.
struct Req<'a> {
    p: &'a Value,
    lead: Option<Location>,
}

impl<'a> Req<'a> {
    fn new(p: &'a Value) -> Req<'a> {
        Req {
            p,
            lead: first(p, LEAD),
        }
    }

    fn lead_index(&self) -> Option<usize> {
        self.lead.as_ref().and_then(Location::index)
    }

    /// The item of the conversation list a location points into.
    fn item(&self, loc: &Location) -> Option<&'a Value> {
        match loc {
            Location::Item { list, index, .. } => get(self.p, list)?.get(*index),
            Location::Field { .. } => None,
        }
    }

    fn role(&self, loc: &Location) -> String {
        self.item(loc)
            .and_then(|i| i.get("role"))
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_string()
    }

    /// The value of the container a location is in: the whole item, or the top request field.
    fn container(&self, loc: &Location) -> Option<Value> {
        match loc {
            Location::Item { .. } => self.item(loc).cloned(),
            Location::Field { path } => {
                let prefix: Vec<Seg> = path
                    .iter()
                    .take_while(|s| matches!(s, Seg::Key(_)))
                    .cloned()
                    .collect();
                get(self.p, &prefix).cloned()
            }
        }
    }

    fn in_lead(&self, loc: &Location) -> bool {
        self.lead.as_ref().is_some_and(|l| l.same_container(loc))
    }

    /// Tool declarations outside the conversation: `(field, name, deferred, value)`.
    fn tool_list(&self) -> Vec<Decl> {
        declaration_paths(self.p)
            .into_iter()
            .filter_map(|path| {
                let loc = locate(self.p, &path);
                if !matches!(loc, Location::Field { .. }) {
                    return None;
                }
                let obj = get(self.p, &path)?;
                // the element of the innermost array on the path is the declaration as sent
                let elem_end = path.iter().rposition(|s| matches!(s, Seg::Index(_)))? + 1;
                let elem = get(self.p, &path[..elem_end])?;
                let deferred = obj.get("defer_loading") == Some(&Value::Bool(true))
                    || elem.get("defer_loading") == Some(&Value::Bool(true));
                Some(Decl {
                    field: loc.field_name(),
                    name: obj.get("name")?.as_str()?.to_string(),
                    deferred,
                    value: without_cache_markers(elem),
                })
            })
            .collect()
    }

    /// How a tool name travels inside the conversation (the leading message excluded).
    fn carriers(&self, name: &str) -> Vec<Carrier> {
        let mut out: Vec<Carrier> = Vec::new();
        for path in name_paths(self.p, name) {
            let loc = locate(self.p, &path);
            if loc.index().is_none() || loc.index() == self.lead_index() {
                continue;
            }
            let c = self.carrier_at(&loc);
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    fn carrier_at(&self, loc: &Location) -> Carrier {
        let Location::Item { rest, .. } = loc else {
            return Carrier::Other(render_path(&loc.full_path()));
        };
        let Some(item) = self.item(loc) else {
            return Carrier::Other(render_path(&loc.full_path()));
        };
        let role = self.role(loc);
        // a typed block on the way down (Anthropic tool_addition / tool_removal)
        let mut v = item;
        for s in rest {
            if let Some(t) = v.get("type").and_then(Value::as_str) {
                if t == "tool_addition" || t == "tool_removal" {
                    return Carrier::Block {
                        kind: t.to_string(),
                        role,
                    };
                }
            }
            match get(v, std::slice::from_ref(s)) {
                Some(next) => v = next,
                None => break,
            }
        }
        match item.get("type").and_then(Value::as_str) {
            Some("additional_tools") => return Carrier::AdditionalTools { role },
            Some("tool_search_output") | Some("tool_search_call") => {
                let paired = self
                    .items()
                    .iter()
                    .any(|i| i.get("type").and_then(Value::as_str) == Some("tool_search_call"))
                    && self.items().iter().any(|i| {
                        i.get("type").and_then(Value::as_str) == Some("tool_search_output")
                    });
                return Carrier::ToolSearch { paired };
            }
            _ => {}
        }
        match rest.first() {
            Some(Seg::Key(k)) if k == "tools" => Carrier::MessageTools { role },
            Some(Seg::Key(k)) if k == "toolsAdded" || k == "toolsRemoved" => Carrier::Transcript {
                key: k.clone(),
                role,
            },
            _ => Carrier::Other(render_path(&loc.full_path())),
        }
    }

    fn items(&self) -> Vec<&'a Value> {
        let Some(loc) = self.lead.clone().or_else(|| first(self.p, U1)) else {
            return Vec::new();
        };
        match &loc {
            Location::Item { list, .. } => get(self.p, list)
                .and_then(Value::as_array)
                .map(|a| a.iter().collect())
                .unwrap_or_default(),
            Location::Field { .. } => match first(self.p, U1) {
                Some(Location::Item { list, .. }) => get(self.p, &list)
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Decl {
    field: String,
    name: String,
    deferred: bool,
    value: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Carrier {
    Block { kind: String, role: String },
    AdditionalTools { role: String },
    ToolSearch { paired: bool },
    MessageTools { role: String },
    Transcript { key: String, role: String },
    Other(String),
}

impl Carrier {
    fn describe(&self) -> String {
        match self {
            Carrier::Block { kind, role } => format!("in-place `{kind}` block (role `{role}`)"),
            Carrier::AdditionalTools { role } => format!("`additional_tools` item (role `{role}`)"),
            Carrier::ToolSearch { paired: true } => {
                "`tool_search_call` + `tool_search_output` pair".to_string()
            }
            Carrier::ToolSearch { paired: false } => "`tool_search_output` item".to_string(),
            Carrier::MessageTools { role } => format!("`{role}` message with `tools`"),
            Carrier::Transcript { key, role } => {
                format!("`{role}` message `{key}`, sent as is")
            }
            Carrier::Other(path) => format!("at `{path}`"),
        }
    }
}

fn first(p: &Value, marker: &str) -> Option<Location> {
    text_paths(p, marker).first().map(|path| locate(p, path))
}

fn index_of(p: &Value, marker: &str) -> Option<usize> {
    first(p, marker).and_then(|l| l.index())
}

fn leading(p: &Value) -> String {
    let r = Req::new(p);
    let Some(lead) = &r.lead else {
        return "missing: the leading prompt is not in the request".to_string();
    };
    let mut s = match lead {
        Location::Field { .. } => format!("`{}` field", lead.field_name()),
        Location::Item { index: 0, .. } => format!("first message, role `{}`", r.role(lead)),
        Location::Item { index, .. } => format!("message {index}, role `{}`", r.role(lead)),
    };
    if lead.passes_key("sections") {
        s.push_str(", raw `sections` (not rendered)");
    }
    s
}

fn instructions(p: &Value) -> String {
    let r = Req::new(p);
    let Some(mid) = first(p, MID) else {
        return "dropped: the update text is not in the request".to_string();
    };
    if r.in_lead(&mid) {
        let mut s = "folded into the leading prompt".to_string();
        let paths = text_paths(p, MID);
        if let Some(text) = paths
            .first()
            .and_then(|path| get(p, path))
            .and_then(Value::as_str)
        {
            if let (Some(m), Some(l)) = (text.find(MID), text.find(LEAD)) {
                if m < l {
                    s.push_str(" (update text first, then the original prompt)");
                }
            }
        }
        return s;
    }
    let Some(idx) = mid.index() else {
        return format!("in the `{}` field", mid.field_name());
    };
    let role = r.role(&mid);
    let (ia1, iu2) = (index_of(p, A1), index_of(p, U2));
    let mut s = match (ia1, iu2) {
        (Some(a), Some(u)) if a < idx && idx < u => format!("in place, role `{role}`"),
        (_, Some(u)) if idx > u => {
            format!("deferred past the next user message (just before the next assistant turn), role `{role}`")
        }
        _ => format!("message {idx}, role `{role}`"),
    };
    if r.item(&mid).is_some_and(|i| i.get("sections").is_some()) {
        s.push_str(", sent as is");
    }
    s
}

fn section_patch(p: &Value) -> String {
    let r = Req::new(p);
    let sec = first(p, SECTION);
    let all_text = |needle: &str| !text_paths(p, needle).is_empty();
    let patch = match &sec {
        None => "patched section missing".to_string(),
        Some(l) if r.in_lead(l) => "patched section merged into the leading prompt".to_string(),
        Some(l) if l.passes_key("sections") => "raw `sections` patch".to_string(),
        Some(l) => {
            let text = get(p, &l.full_path())
                .and_then(Value::as_str)
                .unwrap_or_default();
            if text.contains("Updated system prompt section") {
                "`Updated system prompt section` text in the update".to_string()
            } else {
                "patched section text in the update".to_string()
            }
        }
    };
    let cwd_in_lead = text_paths(p, CWD)
        .iter()
        .any(|path| r.in_lead(&locate(p, path)));
    let removal = if cwd_in_lead {
        if all_text("Removed system prompt section") {
            "removed section stays in the leading prompt, announced by a `Removed system prompt section` line"
                .to_string()
        } else if sec.as_ref().is_some_and(|l| l.passes_key("sections")) {
            let nulled = r
                .item(sec.as_ref().unwrap_or(&Location::Field { path: vec![] }))
                .and_then(|i| i.get("sections"))
                .and_then(|s| s.as_object())
                .is_some_and(|m| m.values().any(Value::is_null));
            if nulled {
                "removal sent as a `null` section".to_string()
            } else {
                "removed section stays in the leading prompt, no notice".to_string()
            }
        } else {
            "removed section stays in the leading prompt, no notice".to_string()
        }
    } else if all_text(CWD) {
        "removed section outside the leading prompt".to_string()
    } else {
        "removed section dropped from the leading prompt".to_string()
    };
    format!("{patch}; {removal}")
}

fn join(carriers: &[Carrier]) -> String {
    carriers
        .iter()
        .map(Carrier::describe)
        .collect::<Vec<_>>()
        .join(" + ")
}

fn addition(p: &Value, name: &str) -> String {
    let r = Req::new(p);
    let carriers = r.carriers(name);
    let list = r.tool_list();
    let decl = list.iter().find(|d| d.name == name);
    match (carriers.is_empty(), decl) {
        (true, Some(d)) => format!("full tool list: added to `{}`", d.field),
        (true, None) => "missing: the tool is not in the request".to_string(),
        (false, Some(d)) if d.deferred => format!(
            "{}; declared in `{}` with `defer_loading`",
            join(&carriers),
            d.field
        ),
        (false, Some(d)) => format!("{}; also added to `{}`", join(&carriers), d.field),
        (false, None) => join(&carriers),
    }
}

fn removal(p: &Value, name: &str) -> String {
    let r = Req::new(p);
    let carriers: Vec<Carrier> = r
        .carriers(name)
        .into_iter()
        .filter(|c| match c {
            Carrier::Block { kind, .. } => kind == "tool_removal",
            Carrier::Transcript { key, .. } => key == "toolsRemoved",
            _ => true,
        })
        .collect();
    let list = r.tool_list();
    let field = list
        .first()
        .map(|d| d.field.clone())
        .unwrap_or_else(|| "tools".to_string());
    let declared = list.iter().any(|d| d.name == name);
    match (carriers.is_empty(), declared) {
        (false, true) => format!("{}; the tool stays declared in `{field}`", join(&carriers)),
        (false, false) if list.is_empty() => join(&carriers),
        (false, false) => format!("{}; dropped from `{field}`", join(&carriers)),
        (true, false) => format!("full tool list: dropped from `{field}`"),
        (true, true) => "not withdrawn: still declared, no removal signal".to_string(),
    }
}

fn redefinition(p: &Value) -> String {
    let r = Req::new(p);
    let hits: Vec<Location> = text_paths(p, REDEF)
        .iter()
        .map(|path| locate(p, path))
        .collect();
    if hits.is_empty() {
        return "dropped: the new declaration is not in the request".to_string();
    }
    let mut carriers: Vec<Carrier> = Vec::new();
    for h in hits.iter().filter(|h| h.index().is_some()) {
        let c = r.carrier_at(h);
        if !carriers.contains(&c) {
            carriers.push(c);
        }
    }
    let list = r.tool_list();
    let decls: Vec<&Decl> = list.iter().filter(|d| d.name == KEPT_TOOL).collect();
    let new_in_list = decls.iter().any(|d| d.value.to_string().contains(REDEF));
    let old_in_list = decls.iter().any(|d| !d.value.to_string().contains(REDEF));
    let field = decls.first().map(|d| d.field.clone()).unwrap_or_default();
    let list_part = match (new_in_list, old_in_list) {
        (true, false) => {
            format!("full tool list: new declaration replaces the old one in `{field}`")
        }
        (true, true) => format!("old and new declarations both in `{field}`"),
        (false, true) => format!("old declaration kept in `{field}`"),
        (false, false) => String::new(),
    };
    match (carriers.is_empty(), list_part.is_empty()) {
        (true, _) => list_part,
        (false, true) => join(&carriers),
        (false, false) => format!("{}; {list_part}", join(&carriers)),
    }
}

/// Compares a later request with an earlier one in cache order: tool list, leading prompt, then
/// the history items up to the last of `history` markers.
fn prefix(before: &Value, after: &Value, history: &[&str]) -> String {
    let (b, a) = (Req::new(before), Req::new(after));
    let mut breaks = Vec::new();
    let mut notes = Vec::new();

    let (tb, ta) = (b.tool_list(), a.tool_list());
    let vb: Vec<&Value> = tb.iter().map(|d| &d.value).collect();
    let va: Vec<&Value> = ta.iter().map(|d| &d.value).collect();
    if vb != va {
        if va.len() > vb.len() && va[..vb.len()] == vb[..] {
            if ta[tb.len()..].iter().all(|d| d.deferred) {
                notes.push("deferred declarations appended");
            } else {
                breaks.push("tool list extended".to_string());
            }
        } else {
            breaks.push("tool list rewritten".to_string());
        }
    }

    let lead_b = b
        .lead
        .as_ref()
        .and_then(|l| b.container(l))
        .map(|v| without_cache_markers(&v));
    let lead_a = a
        .lead
        .as_ref()
        .and_then(|l| a.container(l))
        .map(|v| without_cache_markers(&v));
    if lead_b != lead_a {
        breaks.push("leading prompt rewritten".to_string());
    }

    let items_b = b.items();
    let items_a = a.items();
    let last = history.iter().filter_map(|m| index_of(before, m)).max();
    if let Some(last) = last {
        let start = b.lead_index().map_or(0, |i| i + 1);
        for i in start..=last {
            let same = match (items_b.get(i), items_a.get(i)) {
                (Some(x), Some(y)) => without_cache_markers(x) == without_cache_markers(y),
                _ => false,
            };
            if !same {
                breaks.push(format!("history rewritten from message {i}"));
                break;
            }
        }
    }

    if breaks.is_empty() {
        if notes.is_empty() {
            "kept".to_string()
        } else {
            format!("kept ({})", notes.join(", "))
        }
    } else {
        format!("breaks: {}", breaks.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn results(pairs: Vec<(&str, Value)>) -> ProbeResults {
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), Ok(v)))
            .collect()
    }

    #[test]
    fn assembler_error_is_not_measured() {
        let mut r = ProbeResults::new();
        r.insert(BASELINE.into(), Err("unsupported api `x`\nmore".into()));
        let cells = classify(&r);
        assert_eq!(
            cells[&Aspect::Leading].text(),
            "not measured (assembler error: unsupported api `x`)"
        );
        assert!(matches!(cells[&Aspect::ToolAddition], Cell::NotMeasured(_)));
    }

    #[test]
    fn instructions_in_place_vs_deferred_vs_folded() {
        let lead = json!({"role": "system", "content": "PROBE-LEAD hi"});
        let u1 = json!({"role": "user", "content": "PROBE-U1"});
        let a1 = json!({"role": "assistant", "content": "PROBE-A1"});
        let mid = json!({"role": "system", "content": "PROBE-MID x"});
        let u2 = json!({"role": "user", "content": "PROBE-U2"});
        let in_place = json!({"messages": [lead, u1, a1, mid, u2]});
        assert_eq!(instructions(&in_place), "in place, role `system`");
        let deferred = json!({"messages": [lead, u1, a1, u2, mid]});
        assert!(instructions(&deferred).starts_with("deferred past the next user message"));
        let folded = json!({"system": "PROBE-MID x\n\nPROBE-LEAD hi", "messages": [u1, a1, u2]});
        assert_eq!(
            instructions(&folded),
            "folded into the leading prompt (update text first, then the original prompt)"
        );
        assert_eq!(leading(&folded), "`system` field");
    }

    #[test]
    fn tool_carriers() {
        let base = |extra: Value, tools: Value| {
            json!({"input": [
                {"role": "developer", "content": "PROBE-LEAD"},
                {"role": "user", "content": "PROBE-U1"},
                extra,
                {"role": "user", "content": "PROBE-U2"}
            ], "tools": tools})
        };
        let read = json!({"type": "function", "name": "read", "parameters": {}});
        let grep = json!({"type": "function", "name": "grep", "parameters": {}});
        let p = base(
            json!({"type": "additional_tools", "role": "developer", "tools": [grep.clone()]}),
            json!([read.clone()]),
        );
        assert_eq!(
            addition(&p, "grep"),
            "`additional_tools` item (role `developer`)"
        );
        let p = base(
            json!({"role": "assistant", "content": "PROBE-A1"}),
            json!([read, grep]),
        );
        assert_eq!(addition(&p, "grep"), "full tool list: added to `tools`");
        let r = results(vec![(BASELINE, p.clone()), (TOOL_ADDITION, p)]);
        assert_eq!(classify(&r)[&Aspect::PrefixAddition].text(), "kept");
    }

    #[test]
    fn prefix_detects_tool_list_and_prompt_changes() {
        let before = json!({"system": "PROBE-LEAD", "tools": [{"name": "read", "description": "r"}, {"name": "bash", "description": "b"}],
            "messages": [{"role": "user", "content": "PROBE-U1"}, {"role": "assistant", "content": "PROBE-A1"}]});
        let mut after = before.clone();
        after["tools"] = json!([{"name": "read", "description": "r"}]);
        assert_eq!(
            prefix(&before, &after, &[U1, A1]),
            "breaks: tool list rewritten"
        );
        let mut after = before.clone();
        after["system"] = json!("PROBE-LEAD plus");
        assert_eq!(
            prefix(&before, &after, &[U1, A1]),
            "breaks: leading prompt rewritten"
        );
        let mut after = before.clone();
        after["tools"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "grep", "description": "g", "defer_loading": true}));
        assert_eq!(
            prefix(&before, &after, &[U1, A1]),
            "kept (deferred declarations appended)"
        );
    }
}
