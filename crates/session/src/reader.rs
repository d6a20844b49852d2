//! Streaming reader: one line at a time, as Pi's `loadEntriesFromFile` reads a session.
//!
//! What Pi does, and what we do:
//! * The file is decoded as UTF-8 with U+FFFD for bad bytes (Node's `StringDecoder`) and split on
//!   `\n`. Blank lines (JavaScript `trim()`) and lines `JSON.parse` rejects are skipped; so are
//!   lines whose JSON is falsy (`null`, `false`, `0`, `""`). We do the same and report each one.
//! * The first kept value must be `{"type":"session","id":<string>,...}`; otherwise the file is
//!   not a session. An empty file is not one either (Pi would start a new session in it).
//! * Older versions are migrated in memory (`migrateToCurrentVersion`). Pi then rewrites the file;
//!   we never write. A header version above 3, or pi-agent-core's v4 header (`kind: "header"`),
//!   is an unsupported-version error.
//! * When the last line has no newline, Pi appends one to the file. We only report it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use forge_replay_model::js;
use forge_replay_model::json;
use forge_replay_model::session::{check_header, EntryType, HeaderProblem};
use rayon::prelude::*;
use serde_json::Value;

use crate::diag::{code, Diagnostic, Severity};
use crate::error::ReadError;
use crate::head::{self, key_bit, Head, MessageShape, Parsed, MESSAGE_KEYS, TOP_KEYS};
use crate::index::{
    flag, line_hash, ArenaFull, Extra, Interner, Rec, Source, NONE, SLOT_ABSENT, SLOT_KEY,
    SLOT_NULL,
};
use crate::session::{Header, Parts, Session};

const READ_BUFFER: usize = 1 << 20;

pub(crate) fn open(path: &Path) -> Result<(Session, Vec<Diagnostic>), ReadError> {
    let error = |source: std::io::Error| {
        let path = path.to_path_buf();
        match source.kind() {
            std::io::ErrorKind::NotFound => ReadError::NotFound { path },
            _ if crate::input::is_refusal(&source) => ReadError::NotRegular {
                path,
                what: source.to_string(),
            },
            _ => ReadError::Io { path, source },
        }
    };
    // Refused before opening: a FIFO, socket or device (opening a FIFO blocks).
    if crate::input::check(path).map_err(error)?.is_dir() {
        return Err(ReadError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let file = crate::input::open(path).map_err(error)?;
    let reread = file.try_clone().map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read(
        BufReader::with_capacity(READ_BUFFER, file),
        path,
        Some(reread),
    )
}

/// Per-type unknown-field tally: the first line and the count.
type UnknownTally = HashMap<(String, String), (u64, u64)>;

/// One physical line, decoded.
struct LineRec {
    line_no: u64,
    /// Byte offset of the line in the input.
    offset: u64,
    /// [`line_hash`] of its bytes (without the `\n`).
    hash: u32,
    /// Its length in bytes (without the `\n`; the decoded text may differ).
    raw_len: usize,
    had_newline: bool,
    text: Box<str>,
    lossy: bool,
    blank: bool,
}

/// Lines are read in batches of about this many bytes; each batch is scanned on all cores.
const BATCH_BYTES: usize = 4 << 20;

/// The index being built: interned keys, types, roles and the shared [`Extra`]s.
pub(crate) struct IndexBuilder {
    pub keys: Interner,
    pub types: Vec<EntryType>,
    type_map: HashMap<String, u32>,
    pub roles: Interner,
    pub extras: Vec<Extra>,
    /// Extras without per-entry fields, by `(provider, model)` JSON.
    shared: HashMap<(Option<String>, Option<String>), u32>,
}

impl IndexBuilder {
    pub fn new() -> Self {
        IndexBuilder {
            keys: Interner::default(),
            types: Vec::new(),
            type_map: HashMap::new(),
            roles: Interner::default(),
            extras: Vec::new(),
            shared: HashMap::new(),
        }
    }

    fn type_index(&mut self, t: &EntryType) -> u32 {
        let name = match t {
            EntryType::Missing => "\u{0}missing",
            other => other.name(),
        };
        if let Some(&i) = self.type_map.get(name) {
            return i;
        }
        let i = self.types.len() as u32;
        self.types.push(t.clone());
        self.type_map.insert(name.to_string(), i);
        i
    }

    /// The slot and string flag of an id-like value, and the value itself when it is neither a
    /// string nor `null`.
    fn slot(&mut self, v: Option<&Value>) -> Result<(u32, bool, Option<Value>), ArenaFull> {
        Ok(match v {
            None => (SLOT_ABSENT, false, None),
            Some(Value::Null) => (SLOT_NULL, false, None),
            Some(Value::String(s)) => (SLOT_KEY + self.keys.intern(s)?, true, None),
            Some(other) => {
                let key = format!("\u{0}{}", json::stringify(other));
                (
                    SLOT_KEY + self.keys.intern(&key)?,
                    false,
                    Some(other.clone()),
                )
            }
        })
    }

    /// The index record of one entry.
    #[allow(clippy::too_many_arguments)]
    pub fn rec(
        &mut self,
        head: Head,
        is_object: bool,
        entry_type: &EntryType,
        line: u32,
        ordinal: u32,
        offset: u64,
        len: u32,
        hash: u32,
    ) -> Result<Rec, ArenaFull> {
        let (id, id_string, odd_id) = self.slot(head.id.as_ref())?;
        let (parent, parent_string, odd_parent) = self.slot(head.parent_id.as_ref())?;
        let mut flags = 0u16;
        let mut set = |on: bool, bit: u16| {
            if on {
                flags |= bit;
            }
        };
        set(is_object, flag::OBJECT);
        set(head.summary_truthy, flag::SUMMARY_TRUTHY);
        set(head.system_message_truthy, flag::SYSTEM_MESSAGE_TRUTHY);
        set(head.replacement_null, flag::REPLACEMENT_NULL);
        set(
            head.keys & key_bit(&TOP_KEYS, "replacement") != 0,
            flag::HAS_REPLACEMENT,
        );
        set(id_string, flag::ID_STRING);
        set(parent_string, flag::PARENT_STRING);
        let (role, shape, provider, model) = match head.message {
            None => (NONE, MessageShape::Missing, None, None),
            Some(m) => {
                let m = *m;
                let role = match &m.role {
                    Some(r) => self.roles.intern(r)?,
                    None => NONE,
                };
                if m.role.as_deref() == Some("assistant") {
                    (role, m.shape, m.provider, m.model)
                } else {
                    (role, m.shape, None, None)
                }
            }
        };
        let shape_bits: u16 = match shape {
            MessageShape::Missing => 0,
            MessageShape::Null => 1,
            MessageShape::NotObject => 2,
            MessageShape::Object => 3,
        };
        flags |= shape_bits << flag::SHAPE_SHIFT;
        let extra = Extra {
            provider,
            model,
            fields: head.fields,
            odd_id,
            odd_parent,
        };
        let extra = if extra == Extra::default() {
            NONE
        } else if extra.fields.is_none() && extra.odd_id.is_none() && extra.odd_parent.is_none() {
            let key = (
                extra.provider.as_ref().map(json::stringify),
                extra.model.as_ref().map(json::stringify),
            );
            match self.shared.get(&key) {
                Some(&i) => i,
                None => {
                    let i = self.push_extra(extra)?;
                    self.shared.insert(key, i);
                    i
                }
            }
        } else {
            self.push_extra(extra)?
        };
        Ok(Rec {
            offset,
            len,
            hash,
            line,
            ordinal,
            id,
            parent,
            ty: self.type_index(entry_type),
            role,
            extra,
            flags,
        })
    }

    fn push_extra(&mut self, extra: Extra) -> Result<u32, ArenaFull> {
        let i = u32::try_from(self.extras.len()).map_err(|_| ArenaFull)?;
        if i == NONE {
            return Err(ArenaFull);
        }
        self.extras.push(extra);
        Ok(i)
    }
}

/// Everything the sequential pass accumulates.
struct State<'p> {
    path: &'p Path,
    diags: Vec<Diagnostic>,
    header: Option<Header>,
    index: IndexBuilder,
    recs: Vec<Rec>,
    /// The entries' text, when it is kept in memory (no file to re-read, or a migration ahead).
    text: Option<String>,
    /// Whether the input is a file the entries can be read again from.
    from_file: bool,
    ordinal: u32,
    first_parse_failure: Option<(u64, String)>,
    unknown: UnknownTally,
    extra_header_ordinals: Vec<u32>,
}

pub(crate) fn read<R: BufRead>(
    mut reader: R,
    path: &Path,
    file: Option<File>,
) -> Result<(Session, Vec<Diagnostic>), ReadError> {
    let mut st = State {
        path,
        diags: Vec::new(),
        header: None,
        index: IndexBuilder::new(),
        recs: Vec::new(),
        text: file.is_none().then(String::new),
        from_file: file.is_some(),
        ordinal: 0,
        first_parse_failure: None,
        unknown: HashMap::new(),
        extra_header_ordinals: Vec::new(),
    };
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut line_no: u64 = 0;
    let mut total_bytes: u64 = 0;
    let mut batch: Vec<LineRec> = Vec::new();
    let mut batch_bytes = 0usize;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ReadError::Line {
                path: path.to_path_buf(),
                line: line_no + 1,
                source,
            })?;
        if n > 0 {
            let offset = total_bytes;
            total_bytes += n as u64;
            line_no += 1;
            let had_newline = buf.last() == Some(&b'\n');
            if had_newline {
                buf.pop();
            }
            let len = buf.len();
            let hash = if st.from_file { line_hash(&buf) } else { 0 };
            // One exact-size copy per line (moving the read buffer out fragments the heap).
            let (text, lossy): (Box<str>, bool) = match std::str::from_utf8(&buf) {
                Ok(t) => (t.into(), false),
                Err(_) => (String::from_utf8_lossy(&buf).into(), true),
            };
            let blank = js::trim(&text).is_empty();
            batch_bytes += len;
            batch.push(LineRec {
                line_no,
                offset,
                hash,
                raw_len: len,
                had_newline,
                text,
                lossy,
                blank,
            });
        }
        if n == 0 || batch_bytes >= BATCH_BYTES {
            let scanned: Vec<Option<Result<Parsed, json::ParseError>>> = if batch.len() > 1 {
                batch
                    .par_iter()
                    .map(|r| (!r.blank).then(|| head::scan(&r.text)))
                    .collect()
            } else {
                batch
                    .iter()
                    .map(|r| (!r.blank).then(|| head::scan(&r.text)))
                    .collect()
            };
            for (rec, parsed) in batch.drain(..).zip(scanned) {
                st.line(rec, parsed)?;
            }
            batch_bytes = 0;
        }
        if n == 0 {
            break;
        }
    }
    let State {
        mut diags,
        header,
        mut index,
        mut recs,
        text,
        first_parse_failure,
        unknown,
        extra_header_ordinals,
        ..
    } = st;

    let Some(mut header) = header else {
        return Err(if total_bytes == 0 {
            ReadError::Empty {
                path: path.to_path_buf(),
            }
        } else if let Some((line, cause)) = first_parse_failure {
            ReadError::NotASession {
                path: path.to_path_buf(),
                line: Some(line),
                cause: format!(
                    "no line is JSON (first failure: {cause}); binary or garbage content?"
                ),
            }
        } else {
            ReadError::NotASession {
                path: path.to_path_buf(),
                line: None,
                cause: "the file holds only blank or skipped lines".to_string(),
            }
        });
    };

    let mut sorted: Vec<_> = unknown.into_iter().collect();
    sorted.sort_by(|a, b| (a.1 .0, &a.0).cmp(&(b.1 .0, &b.0)));
    for ((ty, field), (line, count)) in sorted {
        let more = if count > 1 {
            format!(" ({count} entries)")
        } else {
            String::new()
        };
        diags.push(Diagnostic::new(
            Severity::Info,
            code::UNKNOWN_FIELD,
            Some(line),
            format!(
                "field `{field}` is not defined for {ty} in any supported Pi release ({}); kept{more}",
                forge_replay_model::release::PiRelease::supported_list()
            ),
        ));
    }

    let too_large = |what| ReadError::TooLarge {
        path: path.to_path_buf(),
        what,
    };
    let source = match (text, file) {
        (Some(mut text), _) => {
            crate::migrate::migrate(
                &mut header,
                &mut recs,
                &mut text,
                &mut index,
                &extra_header_ordinals,
                &mut diags,
            )
            .map_err(|ArenaFull| too_large("more than 4 GiB of ids"))?;
            text.shrink_to_fit();
            Source::Memory(text)
        }
        (None, Some(file)) => Source::File(file),
        (None, None) => Source::Memory(String::new()),
    };
    recs.shrink_to_fit();
    index.keys.shrink();
    index.roles.shrink();
    let IndexBuilder {
        keys,
        types,
        roles,
        extras,
        ..
    } = index;
    let (session, tree_diags) = Session::build(Parts {
        path: path.to_path_buf(),
        header,
        source,
        recs,
        keys,
        types,
        roles,
        extras,
    });
    diags.extend(tree_diags);
    diags.sort_by_key(|d| d.line.unwrap_or(0));
    Ok((session, diags))
}

impl State<'_> {
    /// The sequential part of reading one line (Pi's order: header first, then entries).
    fn line(
        &mut self,
        rec: LineRec,
        parsed: Option<Result<Parsed, json::ParseError>>,
    ) -> Result<(), ReadError> {
        let LineRec {
            line_no,
            offset,
            hash,
            raw_len,
            had_newline,
            text,
            lossy,
            blank: _,
        } = rec;
        let diags = &mut self.diags;
        if lossy {
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::INVALID_UTF8,
                Some(line_no),
                "invalid UTF-8; bytes decoded as U+FFFD, as Pi (Node) does",
            ));
        }
        let Some(parsed) = parsed else {
            if !had_newline && text.is_empty() {
                return Ok(());
            }
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::BLANK_LINE,
                Some(line_no),
                "blank line skipped, as Pi does",
            ));
            return Ok(());
        };
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                let (c, msg) = if !had_newline && e.eof {
                    (
                        code::TRUNCATED_LINE,
                        format!("truncated last line (no newline, JSON ends early: {e}; Pi probably stopped mid-write); skipped, as Pi does"),
                    )
                } else {
                    (
                        code::INVALID_JSON,
                        format!("line is not JSON ({e}); skipped, as Pi does"),
                    )
                };
                if self.first_parse_failure.is_none() {
                    self.first_parse_failure = Some((line_no, e.to_string()));
                }
                diags.push(Diagnostic::new(Severity::Warning, c, Some(line_no), msg));
                return Ok(());
            }
        };
        if !had_newline {
            diags.push(Diagnostic::new(
                Severity::Info,
                code::NO_FINAL_NEWLINE,
                Some(line_no),
                "last line has no final newline (Pi appends one when it loads the file; forge-replay never writes)",
            ));
        }
        let (head, is_object) = match parsed {
            Parsed::Falsy(what) => {
                diags.push(Diagnostic::new(
                    Severity::Warning,
                    code::FALSY_LINE,
                    Some(line_no),
                    format!("line is JSON {what}, which Pi skips"),
                ));
                return Ok(());
            }
            Parsed::Other(what) => {
                if self.header.is_some() {
                    diags.push(Diagnostic::new(
                        Severity::Warning,
                        code::NOT_AN_OBJECT,
                        Some(line_no),
                        format!(
                            "line is {what}, not an object; Pi keeps it as an entry without id"
                        ),
                    ));
                }
                (head::Head::default(), false)
            }
            Parsed::Object(h) => (*h, true),
        };
        let entry_type = head.entry_type();
        let this_ordinal = self.ordinal;
        self.ordinal += 1;

        if self.header.is_none() {
            let header = make_header(self.path, line_no, &text)?;
            // A session Pi migrates is re-serialized entry by entry: keep its text in memory.
            if self.text.is_none() && crate::migrate::needs_migration(&header) {
                self.text = Some(String::new());
            }
            self.header = Some(header);
            return Ok(());
        }
        if entry_type == EntryType::Session {
            self.extra_header_ordinals.push(this_ordinal);
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::EXTRA_HEADER,
                Some(line_no),
                "a second `session` header line; Pi leaves it out of the tree",
            ));
            return Ok(());
        }
        if is_object {
            tally_unknown(&mut self.unknown, &entry_type, &head, line_no, diags);
        }
        let too_large = |what| ReadError::TooLarge {
            path: self.path.to_path_buf(),
            what,
        };
        let line = u32::try_from(line_no).map_err(|_| too_large("more than 2^32 lines"))?;
        // In memory the decoded text is kept; a file line is re-read as bytes (and decoded
        // again the same way), so its length is the byte length.
        let (offset, len) = match &mut self.text {
            Some(t) => {
                let at = t.len() as u64;
                t.push_str(&text);
                (at, text.len())
            }
            None => (offset, raw_len),
        };
        let len = u32::try_from(len).map_err(|_| too_large("a line of 4 GiB or more"))?;
        let rec = self
            .index
            .rec(
                head,
                is_object,
                &entry_type,
                line,
                this_ordinal,
                offset,
                len,
                hash,
            )
            .map_err(|ArenaFull| too_large("more than 4 GiB of ids"))?;
        self.recs.push(rec);
        Ok(())
    }
}

fn make_header(path: &Path, line: u64, text: &str) -> Result<Header, ReadError> {
    // One definition of "a Pi session" for every reader (`forge_replay_model::session`).
    let value = json::parse(text).unwrap_or(Value::Null);
    check_header(&value, text).map_err(|problem| match problem {
        HeaderProblem::UnsupportedVersion { version } => ReadError::UnsupportedVersion {
            path: PathBuf::from(path),
            line,
            version,
        },
        other => ReadError::NotASession {
            path: PathBuf::from(path),
            line: Some(line),
            cause: other.to_string(),
        },
    })?;
    Ok(Header {
        line,
        raw: text.into(),
        value,
    })
}

/// Bit mask of the top-level keys Pi defines for an entry type (base fields included).
fn allowed_top(entry_type: &EntryType, known: &[&str]) -> u64 {
    static MASKS: std::sync::OnceLock<HashMap<&'static str, u64>> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        let mut m = HashMap::new();
        for name in EntryType::KNOWN {
            let ty = EntryType::from_name(name);
            let mut allowed = key_bit(&TOP_KEYS, "type")
                | key_bit(&TOP_KEYS, "id")
                | key_bit(&TOP_KEYS, "parentId")
                | key_bit(&TOP_KEYS, "timestamp");
            for f in ty.known_fields().unwrap_or_default() {
                allowed |= key_bit(&TOP_KEYS, f);
            }
            if ty == EntryType::Compaction {
                // The v1 field Pi's migration converts to `firstKeptEntryId`.
                allowed |= key_bit(&TOP_KEYS, "firstKeptEntryIndex");
            }
            m.insert(name, allowed);
        }
        m
    });
    masks
        .get(entry_type.name())
        .copied()
        .unwrap_or_else(|| known.iter().fold(0, |a, f| a | key_bit(&TOP_KEYS, f)))
}

/// Bit mask of the message keys Pi defines for a role (`None` for unknown roles).
fn allowed_message(role: &str) -> Option<u64> {
    static MASKS: std::sync::OnceLock<HashMap<&'static str, u64>> = std::sync::OnceLock::new();
    let masks = MASKS.get_or_init(|| {
        let roles = [
            "system",
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "branchSummary",
            "compactionSummary",
        ];
        roles
            .into_iter()
            .map(|r| {
                let fields =
                    forge_replay_model::session::known_message_fields(r).unwrap_or_default();
                (
                    r,
                    fields.iter().fold(0, |a, f| a | key_bit(&MESSAGE_KEYS, f)),
                )
            })
            .collect()
    });
    masks.get(role).copied()
}

fn tally_unknown(
    tally: &mut UnknownTally,
    entry_type: &EntryType,
    head: &head::Head,
    line: u64,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(known) = entry_type.known_fields() else {
        if let EntryType::Unknown(t) = entry_type {
            diags.push(Diagnostic::new(
                Severity::Info,
                code::UNKNOWN_TYPE,
                Some(line),
                format!(
                    "entry type {t:?} is not defined in Pi 0.87.1; kept, contributes no messages"
                ),
            ));
        } else {
            diags.push(Diagnostic::new(
                Severity::Warning,
                code::BAD_FIELD,
                Some(line),
                "entry has no string `type`; kept, contributes no messages",
            ));
        }
        return;
    };
    let mut note = |what: &str, field: &str| {
        let e = tally
            .entry((what.to_string(), field.to_string()))
            .or_insert((line, 0));
        e.1 += 1;
    };
    let extra = head.keys & !allowed_top(entry_type, known);
    if extra != 0 || !head.other_keys.is_empty() || head.fields().is_some_and(|f| f.v.is_some()) {
        let ty = entry_type.name();
        for (i, k) in TOP_KEYS.iter().enumerate() {
            if extra & (1 << i) != 0 {
                note(ty, k);
            }
        }
        for k in &head.other_keys {
            note(ty, k);
        }
        if head.fields().is_some_and(|f| f.v.is_some()) {
            note(ty, "v");
        }
    }
    if *entry_type != EntryType::Message {
        return;
    }
    let Some(m) = &head.message else { return };
    let Some(role) = m.role.as_deref() else {
        return;
    };
    match allowed_message(role) {
        Some(allowed) => {
            let extra = m.keys & !allowed;
            if extra == 0 && m.other_keys.is_empty() {
                return;
            }
            let what = format!("{role} messages");
            for (i, k) in MESSAGE_KEYS.iter().enumerate() {
                if extra & (1 << i) != 0 {
                    note(&what, k);
                }
            }
            for k in &m.other_keys {
                // Fields a later release writes are release markers (`crate::release`).
                if !crate::release::is_later_message_field(role, k) {
                    note(&what, k);
                }
            }
        }
        None if role != "hookMessage" => diags.push(Diagnostic::new(
            Severity::Info,
            code::UNKNOWN_ROLE,
            Some(line),
            format!(
                "message role {role:?} is not defined in Pi 0.87.1; kept (convertToLlm drops it)"
            ),
        )),
        None => {}
    }
}
