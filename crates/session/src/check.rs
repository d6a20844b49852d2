//! Per-entry structural checks (fields Pi relies on without validating them).

use forge_replay_model::session::EntryType;
use serde_json::Value;

use crate::diag::{code, Diagnostic, Severity};
use crate::head::MessageShape;
use crate::session::Session;

pub(crate) fn entry_checks(s: &Session) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    let tree = s.tree();
    // Compactions whose `firstKeptEntryId` must be looked for on their path: resolved in one
    // pass below instead of one walk per compaction.
    let mut first_kept: Vec<(usize, usize)> = Vec::new();
    for e in s.entries() {
        let i = e.index();
        if !e.is_object() {
            continue;
        }
        let line = Some(e.line());
        match e.entry_type() {
            EntryType::Message => match e.message_shape() {
                MessageShape::Missing | MessageShape::Null => d.push(Diagnostic::new(
                    Severity::Error,
                    code::BAD_FIELD,
                    line,
                    "message entry without a `message` object; Pi throws when it projects this path",
                )),
                MessageShape::NotObject => d.push(Diagnostic::new(
                    Severity::Warning,
                    code::BAD_FIELD,
                    line,
                    "`message` is not an object; it is passed through as is",
                )),
                MessageShape::Object if e.role().is_none() => d.push(Diagnostic::new(
                    Severity::Warning,
                    code::BAD_FIELD,
                    line,
                    "message without a string `role`; convertToLlm drops it",
                )),
                MessageShape::Object => {}
            },
            EntryType::ContextEdit => {
                match e.target_id_value() {
                    Some(t) if tree.get_value(t).is_some() => {}
                    t => d.push(Diagnostic::new(
                        Severity::Warning,
                        code::DANGLING_TARGET,
                        line,
                        format!(
                            "context_edit targets {}, which is not an entry; it has no effect",
                            t.map_or("nothing".to_string(), forge_replay_model::json::stringify)
                        ),
                    )),
                }
                if !e.has_replacement() {
                    d.push(Diagnostic::new(
                        Severity::Error,
                        code::BAD_FIELD,
                        line,
                        "context_edit without `replacement`; Pi throws when it applies this edit",
                    ));
                }
            }
            EntryType::Label
                if e
                    .target_id_value()
                    .is_none_or(|t| tree.get_value(t).is_none()) =>
            {
                d.push(Diagnostic::new(
                    Severity::Info,
                    code::DANGLING_TARGET,
                    line,
                    "label targets an id that is not an entry",
                ));
            }
            EntryType::Compaction => {
                let own = e.id_value();
                match e.first_kept_entry_id_value() {
                    None => d.push(Diagnostic::new(
                        Severity::Warning,
                        code::BAD_FIELD,
                        line,
                        "compaction without `firstKeptEntryId`",
                    )),
                    Some(fk) if own.as_ref() == Some(fk) => {}
                    Some(_) => {
                        first_kept.push((i, d.len()));
                        d.push(Diagnostic::new(
                            Severity::Warning,
                            code::FIRST_KEPT_NOT_ON_PATH,
                            line,
                            String::new(),
                        ));
                    }
                }
            }
            EntryType::ModelChange
                if !matches!(e.provider_value(), Some(Value::String(_)))
                    || !matches!(e.model_id_value(), Some(Value::String(_))) =>
            {
                d.push(Diagnostic::new(
                    Severity::Warning,
                    code::BAD_FIELD,
                    line,
                    "model_change without string `provider` and `modelId`",
                ));
            }
            _ => {}
        }
    }
    let found = crate::tree::ancestors_with_ids(s, &first_kept);
    let mut keep = vec![true; d.len()];
    for (&(i, at), found) in first_kept.iter().zip(found) {
        if found {
            keep[at] = false;
            continue;
        }
        let fk = s.entry(i).first_kept_entry_id_value().cloned();
        d[at].message = format!(
            "firstKeptEntryId {} is not on this compaction's path; no earlier entry is kept",
            forge_replay_model::json::stringify(&fk.unwrap_or_default())
        );
    }
    let mut k = keep.into_iter();
    d.retain(|_| k.next().unwrap_or(true));
    d
}
