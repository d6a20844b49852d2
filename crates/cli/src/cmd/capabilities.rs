//! `forge-replay capabilities <SESSION> [--leaf ID] [--format text|json] [--model provider/id]
//! [--project DIR]`: the state `/capability status` shows at a leaf — active activations (id,
//! source, actor, name, fingerprint, tool patch), effective tools, delivery state
//! (none/pending/prepared) and presentation (native system sections or attributed user
//! updates).
//!
//! Presentation follows the model's catalog flag `compat.supportsMidConvoSystemMessages`: the
//! `--model` given, else the session's current model at the leaf (Pi's projection `model`). A
//! corrupt capability history exits 2 with Forge's error text and the entry's line.

use anyhow::Context as _;
use forge_replay_capability::context::{
    apply_to_projection, status_inputs_at, CapabilityFailure, ContextError, Options,
};
use forge_replay_capability::discovery::{Catalog, Roots};
use forge_replay_capability::projection::Presentation;
use forge_replay_capability::status::status_view_with_tools;
use forge_replay_model::json;
use forge_replay_session::{Projection, Session};
use serde_json::{json, Value};

use crate::args::{CapabilitiesArgs, Format, TextOrJson};
use crate::out::{self, outln, Out};
use crate::Exit;

/// How the presentation was decided.
#[derive(Debug, Clone)]
pub struct PresentationChoice {
    pub presentation: Presentation,
    /// `provider/id` looked up, if any.
    pub model: Option<String>,
    /// Whether the model was found in the catalog.
    pub in_catalog: bool,
}

/// Native iff the model's catalog entry has `compat.supportsMidConvoSystemMessages === true`.
pub fn choose_presentation(
    release: forge_replay_model::release::PiRelease,
    model: Option<(&str, &str)>,
) -> PresentationChoice {
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
fn failure_prefix(path: &std::path::Path, f: &CapabilityFailure) -> String {
    match &f.location {
        Some(l) => match (l.line, &l.entry_id) {
            (Some(line), Some(id)) => format!("{}:{line}: entry {id}: ", path.display()),
            (Some(line), None) => format!("{}:{line}: ", path.display()),
            _ => format!("{}: ", path.display()),
        },
        None => format!("{}: ", path.display()),
    }
}

/// Prints a capability failure (`forge-replay: error: FILE:LINE: entry ID: <Forge's text>`) and
/// returns exit 2.
pub fn report_failure(path: &std::path::Path, e: &ContextError) -> anyhow::Result<Exit> {
    match e {
        ContextError::Capability(f) => {
            out::error!("{}{}", failure_prefix(path, f), f.message);
            Ok(Exit::BadInput)
        }
        ContextError::Session(_) => Err(anyhow::anyhow!("{e:#}")),
    }
}

/// `forge-replay context --capabilities native|fallback`: the `{"leafId", "messages"}` document
/// with pi-forge's capability projection applied to Pi's `projection` (then `convertToLlm` when
/// `llm`). A corrupt capability history is an error whose text is
/// `FILE:LINE: entry ID: <Forge's message>`.
///
/// The capability library is not needed: snapshots in the session are immutable copies.
pub fn context_document(
    session: &Session,
    projection: &Projection,
    presentation: crate::args::Presentation,
    llm: bool,
) -> anyhow::Result<Value> {
    let presentation = match presentation {
        crate::args::Presentation::Native => Presentation::Native,
        crate::args::Presentation::Fallback => Presentation::Fallback,
    };
    let ctx = apply_to_projection(session, projection, Options::new(presentation)).map_err(
        |e| match e {
            ContextError::Capability(f) => {
                anyhow::anyhow!("{}{}", failure_prefix(session.path(), &f), f.message)
            }
            other => anyhow::Error::new(other),
        },
    )?;
    let messages = if llm {
        forge_replay_session::llm::convert_to_llm(&ctx.messages)
    } else {
        ctx.messages
    };
    Ok(json!({"leafId": projection.leaf_id, "messages": messages}))
}

pub fn run(args: CapabilitiesArgs) -> anyhow::Result<Exit> {
    let (session, _diags) = Session::open(&args.session)
        .map_err(|e| anyhow::anyhow!("{}", crate::cmd::error_chain(&e)))?;
    let leaf = session
        .resolve_leaf(args.leaf.leaf.as_deref())
        .with_context(|| format!("{}: cannot select the leaf", args.session.display()))?;
    let release = args.pi.for_session(&session)?;
    // Pi's current model, from the plan of the projection (no message is built).
    let pi_model = session.plan(leaf).model().clone();
    let model_arg = match &args.model {
        Some(m) => Some(
            m.split_once('/')
                .map(|(p, i)| (p.to_string(), i.to_string()))
                .with_context(|| format!("--model {m}: expected provider/id"))?,
        ),
        None => match (pi_model.get("provider"), pi_model.get("modelId")) {
            (Some(Value::String(p)), Some(Value::String(i))) => Some((p.clone(), i.clone())),
            _ => None,
        },
    };
    let choice = choose_presentation(
        release,
        model_arg.as_ref().map(|(p, i)| (p.as_str(), i.as_str())),
    );
    // The history and the declared tools, reading the messages one entry at a time.
    let ctx = match status_inputs_at(&session, leaf, Options::new(choice.presentation)) {
        Ok(c) => c,
        // Pi's own projection failed: its error, naming the file and line.
        Err(ContextError::Session(e)) => return Err(e.into()),
        Err(e) => return report_failure(&args.session, &e),
    };
    let view = status_view_with_tools(
        &session,
        leaf,
        &ctx.history,
        ctx.transcript_tools,
        choice.presentation,
        model_arg.as_ref().map(|(p, i)| (p.as_str(), i.as_str())),
    );
    let library = match &args.project {
        Some(p) => Some(Catalog::discover(&Roots {
            project: Some(p.clone()),
            global: Roots::default_global(),
        })?),
        None => None,
    };
    let mut out = Out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let mut doc = serde_json::to_value(&view)?;
            doc["model"] = json!(choice.model);
            doc["modelInCatalog"] = json!(choice.in_catalog);
            if let Some(lib) = &library {
                doc["library"] = Value::Array(
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
                );
            }
            out.json(&(json::stringify_pretty(&doc) + "\n"))?;
        }
        TextOrJson::Text => {
            out.text(&view.to_text())?;
            match &choice.model {
                Some(m) if !choice.in_catalog => outln!(
                    out,
                    "(model {m} is not in the catalog: presentation falls back to user updates)"
                )?,
                None => outln!(
                    out,
                    "(no model on this branch and no --model: presentation falls back to user updates)"
                )?,
                _ => {}
            }
            if let Some(lib) = &library {
                if lib.entries.is_empty() {
                    outln!(out, "No capabilities. Place JSON in .pi/forge/capabilities/ or ~/.pi/forge/capabilities/.")?;
                }
                for c in &lib.entries {
                    let mut line = c.key.to_string();
                    if let Some(n) = &c.capability.name {
                        line.push_str(&format!(" — {n}"));
                    }
                    if !c.is_usable() {
                        let errs: Vec<&str> =
                            c.diagnostics.iter().map(|d| d.message.as_str()).collect();
                        line.push_str(&format!(" [invalid: {}]", errs.join("; ")));
                    }
                    outln!(out, "{line}")?;
                }
            }
        }
    }
    out.flush()?;
    Ok(Exit::Ok)
}
