//! Pi 0.87.1 session JSONL: reader, entry tree and canonical context projection.
//!
//! Given a Pi session file and an entry, which messages did Pi put in front of the model? This
//! crate answers that exactly as `@earendil-works/pi-coding-agent@0.87.1` does
//! (`dist/core/session-manager.js`, `dist/core/messages.js`; spec: `pi-wire.md` §A).
//!
//! # Main types
//!
//! * [`Session`]: a read file. [`Session::open`] streams it line by line (a 1 GB file is never
//!   one `String`), returns the session plus [`Diagnostic`]s for what Pi tolerates (blank,
//!   unparseable or truncated lines, unknown types and fields, tree defects), and a
//!   [`ReadError`] for files Pi cannot load (missing header, empty, version 4, …).
//! * [`Entry`]: one line, as a handle on the session's compact index (type, role, ids, flags:
//!   a few dozen bytes per entry). The text is not kept: [`Entry::raw`] reads the line again
//!   from the file by offset (checking it did not change) and [`Entry::value`] parses it.
//!   Memory is the index plus what the current projection holds, not the file.
//! * [`input`]: opening input files without hanging (FIFOs, sockets and devices are refused
//!   before they are opened), for every crate that reads one.
//! * [`Tree`] ([`Session::tree`]): id → entry index (the last entry with an id wins, as in Pi),
//!   parents, children, roots, leaves, [`Tree::path_to`]. Duplicate ids, missing parents, cycles
//!   and orphan subtrees are found in linear passes and reported with line numbers.
//! * [`Projection`] ([`Session::context`]): `buildSessionProjection(entries, leafId)` —
//!   `messages` (= `buildSessionContext(...).messages`), `entries` (= `buildContextEntries`, each
//!   with its entry index, id and message range; capability anchors go against these), `model`
//!   and `thinking_level`.
//! * [`ContextPlan`] ([`Session::plan`]): the same projection before any message is built, to
//!   stream a large context one entry at a time.
//! * `convertToLlm(messages)` is [`llm::convert_to_llm`].
//! * [`release::detect`]: which Pi release wrote the session, from the markers each release
//!   writes (the session format itself is the same in every supported release);
//!   [`release::follow`]: the release a command follows for it, and the notes that say why.
//! * [`dirs`]: Pi's sessions directory, the default of commands that read many sessions.
//! * [`diag::finding_lines`]: a file's warnings and errors as stderr lines, capped per code.
//! * [`ContextBuilder`] ([`Session::builder`]): walks one path entry by entry, keeping the
//!   projection current. Replaying every request of a path (the context at the parent of each
//!   assistant entry) costs O(path), not O(path²) re-projection.
//!   [`ContextBuilder::snapshot_borrowed`] lends the builder's own messages (`Cow`s, a
//!   [`forge_replay_model::message::Message`]) instead of copying them for every request.
//!
//! ```no_run
//! use forge_replay_session::{llm, Session};
//!
//! let (session, diagnostics) = Session::open("session.jsonl")?;
//! for d in &diagnostics {
//!     eprintln!("{}", d.display(session.path()));
//! }
//! let leaf = session.resolve_leaf(None)?; // the last entry, as Pi does on load
//! let projection = session.context(leaf)?;
//! let for_provider = llm::convert_to_llm(&projection.messages);
//! # let _ = for_provider;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! All JSON that must equal Pi's bytes is written with [`forge_replay_model::json`]; projected
//! objects keep JavaScript key order (`{...message, content}` keeps `content` in place, custom
//! messages are `{role, customType, content, display, details, timestamp}` with undefined keys
//! dropped, timestamps are `new Date(iso).getTime()`).

mod check;
pub mod describe;
pub mod diag;
pub mod dirs;
mod entry;
mod error;
mod head;
mod index;
pub mod input;
pub mod llm;
mod migrate;
pub mod project;
mod reader;
pub mod release;
mod session;
mod tree;

pub use diag::{Diagnostic, Severity};
pub use entry::Entry;
pub use error::{ProjectError, ReadError};
pub use forge_replay_model::session::EntryType;
pub use project::{ContextBuilder, ContextEntry, ContextPlan, Projection, PushEffect};
pub use session::{Entries, Header, Session};
pub use tree::Tree;
