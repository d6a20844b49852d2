//! `forge-replay models [--pi R] [--api A] [--flagged] [--format text|json] [--catalog F]`: a
//! release's pi-ai model catalog (plus a user catalog) with its compat flags;
//! `models --changes FROM..TO`: the models added, removed and re-flagged between two releases.
//! The table, rows and changes are `forge_replay_report::models`.

use forge_replay_engine::catalog;
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
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let rows: Vec<Value> = list.iter().map(|m| models::row_json(m)).collect();
            out::print_json(&Value::Array(rows))?;
        }
        TextOrJson::Text => out::print_text(&models::text(&list, release.version()))?,
    }
    Ok(Exit::Ok)
}

/// `models --changes FROM..TO`.
fn changes(args: &ModelsArgs, range: &str) -> anyhow::Result<Exit> {
    let (from, to) = PiRelease::parse_range(range)?;
    let old = catalog::load(from, args.catalog.path())?;
    let new = catalog::load(to, args.catalog.path())?;
    let changes = ModelChanges::between(&old, &new, &|m| keep(args, m));
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => out::print_json(&changes.to_json())?,
        TextOrJson::Text => out::print_text(&changes.to_text())?,
    }
    Ok(Exit::Ok)
}
