//! Shared data types for forge-replay, with no I/O.
//!
//! * [`choice`]: named choices ([`choice::Choice`]): a closed set of values a person picks by
//!   name, each with what it means; the command line lists and parses every one the same way.
//! * [`error`]: an error and its causes on one line.
//! * [`json`]: JSON with JavaScript's semantics (`JSON.parse` / `JSON.stringify` bytes, lone
//!   surrogates, ECMAScript number formatting). Every crate that writes JSON a Pi package would
//!   also write goes through it.
//! * [`js`]: every other JavaScript semantic Pi relies on (truthiness, `String()`, `Number()`,
//!   UTF-16 lengths and order, `trim()`, `Date`, V8's `JSON.parse` messages), checked against Node.
//! * [`session`]: the session header, entry types, the known message fields and the one rule of
//!   what is a Pi session ([`session::check_header`]).
//! * [`cursor`]: a validating cursor over JSON text, for scanners that skip the tree.
//! * [`redact`]: secret redaction for everything forge-replay prints or writes (key rules and
//!   credential-shaped values, over JSON values, JSON text and plain text).
//! * [`release`]: Pi releases as data ([`release::PiRelease`]) and every named behaviour
//!   difference between them ([`release::Change`], [`release::CHANGES`]), plus the session markers
//!   each release writes ([`release::MARKERS`]).
//! * [`message`]: a context message held by value or borrowed ([`message::Message`]), so the
//!   replay engine passes unchanged messages through as pointers.
//! * [`rng`]: a deterministic xorshift generator for reproducible test and benchmark data.
//! * [`transcode`]: canonical JSON text re-indented as `JSON.stringify(_, null, 2)` without a tree.

pub mod choice;
pub mod cursor;
pub mod error;
pub mod js;
pub mod json;
pub mod message;
pub mod redact;
pub mod release;
pub mod rng;
pub mod session;
pub mod text;
pub mod transcode;
