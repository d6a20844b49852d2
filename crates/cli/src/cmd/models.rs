//! `forge-replay models [--api A] [--flagged] [--format table|json] [--catalog F]`: the model
//! catalog (pi-ai 0.87.1, plus a user catalog) with its compat flags.

use forge_replay_model::json;
use forge_replay_wire::{Api, Model};
use serde_json::{Map, Value};

use crate::args::{ModelsArgs, TableOrJson};
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
    if let Some(api) = &args.api {
        if Api::from_name(api).is_none() {
            let known: Vec<&str> = Api::ALL.iter().map(|a| a.name()).collect();
            out::error!("unknown api `{api}`; known apis: {}", known.join(", "));
            return Ok(Exit::BadInput);
        }
    }
    let catalog = match super::assemble::load_catalog(args.catalog.as_deref()) {
        Ok(c) => c,
        Err(msg) => {
            out::error!("{msg}");
            return Ok(Exit::BadInput);
        }
    };
    let models: Vec<&Model> = catalog
        .models()
        .filter(|m| args.api.as_deref().is_none_or(|a| m.api_name() == a))
        .filter(|m| !args.flagged || m.is_flagged())
        .collect();
    let mut out = Out::stdout();
    match args.format {
        TableOrJson::Json => {
            let rows: Vec<Value> = models.iter().map(|m| row_json(m)).collect();
            out.json(&(json::stringify_pretty(&Value::Array(rows)) + "\n"))?;
        }
        TableOrJson::Table => {
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
            outln!(out, "{} model(s)", models.len())?;
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
