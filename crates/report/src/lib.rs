//! Tables, plots and (later) the provider-support report.
//!
//! * [`table::Table`]: rows of cells rendered as a terminal table (tabled), Markdown or CSV.
//! * [`plot`]: cache-usage plots (PNG/SVG) with an embedded font: [`plot::plot_session`] (hit
//!   rate per request with labelled [`plot::BreakMarker`]s, cumulative tokens by kind) and
//!   [`plot::plot_corpus`] (hit-rate bars per model).
//! * [`format`](mod@format): the one `--format` vocabulary ([`format::Format`]) and its default rule.
//! * [`context`]: the text of `forge-replay context` (one line per message).
//! * [`models`]: `forge-replay models` (the catalog table, JSON rows, `--changes`).
//! * [`releases`]: `forge-replay releases` (text, JSON, `docs/releases.md`).
//! * [`summary`]: the text of `replay` (one row per request and what changed) and `assemble`.
//! * [`tree`]: `forge-replay tree` (the entry tree as text and JSON).
//! * [`usage`]: what `forge-replay usage` prints for people (session and corpus tables, notes,
//!   cache-break costs) and the data of its plots.
//! * [`session`]: the HTML session report (`forge-replay report session`): a typed page model
//!   ([`session::SessionReport`], built by [`session::build`] from the session, its usage, the
//!   cache diagnosis and the replayed requests' diffs) rendered deterministically into one
//!   self-contained page ([`session::html::render`]).

pub mod context;
pub mod format;
pub mod models;
pub mod plot;
pub mod provider;
pub mod releases;
pub mod session;
pub mod summary;
pub mod table;
pub mod tree;
pub mod usage;
