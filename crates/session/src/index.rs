//! The compact per-entry index a [`Session`](crate::Session) keeps instead of the entries' text.
//!
//! Reading a file builds, in one streaming pass, one [`Rec`] per entry (about 48 bytes: where the
//! line is, a hash of its bytes, its type, role, flags and interned id/parent keys). The entries'
//! text stays in the file: an entry is re-read by offset when a projection needs it
//! ([`Source::read`]), and a line whose bytes no longer hash to what was read is an error (the
//! file changed between the two reads). Ids and parent ids are interned once in an [`Interner`]
//! (one string arena and an open-addressing table of `u32` handles), so the tree and every lookup
//! work on integers.

use std::borrow::Cow;
use std::fs::File;

use serde_json::Value;

use crate::head::Fields;

/// "No value" for the `u32` handles of a [`Rec`].
pub(crate) const NONE: u32 = u32::MAX;

/// An id slot of a [`Rec`]: the key is absent, JSON `null`, or an interned key.
pub(crate) const SLOT_ABSENT: u32 = 0;
pub(crate) const SLOT_NULL: u32 = 1;
/// First interned slot: `slot - SLOT_KEY` is the [`Interner`] handle.
pub(crate) const SLOT_KEY: u32 = 2;

/// [`Rec::flags`] bits.
pub(crate) mod flag {
    /// The line's JSON is an object.
    pub const OBJECT: u16 = 1;
    /// `summary` is truthy.
    pub const SUMMARY_TRUTHY: u16 = 1 << 1;
    /// `systemMessage` is truthy.
    pub const SYSTEM_MESSAGE_TRUTHY: u16 = 1 << 2;
    /// `replacement` is present and `null`.
    pub const REPLACEMENT_NULL: u16 = 1 << 3;
    /// `replacement` is present.
    pub const HAS_REPLACEMENT: u16 = 1 << 4;
    /// The id is a string (otherwise its key is `"\0" + JSON.stringify(id)`).
    pub const ID_STRING: u16 = 1 << 5;
    /// The parent id is a string.
    pub const PARENT_STRING: u16 = 1 << 6;
    /// Two bits: the shape of `message` ([`crate::head::MessageShape`] as 0..=3).
    pub const SHAPE_SHIFT: u16 = 7;
    pub const SHAPE_MASK: u16 = 3 << SHAPE_SHIFT;
}

/// One entry of the index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rec {
    /// Byte offset of the line in the [`Source`].
    pub offset: u64,
    /// Length of the line in bytes, without its `\n`.
    pub len: u32,
    /// [`line_hash`] of the line's bytes (file sources only).
    pub hash: u32,
    /// 1-based line number.
    pub line: u32,
    /// Position among the lines Pi parses (header = 0); used by the v1 migration.
    pub ordinal: u32,
    /// Id slot ([`SLOT_ABSENT`], [`SLOT_NULL`] or [`SLOT_KEY`] + key).
    pub id: u32,
    /// Parent id slot.
    pub parent: u32,
    /// Index into the session's entry types.
    pub ty: u32,
    /// `message.role` when it is a string: a handle into the session's roles, or [`NONE`].
    pub role: u32,
    /// Index into the session's [`Extra`]s, or [`NONE`].
    pub extra: u32,
    pub flags: u16,
}

/// What only some entries have: an assistant message's `provider`/`model`, the fields of the
/// rarer entry types. Entries with the same values share one (most assistant messages of a
/// session name the same model).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Extra {
    pub provider: Option<Value>,
    pub model: Option<Value>,
    pub fields: Option<Box<Fields>>,
    /// An `id` that is neither a string nor `null`, as read (its key is `"\0" + JSON`).
    pub odd_id: Option<Value>,
    /// A `parentId` that is neither a string nor `null`, as read.
    pub odd_parent: Option<Value>,
}

/// A fast non-cryptographic hash (word at a time), for the interner and line checks.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 32)
}

/// The hash a [`Rec`] keeps of its line's bytes.
pub(crate) fn line_hash(bytes: &[u8]) -> u32 {
    hash_bytes(bytes) as u32
}

/// Interned strings: `u32` handles into one arena.
#[derive(Debug, Clone, Default)]
pub(crate) struct Interner {
    text: String,
    /// `ends[k]`: end of key `k` in `text` (it starts at `ends[k - 1]`, or 0).
    ends: Vec<u32>,
    /// Open addressing, linear probing: 0 = empty, else handle + 1.
    table: Vec<u32>,
}

/// The arena of an [`Interner`] outgrew its `u32` offsets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArenaFull;

impl Interner {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The string of handle `k`.
    pub fn get(&self, k: u32) -> &str {
        let k = k as usize;
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.text[start..self.ends[k] as usize]
    }

    fn slot(&self, s: &str) -> (usize, Option<u32>) {
        let mask = self.table.len() - 1;
        let mut at = hash_bytes(s.as_bytes()) as usize & mask;
        loop {
            match self.table[at] {
                0 => return (at, None),
                h if self.get(h - 1) == s => return (at, Some(h - 1)),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The handle of `s`, if interned.
    pub fn find(&self, s: &str) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        self.slot(s).1
    }

    /// The handle of `s`, interning it when new.
    pub fn intern(&mut self, s: &str) -> Result<u32, ArenaFull> {
        if self.table.is_empty() {
            self.table = vec![0; 64];
        }
        let (at, found) = self.slot(s);
        if let Some(k) = found {
            return Ok(k);
        }
        let end = u32::try_from(self.text.len() + s.len()).map_err(|_| ArenaFull)?;
        let k = u32::try_from(self.ends.len()).map_err(|_| ArenaFull)?;
        if k == NONE - 1 {
            return Err(ArenaFull);
        }
        self.text.push_str(s);
        self.ends.push(end);
        self.table[at] = k + 1;
        if self.ends.len() * 2 > self.table.len() {
            self.grow();
        }
        Ok(k)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let mask = size - 1;
        let mut table = vec![0u32; size];
        for k in 0..self.ends.len() as u32 {
            let mut at = hash_bytes(self.get(k).as_bytes()) as usize & mask;
            while table[at] != 0 {
                at = (at + 1) & mask;
            }
            table[at] = k + 1;
        }
        self.table = table;
    }

    /// Releases spare capacity once reading is done.
    pub fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// Where the entries' text lives.
#[derive(Debug)]
pub(crate) enum Source {
    /// A regular file, re-read by offset (the index keeps each line's length and hash).
    File(File),
    /// Text held in memory: sessions read from a reader, and migrated sessions (whose entries
    /// are re-serialized).
    Memory(String),
}

/// Why an entry's text could not be read again.
#[derive(Debug)]
pub(crate) enum RereadError {
    Io(std::io::Error),
    /// The bytes at the entry's offset are not the ones read when the session was opened.
    Changed,
}

impl Source {
    /// The text of the entry `rec` (decoded as when it was first read).
    pub fn read(&self, rec: &Rec) -> Result<Cow<'_, str>, RereadError> {
        match self {
            Source::Memory(text) => {
                let start = rec.offset as usize;
                Ok(Cow::Borrowed(&text[start..start + rec.len as usize]))
            }
            Source::File(file) => {
                let mut buf = vec![0u8; rec.len as usize];
                read_at(file, &mut buf, rec.offset).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        RereadError::Changed
                    } else {
                        RereadError::Io(e)
                    }
                })?;
                if line_hash(&buf) != rec.hash {
                    return Err(RereadError::Changed);
                }
                Ok(Cow::Owned(match String::from_utf8(buf) {
                    Ok(s) => s,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                }))
            }
        }
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interner_round_trips_and_grows() {
        let mut i = Interner::default();
        let keys: Vec<String> = (0..5000).map(|n| format!("{n:08x}")).collect();
        let handles: Vec<u32> = keys.iter().map(|k| i.intern(k).unwrap()).collect();
        for (k, h) in keys.iter().zip(&handles) {
            assert_eq!(i.get(*h), k);
            assert_eq!(i.find(k), Some(*h));
            assert_eq!(i.intern(k).unwrap(), *h);
        }
        assert_eq!(i.find("nope"), None);
        assert_eq!(i.intern("").unwrap(), 5000);
        assert_eq!(i.get(5000), "");
    }

    #[test]
    fn hash_sees_every_byte() {
        let a = b"{\"type\":\"message\",\"id\":\"00000001\"}";
        let mut b = *a;
        for k in 0..a.len() {
            b[k] ^= 1;
            assert_ne!(line_hash(a), line_hash(&b), "byte {k}");
            b[k] ^= 1;
        }
    }
}
