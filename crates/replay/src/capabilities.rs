//! `forge-replay capabilities` and `context --capabilities`: where pi-forge's capability
//! projection meets the model catalog. The presentation follows the model's catalog flag
//! `compat.supportsMidConvoSystemMessages` ([`choose_presentation`]); a corrupt capability
//! history is an error `FILE:LINE: entry ID: <Forge's message>` ([`failure_prefix`]).

use std::path::Path;

use forge_replay_capability::context::{
    apply_to_projection, CapabilityFailure, ContextError, Options,
};
use forge_replay_capability::discovery::Catalog as Library;
use forge_replay_capability::projection::Presentation;
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
    fn an_empty_library_says_where_capabilities_go() {
        let lib = Library::default();
        assert!(library_text(&lib).starts_with("No capabilities."));
        assert_eq!(library_json(&lib), json!([]));
    }
}
