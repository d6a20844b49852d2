//! Shared data types for forge-replay, with no I/O.
//!
//! * [`error`]: an error and its causes on one line.
//! * [`json`]: JSON with JavaScript's semantics (`JSON.parse` / `JSON.stringify` bytes, lone
//!   surrogates, ECMAScript number formatting). Every crate that writes JSON a Pi package would
//!   also write goes through it.
//! * [`text`]: JavaScript string helpers (`trim()`'s whitespace set, UTF-16 lengths).
//! * [`session`]: typed views of Pi 0.87.1 session JSONL entries.
//! * [`cursor`]: a validating cursor over JSON text, for scanners that skip the tree.
//! * [`rng`]: a deterministic xorshift generator for reproducible test and benchmark data.
//! * [`transcode`]: canonical JSON text re-indented as `JSON.stringify(_, null, 2)` without a tree.

pub mod cursor;
pub mod error;
pub mod json;
pub mod rng;
pub mod session;
pub mod text;
pub mod transcode;
