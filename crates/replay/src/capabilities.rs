//! `forge-replay capabilities` and `context --capabilities`: where pi-forge's capability
//! projection meets the model catalog. The presentation follows the model's catalog flag
//! `compat.supportsMidConvoSystemMessages` ([`choose_presentation`]); a corrupt capability
//! history is an error `FILE:LINE: entry ID: <Forge's message>` ([`failure_prefix`]).
//! [`StatusReport`] is the status at a leaf, its JSON and its text; [`context_document`] the
//! capability-projected context.

use std::path::Path;

use forge_replay_capability::context::{
    apply_to_projection, status_inputs_at, CapabilityFailure, ContextError, Options,
};
use forge_replay_capability::discovery::Catalog as Library;
use forge_replay_capability::projection::Presentation;
use forge_replay_capability::status::{status_view_with_tools, StatusView};
use forge_replay_model::release::PiRelease;
use forge_replay_session::{Projection, Session};
use serde_json::{json, Value};

/// How the presentation was decided.
#[derive(Debug, Clone)]
pub struct PresentationChoice {
    pub presentation: Presentation,
    /// `provider/id` looked up, if any.
    pub model: Option<String>,
    /// Whether the model was found in the catalog.
    pub in_catalog: bool,
}

impl PresentationChoice {
    /// The line said after the status when the presentation fell back for want of a model.
    pub fn fallback_note(&self) -> Option<String> {
        match &self.model {
            Some(m) if !self.in_catalog => Some(format!(
                "(model {m} is not in the catalog: presentation falls back to user updates)"
            )),
            None => Some(
                "(no model on this branch and no --model: presentation falls back to user updates)"
                    .to_owned(),
            ),
            _ => None,
        }
    }
}

/// Native iff the model's catalog entry has `compat.supportsMidConvoSystemMessages === true`.
pub fn choose_presentation(release: PiRelease, model: Option<(&str, &str)>) -> PresentationChoice {
    let Some((provider, id)) = model else {
        return PresentationChoice {
            presentation: Presentation::Fallback,
            model: None,
            in_catalog: false,
        };
    };
    let catalog = forge_replay_wire::Catalog::builtin(release);
    let found = catalog.get(catalog.provider_name(provider), id);
    PresentationChoice {
        presentation: Presentation::from_native(
            found.is_some_and(|m| m.compat_true("supportsMidConvoSystemMessages")),
        ),
        model: Some(format!("{provider}/{id}")),
        in_catalog: found.is_some(),
    }
}

/// `FILE:LINE: entry ID: ` for a capability failure's location.
pub fn failure_prefix(path: &Path, f: &CapabilityFailure) -> String {
    match &f.location {
        Some(l) => match (l.line, &l.entry_id) {
            (Some(line), Some(id)) => format!("{}:{line}: entry {id}: ", path.display()),
            (Some(line), None) => format!("{}:{line}: ", path.display()),
            _ => format!("{}: ", path.display()),
        },
        None => format!("{}: ", path.display()),
    }
}

/// Why the capability context document cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum CapabilityDocumentError {
    /// A corrupt capability history: `FILE:LINE: entry ID: <Forge's message>`.
    #[error("{prefix}{message}")]
    Capability { prefix: String, message: String },
    #[error(transparent)]
    Context(ContextError),
}

/// `forge-replay context --capabilities native|fallback`: the `{"leafId", "messages"}` document
/// with pi-forge's capability projection applied to Pi's `projection` (anchors against
/// `projection.entries`), then `convertToLlm` when `llm`. The capability library is not needed:
/// snapshots in the session are immutable copies.
pub fn context_document(
    session: &Session,
    projection: &Projection,
    presentation: Presentation,
    llm: bool,
) -> Result<Value, CapabilityDocumentError> {
    let ctx = apply_to_projection(session, projection, Options::new(presentation)).map_err(
        |e| match e {
            ContextError::Capability(f) => CapabilityDocumentError::Capability {
                prefix: failure_prefix(session.path(), &f),
                message: f.message,
            },
            other => CapabilityDocumentError::Context(other),
        },
    )?;
    let messages = if llm {
        forge_replay_session::llm::convert_to_llm(&ctx.messages)
    } else {
        ctx.messages
    };
    Ok(json!({"leafId": projection.leaf_id, "messages": messages}))
}

/// `forge-replay capabilities`: the state `/capability status` shows at a leaf, how it is
/// presented, and the capability library found (`--project`), if looked for.
#[derive(Debug)]
pub struct StatusReport {
    pub view: StatusView,
    pub choice: PresentationChoice,
    pub library: Option<Library>,
}

/// Why the status at a leaf cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    /// A corrupt capability history: `FILE:LINE: entry ID: <Forge's message>`.
    #[error("{prefix}{message}")]
    Capability { prefix: String, message: String },
    /// Pi's own projection failed: its error, naming the file and line.
    #[error(transparent)]
    Session(#[from] forge_replay_session::ProjectError),
}

impl StatusReport {
    /// The status at `leaf`, presented as the catalog of `release` decides for `model` (the one
    /// asked for, else the session's current model at the leaf: Pi's projection `model`). The
    /// history and the declared tools are read one entry at a time.
    pub fn at(
        session: &Session,
        leaf: Option<usize>,
        release: PiRelease,
        model: Option<(&str, &str)>,
    ) -> Result<StatusReport, StatusError> {
        let plan_model = session.plan(leaf).model().clone();
        let recorded = match (plan_model.get("provider"), plan_model.get("modelId")) {
            (Some(Value::String(p)), Some(Value::String(i))) => Some((p.as_str(), i.as_str())),
            _ => None,
        };
        let model = model.or(recorded);
        let choice = choose_presentation(release, model);
        let ctx = status_inputs_at(session, leaf, Options::new(choice.presentation)).map_err(
            |e| match e {
                ContextError::Capability(f) => StatusError::Capability {
                    prefix: failure_prefix(session.path(), &f),
                    message: f.message,
                },
                ContextError::Session(e) => StatusError::Session(e),
            },
        )?;
        let view = status_view_with_tools(
            session,
            leaf,
            &ctx.history,
            ctx.transcript_tools,
            choice.presentation,
            model,
        );
        Ok(StatusReport {
            view,
            choice,
            library: None,
        })
    }

    /// The status document, with the model looked up and the library (when looked for).
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        let mut doc = serde_json::to_value(&self.view)?;
        doc["model"] = json!(self.choice.model);
        doc["modelInCatalog"] = json!(self.choice.in_catalog);
        if let Some(lib) = &self.library {
            doc["library"] = library_json(lib);
        }
        Ok(doc)
    }

    /// The status as text, the fallback note, then the library (when looked for).
    pub fn to_text(&self) -> String {
        let mut text = self.view.to_text();
        if let Some(note) = self.choice.fallback_note() {
            text.push_str(&note);
            text.push('\n');
        }
        if let Some(lib) = &self.library {
            text.push_str(&library_text(lib));
        }
        text
    }
}

/// A discovered capability library as JSON rows: key, name, usable, diagnostics, path.
pub fn library_json(lib: &Library) -> Value {
    Value::Array(
        lib.entries
            .iter()
            .map(|c| {
                json!({
                    "key": c.key.to_string(),
                    "name": c.capability.name,
                    "usable": c.is_usable(),
                    "diagnostics": c.diagnostics,
                    "path": c.path.display().to_string(),
                })
            })
            .collect(),
    )
}

/// A discovered capability library as text: one line per capability (`key — name [invalid: …]`).
pub fn library_text(lib: &Library) -> String {
    let mut out = String::new();
    if lib.entries.is_empty() {
        out.push_str("No capabilities. Place JSON in .pi/forge/capabilities/ or ~/.pi/forge/capabilities/.\n");
    }
    for c in &lib.entries {
        let mut line = c.key.to_string();
        if let Some(n) = &c.capability.name {
            line.push_str(&format!(" — {n}"));
        }
        if !c.is_usable() {
            let errs: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
            line.push_str(&format!(" [invalid: {}]", errs.join("; ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_model_or_an_unknown_one_falls_back() {
        let none = choose_presentation(PiRelease::DEFAULT, None);
        assert_eq!(none.presentation, Presentation::Fallback);
        assert!(none.fallback_note().unwrap().contains("no model"));
        let unknown = choose_presentation(PiRelease::DEFAULT, Some(("nobody", "no-such-model")));
        assert_eq!(unknown.presentation, Presentation::Fallback);
        assert!(!unknown.in_catalog);
        assert!(unknown
            .fallback_note()
            .unwrap()
            .contains("nobody/no-such-model is not in the catalog"));
    }

    #[test]
    fn status_report_without_capabilities_or_model_falls_back() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n"
        );
        let (session, _) = Session::from_reader(text.as_bytes(), Path::new("s.jsonl")).unwrap();
        let leaf = session.resolve_leaf(None).unwrap();
        let mut report = StatusReport::at(&session, leaf, PiRelease::DEFAULT, None).unwrap();
        assert_eq!(report.view.presentation, Presentation::Fallback);
        assert!(report.to_text().contains("no model on this branch"));
        let doc = report.to_json().unwrap();
        assert_eq!(
            (&doc["model"], &doc["modelInCatalog"]),
            (&Value::Null, &json!(false))
        );
        assert!(doc.get("library").is_none());
        report.library = Some(Library::default());
        assert!(report.to_text().ends_with("~/.pi/forge/capabilities/.\n"));
        assert_eq!(report.to_json().unwrap()["library"], json!([]));
    }

    #[test]
    fn an_empty_library_says_where_capabilities_go() {
        let lib = Library::default();
        assert!(library_text(&lib).starts_with("No capabilities."));
        assert_eq!(library_json(&lib), json!([]));
    }
}
