//! Tables, plots and (later) the provider-support report.
//!
//! * [`table::Table`]: rows of cells rendered as a terminal table (tabled), Markdown or CSV.
//! * [`plot`]: cache-usage plots (PNG/SVG) with an embedded font: [`plot::plot_session`] (hit
//!   rate per request with labelled [`plot::BreakMarker`]s, cumulative tokens by kind) and
//!   [`plot::plot_corpus`] (hit-rate bars per model).

pub mod plot;
pub mod provider;
pub mod table;
