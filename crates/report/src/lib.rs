//! Tables, plots and (later) the provider-support report.
//!
//! * [`table::Table`]: rows of cells rendered as a terminal table (tabled), Markdown or CSV.
//! * [`plot`]: cache-usage plots (PNG/SVG) with an embedded font: [`plot::plot_session`] (hit
//!   rate per request with labelled [`plot::BreakMarker`]s, cumulative tokens by kind) and
//!   [`plot::plot_corpus`] (hit-rate bars per model).
//! * [`usage`]: what `forge-replay usage` prints for people (session and corpus tables, notes,
//!   cache-break costs) and the data of its plots.
//! * [`session`]: the HTML session report (`forge-replay report session`): a typed page model
//!   ([`session::SessionReport`], built by [`session::build`] from the session, its usage, the
//!   cache diagnosis and the replayed requests' diffs) rendered deterministically into one
//!   self-contained page ([`session::html::render`]).

pub mod plot;
pub mod provider;
pub mod session;
pub mod table;
pub mod usage;
