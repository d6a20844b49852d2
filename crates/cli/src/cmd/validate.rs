//! `forge-replay capability validate <FILE|DIR>...`: pi-forge's capability resource
//! diagnostics (`parseCapability`, spec §1), exit 1 when any file is invalid.
//!
//! A FILE is decoded on its own (scope from its location: under `~/.pi/forge/capabilities` it
//! is global, otherwise project). A DIR is read the way Forge lists a capability directory
//! (non-hidden `*.json`, JavaScript sort order, symlinks to files followed, duplicate ids
//! reported across its files); a project root holding `.pi/forge/capabilities/` is read there.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use forge_replay_capability::discovery::{load_file, read_scope_dir, LoadedCapability, Roots};
use forge_replay_capability::event::Scope;
use forge_replay_model::json;
use serde_json::{json, Value};

use crate::args::{TextOrJson, ValidateArgs};
use crate::out::{outln, Out};
use crate::Exit;

fn scope_of(path: &Path) -> Scope {
    let global = Roots::default_global().map(|g| g.join("capabilities"));
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match global {
        Some(g) if canon(path).starts_with(canon(&g)) => Scope::Global,
        _ => Scope::Project,
    }
}

fn collect(path: &Path) -> anyhow::Result<Vec<LoadedCapability>> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if meta.is_dir() {
        let nested: PathBuf = path.join(".pi").join("forge").join("capabilities");
        let dir = if nested.is_dir() {
            nested
        } else {
            path.to_path_buf()
        };
        Ok(read_scope_dir(&dir, scope_of(&dir))?)
    } else {
        Ok(vec![load_file(path, scope_of(path))])
    }
}

pub fn run(args: ValidateArgs) -> anyhow::Result<Exit> {
    let mut all = Vec::new();
    for p in &args.paths {
        all.extend(collect(p)?);
    }
    let invalid = all.iter().filter(|c| !c.is_usable()).count();
    let mut out = Out::stdout();
    match args.format.text_or_json() {
        TextOrJson::Json => {
            let items: Vec<Value> = all
                .iter()
                .map(|c| {
                    json!({
                        "path": c.path.display().to_string(),
                        "scope": c.key.scope.as_str(),
                        "id": c.key.id,
                        "usable": c.is_usable(),
                        "sourceRevision": c.source_revision,
                        "diagnostics": c.diagnostics,
                    })
                })
                .collect();
            let doc = json!({"files": items, "invalid": invalid});
            out.json(&(json::stringify_pretty(&doc) + "\n"))?;
        }
        TextOrJson::Text => {
            for c in &all {
                if c.is_usable() {
                    outln!(
                        out,
                        "{}: ok ({}:{})",
                        c.path.display(),
                        c.key.scope.as_str(),
                        c.key.id
                    )?;
                } else {
                    outln!(out, "{}: invalid", c.path.display())?;
                }
                for d in &c.diagnostics {
                    match &d.field {
                        Some(f) => outln!(out, "  error [{f}]: {}", d.message)?,
                        None => outln!(out, "  error: {}", d.message)?,
                    }
                }
            }
            outln!(
                out,
                "{}, {} valid, {invalid} invalid",
                forge_replay_model::text::count(all.len(), "file", "files"),
                all.len() - invalid
            )?;
        }
    }
    out.flush()?;
    Ok(if invalid > 0 {
        Exit::Findings
    } else {
        Exit::Ok
    })
}
