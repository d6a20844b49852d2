//! CLI integration tests: one binary, one module per command group under `tests/cli/`.
//! `support` holds the `Test` builder (`Test::new().args(..).stdout(..).status(..).run()`).

// Tests print freely; the redaction rule (clippy.toml) is for the binary.
#![allow(clippy::disallowed_macros)]

#[path = "cli/support.rs"]
mod support;

#[path = "cli/args.rs"]
mod args;

#[path = "cli/session.rs"]
mod session;

#[path = "cli/capability.rs"]
mod capability;

#[path = "cli/replay.rs"]
mod replay;

#[path = "cli/usage.rs"]
mod usage;

#[path = "cli/cache.rs"]
mod cache;

#[path = "cli/docs.rs"]
mod docs;

#[path = "cli/integrity.rs"]
mod integrity;

#[path = "cli/secrets.rs"]
mod secrets;

#[path = "cli/report.rs"]
mod report;

#[path = "cli/releases.rs"]
mod releases;

#[path = "cli/special.rs"]
mod special;

#[path = "cli/upgrade.rs"]
mod upgrade;

#[path = "cli/errors.rs"]
mod errors;

#[path = "cli/verify.rs"]
mod verify;

#[path = "cli/gen.rs"]
mod gen;

#[path = "cli/snapshot.rs"]
mod snapshot;

#[path = "cli/completions.rs"]
mod completions;

#[path = "cli/writers.rs"]
mod writers;

#[path = "cli/malformed.rs"]
mod malformed;
