//! pi-ai 0.87.1's model catalog, embedded, plus user catalogs layered on top.
//!
//! The data files are pi-ai's own `dist/providers/data/*.json` (see
//! `data/pi-ai-0.87.1/PROVENANCE.md`). Each file is `{ "<api>": { "<modelId>": Model } }`; the file
//! stem is the provider id and the api groups are merged (later groups win), as pi-ai's
//! `flattenModelCatalog` does. Parsing happens once, on first use.
//!
//! A user catalog has the shape of Pi's `~/.pi/agent/models-store.json`:
//! `{ "<providerId>": { "models": [Model, …], "lastModified"?, "checkedAt"?, "etag"? } }`. Its
//! models replace built-in models with the same `provider/id` and add the others.

use crate::js::Field;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::model::{Model, ModelError};

/// The pi-ai version the embedded catalog comes from.
pub const CATALOG_VERSION: &str = "0.87.1";

/// The embedded `.manifest.json`.
pub const MANIFEST: &str = include_str!("../data/pi-ai-0.87.1/.manifest.json");

/// The embedded data files: `(provider, JSON text)`.
pub const DATA_FILES: &[(&str, &str)] = &[
    (
        "amazon-bedrock",
        include_str!("../data/pi-ai-0.87.1/amazon-bedrock.json"),
    ),
    (
        "ant-ling",
        include_str!("../data/pi-ai-0.87.1/ant-ling.json"),
    ),
    (
        "anthropic",
        include_str!("../data/pi-ai-0.87.1/anthropic.json"),
    ),
    (
        "azure-openai-responses",
        include_str!("../data/pi-ai-0.87.1/azure-openai-responses.json"),
    ),
    ("baseten", include_str!("../data/pi-ai-0.87.1/baseten.json")),
    (
        "cerebras",
        include_str!("../data/pi-ai-0.87.1/cerebras.json"),
    ),
    (
        "cloudflare-ai-gateway",
        include_str!("../data/pi-ai-0.87.1/cloudflare-ai-gateway.json"),
    ),
    (
        "cloudflare-workers-ai",
        include_str!("../data/pi-ai-0.87.1/cloudflare-workers-ai.json"),
    ),
    (
        "deepseek",
        include_str!("../data/pi-ai-0.87.1/deepseek.json"),
    ),
    (
        "fireworks",
        include_str!("../data/pi-ai-0.87.1/fireworks.json"),
    ),
    (
        "github-copilot",
        include_str!("../data/pi-ai-0.87.1/github-copilot.json"),
    ),
    (
        "google-vertex",
        include_str!("../data/pi-ai-0.87.1/google-vertex.json"),
    ),
    ("google", include_str!("../data/pi-ai-0.87.1/google.json")),
    ("groq", include_str!("../data/pi-ai-0.87.1/groq.json")),
    (
        "huggingface",
        include_str!("../data/pi-ai-0.87.1/huggingface.json"),
    ),
    (
        "kimi-coding",
        include_str!("../data/pi-ai-0.87.1/kimi-coding.json"),
    ),
    ("meta", include_str!("../data/pi-ai-0.87.1/meta.json")),
    (
        "minimax-cn",
        include_str!("../data/pi-ai-0.87.1/minimax-cn.json"),
    ),
    ("minimax", include_str!("../data/pi-ai-0.87.1/minimax.json")),
    ("mistral", include_str!("../data/pi-ai-0.87.1/mistral.json")),
    (
        "moonshotai-cn",
        include_str!("../data/pi-ai-0.87.1/moonshotai-cn.json"),
    ),
    (
        "moonshotai",
        include_str!("../data/pi-ai-0.87.1/moonshotai.json"),
    ),
    ("nvidia", include_str!("../data/pi-ai-0.87.1/nvidia.json")),
    (
        "openai-codex",
        include_str!("../data/pi-ai-0.87.1/openai-codex.json"),
    ),
    ("openai", include_str!("../data/pi-ai-0.87.1/openai.json")),
    (
        "opencode-go",
        include_str!("../data/pi-ai-0.87.1/opencode-go.json"),
    ),
    (
        "opencode",
        include_str!("../data/pi-ai-0.87.1/opencode.json"),
    ),
    (
        "openrouter",
        include_str!("../data/pi-ai-0.87.1/openrouter.json"),
    ),
    (
        "qwen-token-plan-cn",
        include_str!("../data/pi-ai-0.87.1/qwen-token-plan-cn.json"),
    ),
    (
        "qwen-token-plan-individual",
        include_str!("../data/pi-ai-0.87.1/qwen-token-plan-individual.json"),
    ),
    (
        "qwen-token-plan",
        include_str!("../data/pi-ai-0.87.1/qwen-token-plan.json"),
    ),
    ("radius", include_str!("../data/pi-ai-0.87.1/radius.json")),
    (
        "together",
        include_str!("../data/pi-ai-0.87.1/together.json"),
    ),
    (
        "vercel-ai-gateway",
        include_str!("../data/pi-ai-0.87.1/vercel-ai-gateway.json"),
    ),
    ("xai", include_str!("../data/pi-ai-0.87.1/xai.json")),
    (
        "xiaomi-token-plan-ams",
        include_str!("../data/pi-ai-0.87.1/xiaomi-token-plan-ams.json"),
    ),
    (
        "xiaomi-token-plan-cn",
        include_str!("../data/pi-ai-0.87.1/xiaomi-token-plan-cn.json"),
    ),
    (
        "xiaomi-token-plan-sgp",
        include_str!("../data/pi-ai-0.87.1/xiaomi-token-plan-sgp.json"),
    ),
    ("xiaomi", include_str!("../data/pi-ai-0.87.1/xiaomi.json")),
    (
        "zai-coding-cn",
        include_str!("../data/pi-ai-0.87.1/zai-coding-cn.json"),
    ),
    ("zai", include_str!("../data/pi-ai-0.87.1/zai.json")),
];

/// Errors from catalog lookups and user catalog files.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// No model with this provider and id; `suggestions` holds near matches.
    #[error("unknown model `{provider}/{id}` in the pi-ai {CATALOG_VERSION} catalog{}", suggest(.suggestions))]
    UnknownModel {
        provider: String,
        id: String,
        suggestions: Vec<String>,
    },
    /// No provider with this id.
    #[error("unknown provider `{provider}` in the pi-ai {CATALOG_VERSION} catalog{}", suggest(.suggestions))]
    UnknownProvider {
        provider: String,
        suggestions: Vec<String>,
    },
    /// A user catalog file is not valid.
    #[error("catalog file {path}: {message}")]
    BadFile { path: String, message: String },
    /// A full model object lacks a required field.
    #[error("{path}: invalid model object")]
    BadModel {
        path: String,
        #[source]
        source: ModelError,
    },
    /// The `overrides` value is not an object.
    #[error("{path}: overrides must be an object")]
    BadOverrides { path: String },
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", s.join(", "))
    }
}

/// A set of models keyed by provider, then id (both in catalog order).
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    providers: Vec<(String, Vec<Model>)>,
}

static BUILTIN: OnceLock<Catalog> = OnceLock::new();

impl Catalog {
    /// pi-ai 0.87.1's built-in catalog (parsed on first use).
    pub fn builtin() -> &'static Catalog {
        BUILTIN.get_or_init(|| {
            let mut providers = Vec::with_capacity(DATA_FILES.len());
            for (provider, text) in DATA_FILES {
                let groups: Value =
                    forge_replay_model::json::parse(text).unwrap_or(Value::Object(Map::new()));
                // flattenModelCatalog: Object.assign({}, ...Object.values(groups))
                let mut flat = Map::new();
                if let Some(groups) = groups.as_object() {
                    for group in groups.values() {
                        if let Some(models) = group.as_object() {
                            for (id, m) in models {
                                flat.insert(id.clone(), m.clone());
                            }
                        }
                    }
                }
                let models = flat
                    .into_iter()
                    .filter_map(|(_, v)| Model::from_value(v).ok())
                    .collect();
                providers.push((provider.to_string(), models));
            }
            Catalog { providers }
        })
    }

    /// The built-in catalog with a user catalog (`models-store.json` shape) layered on top.
    pub fn with_user_file(text: &str, path: &str) -> Result<Catalog, CatalogError> {
        let mut cat = Catalog::builtin().clone();
        cat.layer_user_catalog(text, path)?;
        Ok(cat)
    }

    /// Layers a user catalog over this one.
    pub fn layer_user_catalog(&mut self, text: &str, path: &str) -> Result<(), CatalogError> {
        let bad = |message: String| CatalogError::BadFile {
            path: path.to_string(),
            message,
        };
        let value = forge_replay_model::json::parse(text)
            .map_err(|e| bad(format!("not valid JSON: {e}")))?;
        let Some(root) = value.as_object() else {
            return Err(bad(
                "the top level must be an object keyed by provider id".into()
            ));
        };
        for (provider, entry) in root {
            let models = entry
                .field("models")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(format!("$.{provider}.models must be an array")))?;
            for (i, m) in models.iter().enumerate() {
                let mut m = m.clone();
                if let Some(obj) = m.as_object_mut() {
                    if !obj.contains_key("provider") {
                        obj.insert("provider".into(), Value::String(provider.clone()));
                    }
                }
                let model = Model::from_value(m).map_err(|e| CatalogError::BadModel {
                    path: format!("{path}: $.{provider}.models[{i}]"),
                    source: e,
                })?;
                self.insert(model);
            }
        }
        Ok(())
    }

    /// Adds a model, replacing one with the same provider and id.
    pub fn insert(&mut self, model: Model) {
        let provider = model.provider().to_string();
        let slot = match self.providers.iter().position(|(p, _)| *p == provider) {
            Some(i) => i,
            None => {
                self.providers.push((provider, Vec::new()));
                self.providers.len() - 1
            }
        };
        let models = &mut self.providers[slot].1;
        match models.iter().position(|m| m.id() == model.id()) {
            Some(i) => models[i] = model,
            None => models.push(model),
        }
    }

    /// The model `provider/id`, if present.
    pub fn get(&self, provider: &str, id: &str) -> Option<&Model> {
        self.providers
            .iter()
            .find(|(p, _)| p == provider)
            .and_then(|(_, ms)| ms.iter().find(|m| m.id() == id))
    }

    /// Looks up `provider/id`, with near-match suggestions when it is missing.
    pub fn lookup(&self, provider: &str, id: &str) -> Result<&Model, CatalogError> {
        if let Some(m) = self.get(provider, id) {
            return Ok(m);
        }
        let Some((_, models)) = self.providers.iter().find(|(p, _)| p == provider) else {
            let names: Vec<&str> = self.providers.iter().map(|(p, _)| p.as_str()).collect();
            // The id may exist under another provider.
            let mut suggestions: Vec<String> = self
                .models()
                .filter(|m| m.id() == id)
                .map(|m| format!("{}/{}", m.provider(), m.id()))
                .take(5)
                .collect();
            if suggestions.is_empty() {
                suggestions = near_matches(provider, names.iter().copied(), 5);
            }
            return Err(CatalogError::UnknownProvider {
                provider: provider.to_string(),
                suggestions,
            });
        };
        let mut suggestions: Vec<String> = near_matches(id, models.iter().map(Model::id), 5)
            .into_iter()
            .map(|m| format!("{provider}/{m}"))
            .collect();
        if suggestions.is_empty() {
            suggestions = self
                .models()
                .filter(|m| m.id() == id)
                .map(|m| format!("{}/{}", m.provider(), m.id()))
                .take(5)
                .collect();
        }
        Err(CatalogError::UnknownModel {
            provider: provider.to_string(),
            id: id.to_string(),
            suggestions,
        })
    }

    /// Every model, provider by provider, in catalog order.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.providers.iter().flat_map(|(_, ms)| ms.iter())
    }

    /// Provider ids in catalog order.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.providers.iter().map(|(p, _)| p.as_str())
    }

    /// Number of models.
    pub fn len(&self) -> usize {
        self.providers.iter().map(|(_, ms)| ms.len()).sum()
    }

    /// True when the catalog holds no model.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Resolves a case's model spec: a catalog reference or a full model object, then
    /// `overrides` (`compat` merged key by key, other keys replaced), as the oracle harness does.
    pub fn resolve(&self, spec: &ModelSpec) -> Result<Model, CatalogError> {
        let (mut value, overrides) = match spec {
            ModelSpec::Catalog {
                provider,
                id,
                overrides,
            } => (
                self.lookup(provider, id)?.as_value().clone(),
                overrides.as_ref(),
            ),
            ModelSpec::Full { model, overrides } => {
                (Value::Object(model.clone()), overrides.as_ref())
            }
        };
        if let (Some(ov), Some(obj)) = (overrides, value.as_object_mut()) {
            apply_overrides(obj, ov);
        }
        if let Some(obj) = value.as_object_mut() {
            crate::js::delete(obj, "overrides");
        }
        Model::from_value(value).map_err(|e| CatalogError::BadModel {
            path: "$.model".into(),
            source: e,
        })
    }
}

/// `Object.assign(model, rest); model.compat = {...model.compat, ...compat}`.
pub fn apply_overrides(model: &mut Map<String, Value>, overrides: &Map<String, Value>) {
    for (k, v) in overrides {
        if k != "compat" {
            model.insert(k.clone(), v.clone());
        }
    }
    if let Some(compat) = overrides.field("compat") {
        if crate::js::truthy(Some(compat)) {
            let mut merged = model
                .field("compat")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let Some(c) = compat.as_object() {
                for (k, v) in c {
                    merged.insert(k.clone(), v.clone());
                }
            }
            model.insert("compat".into(), Value::Object(merged));
        }
    }
}

/// How a case names its model.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSpec {
    /// `{provider, id, overrides?}`: a catalog entry.
    Catalog {
        provider: String,
        id: String,
        overrides: Option<Map<String, Value>>,
    },
    /// A full pi-ai `Model` object (it has `api` and `baseUrl`), with optional `overrides`.
    Full {
        model: Map<String, Value>,
        overrides: Option<Map<String, Value>>,
    },
}

/// Up to `n` candidates close to `query`: substring matches first, then by edit distance.
pub fn near_matches<'a>(
    query: &str,
    candidates: impl Iterator<Item = &'a str>,
    n: usize,
) -> Vec<String> {
    let q = query.to_lowercase();
    let mut scored: Vec<(usize, String)> = candidates
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let d = levenshtein(&q, &lc);
            let contains = !q.is_empty() && (lc.contains(&q) || q.contains(&lc));
            let limit = (q.chars().count().max(3)) / 3 + 1;
            if contains {
                Some((d.min(1), c.to_string()))
            } else if d <= limit {
                Some((d + 1, c.to_string()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Compat flags per model, for listings: `(provider/id, api, compat object)`.
pub fn compat_rows(catalog: &Catalog) -> BTreeMap<String, (String, Value)> {
    catalog
        .models()
        .map(|m| {
            (
                format!("{}/{}", m.provider(), m.id()),
                (
                    m.api_name().to_string(),
                    m.compat().cloned().unwrap_or(Value::Null),
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    #[test]
    fn embedded_files_match_manifest() {
        let manifest = forge_replay_model::json::parse(MANIFEST).unwrap();
        let files = manifest["files"].as_object().unwrap();
        assert_eq!(files.len(), DATA_FILES.len());
        for (provider, text) in DATA_FILES {
            let want = files[&format!("{provider}.json")].as_str().unwrap();
            let got: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(got, want, "{provider}.json");
        }
    }

    #[test]
    fn lookup_and_suggestions() {
        let cat = Catalog::builtin();
        let m = cat.lookup("anthropic", "claude-opus-4-8").unwrap();
        assert_eq!(m.api_name(), "anthropic-messages");
        assert!(m.is_flagged());
        let err = cat.lookup("anthropic", "claude-opus-4-9").unwrap_err();
        assert!(
            err.to_string().contains("anthropic/claude-opus-4-8"),
            "{err}"
        );
        let err = cat.lookup("antropic", "claude-opus-4-8").unwrap_err();
        assert!(err.to_string().contains("anthropic"), "{err}");
    }

    #[test]
    fn overrides_merge_compat_and_replace_fields() {
        let spec = ModelSpec::Catalog {
            provider: "anthropic".into(),
            id: "claude-opus-4-8".into(),
            overrides: serde_json::json!({"maxTokens": 5, "compat": {"supportsTemperature": true}})
                .as_object()
                .cloned(),
        };
        let m = Catalog::builtin().resolve(&spec).unwrap();
        assert_eq!(m.max_tokens(), Some(5.0));
        assert!(m.compat_true("supportsTemperature"));
        assert!(m.compat_true("supportsMidConvoToolChanges"));
    }

    #[test]
    fn user_catalog_layers() {
        let text = r#"{"anthropic":{"models":[{"id":"claude-opus-4-8","api":"anthropic-messages","provider":"anthropic","baseUrl":"https://proxy.example","maxTokens":7}]},
                      "local":{"models":[{"id":"m1","api":"openai-completions","baseUrl":"http://localhost"}]}}"#;
        let cat = Catalog::with_user_file(text, "models-store.json").unwrap();
        assert_eq!(
            cat.get("anthropic", "claude-opus-4-8").unwrap().base_url(),
            "https://proxy.example"
        );
        assert_eq!(cat.get("local", "m1").unwrap().provider(), "local");
        assert_eq!(cat.len(), Catalog::builtin().len() + 1);
    }
}
