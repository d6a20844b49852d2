//! `--pi RELEASE` ([`PiArg`], flattened into every command that reads a catalog or assembles),
//! else `FORGE_REPLAY_PI`. What to follow for a session is `forge_replay_session::release::follow`,
//! for a case or scenario `forge_replay_model::release::follow_named`; this module says their
//! notes on stderr. An unknown release is a usage error (exit 2) naming the supported ones.

use std::path::Path;

use clap::Args;
use forge_replay_model::release::{follow_named, requested, PiRelease};
use forge_replay_session::release::{detect, follow};
use forge_replay_session::Session;

use crate::out;

/// The environment variable `--pi` falls back to.
pub const ENV: &str = "FORGE_REPLAY_PI";

/// `--pi RELEASE`, shared by every command that reads a catalog or assembles requests.
#[derive(Debug, Clone, Default, Args)]
pub struct PiArg {
    /// Pi release to follow: 0.87.1, 1.3.0 or 1.6.0 (default: what the input shows, else 0.87.1; also
    /// FORGE_REPLAY_PI). Sessions are detected from the markers each release writes.
    #[arg(long = "pi", value_name = "RELEASE")]
    pub pi: Option<String>,
}

impl PiArg {
    /// The release asked for with `--pi` or `FORGE_REPLAY_PI`, and which of them asked (an
    /// unknown release is an error naming the supported ones).
    pub fn requested(&self) -> anyhow::Result<Option<(PiRelease, &'static str)>> {
        let env = std::env::var(ENV).ok();
        Ok(requested(
            ("--pi", self.pi.as_deref()),
            (ENV, env.as_deref()),
        )?)
    }

    /// The release for inputs that name none: the asked-for one, else the default.
    pub fn or_default(&self) -> anyhow::Result<PiRelease> {
        Ok(self.requested()?.map_or(PiRelease::DEFAULT, |(r, _)| r))
    }

    /// The release for an input at `path` that may name its own (`"pi"`).
    pub fn for_named(&self, named: Option<PiRelease>, path: &Path) -> anyhow::Result<PiRelease> {
        let (release, warning) = follow_named(self.requested()?, named, path);
        warning.iter().for_each(|w| out::note!("{w}"));
        Ok(release)
    }

    /// The release to follow for a session, said on stderr.
    pub fn for_session(&self, session: &Session) -> anyhow::Result<PiRelease> {
        let (release, lines) = follow(&detect(session), session.path(), self.requested()?);
        lines.iter().for_each(|l| out::note!("{l}"));
        Ok(release)
    }
}
