//! Pi's canonical context projection (`buildContextEntries`, `buildSessionProjection`,
//! `sessionEntryToContextMessages`, `projectContextEntry` in `session-manager.js`).
//!
//! Messages are built from each entry's raw JSON with JavaScript object semantics: spreads keep
//! key positions, `undefined` values are dropped, timestamps go through `new Date(..).getTime()`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use forge_replay_model::js;
use forge_replay_model::json;
use forge_replay_model::session::EntryType;
use forge_replay_model::transcode;
use rayon::prelude::*;
use serde_json::{Map, Value};

/// Contexts with at least this many entries are projected in parallel.
const PARALLEL_MIN: usize = 512;

use crate::error::ProjectError;
use crate::head::MessageShape;
use crate::session::Session;

/// One entry of `buildContextEntries`, with the messages it contributed.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextEntry {
    /// Index into [`Session::entries`].
    pub index: usize,
    /// The entry's `id` when it is a string.
    pub id: Option<String>,
    /// The entry's `type`.
    pub entry_type: EntryType,
    /// Its messages, as a range of [`Projection::messages`] (empty for most non-message types).
    pub messages: Range<usize>,
}

/// `buildSessionProjection(entries, leafId)`.
///
/// Its messages are owned [`Value`]s, or (from [`ContextBuilder::snapshot_borrowed`]) `Cow`s
/// borrowed from the builder's own messages
/// ([`forge_replay_model::message::Message`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Projection<M = Value> {
    /// The leaf projected (`None`: no entries, or Pi's `leafId === null`).
    pub leaf: Option<usize>,
    /// The leaf's `id` (JSON `null` when there is no leaf).
    pub leaf_id: Value,
    /// `buildSessionContext(...).messages`.
    pub messages: Vec<M>,
    /// `buildContextEntries(...)`, each with its message range.
    pub entries: Vec<ContextEntry>,
    /// `{provider, modelId}` from the last `model_change` or assistant message on the raw path,
    /// or `null`.
    pub model: Value,
    /// The last `thinking_level_change`'s `thinkingLevel` (`"off"` by default; `None` when that
    /// entry has no `thinkingLevel`, which `JSON.stringify` omits).
    pub thinking_level: Option<Value>,
}

impl Projection {
    /// `{"leafId":…, "messages":[…]}`, the `forge-replay context` document.
    pub fn to_context_json(&self, llm: bool) -> Value {
        let mut m = Map::new();
        m.insert("leafId".into(), self.leaf_id.clone());
        let messages = if llm {
            crate::llm::convert_to_llm(&self.messages)
        } else {
            self.messages.clone()
        };
        m.insert("messages".into(), Value::Array(messages));
        Value::Object(m)
    }
}

/// A JavaScript `Map` key for an id-like value (`undefined`, `null`, strings and others differ).
fn map_key(v: Option<&Value>) -> Cow<'_, str> {
    match v {
        None => Cow::Borrowed("\u{1}undefined"),
        Some(Value::String(s)) => Cow::Borrowed(s),
        Some(other) => Cow::Owned(format!("\u{0}{}", json::stringify(other))),
    }
}

/// `getSessionContextSettings(path)`.
#[derive(Debug, Clone, PartialEq)]
struct Settings {
    thinking_level: Option<Value>,
    model: Value,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            thinking_level: Some(Value::from("off")),
            model: Value::Null,
        }
    }
}

impl Settings {
    fn apply(&mut self, s: &Session, i: usize) {
        let e = s.entry(i);
        match e.entry_type() {
            EntryType::ThinkingLevelChange => {
                self.thinking_level = e.thinking_level_value().cloned()
            }
            EntryType::ModelChange => {
                self.model = model_value(e.provider_value(), e.model_id_value());
            }
            EntryType::Message => {
                if let Some((p, m)) = e.assistant_model() {
                    self.model = model_value(p, m);
                }
            }
            _ => {}
        }
    }
}

fn model_value(provider: Option<&Value>, model_id: Option<&Value>) -> Value {
    let mut m = Map::new();
    if let Some(p) = provider {
        m.insert("provider".into(), p.clone());
    }
    if let Some(id) = model_id {
        m.insert("modelId".into(), id.clone());
    }
    Value::Object(m)
}

/// `buildContextEntries` over a root→leaf path: entry indices.
pub fn context_entries(s: &Session, path: &[usize]) -> Vec<usize> {
    let Some(c) = path
        .iter()
        .rev()
        .copied()
        .find(|&i| *s.entry(i).entry_type() == EntryType::Compaction)
    else {
        return path.to_vec();
    };
    let comp = s.entry(c);
    let comp_id = comp.id_value();
    let Some(comp_idx) = path
        .iter()
        .position(|&i| s.entry(i).id_is(comp_id.as_ref()))
    else {
        return path.to_vec();
    };
    let first_kept = comp.first_kept_entry_id_value();
    let mut out = vec![c];
    let mut found = false;
    for &i in &path[..comp_idx] {
        let e = s.entry(i);
        if e.id_is(first_kept) {
            found = true;
        }
        if found && !e.is_system_message() {
            out.push(i);
        }
    }
    out.extend_from_slice(&path[comp_idx + 1..]);
    out
}

fn parse_entry(s: &Session, i: usize) -> Result<Value, ProjectError> {
    s.entry(i).value()
}

fn take(obj: &mut Map<String, Value>, key: &str) -> Option<Value> {
    obj.get_mut(key).map(Value::take)
}

/// `sessionEntryToContextMessages(entry)`.
pub fn entry_messages(s: &Session, i: usize) -> Result<Vec<Value>, ProjectError> {
    let e = s.entry(i);
    let ty = e.entry_type();
    let relevant = match ty {
        EntryType::Message | EntryType::CustomMessage | EntryType::Compaction => true,
        EntryType::BranchSummary => e.summary_is_truthy(),
        _ => false,
    };
    if !relevant || !e.is_object() {
        return Ok(Vec::new());
    }
    let Value::Object(mut obj) = parse_entry(s, i)? else {
        return Ok(Vec::new());
    };
    let timestamp = json::f64_to_value(js::date::get_time(obj.get("timestamp")));
    Ok(match ty {
        EntryType::Message => {
            // Pi throws on a missing or null `message`; nothing is projected here (check reports it).
            match take(&mut obj, "message") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(mut m)) => {
                    let role = m.get("role").and_then(Value::as_str);
                    let null_content = m.get("content").is_none_or(Value::is_null);
                    if null_content {
                        match role {
                            Some("system") => {
                                m.insert("content".into(), Value::from(""));
                            }
                            Some("user" | "assistant" | "toolResult") => {
                                m.insert("content".into(), Value::Array(Vec::new()));
                            }
                            _ => {}
                        }
                    }
                    vec![Value::Object(m)]
                }
                Some(other) => vec![other],
            }
        }
        EntryType::CustomMessage => {
            let mut m = Map::new();
            m.insert("role".into(), Value::from("custom"));
            if let Some(v) = take(&mut obj, "customType") {
                m.insert("customType".into(), v);
            }
            let content = match take(&mut obj, "content") {
                None | Some(Value::Null) => Value::Array(Vec::new()),
                Some(v) => v,
            };
            m.insert("content".into(), content);
            if let Some(v) = take(&mut obj, "display") {
                m.insert("display".into(), v);
            }
            if let Some(v) = take(&mut obj, "details") {
                m.insert("details".into(), v);
            }
            m.insert("timestamp".into(), timestamp);
            vec![Value::Object(m)]
        }
        EntryType::BranchSummary => {
            let mut m = Map::new();
            m.insert("role".into(), Value::from("branchSummary"));
            if let Some(v) = take(&mut obj, "summary") {
                m.insert("summary".into(), v);
            }
            if let Some(v) = take(&mut obj, "fromId") {
                m.insert("fromId".into(), v);
            }
            m.insert("timestamp".into(), timestamp);
            vec![Value::Object(m)]
        }
        EntryType::Compaction => {
            let mut m = Map::new();
            m.insert("role".into(), Value::from("compactionSummary"));
            if let Some(v) = take(&mut obj, "summary") {
                m.insert("summary".into(), v);
            }
            if let Some(v) = take(&mut obj, "tokensBefore") {
                m.insert("tokensBefore".into(), v);
            }
            m.insert("timestamp".into(), timestamp);
            let system = take(&mut obj, "systemMessage");
            if js::truthy(system.as_ref()) {
                vec![system.unwrap_or_default(), Value::Object(m)]
            } else {
                vec![Value::Object(m)]
            }
        }
        _ => Vec::new(),
    })
}

/// `edit.replacement` of a `context_edit` entry (`None` = undefined).
fn edit_replacement(s: &Session, edit: usize) -> Result<Option<Value>, ProjectError> {
    Ok(match parse_entry(s, edit)? {
        Value::Object(mut o) => take(&mut o, "replacement"),
        _ => None,
    })
}

/// `projectContextEntry(entry, edit)`.
fn project_entry(s: &Session, i: usize, edit: Option<usize>) -> Result<Vec<Value>, ProjectError> {
    let messages = entry_messages(s, i)?;
    let Some(edit) = edit else {
        return Ok(messages);
    };
    let replacement = edit_replacement(s, edit)?;
    if replacement == Some(Value::Null) {
        return Ok(Vec::new());
    }
    let rep_content = match &replacement {
        Some(Value::Object(o)) => o.get("content"),
        _ => None,
    };
    Ok(messages
        .into_iter()
        .map(|message| {
            let Value::Object(mut m) = message else {
                return message;
            };
            let role = m.get("role").and_then(Value::as_str);
            if !matches!(role, Some("user" | "assistant" | "toolResult" | "custom")) {
                return Value::Object(m);
            }
            let content = match rep_content {
                Some(Value::String(text)) if matches!(role, Some("assistant" | "toolResult")) => {
                    let mut block = Map::new();
                    block.insert("type".into(), Value::from("text"));
                    block.insert("text".into(), Value::from(text.clone()));
                    Some(Value::Array(vec![Value::Object(block)]))
                }
                other => other.cloned(),
            };
            match content {
                Some(c) => {
                    m.insert("content".into(), c);
                }
                None => {
                    m.shift_remove("content");
                }
            }
            Value::Object(m)
        })
        .collect())
}

/// `buildSessionContext(entries, leafId).messages.length`, from the entries' heads only (no
/// parsing): what `forge-replay tree` shows per leaf.
pub fn message_count(s: &Session, leaf: usize) -> usize {
    let ctx = context_entries(s, &s.path_to(leaf));
    let mut omitted: HashMap<Cow<'_, str>, bool> = HashMap::new();
    for &i in &ctx {
        let e = s.entry(i);
        if *e.entry_type() == EntryType::ContextEdit {
            omitted.insert(map_key(e.target_id_value()), e.replacement_is_null());
        }
    }
    ctx.iter()
        .enumerate()
        .map(|(pos, &i)| {
            let e = s.entry(i);
            if !e.is_object()
                || (!omitted.is_empty() && omitted.get(&e.id_map_key()).copied() == Some(true))
            {
                return 0;
            }
            match e.entry_type() {
                EntryType::Message => usize::from(matches!(
                    e.message_shape(),
                    MessageShape::Object | MessageShape::NotObject
                )),
                EntryType::CustomMessage => 1,
                EntryType::BranchSummary => usize::from(e.summary_is_truthy()),
                EntryType::Compaction if pos == 0 => 1 + usize::from(e.system_message_is_truthy()),
                _ => 0,
            }
        })
        .sum()
}

/// `buildSessionProjection(entries, leafId)` at `leaf`.
pub fn project(s: &Session, leaf: Option<usize>) -> Result<Projection, ProjectError> {
    ContextPlan::new(s, leaf).into_projection()
}

/// The projection at a leaf before any message is built: the `buildContextEntries` list, the
/// edits that apply, model and thinking level. Built from the entries' heads only; messages are
/// parsed per entry on demand, so a large context can be streamed with
/// [`ContextPlan::entry_messages`] without holding every message at once.
#[derive(Debug, Clone)]
pub struct ContextPlan<'s> {
    session: &'s Session,
    leaf: Option<usize>,
    entries: Vec<usize>,
    edits: HashMap<String, usize>,
    settings: Settings,
}

impl<'s> ContextPlan<'s> {
    /// Plans the context at `leaf` (`None`: Pi's `leafId === null`, empty).
    pub fn new(s: &'s Session, leaf: Option<usize>) -> Self {
        let path = leaf.map(|l| s.path_to(l)).unwrap_or_default();
        let mut settings = Settings::default();
        for &i in &path {
            settings.apply(s, i);
        }
        Self::from_context_entries(s, leaf, context_entries(s, &path), settings)
    }

    fn from_context_entries(
        s: &'s Session,
        leaf: Option<usize>,
        entries: Vec<usize>,
        settings: Settings,
    ) -> Self {
        let mut edits = HashMap::new();
        for &i in &entries {
            let e = s.entry(i);
            if *e.entry_type() == EntryType::ContextEdit {
                edits.insert(map_key(e.target_id_value()).into_owned(), i);
            }
        }
        ContextPlan {
            session: s,
            leaf,
            entries,
            edits,
            settings,
        }
    }

    /// The leaf.
    pub fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    /// The leaf's `id` (JSON `null` when there is no leaf).
    pub fn leaf_id(&self) -> Value {
        self.leaf
            .and_then(|l| self.session.entry(l).id_value())
            .unwrap_or(Value::Null)
    }

    /// `buildContextEntries`: entry indices in context order.
    pub fn entries(&self) -> &[usize] {
        &self.entries
    }

    /// `{provider, modelId}` or `null`.
    pub fn model(&self) -> &Value {
        &self.settings.model
    }

    /// The thinking level (`None` = undefined).
    pub fn thinking_level(&self) -> Option<&Value> {
        self.settings.thinking_level.as_ref()
    }

    /// The messages of the context entry at position `pos` of [`ContextPlan::entries`].
    pub fn entry_messages(&self, pos: usize) -> Result<Vec<Value>, ProjectError> {
        slot_messages(self.session, pos, self.entries[pos], self.edit_at(pos))
    }

    /// The context edit that applies to the entry at position `pos`.
    fn edit_at(&self, pos: usize) -> Option<usize> {
        if self.edits.is_empty() {
            return None;
        }
        let e = self.session.entry(self.entries[pos]);
        self.edits.get(&*e.id_map_key()).copied()
    }

    /// The raw JSON text of the one message the context entry at `pos` projects to, when the
    /// projection can be that object unchanged: a `message` entry without a context edit whose
    /// `message` is an object. Only if it also has a non-null `content` (Pi fills a missing
    /// one), which [`forge_replay_model::transcode::transcode_pretty_requiring`] checks while
    /// re-emitting it; otherwise, and for `None`, use [`ContextPlan::entry_messages`].
    pub fn entry_message_raw(&self, pos: usize) -> Option<Cow<'s, str>> {
        let s: &'s Session = self.session;
        let e = s.entry(self.entries[pos]);
        if *e.entry_type() != EntryType::Message || !e.is_object() {
            return None;
        }
        if !self.edits.is_empty() && self.edits.contains_key(&*e.id_map_key()) {
            return None;
        }
        // A line that cannot be read again gives `None`: `entry_messages` then reports it.
        match e.raw().ok()? {
            Cow::Borrowed(raw) => {
                let message = transcode::member_raw(raw, "message")?;
                message.starts_with('{').then_some(Cow::Borrowed(message))
            }
            Cow::Owned(raw) => {
                let message = transcode::member_raw(&raw, "message")?;
                message
                    .starts_with('{')
                    .then(|| Cow::Owned(message.to_string()))
            }
        }
    }

    /// Builds every message (large contexts are parsed on all cores; order is kept).
    pub fn into_projection(self) -> Result<Projection, ProjectError> {
        let slot = |pos: usize| {
            Ok(Slot {
                index: self.entries[pos],
                messages: self.entry_messages(pos)?,
            })
        };
        let slots = if self.entries.len() >= PARALLEL_MIN {
            (0..self.entries.len())
                .into_par_iter()
                .map(slot)
                .collect::<Result<Vec<_>, ProjectError>>()?
        } else {
            (0..self.entries.len())
                .map(slot)
                .collect::<Result<Vec<_>, ProjectError>>()?
        };
        Ok(assemble(self.session, self.leaf, slots, self.settings))
    }
}

#[derive(Debug, Clone)]
struct Slot {
    index: usize,
    messages: Vec<Value>,
}

fn assemble(s: &Session, leaf: Option<usize>, slots: Vec<Slot>, settings: Settings) -> Projection {
    let total = slots.iter().map(|x| x.messages.len()).sum();
    let mut messages = Vec::with_capacity(total);
    let mut entries = Vec::with_capacity(slots.len());
    for slot in slots {
        let start = messages.len();
        messages.extend(slot.messages);
        entries.push(context_entry(s, slot.index, start..messages.len()));
    }
    projection(s, leaf, messages, entries, settings)
}

/// The context entry of entry `index`, holding `messages` of the projection.
fn context_entry(s: &Session, index: usize, messages: Range<usize>) -> ContextEntry {
    let e = s.entry(index);
    ContextEntry {
        index,
        id: e.id().map(str::to_string),
        entry_type: e.entry_type().clone(),
        messages,
    }
}

fn projection<M>(
    s: &Session,
    leaf: Option<usize>,
    messages: Vec<M>,
    entries: Vec<ContextEntry>,
    settings: Settings,
) -> Projection<M> {
    Projection {
        leaf,
        leaf_id: leaf
            .and_then(|l| s.entry(l).id_value())
            .unwrap_or(Value::Null),
        messages,
        entries,
        model: settings.model,
        thinking_level: settings.thinking_level,
    }
}

/// A JavaScript `Map` key over ids as a number: the id slot of [`crate::index::Rec`] for the
/// keys an entry's id can have, [`NO_KEY`] for a key no entry's id has. Two ids have the same
/// key exactly when their [`map_key`] strings are equal.
type IdKey = u32;

/// The key of an id no entry has (an edit target that matches nothing).
const NO_KEY: IdKey = u32::MAX;

/// "No position" / "no edit" in the `u32` fields of a [`BuiltSlot`].
const NO_POS: u32 = u32::MAX;

/// The [`IdKey`] of a [`map_key`] string.
fn key_of_map_key(s: &Session, key: &str) -> IdKey {
    use crate::index::{SLOT_ABSENT, SLOT_KEY, SLOT_NULL};
    match key {
        "\u{1}undefined" => SLOT_ABSENT,
        "\u{0}null" => SLOT_NULL,
        _ => s.keys.find(key).map_or(NO_KEY, |k| SLOT_KEY + k),
    }
}

/// The [`IdKey`] of entry `i`'s id.
fn id_key(s: &Session, i: usize) -> IdKey {
    use crate::index::{SLOT_ABSENT, SLOT_KEY, SLOT_NULL};
    let slot = s.recs[i].id;
    if slot >= SLOT_KEY {
        // A string id spelled like the key of an absent or null id shares that key.
        match s.keys.get(slot - SLOT_KEY) {
            "\u{1}undefined" => return SLOT_ABSENT,
            "\u{0}null" => return SLOT_NULL,
            _ => {}
        }
    }
    slot
}

/// The [`IdKey`] of a context edit's target.
fn target_key(s: &Session, edit: usize) -> IdKey {
    key_of_map_key(s, &map_key(s.entry(edit).target_id_value()))
}

/// One context slot of a [`ContextBuilder`].
#[derive(Debug, Clone)]
struct BuiltSlot {
    /// The entry.
    index: u32,
    /// The context edit that applies to it ([`NO_POS`]: none).
    edit: u32,
    /// The previous slot with the same id key ([`NO_POS`]: none), for [`ContextBuilder::by_id`].
    prev_same_id: u32,
    /// Its messages (empty, and built on demand, in an on-demand builder).
    messages: Box<[Value]>,
}

impl BuiltSlot {
    fn index(&self) -> usize {
        self.index as usize
    }

    fn edit(&self) -> Option<usize> {
        (self.edit != NO_POS).then_some(self.edit as usize)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(NO_POS)
}

/// The messages of the slot at position `pos` holding entry `index` with `edit` applied: what
/// Pi's projection gives for it (a compaction contributes only at position 0).
fn slot_messages(
    s: &Session,
    pos: usize,
    index: usize,
    edit: Option<usize>,
) -> Result<Vec<Value>, ProjectError> {
    if pos > 0 && *s.entry(index).entry_type() == EntryType::Compaction {
        return Ok(Vec::new());
    }
    project_entry(s, index, edit)
}

/// Walks one root→leaf path entry by entry, keeping the projection current, so that the context
/// at every entry of a path costs O(path) in total instead of O(path²).
///
/// By default every context slot holds its messages. An on-demand builder
/// ([`ContextBuilder::on_demand`]) holds none: a slot is its entry and the context edit that
/// applies to it (a few dozen bytes), and [`ContextBuilder::slot`] builds its messages again
/// from the file when asked, so memory stays at the index of the path, not its text.
///
/// ```no_run
/// # use forge_replay_session::Session;
/// let (session, _) = Session::open("s.jsonl")?;
/// let leaf = session.default_leaf().unwrap();
/// let mut b = session.builder();
/// for i in session.path_to(leaf) {
///     if session.entry(i).is_assistant_message() {
///         // The context the request that produced entry `i` was built from.
///         let messages: Vec<&serde_json::Value> = b.messages().collect();
///     }
///     b.push(i)?;
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ContextBuilder<'s> {
    session: &'s Session,
    path: Vec<usize>,
    slots: Vec<BuiltSlot>,
    /// Context-edit target key → edit entry, among the current context entries.
    edits: HashMap<IdKey, usize>,
    /// Id key → the last position in `slots` with that key (earlier ones are chained through
    /// [`BuiltSlot::prev_same_id`]).
    by_id: HashMap<IdKey, u32>,
    settings: Settings,
    /// One record per push, when [`ContextBuilder::pop`] is enabled.
    undo: Option<Vec<Undo>>,
    /// Slots hold no messages ([`ContextBuilder::on_demand`]).
    on_demand: bool,
}

/// How to take back one push.
#[derive(Debug, Clone)]
enum Undo {
    /// The push appended one slot (and, for a context edit, re-projected earlier ones); what
    /// else it changed, if anything (most pushes change nothing else: a few bytes per push).
    Append(Option<Box<AppendUndo>>),
    /// The push replaced everything (a compaction, or a restart on another path).
    Replace(Box<Replaced>),
}

/// What a push that appended a slot changed besides.
#[derive(Debug, Clone)]
struct AppendUndo {
    /// Settings before, when the entry changed them.
    settings: Option<Settings>,
    /// A context edit: what it changed.
    edit: Option<EditUndo>,
}

/// How to take back a context edit's push.
#[derive(Debug, Clone)]
struct EditUndo {
    /// The edit's target key.
    target: IdKey,
    /// The edit of that target it replaced.
    previous: Option<usize>,
    /// The re-projected slots: position, old edit and old messages.
    old: Vec<(usize, u32, Box<[Value]>)>,
}

#[derive(Debug, Clone)]
struct Replaced {
    path: Vec<usize>,
    slots: Vec<BuiltSlot>,
    edits: HashMap<IdKey, usize>,
    by_id: HashMap<IdKey, u32>,
    settings: Settings,
}

/// What one [`ContextBuilder::push`] did to the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushEffect {
    /// The first context slot whose messages changed other than by being appended (`None` when
    /// the push only appended): a compaction or a restart rewrites from 0, a context edit from
    /// its first target.
    pub rewrote_from: Option<usize>,
}

impl<'s> ContextBuilder<'s> {
    pub(crate) fn new(session: &'s Session) -> Self {
        ContextBuilder {
            session,
            path: Vec::new(),
            slots: Vec::new(),
            edits: HashMap::new(),
            by_id: HashMap::new(),
            settings: Settings::default(),
            undo: None,
            on_demand: false,
        }
    }

    /// Keeps what [`ContextBuilder::pop`] needs to take back each push (for a depth-first walk
    /// of a tree that extends and shortens one path instead of copying it at every branch).
    pub fn with_undo(mut self) -> Self {
        self.undo = Some(Vec::new());
        self
    }

    /// Holds no messages: pushes read nothing from the file, and [`ContextBuilder::slot`] and
    /// [`ContextBuilder::snapshot`] build the messages they return again from it (an unreadable
    /// or changed line is then their error). For walks that read each slot once or a few times,
    /// such as `check`; a builder whose whole context is read at every request is better off
    /// holding them. Call on an empty builder.
    pub fn on_demand(mut self) -> Self {
        self.on_demand = true;
        self
    }

    /// The path pushed so far.
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    fn take_state(&mut self) -> Replaced {
        Replaced {
            path: std::mem::take(&mut self.path),
            slots: std::mem::take(&mut self.slots),
            edits: std::mem::take(&mut self.edits),
            by_id: std::mem::take(&mut self.by_id),
            settings: std::mem::take(&mut self.settings),
        }
    }

    fn put_state(&mut self, r: Replaced) {
        self.path = r.path;
        self.slots = r.slots;
        self.edits = r.edits;
        self.by_id = r.by_id;
        self.settings = r.settings;
    }

    /// Positions of the slots with id key `key`, in context order.
    fn positions(&self, key: IdKey) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.by_id.get(&key).copied().unwrap_or(NO_POS);
        while at != NO_POS {
            out.push(at as usize);
            at = self.slots[at as usize].prev_same_id;
        }
        out.reverse();
        out
    }

    /// Extends the path with entry `i`. When `i` is not a child of the last entry pushed, the
    /// builder restarts from `i`'s own root→`i` path. On error the builder is unchanged.
    pub fn push(&mut self, i: usize) -> Result<(), ProjectError> {
        self.push_effect(i).map(|_| ())
    }

    /// [`ContextBuilder::push`], saying which earlier context slots changed.
    pub fn push_effect(&mut self, i: usize) -> Result<PushEffect, ProjectError> {
        let s = self.session;
        if s.tree().parent(i) != self.path.last().copied() {
            let old = self.take_state();
            let undo = self.undo.take();
            let mut fresh = ContextBuilder::new(s);
            fresh.on_demand = self.on_demand;
            let result = s.path_to(i).into_iter().try_for_each(|p| fresh.push(p));
            self.undo = undo;
            match result {
                Ok(()) => {
                    let state = fresh.take_state();
                    self.put_state(state);
                    if let Some(u) = &mut self.undo {
                        u.push(Undo::Replace(Box::new(old)));
                    }
                    return Ok(PushEffect {
                        rewrote_from: Some(0),
                    });
                }
                Err(e) => {
                    self.put_state(old);
                    return Err(e);
                }
            }
        }
        let e = s.entry(i);
        if *e.entry_type() == EntryType::Compaction {
            let mut path = self.path.clone();
            path.push(i);
            let ctx = context_entries(s, &path);
            let plan = ContextPlan::from_context_entries(s, None, ctx, Settings::default());
            let mut slots = Vec::with_capacity(plan.entries.len());
            for pos in 0..plan.entries.len() {
                slots.push(BuiltSlot {
                    index: to_u32(plan.entries[pos]),
                    edit: plan.edit_at(pos).map_or(NO_POS, to_u32),
                    prev_same_id: NO_POS,
                    messages: if self.on_demand {
                        Box::default()
                    } else {
                        plan.entry_messages(pos)?.into_boxed_slice()
                    },
                });
            }
            let old = self.take_state();
            let mut settings = old.settings.clone();
            settings.apply(s, i);
            self.path = path;
            self.slots = slots;
            self.settings = settings;
            self.reindex();
            if let Some(u) = &mut self.undo {
                u.push(Undo::Replace(Box::new(old)));
            }
            return Ok(PushEffect {
                rewrote_from: Some(0),
            });
        }
        let key = id_key(s, i);
        let edit = self.edits.get(&key).copied();
        let messages = if self.on_demand {
            Vec::new()
        } else {
            project_entry(s, i, edit)?
        };
        // A context edit re-projects the slots it targets: all of them first, so that an error
        // leaves the builder as it was.
        let mut reprojected = Vec::new();
        let mut target = None;
        if *e.entry_type() == EntryType::ContextEdit {
            let t = target_key(s, i);
            for p in self.positions(t) {
                let m = if self.on_demand {
                    Vec::new()
                } else {
                    slot_messages(s, p, self.slots[p].index(), Some(i))?
                };
                reprojected.push((p, m));
            }
            // An edit of its own id re-projects its own slot too (it is in `by_id` by then).
            if t == key {
                let m = if self.on_demand {
                    Vec::new()
                } else {
                    project_entry(s, i, Some(i))?
                };
                reprojected.push((self.slots.len(), m));
            }
            target = Some(t);
        }
        let changes_settings = matches!(
            e.entry_type(),
            EntryType::ThinkingLevelChange | EntryType::ModelChange
        ) || e.is_assistant_message();
        // Kept for undo only when the entry changes them (an assistant message usually names
        // the model already in force).
        let mut old_settings = None;
        if changes_settings {
            if self.undo.is_some() {
                let mut next = self.settings.clone();
                next.apply(s, i);
                if next != self.settings {
                    old_settings = Some(std::mem::replace(&mut self.settings, next));
                }
            } else {
                self.settings.apply(s, i);
            }
        }
        self.path.push(i);
        let prev_same_id = self
            .by_id
            .insert(key, to_u32(self.slots.len()))
            .unwrap_or(NO_POS);
        self.slots.push(BuiltSlot {
            index: to_u32(i),
            edit: edit.map_or(NO_POS, to_u32),
            prev_same_id,
            messages: messages.into_boxed_slice(),
        });
        let mut rewrote_from = None;
        let mut undo_edit = None;
        if let Some(t) = target {
            let previous = self.edits.insert(t, i);
            let mut old = Vec::new();
            for (p, m) in reprojected {
                rewrote_from = Some(rewrote_from.map_or(p, |r: usize| r.min(p)));
                let slot = &mut self.slots[p];
                let old_messages = std::mem::replace(&mut slot.messages, m.into_boxed_slice());
                let old_edit = std::mem::replace(&mut slot.edit, to_u32(i));
                old.push((p, old_edit, old_messages));
            }
            undo_edit = Some(EditUndo {
                target: t,
                previous,
                old,
            });
        }
        if let Some(u) = &mut self.undo {
            let changed = (old_settings.is_some() || undo_edit.is_some()).then(|| {
                Box::new(AppendUndo {
                    settings: old_settings,
                    edit: undo_edit,
                })
            });
            u.push(Undo::Append(changed));
        }
        Ok(PushEffect { rewrote_from })
    }

    /// Takes back the last push (see [`ContextBuilder::with_undo`]): the context before that
    /// push is restored exactly. Returns what the push did ([`ContextBuilder::push_effect`]).
    ///
    /// # Panics
    /// When undo is not enabled or nothing was pushed since.
    pub fn pop(&mut self) -> PushEffect {
        let u = self
            .undo
            .as_mut()
            .and_then(Vec::pop)
            .expect("ContextBuilder::pop without a push recorded (enable with_undo)");
        match u {
            Undo::Replace(old) => {
                self.put_state(*old);
                PushEffect {
                    rewrote_from: Some(0),
                }
            }
            Undo::Append(changed) => {
                let mut rewrote_from = None;
                let mut settings = None;
                if let Some(changed) = changed {
                    let AppendUndo { settings: s, edit } = *changed;
                    settings = s;
                    if let Some(EditUndo {
                        target,
                        previous,
                        old,
                    }) = edit
                    {
                        match previous {
                            Some(p) => {
                                self.edits.insert(target, p);
                            }
                            None => {
                                self.edits.remove(&target);
                            }
                        }
                        for (p, old_edit, m) in old {
                            rewrote_from = Some(rewrote_from.map_or(p, |r: usize| r.min(p)));
                            if let Some(slot) = self.slots.get_mut(p) {
                                slot.edit = old_edit;
                                slot.messages = m;
                            }
                        }
                    }
                }
                self.path.pop();
                if let Some(slot) = self.slots.pop() {
                    let key = id_key(self.session, slot.index());
                    if slot.prev_same_id == NO_POS {
                        self.by_id.remove(&key);
                    } else {
                        self.by_id.insert(key, slot.prev_same_id);
                    }
                }
                if let Some(s) = settings {
                    self.settings = s;
                }
                PushEffect { rewrote_from }
            }
        }
    }

    fn reindex(&mut self) {
        let s = self.session;
        self.edits.clear();
        self.by_id.clear();
        for p in 0..self.slots.len() {
            let index = self.slots[p].index();
            if *s.entry(index).entry_type() == EntryType::ContextEdit {
                self.edits.insert(target_key(s, index), index);
            }
            self.slots[p].prev_same_id = self
                .by_id
                .insert(id_key(s, index), to_u32(p))
                .unwrap_or(NO_POS);
        }
    }

    /// Number of context slots (`buildContextEntries` of the path pushed so far).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Context slot `k`: its entry index and the messages it contributes now (borrowed, or built
    /// again from the file by an on-demand builder, which is when this can fail).
    pub fn slot(&self, k: usize) -> Result<(usize, Cow<'_, [Value]>), ProjectError> {
        let slot = &self.slots[k];
        let messages = if self.on_demand {
            Cow::Owned(slot_messages(self.session, k, slot.index(), slot.edit())?)
        } else {
            Cow::Borrowed(&slot.messages[..])
        };
        Ok((slot.index(), messages))
    }

    /// The entry of context slot `k`.
    pub fn slot_entry(&self, k: usize) -> usize {
        self.slots[k].index()
    }

    /// The current messages (`buildSessionContext(entries, last pushed).messages`).
    ///
    /// # Panics
    /// On an on-demand builder, which holds none (use [`ContextBuilder::slot`]).
    pub fn messages(&self) -> impl Iterator<Item = &Value> + '_ {
        assert!(
            !self.on_demand,
            "ContextBuilder::messages on an on-demand builder (use slot)"
        );
        self.slots.iter().flat_map(|s| s.messages.iter())
    }

    /// Number of current messages.
    ///
    /// # Panics
    /// On an on-demand builder (see [`ContextBuilder::messages`]).
    pub fn message_count(&self) -> usize {
        self.messages().count()
    }

    /// The current model (`{provider, modelId}` or `null`).
    pub fn model(&self) -> &Value {
        &self.settings.model
    }

    /// The current thinking level.
    pub fn thinking_level(&self) -> Option<&Value> {
        self.settings.thinking_level.as_ref()
    }

    /// The full projection at the last entry pushed (clones the messages, or builds them again
    /// on all cores for an on-demand builder).
    pub fn snapshot(&self) -> Result<Projection, ProjectError> {
        let slot = |(k, b): (usize, &BuiltSlot)| {
            Ok(Slot {
                index: b.index(),
                messages: if self.on_demand {
                    slot_messages(self.session, k, b.index(), b.edit())?
                } else {
                    b.messages.to_vec()
                },
            })
        };
        let slots = if self.on_demand && self.slots.len() >= PARALLEL_MIN {
            self.slots
                .par_iter()
                .enumerate()
                .map(slot)
                .collect::<Result<Vec<_>, ProjectError>>()?
        } else {
            self.slots
                .iter()
                .enumerate()
                .map(slot)
                .collect::<Result<Vec<_>, ProjectError>>()?
        };
        Ok(assemble(
            self.session,
            self.path.last().copied(),
            slots,
            self.settings.clone(),
        ))
    }

    /// [`ContextBuilder::snapshot`] without a copy: the messages are borrowed from the builder
    /// (built again from the file for an on-demand builder). What the replay engine builds every
    /// request from: on a long path, copying every message for every request was most of its
    /// time.
    pub fn snapshot_borrowed(&self) -> Result<Projection<Cow<'_, Value>>, ProjectError> {
        if self.on_demand {
            // The messages are built from the file in any case: own them.
            let owned = self.snapshot()?;
            return Ok(Projection {
                leaf: owned.leaf,
                leaf_id: owned.leaf_id,
                messages: owned.messages.into_iter().map(Cow::Owned).collect(),
                entries: owned.entries,
                model: owned.model,
                thinking_level: owned.thinking_level,
            });
        }
        // One vector of pointers, no vector per slot.
        let total = self.slots.iter().map(|b| b.messages.len()).sum();
        let mut messages = Vec::with_capacity(total);
        let mut entries = Vec::with_capacity(self.slots.len());
        for b in &self.slots {
            let start = messages.len();
            messages.extend(b.messages.iter().map(Cow::Borrowed));
            entries.push(context_entry(
                self.session,
                b.index(),
                start..messages.len(),
            ));
        }
        Ok(projection(
            self.session,
            self.path.last().copied(),
            messages,
            entries,
            self.settings.clone(),
        ))
    }
}
