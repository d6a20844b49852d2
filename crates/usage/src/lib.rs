//! Prompt-cache analytics over persisted usage: one session and whole corpora.
//!
//! * [`scan`] parses one JSONL line into an [`EntryRecord`] — only ids, the parent link, the role,
//!   usage numbers and `forgeNestedUsage`, borrowed and without building `Value` trees.
//! * [`SessionData`] streams one file into records and walks its active path
//!   ([`SessionData::path_to`]).
//! * [`summarize`] is pi-forge's `summarizeSessionCacheUsage` over a branch and returns a
//!   [`SessionCacheUsage`] (`{main: {turn, session, lastRequest?}, nested: {turn, session}}`) with
//!   JavaScript number semantics ([`Totals`], [`NestedTotals`], [`hit_rate`]).
//! * [`corpus`] scans many files in parallel (rayon), separates active-path from abandoned-branch
//!   requests, removes fork copies and builds a polars `DataFrame` of requests for grouping and
//!   export.
//! * [`gen`] writes realistic generated Pi 0.87.1 session corpora for tests and benchmarks.
//!
//! * [`session_report`] is what `usage SESSION` computes ([`session_report::SessionUsage`]) and
//!   the `--min-hit-rate` rule ([`session_report::Threshold`]); [`report`] the serializable
//!   corpus views; [`breaks`] sums `cache explain` over a corpus; [`corpus_run`] is what
//!   `usage --corpus` computes from them.
//!
//! * [`index`] is the incremental corpus index (a base file and a delta beside it);
//!   [`timing`] prints where a corpus run's time goes when `FORGE_REPLAY_TIMINGS` is set.
//!
//! * [`explain`] diagnoses cache breaks: it replays the path's requests (replay engine), compares
//!   each with the previous one in the provider's cache order and names the cause of every break
//!   the reported usage confirms ([`explain::Explanation`], [`explain::Cause`]).

pub mod breaks;
pub mod corpus;
pub mod corpus_run;
pub mod explain;
mod fast;
mod fasthash;
pub mod gen;
pub mod index;
pub mod markers;
pub mod nested;
pub mod pricing;
mod records;
pub mod report;
pub mod scan;
mod session;
pub mod session_report;
pub mod subagents;
pub mod timing;
pub mod totals;
mod view;

pub use nested::{
    check_forge_nested_usage, parse_forge_nested_usage, ForgeNestedUsage, NestedReport,
    FORGE_NESTED_USAGE_KEY,
};
pub use scan::{EntryRecord, Header, MessageRecord, NestedLink, RequestMeta, Role, UsageProblems};
pub use session::{
    request_rows, session_branch, BadLine, PathError, ReadError, RequestRow, SessionData,
    Transcript,
};
pub use totals::{format_rate, format_totals_rate, hit_rate, NestedTotals, Totals};
pub use view::{summarize, turn_start, SessionCacheUsage};
