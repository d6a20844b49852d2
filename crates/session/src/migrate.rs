//! In-memory migration of version 1 and 2 sessions, as Pi's `migrateToCurrentVersion` does.
//!
//! * v1 → v2: every entry gets an `id` and a `parentId` chaining it to the previous entry, and a
//!   compaction's `firstKeptEntryIndex` (an index into the file's parsed lines, header = 0)
//!   becomes `firstKeptEntryId`. Pi draws random ids; we number them `00000001`, `00000002`, …
//!   so output is deterministic.
//! * v2 → v3: message role `hookMessage` becomes `custom`.
//!
//! Migrated entries are re-serialized with `JSON.stringify` semantics (what Pi writes back).

use forge_replay_model::json;
use forge_replay_model::session::EntryType;
use serde_json::Value;

use crate::diag::{code, Diagnostic, Severity};
use crate::head::{self, Parsed};
use crate::index::{flag, ArenaFull, Rec, SLOT_ABSENT, SLOT_KEY, SLOT_NULL};
use crate::reader::IndexBuilder;
use crate::session::Header;

/// `header.version ?? 1`, as a number (NaN when it is not a number).
fn header_version(header: &Header) -> f64 {
    match header.value.get("version") {
        None | Some(Value::Null) => 1.0,
        Some(Value::Number(n)) => json::number_to_f64(n),
        Some(Value::String(s)) => {
            let t = forge_replay_model::js::trim(s);
            if t.is_empty() {
                0.0
            } else {
                t.parse().unwrap_or(f64::NAN)
            }
        }
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(_) => f64::NAN,
    }
}

/// Whether Pi would migrate a session with this header (`version < 3`).
pub(crate) fn needs_migration(header: &Header) -> bool {
    header_version(header) < 3.0
}

/// The entry's text in `text` (the session is held in memory when it is migrated).
fn text_of<'t>(text: &'t str, r: &Rec) -> &'t str {
    &text[r.offset as usize..r.offset as usize + r.len as usize]
}

/// The id an entry had before migration (`None` when absent).
fn original_id(index: &IndexBuilder, r: &Rec) -> Option<Value> {
    match r.id {
        SLOT_ABSENT => None,
        SLOT_NULL => Some(Value::Null),
        slot if r.flags & flag::ID_STRING != 0 => {
            Some(Value::String(index.keys.get(slot - SLOT_KEY).to_string()))
        }
        _ => index.extras[r.extra as usize].odd_id.clone(),
    }
}

pub(crate) fn migrate(
    header: &mut Header,
    entries: &mut [Rec],
    text: &mut String,
    index: &mut IndexBuilder,
    extra_header_ordinals: &[u32],
    diags: &mut Vec<Diagnostic>,
) -> Result<(), ArenaFull> {
    let version = header_version(header);
    // `version >= 3` (false for NaN: Pi then runs neither step but still calls it migrated).
    if version >= 3.0 || version.is_nan() {
        return Ok(());
    }
    let mut values: Vec<Option<Value>> = entries
        .iter()
        .map(|e| {
            if e.flags & flag::OBJECT != 0 {
                json::parse(text_of(text, e)).ok()
            } else {
                None
            }
        })
        .collect();
    if version < 2.0 {
        migrate_v1(entries, index, &mut values, extra_header_ordinals);
        set_version(header, 2);
    }
    if version < 3.0 {
        for v in values.iter_mut().flatten() {
            if v.get("type").and_then(Value::as_str) == Some("message") {
                if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
                    if m.get("role").and_then(Value::as_str) == Some("hookMessage") {
                        m.insert("role".into(), Value::from("custom"));
                    }
                }
            }
        }
        set_version(header, 3);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (e, v) in entries.iter_mut().zip(values) {
        let re_scanned = v.and_then(|v| {
            let t = json::stringify(&v);
            match head::scan(&t) {
                Ok(Parsed::Object(h)) => Some((t, h)),
                _ => None,
            }
        });
        let offset = out.len() as u64;
        match re_scanned {
            Some((t, h)) => {
                out.push_str(&t);
                let len = u32::try_from(t.len()).map_err(|_| ArenaFull)?;
                let ty = h.entry_type();
                *e = index.rec(*h, true, &ty, e.line, e.ordinal, offset, len, 0)?;
            }
            None => {
                out.push_str(text_of(text, e));
                e.offset = offset;
            }
        }
    }
    *text = out;
    note(header, version, diags);
    Ok(())
}

fn note(header: &Header, version: f64, diags: &mut Vec<Diagnostic>) {
    let from = json::format_f64(version);
    let ids = if version < 2.0 {
        " Pi assigns random 8-hex ids; forge-replay numbers them 00000001, 00000002, … instead."
    } else {
        ""
    };
    diags.push(Diagnostic::new(
        Severity::Info,
        code::MIGRATED,
        Some(header.line),
        format!(
            "session version {from} migrated to version 3 in memory (Pi would rewrite the file; forge-replay never writes).{ids}"
        ),
    ));
}

fn set_version(header: &mut Header, v: u32) {
    if let Some(obj) = header.value.as_object_mut() {
        obj.insert("version".into(), Value::from(v));
    }
    header.raw = json::stringify(&header.value).into();
}

fn migrate_v1(
    entries: &[Rec],
    index: &IndexBuilder,
    values: &mut [Option<Value>],
    extra_headers: &[u32],
) {
    // Ids given so far, by ordinal (Pi reads `targetEntry.id` at the time it reaches the compaction).
    let mut assigned: Vec<Option<String>> = vec![None; entries.len()];
    let mut prev: Value = Value::Null;
    let mut n = 0u32;
    let compaction = EntryType::Compaction;
    for i in 0..entries.len() {
        let Some(obj) = values[i].as_mut().and_then(Value::as_object_mut) else {
            continue;
        };
        n += 1;
        let id = format!("{n:08x}");
        obj.insert("id".into(), Value::from(id.clone()));
        obj.insert("parentId".into(), prev.clone());
        prev = Value::from(id.clone());
        assigned[i] = Some(id);
        if index.types[entries[i].ty as usize] != compaction {
            continue;
        }
        let Some(index_value) = obj.get("firstKeptEntryIndex").and_then(Value::as_f64) else {
            continue;
        };
        // `entries[index]` over Pi's parsed lines (header = 0, extra headers included).
        let target = if index_value >= 0.0 && index_value.fract() == 0.0 {
            let ord = index_value as u32;
            if ord == 0 || extra_headers.contains(&ord) {
                None
            } else {
                entries.binary_search_by_key(&ord, |e| e.ordinal).ok()
            }
        } else {
            None
        };
        if let Some(t) = target {
            let id = if t <= i {
                assigned[t].clone().map(Value::from)
            } else {
                original_id(index, &entries[t])
            };
            match id {
                Some(id) => {
                    obj.insert("firstKeptEntryId".into(), id);
                }
                // `comp.firstKeptEntryId = undefined`: the key is dropped by JSON.stringify.
                None => {
                    obj.shift_remove("firstKeptEntryId");
                }
            }
        }
        obj.shift_remove("firstKeptEntryIndex");
    }
}
