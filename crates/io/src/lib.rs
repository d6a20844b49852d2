//! forge-replay-io: the one place forge-replay writes files.
//!
//! Every file forge-replay writes goes through this crate, so three promises hold everywhere:
//!
//! * **Atomic files** ([`write_atomic`], [`write_atomic_with`], [`write_atomic_via`]): the bytes go
//!   to a temporary file in the target's directory, are flushed to disk (`fsync`) and renamed over
//!   the target. A reader sees the old file or the new one, never a half-written one.
//!   [`check_file_target`] and [`DirSet::check_target`] refuse an output that cannot be written
//!   before a command does its work, so a bad second output never leaves the first one written.
//! * **Sets written as a whole.** A directory that is one output ([`DirSet`]: a parquet dataset,
//!   a `replay --out` directory, a generated corpus) is staged beside its target, gets a
//!   completion marker ([`SET_MARKER`]) last, and is renamed into place. Changes spread over a tree
//!   ([`Txn`]: `verify --bless` over the golden tree) are staged, then applied from a journal, so
//!   a run that is killed leaves either the old tree or, on the next run, the new one.
//! * **Safe derived paths** ([`path`]): a file or directory name that comes from input data
//!   (scenario names, model slugs, entry ids) is one safe component, or a relative path that stays
//!   inside its root, checked before anything is written.
//!
//! Standard output is written through [`Stdout`], whose errors name it (`stdout: <OS error>`).
//!
//! Temporary files and directories carry one recognisable name ([`TEMP_PREFIX`]); every writer
//! removes stale ones of dead processes when it starts ([`remove_stale`]), and readers skip them
//! ([`is_temp_name`]).
//!
//! This crate depends on nothing else of forge-replay (it is the bottom of the stack beside
//! `forge-replay-model`, which does no I/O at all).

mod atomic;
pub mod path;
mod set;
mod stdout;
mod temp;
mod txn;

pub use atomic::{check_file_target, write_atomic, write_atomic_via, write_atomic_with};
pub use set::{read_set_manifest, DirSet, SetManifest, SET_MARKER};
pub use stdout::Stdout;
pub use temp::{is_temp_name, remove_stale, TEMP_PREFIX};
pub use txn::{Stage, Txn};

use std::path::PathBuf;

/// Why a write failed. The target is named; the cause is the `#[source]`.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Unsafe(#[from] path::UnsafePath),
    #[error("{} exists and was not written by forge-replay (no {SET_MARKER} in it); refusing to replace it: remove it or choose another output directory", path.display())]
    NotOurs { path: PathBuf },
    #[error("{} holds the output of another forge-replay command (a {found} set, not a {kind} set); refusing to replace it: remove it or choose another output directory", path.display())]
    OtherSet {
        path: PathBuf,
        found: String,
        kind: String,
    },
    #[error("{}: another forge-replay process (pid {pid}) is writing here; try again when it has finished", path.display())]
    Busy { path: PathBuf, pid: u32 },
    #[error("{}: the journal of an interrupted write cannot be read ({message}); remove it by hand after checking the tree", path.display())]
    Journal { path: PathBuf, message: String },
}

impl WriteError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> WriteError {
        let path = path.into();
        move |source| WriteError::Io { path, source }
    }
}
