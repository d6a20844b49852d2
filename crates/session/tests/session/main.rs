//! Integration tests for the session crate: projections equal real Pi 0.87.1 on every committed
//! fixture, the incremental builder agrees with full projection, and bad input gives clear
//! errors without panics.

mod bad_input;
mod fixtures;
mod fuzz_regressions;
mod releases;
