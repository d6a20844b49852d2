//! pi-forge capabilities, replayed offline (spec: `shared/spec/forge-capabilities.md`).
//!
//! pi-forge records capability changes in a Pi session as plain `custom` entries (events, tool
//! baselines, delivery anchors). On every model request it turns them into request-only system
//! sections (models with `compat.supportsMidConvoSystemMessages`) or attributed
//! `[pi-forge capability update]` user messages, and into an effective tool set. This crate
//! reproduces that byte for byte from the JSONL alone.
//!
//! # Brief overview
//!
//! * **Per request** ([`context`]): [`context::project_at`] gives the messages of one request —
//!   Pi's canonical projection (from `forge-replay-session`) with Forge's capability projection
//!   applied — plus the branch's [`history::CapabilityHistory`]. [`context::Replayer`] does the
//!   same incrementally along a path: push entries root→leaf and call
//!   [`context::Replayer::project`] before pushing each assistant entry (the request that
//!   produced it was built at its parent; [`context::Replayer::project_borrowed`] gives the
//!   same context with the messages it passes through borrowed, not copied). Native vs
//!   fallback is a parameter
//!   ([`projection::Presentation`]); the caller reads it from the request model's catalog flag.
//!   Failures carry Forge's exact text and the entry's line ([`context::CapabilityFailure`]).
//! * **History** ([`history`]): `readCapabilitySession` over the raw path — event decoding
//!   ([`event`]), the reducer ([`reducer`]), anchors and their cursor rules, the compaction
//!   checkpoint, legacy-state detection, the tool baseline entry.
//! * **Projection** ([`anchor`], [`projection`]): anchors materialized at their ordinal positions
//!   in Pi's projection (unique alignment, head fix), then `projectCapabilityMessages`: marker
//!   deltas, checkpoint restatement, pending replay at the end, tool-only capabilities silent.
//! * **Resources** ([`resource`], [`discovery`], [`binding`], [`fingerprint`]): the capability
//!   JSON codec with pi-forge's diagnostics, library discovery (project over global), bindings
//!   and overrides, `sha256:v1:` canonical-JSON fingerprints; [`validation`]: what
//!   `forge-replay capability validate` reports for files and directories of resources.
//! * **Status and tools** ([`status`], [`tools`], [`warning`]): the `/capability status` view,
//!   effective tools (§5.10), prompt-cache warnings (§7).
//!
//! JavaScript semantics (`trim()`'s whitespace set, UTF-16 lengths and sort order, `String()`,
//! V8's `JSON.parse` messages, number formatting) come from `forge_replay_model::js` and
//! `forge_replay_model::json`; pi-forge's own field checks (ids, tool names) are [`valid`].
//!
//! ```no_run
//! use forge_replay_capability::context::{Options, Replayer};
//! use forge_replay_capability::projection::Presentation;
//! use forge_replay_session::Session;
//!
//! let (session, _) = Session::open("session.jsonl")?;
//! let mut replay = Replayer::new(&session);
//! for i in session.path_to(session.default_leaf().unwrap()) {
//!     if session.entry(i).is_assistant_message() {
//!         // `native` comes from the request model's compat.supportsMidConvoSystemMessages.
//!         let ctx = replay.project(Options::new(Presentation::from_native(true)))?;
//!         println!("{} messages, {} active", ctx.messages.len(), ctx.history.active.len());
//!     }
//!     replay.push(i)?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod anchor;
pub mod binding;
pub mod context;
pub mod discovery;
pub mod event;
pub mod fingerprint;
pub mod history;
pub mod preset;
pub mod projection;
pub mod reducer;
pub mod resource;
pub mod status;
pub mod tools;
pub mod valid;
pub mod validation;
pub mod warning;
