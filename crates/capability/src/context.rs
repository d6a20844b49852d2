//! The per-request entry point: Pi's canonical projection of a session with pi-forge's
//! capability projection applied, exactly as Forge's `context_with_system` hook would produce it
//! for a request made at that point of the branch.
//!
//! Steps (spec Appendix B): `readCapabilitySession` over the raw path (§2.7) → Pi's projection
//! from the session crate (§4.6) → anchors materialized at their ordinal positions (§4.3; with
//! Pi's own messages the alignment is the identity) → `projectCapabilityMessages` (§5.2) with the
//! request's presentation, or markers stripped for an untrusted project (§5.8).

use std::borrow::Cow;
use std::collections::HashMap;

use forge_replay_model::message::Message;

use forge_replay_session::{EntryType, Projection, PushEffect, Session};
use serde_json::Value;

use crate::anchor::{materialize_canonical, ContextEntry};
use crate::history::{CapabilityHistory, EntryLocation, HistoryBuilder, HistoryError, HistoryUndo};
use crate::projection::{project_unique_events, strip_markers, Presentation, UpdateKind};

/// How to project one request.
///
/// UNKNOWN (spec §5.7): the native/fallback flag of a historical request is not recorded in
/// the session; callers choose it (the CLI's `context` takes it explicitly, replay reads the
/// request model's catalog flag).
///
/// Offline, events that Forge would have anchored in `prepareMessages` just before a request
/// have no anchor entry when the session ends there; they are replayed at the end (Forge's
/// pending safety net: the same per-event deltas, with `createdAt` timestamps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Native system sections or attributed user updates (from the request model's
    /// `compat.supportsMidConvoSystemMessages`).
    pub presentation: Presentation,
    /// Whether the project is trusted; untrusted projects get no capability text at all.
    pub trusted: bool,
}

impl Options {
    /// Trusted project with the given presentation.
    pub fn new(presentation: Presentation) -> Self {
        Self {
            presentation,
            trusted: true,
        }
    }
}

/// A fail-closed capability failure: Forge's exact message and, when known, the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CapabilityFailure {
    /// Forge's error text, byte for byte.
    pub message: String,
    pub location: Option<EntryLocation>,
}

impl From<HistoryError> for CapabilityFailure {
    fn from(e: HistoryError) -> Self {
        Self {
            message: e.message,
            location: Some(e.location),
        }
    }
}

/// Errors of [`project_at`] and [`Replayer::project`].
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// Pi's projection failed (an unparseable entry, an unknown leaf).
    #[error("cannot project the session")]
    Session(#[from] forge_replay_session::ProjectError),
    /// Forge would fail closed on this branch (corrupt capability history, bad anchors, …).
    #[error("pi-forge fails closed")]
    Capability(#[from] CapabilityFailure),
}

/// Pi's messages with the capability projection applied, plus the state behind them.
///
/// Its messages are owned [`Value`]s ([`Replayer::project`], [`project_at`]), or `Cow`s borrowed
/// from the replayer's session builder ([`Replayer::project_borrowed`]).
#[derive(Debug, Clone)]
pub struct CapabilityContext<M = Value> {
    /// Pi's projection (leaf, leaf id, context entries, model, thinking level). Its `messages`
    /// are *moved* into [`CapabilityContext::messages`] (with the capability step applied) and
    /// are empty here.
    pub projection: Projection<M>,
    /// Pi's projection thinking level (same as `projection.thinking_level`).
    pub thinking_level: Option<Value>,
    /// Pi's projection model, `{provider, modelId}` or `null` (same as `projection.model`).
    pub model: Value,
    /// The messages the request is built from: Pi's projection with the capability step applied.
    pub messages: Vec<M>,
    /// The branch's capability history (events, anchors, checkpoint, tools entry, active set).
    pub history: CapabilityHistory,
    /// Last event id covered by this projection (`preparedRevision`).
    pub through_event_id: Option<String>,
    /// Index in `messages` and kind of every capability update inserted.
    pub updates: Vec<(usize, UpdateKind)>,
}

/// Projects `session` at `leaf` (`None` = Pi's empty context) for one request.
pub fn project_at(
    session: &Session,
    leaf: Option<usize>,
    options: Options,
) -> Result<CapabilityContext, ContextError> {
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let mut cache = EntryCache::default();
    let mut history = HistoryBuilder::new();
    for &i in &path {
        push_history(session, &mut cache, &mut history, i)?;
    }
    let projection = session.context(leaf)?;
    finish(session, &cache, &history, projection, options)
}

/// What the `/capability status` view needs of a branch ([`status_inputs_at`]).
#[derive(Debug, Clone)]
pub struct StatusInputs {
    /// The branch's capability history.
    pub history: CapabilityHistory,
    /// The tools Pi's messages declare ([`crate::status::current_tools`]; the capability step
    /// adds no declarations).
    pub transcript_tools: Option<Vec<String>>,
}

/// What [`project_at`] at `leaf` gives the status view (the history and the tools the messages
/// declare), or the same error, without holding the branch's messages: Pi's projection is read
/// one context entry at a time. A branch with delivery anchors or markers in its context (the
/// only inputs whose capability step reads the messages) is projected in full.
pub fn status_inputs_at(
    session: &Session,
    leaf: Option<usize>,
    options: Options,
) -> Result<StatusInputs, ContextError> {
    let full = |session: &Session| {
        let ctx = project_at(session, leaf, options)?;
        Ok(StatusInputs {
            transcript_tools: crate::status::current_tools(&ctx.messages),
            history: ctx.history,
        })
    };
    // Pi's projection first, so that its errors come before the capability step's.
    let plan = session.plan(leaf);
    let mut tools = crate::status::DeclaredTools::default();
    let mut markers = false;
    for pos in 0..plan.entries().len() {
        for m in plan.entry_messages(pos)? {
            markers |= crate::projection::is_marker(&m);
            tools.add(&m);
        }
    }
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let mut cache = EntryCache::default();
    let mut history = HistoryBuilder::new();
    for &i in &path {
        push_history(session, &mut cache, &mut history, i)?;
    }
    drop(path);
    let anchored = plan.entries().iter().any(|&i| {
        *session.entry(i).entry_type() == EntryType::Custom
            && cache
                .values
                .get(&i)
                .is_some_and(crate::anchor::is_anchor_entry)
    });
    if markers || anchored {
        return full(session);
    }
    let history = history.finish().map_err(CapabilityFailure::from)?;
    if options.trusted {
        // Without markers the capability step fails only on the checkpoint, whatever the
        // messages: project none.
        let unique: Vec<_> = history
            .events
            .iter()
            .filter(|e| e.first)
            .map(|e| &e.event)
            .collect();
        project_unique_events(
            Vec::<Value>::new(),
            &unique,
            history.checkpoint_through.as_deref(),
            options.presentation,
        )
        .map_err(|e| CapabilityFailure {
            message: e.message,
            location: None,
        })?;
    }
    Ok(StatusInputs {
        history,
        transcript_tools: tools.finish(),
    })
}

/// Parsed raw JSON of the entries the capability layer reads (custom, custom_message,
/// compaction), by entry index.
#[derive(Debug, Default, Clone)]
struct EntryCache {
    values: HashMap<usize, Value>,
}

impl EntryCache {
    fn get(&mut self, session: &Session, i: usize) -> Result<&Value, ContextError> {
        match self.values.entry(i) {
            std::collections::hash_map::Entry::Occupied(o) => Ok(o.into_mut()),
            std::collections::hash_map::Entry::Vacant(v) => {
                let parsed = session.entry(i).value()?;
                Ok(v.insert(parsed))
            }
        }
    }
}

fn reads_entry(t: &EntryType) -> bool {
    matches!(
        t,
        EntryType::Custom | EntryType::CustomMessage | EntryType::Compaction
    )
}

fn push_history(
    session: &Session,
    cache: &mut EntryCache,
    history: &mut HistoryBuilder,
    i: usize,
) -> Result<(), ContextError> {
    let e = session.entry(i);
    let line = Some(e.line() as usize);
    if reads_entry(e.entry_type()) {
        let v = cache.get(session, i)?;
        history.push(v, line).map_err(CapabilityFailure::from)?;
    } else {
        history
            .push(&Value::Null, line)
            .map_err(CapabilityFailure::from)?;
    }
    Ok(())
}

fn finish<M: Message>(
    session: &Session,
    cache: &EntryCache,
    history: &HistoryBuilder,
    mut projection: Projection<M>,
    options: Options,
) -> Result<CapabilityContext<M>, ContextError> {
    let history = history.finish().map_err(CapabilityFailure::from)?;
    // Raw values of custom entries in the context (anchors are among them): the history read
    // them already (every context entry is on the path), else they are read here.
    let mut unread = HashMap::new();
    for ce in &projection.entries {
        if ce.entry_type == EntryType::Custom && !cache.values.contains_key(&ce.index) {
            unread.insert(ce.index, session.entry(ce.index).value()?);
        }
    }
    let null = Value::Null;
    let entries: Vec<ContextEntry<'_>> = projection
        .entries
        .iter()
        .map(|ce| ContextEntry {
            raw: cache
                .values
                .get(&ce.index)
                .or_else(|| unread.get(&ce.index))
                .unwrap_or(&null),
            line: Some(session.entry(ce.index).line() as usize),
            message_count: ce.messages.len(),
        })
        .collect();
    let messages = std::mem::take(&mut projection.messages);
    let materialized =
        materialize_canonical(&entries, messages).map_err(|e| CapabilityFailure {
            message: e.message,
            location: e.location,
        })?;
    let locate = |entry_pos: Option<usize>| {
        entry_pos.map(|p| {
            let e = session.entry(projection.entries[p].index);
            EntryLocation {
                entry_id: e.id().map(str::to_string),
                line: Some(e.line() as usize),
            }
        })
    };
    let (messages, through_event_id, updates) = if options.trusted {
        let unique: Vec<_> = history
            .events
            .iter()
            .filter(|e| e.first)
            .map(|e| &e.event)
            .collect();
        let sources = &materialized.sources;
        let projected = project_unique_events(
            materialized.messages,
            &unique,
            history.checkpoint_through.as_deref(),
            options.presentation,
        )
        .map_err(|e| CapabilityFailure {
            message: e.message,
            location: e
                .message_index
                .and_then(|i| locate(sources.get(i).copied().flatten())),
        })?;
        (
            projected.messages,
            projected.through_event_id,
            projected.updates,
        )
    } else {
        (strip_markers(materialized.messages), None, Vec::new())
    };
    Ok(CapabilityContext {
        thinking_level: projection.thinking_level.clone(),
        model: projection.model.clone(),
        projection,
        messages,
        history,
        through_event_id,
        updates,
    })
}

/// Incremental projection along one path: push entries root→leaf and call
/// [`Replayer::project`] whenever a request needs its context (for an assistant entry A, project
/// *before* pushing A: the request was built at A's parent).
///
/// Pushing an entry that is not a child of the last one restarts from that entry's own path,
/// so a caller may visit a tree depth-first; cloning a `Replayer` forks it. A replayer made with
/// [`Replayer::with_undo`] can also take pushes back ([`Replayer::pop`]), so a depth-first walk
/// extends and shortens one path instead of copying it at every branch point.
#[derive(Debug, Clone)]
pub struct Replayer<'s> {
    session: &'s Session,
    context: forge_replay_session::ContextBuilder<'s>,
    history: HistoryBuilder,
    cache: EntryCache,
    last: Option<usize>,
    /// One record per push, when pops are enabled.
    undo: Option<Vec<Undo>>,
}

/// How to take back one [`Replayer::push`] (a few bytes per push: the entry before it is the
/// parent of the one taken back, and Pi's builder knows what its push did).
#[derive(Debug, Clone)]
enum Undo {
    Push(HistoryUndo),
    /// A push that restarted on another path: the whole history before it, and the last entry.
    Restart(Box<(HistoryBuilder, Option<usize>)>),
}

impl<'s> Replayer<'s> {
    /// An empty path.
    pub fn new(session: &'s Session) -> Self {
        Self {
            session,
            context: session.builder(),
            history: HistoryBuilder::new(),
            cache: EntryCache::default(),
            last: None,
            undo: None,
        }
    }

    /// An empty path whose pushes [`Replayer::pop`] can take back.
    pub fn with_undo(session: &'s Session) -> Self {
        Self {
            context: session.builder().with_undo(),
            undo: Some(Vec::new()),
            ..Self::new(session)
        }
    }

    /// Holds none of Pi's messages: [`Replayer::context`] builds each slot's messages again
    /// from the file when asked, and [`Replayer::project`] the whole context
    /// ([`forge_replay_session::ContextBuilder::on_demand`]). For walks that read each slot once,
    /// such as `check`. Call on an empty replayer.
    pub fn on_demand(mut self) -> Self {
        self.context = self.context.on_demand();
        self
    }

    /// Extends the path with entry `i`.
    ///
    /// A capability failure is remembered and returned by every later [`Replayer::project`]
    /// (Forge fails closed from that entry on); `push` itself only fails on unreadable entries.
    /// With [`Replayer::with_undo`] a failed push leaves the replayer as it was.
    pub fn push(&mut self, i: usize) -> Result<(), ContextError> {
        self.push_effect(i).map(|_| ())
    }

    /// [`Replayer::push`], saying which earlier context slots of Pi's projection changed.
    pub fn push_effect(&mut self, i: usize) -> Result<PushEffect, ContextError> {
        if self.undo.is_none() {
            if self.session.tree().parent(i) != self.last {
                self.history = HistoryBuilder::new();
                for p in self.session.path_to(i) {
                    if p != i {
                        self.push_one_history(p)?;
                    }
                }
            }
            self.push_one_history(i)?;
            let effect = self.context.push_effect(i)?;
            self.last = Some(i);
            return Ok(effect);
        }
        let last = self.last;
        if self.session.tree().parent(i) != self.last {
            let old = std::mem::take(&mut self.history);
            let mut result = Ok(());
            for p in self.session.path_to(i) {
                result = self.push_one_history(p);
                if result.is_err() {
                    break;
                }
            }
            let effect = result.and_then(|()| Ok(self.context.push_effect(i)?));
            return match effect {
                Ok(effect) => {
                    self.last = Some(i);
                    if let Some(u) = &mut self.undo {
                        u.push(Undo::Restart(Box::new((old, last))));
                    }
                    Ok(effect)
                }
                Err(e) => {
                    self.history = old;
                    Err(e)
                }
            };
        }
        let history = self.push_one_history_undoable(i)?;
        match self.context.push_effect(i) {
            Ok(effect) => {
                self.last = Some(i);
                if let Some(u) = &mut self.undo {
                    u.push(Undo::Push(history));
                }
                Ok(effect)
            }
            Err(e) => {
                self.history.undo(history);
                Err(e.into())
            }
        }
    }

    /// Takes back the last push (see [`Replayer::with_undo`]) and returns its effect.
    ///
    /// # Panics
    /// Without undo, or when nothing was pushed since.
    pub fn pop(&mut self) -> PushEffect {
        let u = self
            .undo
            .as_mut()
            .and_then(Vec::pop)
            .expect("Replayer::pop without a recorded push (use Replayer::with_undo)");
        let effect = self.context.pop();
        match u {
            Undo::Push(history) => {
                self.history.undo(history);
                // That push extended the path by a child of the entry before it.
                self.last = self.last.and_then(|i| self.session.tree().parent(i));
            }
            Undo::Restart(before) => {
                let (history, last) = *before;
                self.history = history;
                self.last = last;
            }
        }
        effect
    }

    fn push_one_history(&mut self, i: usize) -> Result<(), ContextError> {
        match push_history(self.session, &mut self.cache, &mut self.history, i) {
            Err(ContextError::Capability(_)) | Ok(()) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn push_one_history_undoable(&mut self, i: usize) -> Result<HistoryUndo, ContextError> {
        let e = self.session.entry(i);
        let line = Some(e.line() as usize);
        let (_, undo) = if reads_entry(e.entry_type()) {
            let v = self.cache.get(self.session, i)?;
            self.history.push_undoable(v, line)
        } else {
            self.history.push_undoable(&Value::Null, line)
        };
        // A capability failure is kept in the history (returned by `project`), as in `push`.
        Ok(undo)
    }

    /// The context at the last entry pushed.
    pub fn project(&self, options: Options) -> Result<CapabilityContext, ContextError> {
        let projection = self.context.snapshot()?;
        finish(
            self.session,
            &self.cache,
            &self.history,
            projection,
            options,
        )
    }

    /// [`Replayer::project`] without a copy of the path's messages: the messages the capability
    /// step passes through are borrowed from the session builder (pi-forge passes non-marker
    /// messages through by reference too); only the ones it makes are owned.
    pub fn project_borrowed(
        &self,
        options: Options,
    ) -> Result<CapabilityContext<Cow<'_, Value>>, ContextError> {
        let projection = self.context.snapshot_borrowed()?;
        finish(
            self.session,
            &self.cache,
            &self.history,
            projection,
            options,
        )
    }

    /// The capability history at the last entry pushed.
    pub fn history(&self) -> Result<CapabilityHistory, CapabilityFailure> {
        Ok(self.history.finish()?)
    }

    /// Whether [`Replayer::project`] would pass the history step (`Err`: Forge's failure),
    /// without building the history or the context.
    pub fn history_status(&self) -> Result<(), CapabilityFailure> {
        Ok(self.history.status()?)
    }

    /// The incremental history (checkpoint, activations seen so far).
    pub fn history_builder(&self) -> &HistoryBuilder {
        &self.history
    }

    /// Pi's projection of the path so far, slot by slot.
    pub fn context(&self) -> &forge_replay_session::ContextBuilder<'s> {
        &self.context
    }

    /// The last entry pushed.
    pub fn last(&self) -> Option<usize> {
        self.last
    }

    /// The parsed raw entry `i` (cached for the capability entries the history reads).
    pub fn raw_entry(&mut self, i: usize) -> Result<&Value, ContextError> {
        self.cache.get(self.session, i)
    }
}

/// Applies the capability step to a projection Pi's layer already built for `session` at
/// `projection.leaf` (what `forge-replay context --capabilities` does).
pub fn apply_to_projection(
    session: &Session,
    projection: &Projection,
    options: Options,
) -> Result<CapabilityContext, ContextError> {
    let path = projection
        .leaf
        .map(|l| session.path_to(l))
        .unwrap_or_default();
    let mut cache = EntryCache::default();
    let mut history = HistoryBuilder::new();
    for &i in &path {
        push_history(session, &mut cache, &mut history, i)?;
    }
    finish(session, &cache, &history, projection.clone(), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forge's message is the cause, printed once after the variant's own words.
    #[test]
    fn a_capability_failure_is_printed_once() {
        let e = ContextError::from(CapabilityFailure {
            message: "Invalid eventId".into(),
            location: None,
        });
        assert_eq!(
            forge_replay_model::error::chain(&e),
            "pi-forge fails closed: Invalid eventId"
        );
    }
}
