//! `forge-replay models [--pi R] [--api A] [--flagged] [--format text|json] [--catalog F]`: a
//! release's pi-ai model catalog (plus a user catalog) with its compat flags;
//! `models --changes FROM..TO`: the models added, removed and re-flagged between two releases.

use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_wire::Model;
use serde_json::{Map, Value};

use crate::args::{Format, ModelsArgs, TextOrJson};
use crate::out::{self, outln, Out};
use crate::Exit;

/// Compat flags shown in the table, with their short column labels.
const FLAGS: [(&str, &str); 6] = [
    ("supportsMidConvoSystemMessages", "sys"),
    ("supportsMidConvoToolChanges", "tool-changes"),
    ("supportsMidConvoToolAdditions", "tool-adds"),
    ("supportsAdditionalTools", "additional-tools"),
    ("supportsToolSearch", "tool-search"),
    ("supportsMidConvoEffort", "effort"),
];

pub fn run(args: ModelsArgs) -> anyhow::Result<Exit> {
    if let Some(range) = &args.changes {
        return changes(&args, range);
    }
    let release = args.pi.or_default()?;
    let catalog = match super::load_catalog(release, args.catalog.path()) {
        Ok(c) => c,
        Err(e) => {
            out::error!("{e:#}");
            return Ok(Exit::BadInput);
        }
    };
    let models: Vec<&Model> = catalog
        .models()
        .filter(|m| args.api.as_deref().is_none_or(|a| m.api_name() == a))
        .filter(|m| !args.flagged || m.is_flagged())
        .collect();
    let mut out = Out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let rows: Vec<Value> = models.iter().map(|m| row_json(m)).collect();
            out.json(&(json::stringify_pretty(&Value::Array(rows)) + "\n"))?;
        }
        TextOrJson::Text => {
            let mut rows: Vec<[String; 5]> = vec![[
                "MODEL".into(),
                "API".into(),
                "REASONING".into(),
                "CONTEXT".into(),
                "MID-CONVERSATION FLAGS".into(),
            ]];
            for m in &models {
                let flags: Vec<&str> = FLAGS
                    .iter()
                    .filter(|(k, _)| m.compat_true(k))
                    .map(|(_, label)| *label)
                    .collect();
                rows.push([
                    format!("{}/{}", m.provider(), m.id()),
                    m.api_name().to_string(),
                    if m.reasoning() { "yes" } else { "no" }.to_string(),
                    json::format_f64(m.context_window()),
                    if flags.is_empty() {
                        "-".into()
                    } else {
                        flags.join(",")
                    },
                ]);
            }
            let widths: Vec<usize> = (0..5)
                .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
                .collect();
            for r in &rows {
                let mut line = String::new();
                for (i, cell) in r.iter().enumerate() {
                    if i + 1 == r.len() {
                        line.push_str(cell);
                    } else {
                        line.push_str(cell);
                        line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 2));
                    }
                }
                outln!(out, "{}", line.trim_end())?;
            }
            outln!(
                out,
                "{}, pi-ai {release}",
                forge_replay_model::text::count(models.len(), "model", "models")
            )?;
        }
    }
    out.flush()?;
    Ok(Exit::Ok)
}

fn row_json(m: &Model) -> Value {
    let mut row = Map::new();
    row.insert("provider".into(), Value::String(m.provider().into()));
    row.insert("id".into(), Value::String(m.id().into()));
    row.insert("api".into(), Value::String(m.api_name().into()));
    for key in [
        "name",
        "baseUrl",
        "reasoning",
        "input",
        "contextWindow",
        "maxTokens",
        "thinkingLevelMap",
    ] {
        if let Some(v) = m.get(key) {
            row.insert(key.into(), v.clone());
        }
    }
    row.insert("flagged".into(), Value::Bool(m.is_flagged()));
    row.insert(
        "compat".into(),
        m.compat().cloned().unwrap_or(Value::Object(Map::new())),
    );
    Value::Object(row)
}

/// The compat flags that decide how requests are built ([`FLAGS`]) a model sets.
fn flag_set(m: &Model) -> Vec<&'static str> {
    FLAGS
        .iter()
        .filter(|(k, _)| m.compat_true(k))
        .map(|(_, label)| *label)
        .collect()
}

/// `models --changes FROM..TO`: models only in TO (added), only in FROM (removed), and in both
/// with other mid-conversation flags (re-flagged), each as `provider/id`. A provider a release
/// renamed is matched under its new name.
fn changes(args: &ModelsArgs, range: &str) -> anyhow::Result<Exit> {
    let Some((from, to)) = range.split_once("..") else {
        anyhow::bail!("--changes {range:?}: expected FROM..TO, e.g. 0.87.1..1.3.0");
    };
    let (from, to) = (PiRelease::parse(from)?, PiRelease::parse(to)?);
    let old = super::load_catalog(from, args.catalog.path())?;
    let new = super::load_catalog(to, args.catalog.path())?;
    let keep = |m: &&Model| {
        args.api.as_deref().is_none_or(|a| m.api_name() == a) && (!args.flagged || m.is_flagged())
    };
    let name = |m: &Model| format!("{}/{}", new.provider_name(m.provider()), m.id());
    let old_by: std::collections::BTreeMap<String, &Model> =
        old.models().filter(keep).map(|m| (name(m), m)).collect();
    let new_by: std::collections::BTreeMap<String, &Model> =
        new.models().filter(keep).map(|m| (name(m), m)).collect();
    let added: Vec<&String> = new_by.keys().filter(|k| !old_by.contains_key(*k)).collect();
    let removed: Vec<&String> = old_by.keys().filter(|k| !new_by.contains_key(*k)).collect();
    let reflagged: Vec<(&String, Vec<&str>, Vec<&str>)> = old_by
        .iter()
        .filter_map(|(k, o)| {
            let n = new_by.get(k)?;
            let (a, b) = (flag_set(o), flag_set(n));
            (a != b).then_some((k, a, b))
        })
        .collect();
    let mut out = Out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let doc = serde_json::json!({
                "from": from.version(),
                "to": to.version(),
                "added": added,
                "removed": removed,
                "reflagged": reflagged.iter().map(|(k, a, b)| serde_json::json!({"model": k, "from": a, "to": b})).collect::<Vec<_>>(),
            });
            out.json(&(json::stringify_pretty(&doc) + "\n"))?;
        }
        TextOrJson::Text => {
            let flags = |f: &[&str]| {
                if f.is_empty() {
                    "-".to_string()
                } else {
                    f.join(",")
                }
            };
            outln!(
                out,
                "pi-ai {from} → {to}: {} added, {} removed, {} re-flagged",
                added.len(),
                removed.len(),
                reflagged.len()
            )?;
            for k in &added {
                outln!(out, "+ {k}")?;
            }
            for k in &removed {
                outln!(out, "- {k}")?;
            }
            for (k, a, b) in &reflagged {
                outln!(out, "~ {k}  {} → {}", flags(a), flags(b))?;
            }
        }
    }
    out.flush()?;
    Ok(Exit::Ok)
}
