//! `forge-replay models`: a catalog's models as a table or JSON rows, and the models added,
//! removed and re-flagged between two releases' catalogs ([`ModelChanges`]).

use std::collections::BTreeMap;

use forge_replay_model::json;
use forge_replay_wire::{Catalog, Model};
use serde_json::{Map, Value};

/// Compat flags shown in the table, with their short column labels.
pub const FLAGS: [(&str, &str); 6] = [
    ("supportsMidConvoSystemMessages", "sys"),
    ("supportsMidConvoToolChanges", "tool-changes"),
    ("supportsMidConvoToolAdditions", "tool-adds"),
    ("supportsAdditionalTools", "additional-tools"),
    ("supportsToolSearch", "tool-search"),
    ("supportsMidConvoEffort", "effort"),
];

/// The compat flags that decide how requests are built ([`FLAGS`]) a model sets.
pub fn flag_set(m: &Model) -> Vec<&'static str> {
    FLAGS
        .iter()
        .filter(|(k, _)| m.compat_true(k))
        .map(|(_, label)| *label)
        .collect()
}

/// The models as an aligned table with a count line: `N models, pi-ai <release>`.
pub fn text(models: &[&Model], release: &str) -> String {
    let mut rows: Vec<[String; 5]> = vec![[
        "MODEL".into(),
        "API".into(),
        "REASONING".into(),
        "CONTEXT".into(),
        "MID-CONVERSATION FLAGS".into(),
    ]];
    for m in models {
        let flags = flag_set(m);
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
    let mut out = String::new();
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
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "{}, pi-ai {release}\n",
        forge_replay_model::text::count(models.len(), "model", "models")
    ));
    out
}

/// One model as a JSON row: provider, id, api, the catalog's main fields, flagged, compat.
pub fn row_json(m: &Model) -> Value {
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

/// The models only in the newer catalog (added), only in the older (removed), and in both with
/// other mid-conversation flags (re-flagged), each as `provider/id`. A provider a release
/// renamed is matched under its new name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChanges {
    pub from: String,
    pub to: String,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// `(model, flags before, flags after)`.
    pub reflagged: Vec<(String, Vec<&'static str>, Vec<&'static str>)>,
}

impl ModelChanges {
    /// The changes from `old` to `new` among the models `keep` selects.
    pub fn between(old: &Catalog, new: &Catalog, keep: &dyn Fn(&Model) -> bool) -> ModelChanges {
        let name = |m: &Model| format!("{}/{}", new.provider_name(m.provider()), m.id());
        let old_by: BTreeMap<String, &Model> = old
            .models()
            .filter(|m| keep(m))
            .map(|m| (name(m), m))
            .collect();
        let new_by: BTreeMap<String, &Model> = new
            .models()
            .filter(|m| keep(m))
            .map(|m| (name(m), m))
            .collect();
        ModelChanges {
            from: old.release().version().to_owned(),
            to: new.release().version().to_owned(),
            added: new_by
                .keys()
                .filter(|k| !old_by.contains_key(*k))
                .cloned()
                .collect(),
            removed: old_by
                .keys()
                .filter(|k| !new_by.contains_key(*k))
                .cloned()
                .collect(),
            reflagged: old_by
                .iter()
                .filter_map(|(k, o)| {
                    let n = new_by.get(k)?;
                    let (a, b) = (flag_set(o), flag_set(n));
                    (a != b).then(|| (k.clone(), a, b))
                })
                .collect(),
        }
    }

    /// `{from, to, added, removed, reflagged: [{model, from, to}]}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "from": self.from,
            "to": self.to,
            "added": self.added,
            "removed": self.removed,
            "reflagged": self.reflagged.iter().map(|(k, a, b)| serde_json::json!({"model": k, "from": a, "to": b})).collect::<Vec<_>>(),
        })
    }

    /// `pi-ai FROM → TO: …` and one `+`, `-` or `~` line per model.
    pub fn to_text(&self) -> String {
        let flags = |f: &[&str]| {
            if f.is_empty() {
                "-".to_string()
            } else {
                f.join(",")
            }
        };
        let mut out = format!(
            "pi-ai {} → {}: {} added, {} removed, {} re-flagged\n",
            self.from,
            self.to,
            self.added.len(),
            self.removed.len(),
            self.reflagged.len()
        );
        for k in &self.added {
            out.push_str(&format!("+ {k}\n"));
        }
        for k in &self.removed {
            out.push_str(&format!("- {k}\n"));
        }
        for (k, a, b) in &self.reflagged {
            out.push_str(&format!("~ {k}  {} → {}\n", flags(a), flags(b)));
        }
        out
    }
}
