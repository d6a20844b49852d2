//! `forge-replay models [--pi R] [--api A] [--flagged] [--format text|json] [--catalog F]`: a
//! release's pi-ai model catalog (plus a user catalog) with its compat flags;
//! `models --changes FROM..TO`: the models added, removed and re-flagged between two releases.
//! The table, rows and changes are `forge_replay_report::models`.

use forge_replay_engine::catalog;
use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_report::models::{self, ModelChanges};
use forge_replay_wire::Model;
use serde_json::Value;

use crate::args::{Format, ModelsArgs, TextOrJson};
use crate::out;
use crate::Exit;

/// The `--api` and `--flagged` filters.
fn keep(args: &ModelsArgs, m: &Model) -> bool {
    args.api.as_deref().is_none_or(|a| m.api_name() == a) && (!args.flagged || m.is_flagged())
}

pub fn run(args: ModelsArgs) -> anyhow::Result<Exit> {
    if let Some(range) = &args.changes {
        return changes(&args, range);
    }
    let release = args.pi.or_default()?;
    let catalog = catalog::load(release, args.catalog.path())?;
    let list: Vec<&Model> = catalog.models().filter(|m| keep(&args, m)).collect();
    let mut out = out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let rows: Vec<Value> = list.iter().map(|m| models::row_json(m)).collect();
            out.json(&(json::stringify_pretty(&Value::Array(rows)) + "\n"))?;
        }
        TextOrJson::Text => out.text(&models::text(&list, release.version()))?,
    }
    out.flush()?;
    Ok(Exit::Ok)
}

/// `models --changes FROM..TO`.
fn changes(args: &ModelsArgs, range: &str) -> anyhow::Result<Exit> {
    let Some((from, to)) = range.split_once("..") else {
        anyhow::bail!("--changes {range:?}: expected FROM..TO, e.g. 0.87.1..1.3.0");
    };
    let (from, to) = (PiRelease::parse(from)?, PiRelease::parse(to)?);
    let old = catalog::load(from, args.catalog.path())?;
    let new = catalog::load(to, args.catalog.path())?;
    let changes = ModelChanges::between(&old, &new, &|m| keep(args, m));
    let mut out = out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => out.json(&(json::stringify_pretty(&changes.to_json()) + "\n"))?,
        TextOrJson::Text => out.text(&changes.to_text())?,
    }
    out.flush()?;
    Ok(Exit::Ok)
}
