//! The incremental corpus index: per file, the `Records` the corpus reports need, keyed by the
//! file's identity, so a re-run reads only what changed.
//!
//! * **Identity.** A file is taken as unchanged when its size, modification time, inode and
//!   device, and a hash of its first and of its last KiB are those stored. A file that only grew
//!   (same inode, larger, same first KiB, and the bytes of its old last line unchanged) is read
//!   from its old end: Pi's session files are append-only. Anything else is read again; a file
//!   no longer found drops out.
//! * **Versioned.** The header names the index format, the tool's version and what the records
//!   depend on (the release markers); any difference rebuilds the index.
//! * **Never trusted.** The file ends with its payload's length and checksum; a truncated,
//!   half-written or altered index (or one that does not decode) is rebuilt, never used.
//! * **Atomic.** It is written whole to a temporary file and renamed into place
//!   ([`forge_replay_io::write_atomic_with`]): two concurrent runs each write a complete index
//!   and the last rename wins.
//! * **A delta for small changes.** When what changed since the base index is small (at most a
//!   quarter of it: a few files grew), only a delta is written beside the base
//!   ([`delta_path`]): the changed files' sections and the base's paths no longer indexed,
//!   naming the base it applies to by its checksum. A delta is checked like the base; one that
//!   is damaged or names another base is ignored (the files it held are read again). A larger
//!   change writes a whole new base and removes the delta.
//!
//! Records are stored unpriced and without their active path: both are computed again on every
//! run (`Records::finish`), so the results are the same with or without the index.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::markers::ReleaseMarkers;
use crate::nested::{ForgeNestedUsage, NestedReport};
use crate::records::{RecNested, RecRequest, Records, ResumePoint};
use crate::scan::Header;
use crate::session::{BadLine, NotASession, Transcript};
use crate::totals::Totals;

const MAGIC: &[u8; 8] = b"FRUSAGE\0";
const DELTA_MAGIC: &[u8; 8] = b"FRUSDLT\0";
/// Bump when the encoding or the records change.
const FORMAT: u32 = 5;

/// What the stored records depend on besides the files: the format, the tool and the markers.
fn schema() -> String {
    format!(
        "format {FORMAT}; forge-replay {}; markers {}",
        env!("CARGO_PKG_VERSION"),
        crate::markers::NAMES.join(",")
    )
}

/// The index file for a set of corpus directories, in `cache_dir`.
///
/// Keyed by the directories as they are spelled (and the working directory when one is
/// relative), because the index stores the paths as the walk spells them: two spellings of one
/// directory (`sessions` and `/home/me/sessions`, or a symlink) have an index each, instead of
/// sharing one whose every entry the other spelling misses (and rewrites).
pub fn index_path(cache_dir: &Path, dirs: &[PathBuf]) -> PathBuf {
    let mut roots: Vec<&PathBuf> = dirs.iter().collect();
    roots.sort();
    roots.dedup();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    roots.hash(&mut h);
    if roots.iter().any(|d| d.is_relative()) {
        std::env::current_dir().ok().hash(&mut h);
    }
    cache_dir.join(format!("usage-{:016x}.idx", h.finish()))
}

/// The default cache directory: `$XDG_CACHE_HOME/forge-replay`, else `~/.cache/forge-replay`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty());
    let base = match xdg {
        Some(x) if Path::new(&x).is_absolute() => PathBuf::from(x),
        _ => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".cache"),
    };
    Some(base.join("forge-replay"))
}

/// A file's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Identity {
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
    pub dev: u64,
    /// Hash of the first `min(size, 1 KiB)` bytes and of the last.
    pub head: u64,
    pub tail: u64,
}

const KIB: u64 = 1024;

/// The identity hash of some bytes: the index's four-lane checksum (a file's first and last KiB
/// are hashed on every run, for every file: SipHash was several times slower).
fn hash_bytes(b: &[u8]) -> u64 {
    checksum(b)
}

/// `len` bytes at `at` (one positioned read: no seek).
fn read_range(f: &mut std::fs::File, at: u64, len: u64) -> Option<Vec<u8>> {
    let mut buf = vec![0; usize::try_from(len).ok()?];
    read_into(f, at, &mut buf)?;
    Some(buf)
}

#[cfg(unix)]
fn read_into(f: &mut std::fs::File, at: u64, buf: &mut [u8]) -> Option<()> {
    use std::os::unix::fs::FileExt;
    f.read_exact_at(buf, at).ok()
}

#[cfg(not(unix))]
fn read_into(f: &mut std::fs::File, at: u64, buf: &mut [u8]) -> Option<()> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(at)).ok()?;
    f.read_exact(buf).ok()
}

/// The hash of `len <= 1 KiB` bytes at `at`, read into a buffer on the stack.
fn hash_range(f: &mut std::fs::File, at: u64, len: u64) -> Option<u64> {
    let mut buf = [0u8; KIB as usize];
    let buf = buf.get_mut(..usize::try_from(len).ok()?)?;
    read_into(f, at, buf)?;
    Some(hash_bytes(buf))
}

fn of_metadata(m: &std::fs::Metadata) -> Option<Identity> {
    if !m.is_file() {
        return None;
    }
    #[cfg(unix)]
    let (mtime_ns, inode, dev) = {
        use std::os::unix::fs::MetadataExt;
        (m.mtime() * 1_000_000_000 + m.mtime_nsec(), m.ino(), m.dev())
    };
    #[cfg(not(unix))]
    let (mtime_ns, inode, dev) = (
        m.modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64),
        0,
        0,
    );
    Some(Identity {
        size: m.len(),
        mtime_ns,
        inode,
        dev,
        head: 0,
        tail: 0,
    })
}

/// The file opened, and the metadata part of its identity (of the file opened).
fn open_meta(path: &Path) -> Option<(std::fs::File, Identity)> {
    let f = forge_replay_session::input::open(path).ok()?;
    let id = of_metadata(&f.metadata().ok()?)?;
    Some((f, id))
}

/// The full identity of the file as it is now: its metadata (of the file opened) plus the head
/// and tail hashes.
fn identity(path: &Path) -> Option<Identity> {
    let (mut f, id) = open_meta(path)?;
    hashed(&mut f, id)
}

/// `id` (the metadata of `f`) with the head and tail hashes of `f`.
fn hashed(f: &mut std::fs::File, mut id: Identity) -> Option<Identity> {
    let len = id.size.min(KIB);
    id.head = hash_range(f, 0, len)?;
    id.tail = if len == id.size {
        id.head
    } else {
        hash_range(f, id.size - len, len)?
    };
    Some(id)
}

/// One file's entry: its identity when read, its child signature and its records.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub id: Identity,
    pub child: u8,
    pub records: Records,
}

/// How a file was obtained on this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Unchanged: records from the index.
    Hit,
    /// Grown: the new lines only were read.
    Appended,
    /// Read whole (new, changed, rewritten, or no usable entry).
    Read,
}

/// What happened to the index on one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexStats {
    pub path: PathBuf,
    /// Why the stored index was not used, when it was not (absent, other version, corrupt).
    pub rebuilt: Option<String>,
    pub hits: usize,
    pub appended: usize,
    pub read: usize,
    /// Files in the old index no longer found.
    pub dropped: usize,
    /// Whether a new index was written, and why not when it failed.
    pub written: bool,
    /// Whether what was written is a delta beside the base (only the changed files' sections).
    pub delta: bool,
    pub write_error: Option<String>,
}

/// Where a loaded section's bytes are: the base index or its delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Src {
    Base,
    Delta,
}

/// The index as loaded: the base file and, when it applies to that base, the delta written
/// beside it; the raw sections by path (the delta's over the base's), decoded on demand (on the
/// workers).
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    blob: Vec<u8>,
    delta: Vec<u8>,
    /// Keyed by the path's bytes as the walk spells it (hashing a `Path` parses its
    /// components): another spelling of a path only misses its section (the file is read).
    sections: crate::fasthash::FastMap<Box<[u8]>, (Src, usize, usize)>,
    /// The base's checksum: what a delta names as the base it applies to.
    base_sum: u64,
    /// The base's payload size (to decide between a delta and a whole new base).
    base_len: usize,
    /// Paths the base holds.
    base_paths: Vec<Box<[u8]>>,
}

/// A checked file of the index: its payload (after the header), or why it cannot be used.
fn checked<'b>(blob: &'b [u8], magic: &[u8; 8]) -> Result<(Reader<'b>, u64), String> {
    let mut r = Reader::new(blob);
    let fail = |why: &str| format!("corrupt: {why}");
    if r.bytes(magic.len()).ok() != Some(&magic[..]) {
        return Err(fail("not a forge-replay usage index"));
    }
    let schema_len = r.u32().map_err(|_| fail("truncated header"))? as usize;
    let stored = r.bytes(schema_len).map_err(|_| fail("truncated header"))?;
    if stored != schema().as_bytes() {
        return Err(format!(
            "written by another version ({})",
            String::from_utf8_lossy(stored)
        ));
    }
    let payload_start = r.pos;
    if blob.len() < payload_start + 16 {
        return Err(fail("truncated"));
    }
    let trailer = blob.len() - 16;
    let mut t = Reader::new(&blob[trailer..]);
    let (len, sum) = (
        t.u64().map_err(|_| fail("truncated"))?,
        t.u64().map_err(|_| fail("truncated"))?,
    );
    if len != (trailer - payload_start) as u64 {
        return Err(fail("its length does not match (half-written?)"));
    }
    if checksum(&blob[payload_start..trailer]) != sum {
        return Err(fail("checksum mismatch"));
    }
    let mut r = Reader::new(&blob[..trailer]);
    r.pos = payload_start;
    Ok((r, sum))
}

/// `n` sections (path, length, bytes) from `r`, as (path, start, length) in its blob.
#[allow(clippy::type_complexity)]
fn read_sections(r: &mut Reader<'_>) -> Result<Vec<(Box<[u8]>, usize, usize)>, Corrupt> {
    let n = r.count(8)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let p = Box::from(r.string_bytes()?);
        let len = r.u32()? as usize;
        let at = r.pos;
        r.bytes(len)?;
        out.push((p, at, len));
    }
    Ok(out)
}

/// The delta file beside an index file.
pub fn delta_path(index: &Path) -> PathBuf {
    let mut name = index.file_name().unwrap_or_default().to_os_string();
    name.push(".delta");
    index.with_file_name(name)
}

impl Loaded {
    /// Reads and checks an index file, and its delta when there is one for this base (a delta
    /// that is damaged or names another base is ignored: the files it held are read again).
    /// `Err` says why the index cannot be used.
    pub fn open(path: &Path) -> Result<Loaded, String> {
        let blob = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("absent".into()),
            Err(e) => return Err(format!("unreadable: {e}")),
        };
        let fail = |why: &str| format!("corrupt: {why}");
        let (mut r, base_sum) = checked(&blob, MAGIC)?;
        let start = r.pos;
        let list = read_sections(&mut r).map_err(|_| fail("bad section"))?;
        if r.pos != r.b.len() {
            return Err(fail("trailing bytes"));
        }
        let base_len = r.pos - start;
        let mut sections =
            crate::fasthash::FastMap::with_capacity_and_hasher(list.len(), Default::default());
        let mut base_paths = Vec::with_capacity(list.len());
        for (p, at, len) in list {
            base_paths.push(p.clone());
            sections.insert(p, (Src::Base, at, len));
        }
        let mut loaded = Loaded {
            blob,
            delta: Vec::new(),
            sections,
            base_sum,
            base_len,
            base_paths,
        };
        if let Ok(delta) = std::fs::read(delta_path(path)) {
            if let Some((changed, removed)) = Loaded::delta_of(&delta, base_sum) {
                for p in removed {
                    loaded.sections.remove(&p);
                }
                for (p, at, len) in changed {
                    loaded.sections.insert(p, (Src::Delta, at, len));
                }
                loaded.delta = delta;
            }
        }
        Ok(loaded)
    }

    /// A delta's changed sections and removed paths, when it is whole and applies to the base
    /// with checksum `base_sum`.
    #[allow(clippy::type_complexity)]
    fn delta_of(
        delta: &[u8],
        base_sum: u64,
    ) -> Option<(Vec<(Box<[u8]>, usize, usize)>, Vec<Box<[u8]>>)> {
        let (mut r, _) = checked(delta, DELTA_MAGIC).ok()?;
        if r.u64().ok()? != base_sum {
            return None;
        }
        let changed = read_sections(&mut r).ok()?;
        let n = r.count(4).ok()?;
        let removed = (0..n)
            .map(|_| r.string_bytes().map(Box::from))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        (r.pos == r.b.len()).then_some((changed, removed))
    }

    /// How many of the indexed paths are not among `now`.
    pub fn dropped(&self, now: &[PathBuf]) -> usize {
        let now: crate::fasthash::FastSet<Cow<'_, [u8]>> =
            now.iter().map(|p| path_key(p)).collect();
        self.sections
            .keys()
            .filter(|p| !now.contains(&p[..]))
            .count()
    }

    /// The size a file had when its section was written (the section's first field).
    pub fn stored_size(&self, path: &Path) -> Option<u64> {
        let (b, _) = self.section(path)?;
        Reader::new(b).u64().ok()
    }

    fn section(&self, path: &Path) -> Option<(&[u8], Src)> {
        self.sections.get(&*path_key(path)).map(|&(src, at, len)| {
            let blob = match src {
                Src::Base => &self.blob,
                Src::Delta => &self.delta,
            };
            (&blob[at..at + len], src)
        })
    }
}

/// A file's records for this run, read through the index: reused, read on from the old end,
/// or read whole. Also the new index section (`None`: the file changed while it was read, or
/// could not be read: not stored).
pub(crate) fn records_for<'l>(
    loaded: Option<&'l Loaded>,
    path: &Path,
    child: Option<&crate::subagents::ChildPath>,
) -> (Records, Outcome, Option<Section<'l>>) {
    let sig = crate::records::child_sig(child);
    let old = loaded
        .and_then(|l| l.section(path).map(|bytes| (bytes, decode_entry(bytes.0))))
        .and_then(|(bytes, e)| e.ok().map(|e| (bytes, e)))
        .filter(|(_, e)| e.child == sig);
    // One `open` (and its `fstat`) for the metadata, the head and the tail.
    let now = old.as_ref().and_then(|_| open_meta(path));
    if let (Some((bytes, old)), Some((mut f, now))) = (old, now) {
        let same_meta = now.size == old.id.size
            && now.mtime_ns == old.id.mtime_ns
            && now.inode == old.id.inode
            && now.dev == old.id.dev;
        if same_meta {
            if hashed(&mut f, now).is_some_and(|id| id == old.id) {
                return (
                    old.records,
                    Outcome::Hit,
                    Some(Section::Old(bytes.0, bytes.1 == Src::Base)),
                );
            }
        } else if now.inode == old.id.inode
            && now.dev == old.id.dev
            && now.size > old.id.size
            && old.records.resume.resumable
            && old.records.resume.len == old.id.size
            && prefix_unchanged(path, &old)
        {
            if let Some(mut records) = old.records.resume(path, child) {
                let section = stored(path, sig, &mut records);
                return (records, Outcome::Appended, section);
            }
        }
    }
    let mut records = Records::read(path, child);
    let section = stored(path, sig, &mut records);
    (records, Outcome::Read, section)
}

/// The old content is still the file's start: the first KiB and the old last line.
fn prefix_unchanged(path: &Path, old: &Entry) -> bool {
    let Ok(mut f) = forge_replay_session::input::open(path) else {
        return false;
    };
    if hash_range(&mut f, 0, old.id.size.min(KIB)) != Some(old.id.head) {
        return false;
    }
    let r = &old.records.resume;
    read_range(&mut f, r.last_line_start, r.len - r.last_line_start)
        .is_some_and(|b| hash_bytes(&b) == r.last_line_hash)
}

/// The section to store for records just read, with the identity of the content read; `None`
/// when the file changed while it was read or cannot be stored.
fn stored<'a>(path: &Path, child: u8, records: &mut Records) -> Option<Section<'a>> {
    if records.error.is_some() {
        return None;
    }
    let id = identity(path)?;
    // The bytes read are the file now (it did not grow or change while it was read).
    if id.size != records.resume.len {
        return None;
    }
    if records.resume.resumable {
        let mut f = forge_replay_session::input::open(path).ok()?;
        let r = &records.resume;
        let last = read_range(&mut f, r.last_line_start, r.len - r.last_line_start)?;
        records.resume.last_line_hash = hash_bytes(&last);
    }
    let mut w = Writer::default();
    encode_entry(&mut w, &id, child, records).ok()?;
    Some(Section::New(w.0))
}

/// A section of the new index.
#[derive(Debug)]
pub(crate) enum Section<'a> {
    /// The stored bytes, unchanged (in the loaded index; `true`: in its base file).
    Old(&'a [u8], bool),
    /// Freshly encoded.
    New(Vec<u8>),
}

impl Section<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Section::Old(b, _) => b,
            Section::New(b) => b,
        }
    }
    fn in_base(&self) -> bool {
        matches!(self, Section::Old(_, true))
    }
}

/// Writes the index for these sections (one per file, in order): when a base was loaded and
/// what differs from it is small (at most a quarter of the base), only a delta beside the base
/// (the sections not in the base, and the base's paths no longer indexed), else a whole new
/// base. Either is written atomically; `true` when a delta was written.
pub(crate) fn write(
    path: &Path,
    loaded: Option<&Loaded>,
    sections: &[(PathBuf, Section)],
) -> Result<bool, String> {
    if let Some(l) = loaded {
        let changed: Vec<&(PathBuf, Section)> =
            sections.iter().filter(|(_, s)| !s.in_base()).collect();
        let size: usize = changed
            .iter()
            .map(|(p, s)| p.as_os_str().len() + s.bytes().len())
            .sum();
        if size <= l.base_len / 4 {
            let kept: crate::fasthash::FastSet<Cow<'_, [u8]>> = sections
                .iter()
                .filter(|(_, s)| s.in_base())
                .map(|(p, _)| path_key(p))
                .collect();
            // Base paths without a base section now: gone, or held in the delta.
            let removed: Vec<&[u8]> = l
                .base_paths
                .iter()
                .map(|p| &**p)
                .filter(|p| !kept.contains(*p))
                .collect();
            write_delta(&delta_path(path), l.base_sum, &changed, &removed)?;
            return Ok(true);
        }
    }
    write_index(path, sections)?;
    // The old delta names the old base: it would be ignored, but is not worth reading.
    let _ = std::fs::remove_file(delta_path(path));
    Ok(false)
}

/// Streams one index file: magic, schema, `payload` (length and checksum counted), trailer.
fn write_file(
    path: &Path,
    magic: &[u8; 8],
    payload: impl FnOnce(
        &mut dyn FnMut(&[u8]) -> Result<(), forge_replay_io::WriteError>,
    ) -> Result<(), forge_replay_io::WriteError>,
) -> Result<(), String> {
    let schema = schema();
    forge_replay_io::write_atomic_with(path, |w| -> Result<(), forge_replay_io::WriteError> {
        let io = |source: std::io::Error| forge_replay_io::WriteError::Io {
            path: path.to_owned(),
            source,
        };
        let mut head = Writer::default();
        head.raw(magic);
        head.u32(schema.len() as u32);
        head.raw(schema.as_bytes());
        w.write_all(&head.0).map_err(io)?;
        let mut sum = Checksum::default();
        let mut len = 0u64;
        payload(&mut |b: &[u8]| {
            sum.update(b);
            len += b.len() as u64;
            w.write_all(b).map_err(io)
        })?;
        let sum = sum.finish();
        w.write_all(&len.to_le_bytes()).map_err(io)?;
        w.write_all(&sum.to_le_bytes()).map_err(io)?;
        Ok(())
    })
    .map_err(|e| forge_replay_model::error::chain(&e))
}

type Put<'p> = &'p mut dyn FnMut(&[u8]) -> Result<(), forge_replay_io::WriteError>;

fn put_sections<'s>(
    put: Put<'_>,
    sections: impl ExactSizeIterator<Item = &'s (PathBuf, Section<'s>)>,
) -> Result<(), forge_replay_io::WriteError> {
    put(&(sections.len() as u32).to_le_bytes())?;
    for (p, s) in sections {
        let mut h = Writer::default();
        h.string_bytes(&path_bytes(p));
        h.u32(s.bytes().len() as u32);
        put(&h.0)?;
        put(s.bytes())?;
    }
    Ok(())
}

/// Writes a whole index atomically: one section per file, in order.
pub(crate) fn write_index(path: &Path, sections: &[(PathBuf, Section)]) -> Result<(), String> {
    write_file(path, MAGIC, |put| put_sections(put, sections.iter()))
}

/// Writes a delta atomically: the base it applies to, its sections, the base paths it removes.
fn write_delta(
    path: &Path,
    base_sum: u64,
    changed: &[&(PathBuf, Section)],
    removed: &[&[u8]],
) -> Result<(), String> {
    write_file(path, DELTA_MAGIC, |put| {
        put(&base_sum.to_le_bytes())?;
        put_sections(put, changed.iter().copied())?;
        put(&(removed.len() as u32).to_le_bytes())?;
        for p in removed {
            let mut h = Writer::default();
            h.string_bytes(p);
            put(&h.0)?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Encoding

/// A fast 64-bit checksum, to detect damage, not tampering: four independent FNV-style lanes over
/// the 8-byte words of each 32-byte block (four multiplications in flight instead of one chain:
/// the check of a 25 MB index was a twentieth of a warm run), folded together at the end.
#[derive(Debug)]
struct Checksum {
    lanes: [u64; 4],
    pending: Vec<u8>,
    len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum {
            lanes: [
                0xcbf2_9ce4_8422_2325,
                0x8422_2325_cbf2_9ce4,
                0x9e37_79b9_7f4a_7c15,
                0x7f4a_7c15_9e37_79b9,
            ],
            pending: Vec::new(),
            len: 0,
        }
    }
}

const BLOCK: usize = 32;

fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
}

impl Checksum {
    fn block(&mut self, b: &[u8]) {
        for (lane, c) in self.lanes.iter_mut().zip(b.chunks_exact(8)) {
            *lane = mix(*lane, u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
    }
    fn update(&mut self, mut b: &[u8]) {
        self.len += b.len() as u64;
        if !self.pending.is_empty() {
            let take = (BLOCK - self.pending.len()).min(b.len());
            self.pending.extend_from_slice(&b[..take]);
            b = &b[take..];
            if self.pending.len() == BLOCK {
                let block = std::mem::take(&mut self.pending);
                self.block(&block);
                self.pending = block;
                self.pending.clear();
            }
        }
        let mut blocks = b.chunks_exact(BLOCK);
        for c in &mut blocks {
            self.block(c);
        }
        self.pending.extend_from_slice(blocks.remainder());
    }
    fn finish(mut self) -> u64 {
        let mut last = [0u8; BLOCK];
        last[..self.pending.len()].copy_from_slice(&self.pending);
        self.block(&last);
        let mut h = mix(0xcbf2_9ce4_8422_2325, self.len);
        for lane in self.lanes {
            h = mix(h, lane);
        }
        h
    }
}

fn checksum(b: &[u8]) -> u64 {
    let mut c = Checksum::default();
    c.update(b);
    c.finish()
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> Vec<u8> {
    p.to_string_lossy().into_owned().into_bytes()
}

/// A path's bytes as [`path_bytes`] stores them, borrowed where they can be.
#[cfg(unix)]
fn path_key(p: &Path) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_key(p: &Path) -> Cow<'_, [u8]> {
    Cow::Owned(path_bytes(p))
}

#[derive(Debug, Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn raw(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.raw(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.raw(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn string_bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.raw(b);
    }
    fn str(&mut self, s: &str) {
        self.string_bytes(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
    fn opt_u32(&mut self, v: Option<u32>) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                self.u32(v);
            }
        }
    }
    fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
        }
    }
    fn opt_i64(&mut self, v: Option<i64>) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                self.i64(v);
            }
        }
    }
    /// LEB128.
    fn var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    /// A string index, `NONE` (absent) as 0.
    fn index(&mut self, i: u32) {
        self.var(u64::from(i.wrapping_add(1)));
    }
    /// A token count or other double: a non-negative integer below 2^52 as a varint of twice
    /// its value, anything else (fractions, -0, NaN) as 1 and its 8 bytes.
    fn num(&mut self, v: f64) {
        if v >= 0.0 && v < (1u64 << 52) as f64 && v.fract() == 0.0 && v.to_bits() >> 63 == 0 {
            self.var((v as u64) << 1);
        } else {
            self.var(1);
            self.f64(v);
        }
    }
    fn opt_var_i64(&mut self, v: Option<i64>) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                self.var(((v << 1) ^ (v >> 63)) as u64);
            }
        }
    }
    fn lines(&mut self, v: &[BadLine]) {
        self.u32(v.len() as u32);
        for b in v {
            self.u32(b.line);
            self.str(&b.message);
        }
    }
}

#[derive(Debug)]
struct Corrupt;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(b: &'a [u8]) -> Self {
        Reader { b, pos: 0 }
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        let end = self.pos.checked_add(n).ok_or(Corrupt)?;
        let s = self.b.get(self.pos..end).ok_or(Corrupt)?;
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, Corrupt> {
        Ok(self.bytes(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, Corrupt> {
        Ok(u32::from_le_bytes(
            self.bytes(4)?.try_into().map_err(|_| Corrupt)?,
        ))
    }
    fn u64(&mut self) -> Result<u64, Corrupt> {
        Ok(u64::from_le_bytes(
            self.bytes(8)?.try_into().map_err(|_| Corrupt)?,
        ))
    }
    fn i64(&mut self) -> Result<i64, Corrupt> {
        Ok(self.u64()? as i64)
    }
    fn f64(&mut self) -> Result<f64, Corrupt> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn string_bytes(&mut self) -> Result<&'a [u8], Corrupt> {
        let n = self.u32()? as usize;
        self.bytes(n)
    }
    fn string(&mut self) -> Result<String, Corrupt> {
        String::from_utf8(self.string_bytes()?.to_vec()).map_err(|_| Corrupt)
    }
    fn flag(&mut self) -> Result<bool, Corrupt> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Corrupt),
        }
    }
    fn opt_str(&mut self) -> Result<Option<String>, Corrupt> {
        Ok(if self.flag()? {
            Some(self.string()?)
        } else {
            None
        })
    }
    fn opt_u32(&mut self) -> Result<Option<u32>, Corrupt> {
        Ok(if self.flag()? {
            Some(self.u32()?)
        } else {
            None
        })
    }
    fn opt_u64(&mut self) -> Result<Option<u64>, Corrupt> {
        Ok(if self.flag()? {
            Some(self.u64()?)
        } else {
            None
        })
    }
    fn opt_i64(&mut self) -> Result<Option<i64>, Corrupt> {
        Ok(if self.flag()? {
            Some(self.i64()?)
        } else {
            None
        })
    }
    /// A count of items each at least `min` bytes long (refuses counts the rest cannot hold).
    fn count(&mut self, min: usize) -> Result<usize, Corrupt> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min) > self.b.len() - self.pos {
            return Err(Corrupt);
        }
        Ok(n)
    }
    fn var(&mut self) -> Result<u64, Corrupt> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Corrupt)
    }
    fn var_u32(&mut self) -> Result<u32, Corrupt> {
        u32::try_from(self.var()?).map_err(|_| Corrupt)
    }
    fn index(&mut self) -> Result<u32, Corrupt> {
        Ok(self.var_u32()?.wrapping_sub(1))
    }
    fn num(&mut self) -> Result<f64, Corrupt> {
        match self.var()? {
            1 => self.f64(),
            v if v & 1 == 0 => Ok((v >> 1) as f64),
            _ => Err(Corrupt),
        }
    }
    fn opt_var_i64(&mut self) -> Result<Option<i64>, Corrupt> {
        Ok(if self.flag()? {
            let z = self.var()?;
            Some(((z >> 1) as i64) ^ -((z & 1) as i64))
        } else {
            None
        })
    }
    fn lines(&mut self) -> Result<Vec<BadLine>, Corrupt> {
        let n = self.count(8)?;
        (0..n)
            .map(|_| {
                Ok(BadLine {
                    line: self.u32()?,
                    message: self.string()?,
                })
            })
            .collect()
    }
}

fn encode_entry(w: &mut Writer, id: &Identity, child: u8, r: &Records) -> Result<(), Corrupt> {
    w.u64(id.size);
    w.i64(id.mtime_ns);
    w.u64(id.inode);
    w.u64(id.dev);
    w.u64(id.head);
    w.u64(id.tail);
    w.u8(child);
    match &r.header {
        None => w.u8(0),
        Some(h) => {
            w.u8(1);
            w.str(&h.id);
            w.f64(h.version);
            w.opt_str(h.timestamp.as_deref());
            w.opt_str(h.cwd.as_deref());
            w.opt_str(h.parent_session.as_deref());
        }
    }
    match &r.not_session {
        None => w.u8(0),
        Some(n) => {
            w.u8(1);
            w.opt_u32(n.line);
            w.str(&n.reason);
        }
    }
    match &r.transcript {
        None => w.u8(0),
        Some(t) => {
            w.u8(1);
            w.opt_str(t.run_id.as_deref());
            w.opt_str(t.cwd.as_deref());
        }
    }
    w.u32(u32::from(r.markers.bits));
    w.u64(r.markers.assistant_messages);
    w.lines(&r.bad_lines);
    w.lines(&r.findings);
    w.u32(r.entries);
    w.opt_u32(r.first_line);
    // Per entry its id hash, and its parent's: 0 none, 1 the previous entry's id (the usual
    // case), else 2 and the hash.
    w.u32(r.links.len() as u32);
    let mut prev = 0;
    for &(id, parent) in &r.links {
        w.u64(id);
        match parent {
            0 => w.u8(0),
            p if p == prev && prev != 0 => w.u8(1),
            p => {
                w.u8(2);
                w.u64(p);
            }
        }
        prev = id;
    }
    w.u32(r.strings.len() as u32);
    for s in &r.strings {
        w.str(s);
    }
    // Requests: entry and line as deltas from the previous request's, the rest as varints
    // where they are small.
    w.u32(r.requests.len() as u32);
    let (mut entry, mut line) = (0u32, 0u32);
    for q in &r.requests {
        w.var(u64::from(q.entry.checked_sub(entry).ok_or(Corrupt)?));
        w.var(u64::from(q.line.checked_sub(line).ok_or(Corrupt)?));
        (entry, line) = (q.entry, q.line);
        w.u64(q.key);
        w.opt_var_i64(q.time_ms);
        w.index(q.model);
        w.index(q.provider);
        w.index(q.api);
        let t = &q.totals;
        for v in [t.requests, t.input, t.output, t.cache_read, t.cache_write] {
            w.num(v);
        }
        w.f64(q.cost);
        w.num(q.cache_write_1h);
        w.opt_u64(q.call_key);
    }
    w.u32(r.nested.len() as u32);
    for n in &r.nested {
        w.u32(n.entry);
        w.u64(n.key);
        w.u32(n.line);
        w.opt_i64(n.time_ms);
        match n.report {
            NestedReport::Invalid(why) => {
                let i = crate::nested::INVALID_REASONS
                    .iter()
                    .position(|r| *r == why)
                    .ok_or(Corrupt)?;
                w.u8(0);
                w.u8(i as u8);
            }
            NestedReport::Valid(u) => {
                w.u8(1);
                w.f64(u.requests);
                w.f64(u.input);
                w.f64(u.output);
                match u.cache {
                    None => w.u8(0),
                    Some((a, b)) => {
                        w.u8(1);
                        w.f64(a);
                        w.f64(b);
                    }
                }
            }
        }
        w.u32(n.model);
        w.u32(n.provider);
        w.opt_str(n.run_id.as_deref());
        w.opt_str(n.session_file.as_deref());
    }
    let p = &r.resume;
    w.u64(p.len);
    w.u64(p.last_line_start);
    w.u64(p.last_line_hash);
    w.u32(p.lines);
    w.u8(u8::from(p.resumable));
    Ok(())
}

fn decode_entry(b: &[u8]) -> Result<Entry, Corrupt> {
    let mut r = Reader::new(b);
    let id = Identity {
        size: r.u64()?,
        mtime_ns: r.i64()?,
        inode: r.u64()?,
        dev: r.u64()?,
        head: r.u64()?,
        tail: r.u64()?,
    };
    let child = r.u8()?;
    let header = if r.flag()? {
        Some(Header {
            id: r.string()?,
            version: r.f64()?,
            timestamp: r.opt_str()?,
            cwd: r.opt_str()?,
            parent_session: r.opt_str()?,
        })
    } else {
        None
    };
    let not_session = if r.flag()? {
        Some(NotASession {
            line: r.opt_u32()?,
            reason: r.string()?,
        })
    } else {
        None
    };
    let transcript = if r.flag()? {
        Some(Transcript {
            run_id: r.opt_str()?,
            cwd: r.opt_str()?,
        })
    } else {
        None
    };
    let markers = ReleaseMarkers {
        bits: u16::try_from(r.u32()?).map_err(|_| Corrupt)?,
        assistant_messages: r.u64()?,
    };
    let bad_lines = r.lines()?;
    let findings = r.lines()?;
    let entries = r.u32()?;
    let first_line = r.opt_u32()?;
    let n = r.count(9)?;
    let mut links = Vec::with_capacity(n);
    let mut prev = 0;
    for _ in 0..n {
        let id = r.u64()?;
        let parent = match r.u8()? {
            0 => 0,
            1 if prev != 0 => prev,
            2 => r.u64()?,
            _ => return Err(Corrupt),
        };
        links.push((id, parent));
        prev = id;
    }
    if links.len() != entries as usize {
        return Err(Corrupt);
    }
    let n = r.count(4)?;
    let strings = (0..n).map(|_| r.string()).collect::<Result<Vec<_>, _>>()?;
    let string_ok = |i: u32| i == u32::MAX || (i as usize) < strings.len();
    let n = r.count(29)?;
    let mut requests = Vec::with_capacity(n);
    let (mut entry, mut line) = (0u32, 0u32);
    for _ in 0..n {
        entry = entry.checked_add(r.var_u32()?).ok_or(Corrupt)?;
        line = line.checked_add(r.var_u32()?).ok_or(Corrupt)?;
        let q = RecRequest {
            entry,
            line,
            key: r.u64()?,
            time_ms: r.opt_var_i64()?,
            model: r.index()?,
            provider: r.index()?,
            api: r.index()?,
            totals: Totals {
                requests: r.num()?,
                input: r.num()?,
                output: r.num()?,
                cache_read: r.num()?,
                cache_write: r.num()?,
            },
            cost: r.f64()?,
            cache_write_1h: r.num()?,
            call_key: r.opt_u64()?,
        };
        if q.entry >= entries || !string_ok(q.model) || !string_ok(q.provider) || !string_ok(q.api)
        {
            return Err(Corrupt);
        }
        requests.push(q);
    }
    let n = r.count(30)?;
    let mut nested = Vec::with_capacity(n);
    for _ in 0..n {
        let entry = r.u32()?;
        let key = r.u64()?;
        let line = r.u32()?;
        let time_ms = r.opt_i64()?;
        let report = if r.flag()? {
            NestedReport::Valid(ForgeNestedUsage {
                requests: r.f64()?,
                input: r.f64()?,
                output: r.f64()?,
                cache: if r.flag()? {
                    Some((r.f64()?, r.f64()?))
                } else {
                    None
                },
            })
        } else {
            let i = r.u8()? as usize;
            NestedReport::Invalid(crate::nested::INVALID_REASONS.get(i).ok_or(Corrupt)?)
        };
        let n = RecNested {
            entry,
            key,
            line,
            time_ms,
            report,
            model: r.u32()?,
            provider: r.u32()?,
            run_id: r.opt_str()?.map(Box::from),
            session_file: r.opt_str()?.map(Box::from),
        };
        if n.entry >= entries || !string_ok(n.model) || !string_ok(n.provider) {
            return Err(Corrupt);
        }
        nested.push(n);
    }
    let resume = ResumePoint {
        len: r.u64()?,
        last_line_start: r.u64()?,
        last_line_hash: r.u64()?,
        lines: r.u32()?,
        resumable: r.flag()?,
    };
    if resume.last_line_start > resume.len || r.pos != b.len() {
        return Err(Corrupt);
    }
    Ok(Entry {
        id,
        child,
        records: Records {
            error: None,
            header,
            not_session,
            transcript,
            markers,
            bad_lines,
            findings,
            entries,
            first_line,
            links,
            strings,
            requests,
            nested,
            resume,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_numbers_round_trip_bit_for_bit() {
        let nums = [
            0.0,
            -0.0,
            1.0,
            127.0,
            128.0,
            1e15,
            (1u64 << 52) as f64,
            -3.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            1.234e-7,
        ];
        let times = [
            None,
            Some(0),
            Some(-1),
            Some(1_767_225_600_000),
            Some(i64::MIN),
            Some(i64::MAX),
        ];
        let indices = [u32::MAX, 0, 1, 300, u32::MAX - 1];
        let mut w = Writer::default();
        nums.iter().for_each(|&v| w.num(v));
        times.iter().for_each(|&t| w.opt_var_i64(t));
        indices.iter().for_each(|&i| w.index(i));
        let mut r = Reader::new(&w.0);
        for v in nums {
            assert_eq!(r.num().unwrap().to_bits(), v.to_bits(), "{v}");
        }
        for t in times {
            assert_eq!(r.opt_var_i64().unwrap(), t);
        }
        for i in indices {
            assert_eq!(r.index().unwrap(), i);
        }
        assert_eq!(r.pos, w.0.len());
        // An odd varint other than 1 is not a number.
        assert!(Reader::new(&[3]).num().is_err());
    }

    #[test]
    fn checksum_is_the_same_streamed_in_pieces() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = checksum(&data);
        for cut in [0, 1, 3, 8, 13, 31, 32, 33, 64, 500, 999, 1000] {
            let mut c = Checksum::default();
            c.update(&data[..cut]);
            c.update(&data[cut..]);
            assert_eq!(c.finish(), whole, "{cut}");
        }
        // In three pieces, across block boundaries.
        for (a, b) in [(5, 40), (31, 33), (32, 64), (100, 997)] {
            let mut c = Checksum::default();
            c.update(&data[..a]);
            c.update(&data[a..b]);
            c.update(&data[b..]);
            assert_eq!(c.finish(), whole, "{a} {b}");
        }
        let mut other = data.clone();
        other[500] ^= 1;
        assert_ne!(checksum(&other), whole);
        // Every lane counts, and so does the length (a trailing zero byte is damage too).
        for at in [0, 8, 16, 24, 999] {
            let mut other = data.clone();
            other[at] ^= 0x80;
            assert_ne!(checksum(&other), whole, "{at}");
        }
        let mut longer = data.clone();
        longer.push(0);
        assert_ne!(checksum(&longer), whole);
    }
}
