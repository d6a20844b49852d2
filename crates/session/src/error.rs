//! Errors: a file that cannot be read as a session at all, or an entry that cannot be projected.

use std::path::PathBuf;

/// Why a file could not be read as a Pi session. Defects Pi tolerates are
/// [`Diagnostic`](crate::Diagnostic)s instead.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: no such file", path.display())]
    NotFound { path: PathBuf },
    #[error("{}: is a directory, not a session file", path.display())]
    IsDirectory { path: PathBuf },
    /// A FIFO, socket or device: refused before it is opened (opening a FIFO blocks).
    #[error("{}: {what}", path.display())]
    NotRegular {
        path: PathBuf,
        /// `is a FIFO (named pipe), not a regular file`, …
        what: String,
    },
    #[error("{}: too large to index: {what}", path.display())]
    TooLarge { path: PathBuf, what: &'static str },
    #[error("{}: cannot read the file", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: cannot read line {line}", path.display())]
    Line {
        path: PathBuf,
        line: u64,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: empty file, not a pi session (Pi would start a new session in it)", path.display())]
    Empty { path: PathBuf },
    #[error("{}{}: not a pi session: {cause}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    NotASession {
        path: PathBuf,
        /// The first line that parsed, when there is one.
        line: Option<u64>,
        cause: String,
    },
    #[error("{}:{line}: unsupported session version {version}: forge-replay reads Pi 0.87.1 session files (version 3, and older versions migrated as Pi does)", path.display())]
    UnsupportedVersion {
        path: PathBuf,
        line: u64,
        /// The version as written (`4`, or `v4 (kind "header")` for pi-agent-core's format).
        version: String,
    },
}

/// An entry could not be turned into messages.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{}:{line}: cannot parse entry", path.display())]
    Parse {
        path: PathBuf,
        line: u64,
        #[source]
        source: forge_replay_model::json::ParseError,
    },
    #[error("no entry with id {id:?}")]
    UnknownLeaf { id: String },
    #[error("{}:{line}: the file changed since it was read (line {line} is no longer the entry read then)", path.display())]
    Changed { path: PathBuf, line: u64 },
    #[error("{}:{line}: cannot read line {line} again", path.display())]
    Reread {
        path: PathBuf,
        line: u64,
        #[source]
        source: std::io::Error,
    },
}
