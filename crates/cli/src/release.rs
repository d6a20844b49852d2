//! Choosing the Pi release a command follows: `--pi RELEASE` (every command that reads a catalog
//! or assembles flattens [`PiArg`]), else `FORGE_REPLAY_PI`, else what the input says (a case's or
//! scenario's `"pi"`, a session's markers), else [`PiRelease::DEFAULT`].
//!
//! For a session the release is detected (`forge_replay_session::release`) and said on stderr;
//! `--pi` against contrary evidence is a warning, and the release asked for is followed. An
//! unknown release is a usage error (exit 2) naming the supported ones.

use std::path::Path;

use clap::Args;
use forge_replay_model::release::PiRelease;
use forge_replay_session::release::{detect, Verdict};
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

/// Where an asked-for release came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Flag => "--pi",
            Source::Env => ENV,
        }
    }
}

impl PiArg {
    /// The release asked for with `--pi` or `FORGE_REPLAY_PI`, if any (an unknown one is an
    /// error naming the supported releases).
    pub fn requested(&self) -> anyhow::Result<Option<(PiRelease, Source)>> {
        if let Some(v) = &self.pi {
            return Ok(Some((PiRelease::parse(v)?, Source::Flag)));
        }
        match std::env::var(ENV) {
            Ok(v) if !v.trim().is_empty() => Ok(Some((
                PiRelease::parse(&v).map_err(|e| anyhow::anyhow!("{ENV}: {e}"))?,
                Source::Env,
            ))),
            _ => Ok(None),
        }
    }

    /// The release for inputs that name none: the asked-for one, else the default.
    pub fn or_default(&self) -> anyhow::Result<PiRelease> {
        Ok(self.requested()?.map_or(PiRelease::DEFAULT, |(r, _)| r))
    }

    /// The release for an input that may name its own (`"pi"` of a case or scenario at `path`):
    /// the asked-for one (a warning when the input names another), else the input's, else the
    /// default.
    pub fn for_named(&self, named: Option<PiRelease>, path: &Path) -> anyhow::Result<PiRelease> {
        Ok(match (self.requested()?, named) {
            (Some((r, source)), Some(n)) if r != n => {
                out::note!(
                    "forge-replay: warning: {}: it names Pi {n} (\"pi\"); following {} {r} as asked",
                    path.display(),
                    source.name()
                );
                r
            }
            (Some((r, _)), _) => r,
            (None, Some(n)) => n,
            (None, None) => PiRelease::DEFAULT,
        })
    }

    /// The release to follow for a session: the asked-for one (a warning when the session shows
    /// another), else the one it shows, said on stderr.
    pub fn for_session(&self, session: &Session) -> anyhow::Result<PiRelease> {
        let path = session.path().display();
        let ev = detect(session);
        if let Some((r, source)) = self.requested()? {
            if let Some(why) = ev.contradiction(r) {
                out::note!(
                    "forge-replay: warning: {path}: following {} {r} as asked, but {why}",
                    source.name()
                );
            }
            return Ok(r);
        }
        let release = ev.release();
        match ev.verdict() {
            Verdict::Release(r) => {
                out::note!(
                    "forge-replay: note: {path}: following Pi {r}, the release that wrote it ({}; --pi to choose another)",
                    ev.describe()
                );
                if ev.mixed() {
                    out::note!(
                        "forge-replay: note: {path}: {} no thinkingLevel (first on line {}): an older Pi wrote them before Pi {r} continued the session",
                        if ev.assistant_without_thinking_level == 1 {
                            "1 earlier response carries".to_owned()
                        } else {
                            format!("{} earlier responses carry", ev.assistant_without_thinking_level)
                        },
                        ev.first_without_thinking_level.unwrap_or(0)
                    );
                }
            }
            Verdict::Newer { version } => out::note!(
                "forge-replay: warning: {path}: written by Pi {version} or later ({}), which this forge-replay does not support; following {release}, the newest supported release (--pi to choose)",
                ev.describe()
            ),
            Verdict::Unknown => out::note!(
                "forge-replay: note: {path}: {}, nothing tells which Pi release wrote it; following the default {release} (--pi to choose)",
                ev.describe()
            ),
        }
        Ok(release)
    }
}
