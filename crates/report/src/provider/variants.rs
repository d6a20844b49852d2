//! Which models are probed: one representative per (API, mid-conversation flag set) in the
//! catalog, plus an override variant for APIs that have no flagged model.
//!
//! The rule (mirrored by `tools/pi-oracle/src/report-probes.mjs`): group the catalog's models by
//! API and by the set of [`MID_FLAGS`] that are `true` in their `compat`. The representative of a
//! group is the first `preferredModels` entry of the probe file that belongs to it; otherwise the
//! provider with the most models in the group (ties: provider name), then its greatest model id.
//! An API without any flagged model also gets an override variant: its unflagged representative
//! with all six flags forced on, which shows whether the assembler reads them at all.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The compat flags that decide the mid-conversation path, in display order.
pub const MID_FLAGS: [&str; 6] = [
    "supportsMidConvoSystemMessages",
    "supportsMidConvoToolChanges",
    "supportsMidConvoToolAdditions",
    "supportsAdditionalTools",
    "supportsToolSearch",
    "supportsMidConvoEffort",
];

/// A short label for a flag (`sys`, `toolChanges`, …).
pub fn short_flag(flag: &str) -> &str {
    match flag {
        "supportsMidConvoSystemMessages" => "sys",
        "supportsMidConvoToolChanges" => "toolChanges",
        "supportsMidConvoToolAdditions" => "toolAdditions",
        "supportsAdditionalTools" => "additionalTools",
        "supportsToolSearch" => "toolSearch",
        "supportsMidConvoEffort" => "effort",
        other => other,
    }
}

/// One catalog model, as far as the report needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogModel {
    pub provider: String,
    pub id: String,
    pub api: String,
    /// The model's `compat` object (empty if absent).
    pub compat: Map<String, Value>,
}

impl CatalogModel {
    /// `provider/id`.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// The mid-conversation flags that are `true`, in [`MID_FLAGS`] order.
    pub fn mode(&self) -> Vec<&'static str> {
        MID_FLAGS
            .iter()
            .copied()
            .filter(|f| self.compat.get(*f) == Some(&Value::Bool(true)))
            .collect()
    }
}

/// How a variant's model was configured. Ordered: unflagged, then flag sets by [`MID_FLAGS`]
/// position, then the override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The catalog's own flags (possibly none).
    Catalog(Vec<&'static str>),
    /// All six flags forced on through `overrides.compat`.
    Override,
}

impl Mode {
    fn sort_key(&self) -> (u8, Vec<usize>) {
        match self {
            Mode::Catalog(f) => (
                0,
                f.iter()
                    .map(|f| MID_FLAGS.iter().position(|m| m == f).unwrap_or(usize::MAX))
                    .collect(),
            ),
            Mode::Override => (1, Vec::new()),
        }
    }

    /// `unflagged`, `sys + toolChanges`, `override: all flags on`.
    pub fn label(&self) -> String {
        match self {
            Mode::Catalog(f) if f.is_empty() => "unflagged".to_string(),
            Mode::Catalog(f) => f
                .iter()
                .map(|f| short_flag(f))
                .collect::<Vec<_>>()
                .join(" + "),
            Mode::Override => "override: all six flags on".to_string(),
        }
    }

    /// The flags in effect (all six for an override).
    pub fn flags(&self) -> Vec<&'static str> {
        match self {
            Mode::Catalog(f) => f.clone(),
            Mode::Override => MID_FLAGS.to_vec(),
        }
    }
}

impl Ord for Mode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl PartialOrd for Mode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A model to probe.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub api: String,
    pub mode: Mode,
    pub provider: String,
    pub id: String,
    /// `{"compat": {...}}` for override variants.
    pub overrides: Option<Value>,
    /// How many catalog models share this (API, flag set); 0 for override variants.
    pub group_size: usize,
    /// How many distinct providers those models come from.
    pub group_providers: usize,
}

impl Variant {
    /// `provider/id`.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// The `model` value of an oracle case: `{provider, id, overrides?}`.
    pub fn case_model(&self) -> Value {
        let mut m = Map::new();
        m.insert("provider".into(), Value::String(self.provider.clone()));
        m.insert("id".into(), Value::String(self.id.clone()));
        if let Some(o) = &self.overrides {
            m.insert("overrides".into(), o.clone());
        }
        Value::Object(m)
    }

    /// The fixture directory name used by `report-probes.mjs`.
    pub fn slug(&self) -> String {
        let raw = format!("{}__{}", self.provider, self.id);
        let mut s = String::new();
        let mut last_sub = false;
        for c in raw.chars() {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                s.push(c);
                last_sub = false;
            } else if !last_sub {
                s.push('_');
                last_sub = true;
            }
        }
        if self.mode == Mode::Override {
            s.push_str("__override");
        }
        s
    }
}

/// Picks the probed variants, sorted by API, then mode.
pub fn select(models: &[CatalogModel], preferred: &[String]) -> Vec<Variant> {
    let mut groups: BTreeMap<(String, Vec<&'static str>), Vec<&CatalogModel>> = BTreeMap::new();
    for m in models {
        groups.entry((m.api.clone(), m.mode())).or_default().push(m);
    }
    let mut out = Vec::new();
    for ((api, mode), members) in &groups {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for m in members {
            *counts.entry(m.provider.as_str()).or_default() += 1;
        }
        let best = preferred
            .iter()
            .find_map(|r| members.iter().find(|m| &m.reference() == r))
            .copied()
            .or_else(|| {
                members.iter().copied().min_by(|a, b| {
                    counts[b.provider.as_str()]
                        .cmp(&counts[a.provider.as_str()])
                        .then_with(|| a.provider.cmp(&b.provider))
                        .then_with(|| b.id.cmp(&a.id))
                })
            });
        if let Some(best) = best {
            out.push(Variant {
                api: api.clone(),
                mode: Mode::Catalog(mode.clone()),
                provider: best.provider.clone(),
                id: best.id.clone(),
                overrides: None,
                group_size: members.len(),
                group_providers: counts.len(),
            });
        }
    }
    let flagged_apis: Vec<String> = groups
        .keys()
        .filter(|(_, mode)| !mode.is_empty())
        .map(|(api, _)| api.clone())
        .collect();
    let overrides: Vec<Variant> = out
        .iter()
        .filter(|v| v.mode == Mode::Catalog(vec![]) && !flagged_apis.contains(&v.api))
        .map(|v| {
            let compat: Map<String, Value> = MID_FLAGS
                .iter()
                .map(|f| (f.to_string(), Value::Bool(true)))
                .collect();
            Variant {
                mode: Mode::Override,
                overrides: Some(serde_json::json!({ "compat": compat })),
                group_size: 0,
                group_providers: 0,
                ..v.clone()
            }
        })
        .collect();
    out.extend(overrides);
    out.sort_by(|a, b| a.api.cmp(&b.api).then_with(|| a.mode.cmp(&b.mode)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(provider: &str, id: &str, api: &str, compat: Value) -> CatalogModel {
        CatalogModel {
            provider: provider.into(),
            id: id.into(),
            api: api.into(),
            compat: compat.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn groups_prefer_and_override() {
        let models = vec![
            model("a", "x1", "api-1", json!({})),
            model("b", "y1", "api-1", json!({})),
            model("b", "y2", "api-1", json!({})),
            model(
                "a",
                "x2",
                "api-1",
                json!({"supportsMidConvoSystemMessages": true}),
            ),
            model("c", "z", "api-2", json!({})),
        ];
        let v = select(&models, &["a/x1".to_string()]);
        let labels: Vec<_> = v
            .iter()
            .map(|v| format!("{} {} {}", v.api, v.mode.label(), v.reference()))
            .collect();
        assert_eq!(
            labels,
            [
                "api-1 unflagged a/x1",
                "api-1 sys a/x2",
                "api-2 unflagged c/z",
                "api-2 override: all six flags on c/z"
            ]
        );
        let v = select(&models, &[]);
        assert_eq!(
            v[0].reference(),
            "b/y2",
            "most models in the group, then greatest id"
        );
    }

    #[test]
    fn slug_matches_the_oracle_script() {
        let v = Variant {
            api: "openai-completions".into(),
            mode: Mode::Catalog(vec![]),
            provider: "groq".into(),
            id: "openai/gpt-oss-120b".into(),
            overrides: None,
            group_size: 1,
            group_providers: 1,
        };
        assert_eq!(v.slug(), "groq__openai_gpt-oss-120b");
    }
}
