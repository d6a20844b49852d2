//! `forge-replay capabilities <SESSION> [--leaf ID] [--format text|json] [--model provider/id]
//! [--project DIR]`: the state `/capability status` shows at a leaf — active activations (id,
//! source, actor, name, fingerprint, tool patch), effective tools, delivery state
//! (none/pending/prepared) and presentation (native system sections or attributed user
//! updates).
//!
//! Presentation follows the model's catalog flag `compat.supportsMidConvoSystemMessages`: the
//! `--model` given, else the session's current model at the leaf (Pi's projection `model`). A
//! corrupt capability history exits 2 with Forge's error text and the entry's line. The status
//! is `forge_replay_capability::status`, the presentation and library views
//! `forge_replay_engine::capabilities`.

use anyhow::Context as _;
use forge_replay_capability::context::{status_inputs_at, ContextError, Options};
use forge_replay_capability::discovery::{Catalog, Roots};
use forge_replay_capability::projection::Presentation;
use forge_replay_capability::status::status_view_with_tools;
use forge_replay_engine::capabilities::{self as caps, choose_presentation, failure_prefix};
use forge_replay_model::json;
use forge_replay_session::{Projection, Session};
use serde_json::{json, Value};

use crate::args::{CapabilitiesArgs, Format, TextOrJson};
use crate::out::{self, Out};
use crate::Exit;

/// `context --capabilities`: the capability-projected `{"leafId", "messages"}` document.
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
    caps::context_document(session, projection, presentation, llm).map_err(|e| match e {
        caps::CapabilityDocumentError::Context(other) => anyhow::Error::new(other),
        e => anyhow::anyhow!("{e}"),
    })
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
    let model = model_arg.as_ref().map(|(p, i)| (p.as_str(), i.as_str()));
    let choice = choose_presentation(release, model);
    // The history and the declared tools, reading the messages one entry at a time.
    let ctx = match status_inputs_at(&session, leaf, Options::new(choice.presentation)) {
        Ok(c) => c,
        Err(ContextError::Capability(f)) => {
            out::error!("{}{}", failure_prefix(&args.session, &f), f.message);
            return Ok(Exit::BadInput);
        }
        // Pi's own projection failed: its error, naming the file and line.
        Err(ContextError::Session(e)) => return Err(e.into()),
    };
    let view = status_view_with_tools(
        &session,
        leaf,
        &ctx.history,
        ctx.transcript_tools,
        choice.presentation,
        model,
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
                doc["library"] = caps::library_json(lib);
            }
            out.json(&(json::stringify_pretty(&doc) + "\n"))?;
        }
        TextOrJson::Text => {
            let mut text = view.to_text();
            if let Some(note) = choice.fallback_note() {
                text.push_str(&note);
                text.push('\n');
            }
            if let Some(lib) = &library {
                text.push_str(&caps::library_text(lib));
            }
            out.text(&text)?;
        }
    }
    out.flush()?;
    Ok(Exit::Ok)
}
