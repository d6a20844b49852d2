//! [`Session`]: a read session file: header, entries and tree.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use std::sync::Arc;

use forge_replay_model::session::EntryType;

use crate::diag::Diagnostic;
use crate::entry::Entry;
use crate::error::{ProjectError, ReadError};
use crate::index::{Extra, Interner, Rec, Source};
use crate::project::{ContextBuilder, ContextPlan, Projection};
use crate::tree::Tree;

/// The header line (`{"type":"session","version":3,"id",...}`), after migration.
#[derive(Debug, Clone)]
pub struct Header {
    pub(crate) line: u64,
    pub(crate) raw: Box<str>,
    pub(crate) value: Value,
}

impl Header {
    /// 1-based line number.
    pub fn line(&self) -> u64 {
        self.line
    }
    /// The header JSON text (re-serialized when migrated).
    pub fn raw(&self) -> &str {
        &self.raw
    }
    /// The whole header object.
    pub fn value(&self) -> &Value {
        &self.value
    }
    /// Session id (always a string: otherwise the file is not a session).
    pub fn id(&self) -> &str {
        self.value.get("id").and_then(Value::as_str).unwrap_or("")
    }
    /// `cwd` when it is a string.
    pub fn cwd(&self) -> Option<&str> {
        self.value.get("cwd").and_then(Value::as_str)
    }
    /// `timestamp` when it is a string.
    pub fn timestamp(&self) -> Option<&str> {
        self.value.get("timestamp").and_then(Value::as_str)
    }
    /// `parentSession` when it is a string.
    pub fn parent_session(&self) -> Option<&str> {
        self.value.get("parentSession").and_then(Value::as_str)
    }
    /// `version` (3 after migration).
    pub fn version(&self) -> Option<&Value> {
        self.value.get("version")
    }
}

/// A Pi session file, read and indexed. Immutable; project any number of leaves from it.
///
/// The session keeps a compact index of its entries (a few dozen bytes each, plus the ids), not
/// their text: an entry's JSON is read again from the file when it is projected
/// ([`Entry::raw`]). Memory is the index plus whatever the current projection holds.
#[derive(Debug, Clone)]
pub struct Session {
    pub(crate) path: PathBuf,
    pub(crate) header: Header,
    pub(crate) source: Arc<Source>,
    pub(crate) recs: Vec<Rec>,
    /// Id and parent-id keys (`"\0" + JSON` for ids that are not strings).
    pub(crate) keys: Arc<Interner>,
    pub(crate) types: Vec<EntryType>,
    pub(crate) roles: Interner,
    pub(crate) extras: Vec<Extra>,
    pub(crate) tree: Tree,
}

/// The parts of a [`Session`] the reader collects before the tree is built.
pub(crate) struct Parts {
    pub path: PathBuf,
    pub header: Header,
    pub source: Source,
    pub recs: Vec<Rec>,
    pub keys: Interner,
    pub types: Vec<EntryType>,
    pub roles: Interner,
    pub extras: Vec<Extra>,
}

/// Every entry of a session, in file order ([`Session::entries`]).
#[derive(Debug, Clone)]
pub struct Entries<'s> {
    session: &'s Session,
    range: std::ops::Range<usize>,
}

impl<'s> Iterator for Entries<'s> {
    type Item = Entry<'s>;
    fn next(&mut self) -> Option<Entry<'s>> {
        self.range.next().map(|i| self.session.entry(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Entries<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range.next_back().map(|i| self.session.entry(i))
    }
}

impl ExactSizeIterator for Entries<'_> {}

impl Session {
    /// Reads a session file line by line. Diagnostics are what Pi tolerates (skipped lines,
    /// unknown fields, tree defects); errors are files Pi cannot load as a session.
    ///
    /// Only regular files are read (a FIFO, socket or device is refused before it is opened,
    /// since opening a FIFO blocks); the file is expected not to change while the session is in
    /// use (an entry read again later that no longer matches is a [`ProjectError::Changed`]).
    pub fn open(path: impl AsRef<Path>) -> Result<(Session, Vec<Diagnostic>), ReadError> {
        crate::reader::open(path.as_ref())
    }

    /// Reads a session from any buffered reader; `name` is used in messages. The entries' text
    /// is kept in memory (there is no file to read it again from).
    pub fn from_reader(
        reader: impl BufRead,
        name: impl AsRef<Path>,
    ) -> Result<(Session, Vec<Diagnostic>), ReadError> {
        crate::reader::read(reader, name.as_ref(), None)
    }

    pub(crate) fn build(parts: Parts) -> (Session, Vec<Diagnostic>) {
        let Parts {
            path,
            header,
            source,
            recs,
            keys,
            types,
            roles,
            extras,
        } = parts;
        let mut session = Session {
            path,
            header,
            source: Arc::new(source),
            recs,
            keys: Arc::new(keys),
            types,
            roles,
            extras,
            tree: Tree::default(),
        };
        let (tree, mut diags) = Tree::build(&session);
        session.tree = tree;
        diags.extend(crate::check::entry_checks(&session));
        (session, diags)
    }

    /// The path the session was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every tree entry in file order (the header and extra `session` lines excluded).
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            session: self,
            range: 0..self.recs.len(),
        }
    }

    /// Number of tree entries.
    pub fn entry_count(&self) -> usize {
        self.recs.len()
    }

    /// Entry `i` (panics when out of range, like slice indexing).
    pub fn entry(&self, i: usize) -> Entry<'_> {
        assert!(i < self.recs.len(), "entry index {i} out of range");
        Entry {
            session: self,
            index: i,
        }
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Entry index for an id (the last entry with it, as in Pi).
    pub fn find(&self, id: &str) -> Option<usize> {
        self.tree.get(id)
    }

    /// The leaf Pi selects on load: the last entry of the file. `None` without entries.
    pub fn default_leaf(&self) -> Option<usize> {
        self.recs.len().checked_sub(1)
    }

    /// Resolves `--leaf`: an id, or the default leaf when `None`.
    pub fn resolve_leaf(&self, id: Option<&str>) -> Result<Option<usize>, ProjectError> {
        match id {
            None => Ok(self.default_leaf()),
            Some(id) => self
                .find(id)
                .map(Some)
                .ok_or_else(|| ProjectError::UnknownLeaf { id: id.to_string() }),
        }
    }

    /// Entry indices from the root to `leaf`.
    pub fn path_to(&self, leaf: usize) -> Vec<usize> {
        self.tree.path_to(leaf)
    }

    /// `buildSessionProjection(entries, leafId)`: the context at `leaf`
    /// (`None` = Pi's `leafId === null`, an empty context).
    pub fn context(&self, leaf: Option<usize>) -> Result<Projection, ProjectError> {
        crate::project::project(self, leaf)
    }

    /// The context at `leaf` without building messages yet (for streaming large contexts).
    pub fn plan(&self, leaf: Option<usize>) -> ContextPlan<'_> {
        ContextPlan::new(self, leaf)
    }

    /// An incremental builder that walks one path entry by entry.
    pub fn builder(&self) -> ContextBuilder<'_> {
        ContextBuilder::new(self)
    }
}
