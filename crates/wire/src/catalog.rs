//! pi-ai's model catalog of every supported Pi release, embedded, plus user catalogs layered on
//! top.
//!
//! The data files are pi-ai's own `dist/providers/data/*.json` of each release (see
//! `data/pi-ai-<version>/PROVENANCE.md`; `build.rs` embeds the folder of every release in
//! [`PiRelease::ALL`]). Each file is `{ "<api>": { "<key>": Model } }`; the file stem is the
//! provider id and the api groups are merged (later groups win), as pi-ai's
//! `flattenModelCatalog` does. From 1.3 ([`Change::CatalogTypedKeys`]) keys are `"<type>:<id>"`
//! and only `chat` models are the catalog requests are built for; image and classifier models are
//! kept apart ([`Catalog::other_models`]). A provider's data file is parsed once, the first time
//! one of its models is asked for: a command that replays an Anthropic session parses
//! `anthropic.json`, not the 44 files of the release (which cost 85 % of a small replay's
//! instructions).
//!
//! A user catalog has the shape of Pi's `~/.pi/agent/models-store.json`:
//! `{ "<providerId>": { "models": [Model, …], "lastModified"?, "checkedAt"?, "etag"? } }`. Its
//! models replace built-in models with the same `provider/id` and add the others.

use crate::js::Field;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::model::{Model, ModelError};

// `RELEASE_DATA`: every supported release's data files (build.rs).
include!(concat!(env!("OUT_DIR"), "/catalog_data.rs"));

/// The embedded `.manifest.json` of a release's catalog.
pub fn manifest(release: PiRelease) -> &'static str {
    release_data(release).1
}

/// The embedded data files of a release's catalog: `(provider, JSON text)`, in file-name order.
pub fn data_files(release: PiRelease) -> &'static [(&'static str, &'static str)] {
    release_data(release).2
}

fn release_data(
    release: PiRelease,
) -> &'static (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
) {
    RELEASE_DATA
        .iter()
        .find(|(v, _, _)| *v == release.version())
        .expect("build.rs embeds every supported release")
}

/// Errors from catalog lookups and user catalog files.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// No model with this provider and id; `suggestions` holds near matches.
    #[error("unknown model `{provider}/{id}` in the pi-ai {release} catalog{}", suggest(.suggestions))]
    UnknownModel {
        release: PiRelease,
        provider: String,
        id: String,
        suggestions: Vec<String>,
    },
    /// No provider with this id.
    #[error("unknown provider `{provider}` in the pi-ai {release} catalog{}", suggest(.suggestions))]
    UnknownProvider {
        release: PiRelease,
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

/// A set of models keyed by provider, then id (both in catalog order), as one Pi release sees
/// them.
#[derive(Debug, Clone)]
pub struct Catalog {
    release: PiRelease,
    providers: Vec<Provider>,
    /// Models of user catalogs that are not chat models, in the order they were layered (after
    /// the built-in ones of every provider).
    other: Vec<Model>,
}

/// One provider of a catalog: its built-in data file, parsed on first use, and the models
/// layered on top.
#[derive(Debug, Clone)]
struct Provider {
    name: String,
    release: PiRelease,
    /// The embedded data file (`None` for a provider only a user catalog has).
    source: Option<&'static str>,
    models: OnceLock<Models>,
}

#[derive(Debug, Clone, Default)]
struct Models {
    /// Chat models, in catalog order.
    chat: Vec<Model>,
    /// Models that are not chat models (1.3: `type` image or classifier), in catalog order.
    other: Vec<Model>,
}

impl Provider {
    fn models(&self) -> &Models {
        self.models.get_or_init(|| {
            self.source
                .map_or_else(Models::default, |text| parse_provider(self.release, text))
        })
    }

    fn models_mut(&mut self) -> &mut Models {
        self.models();
        self.models.get_mut().expect("initialised just above")
    }
}

/// The models of one embedded data file. 0.87.1 `flattenModelCatalog`:
/// `Object.assign({}, ...Object.values(groups))`; 1.3 `flattenChatModelCatalog`: the same for
/// models of type "chat", keyed by id (the key of every embedded model is its id, or
/// `"chat:<id>"`).
fn parse_provider(release: PiRelease, text: &str) -> Models {
    let groups: Value = forge_replay_model::json::parse(text).unwrap_or(Value::Object(Map::new()));
    let mut out = Models::default();
    // The parsed tree is taken apart, not copied: each model object moves into its `Model`.
    let mut flat = Map::new();
    if let Value::Object(groups) = groups {
        for (_, group) in groups {
            let Value::Object(models) = group else {
                continue;
            };
            for (_, m) in models {
                let Some(id) = m.field("id").and_then(Value::as_str) else {
                    continue;
                };
                if is_chat(release, &m) {
                    flat.insert(id.to_string(), m);
                } else if let Ok(model) = Model::from_value(m) {
                    out.other.push(model);
                }
            }
        }
    }
    out.chat = flat
        .into_iter()
        .filter_map(|(_, v)| Model::from_value(v).ok())
        .collect();
    out
}

static BUILTIN: [OnceLock<Catalog>; PiRelease::ALL.len()] =
    [const { OnceLock::new() }; PiRelease::ALL.len()];

/// Whether a catalog or user model object is a chat model for `release` (1.3: `type` absent or
/// `"chat"`, pi-ai's `getModelType`; 0.87.1 has no types).
fn is_chat(release: PiRelease, model: &Value) -> bool {
    !release.has(Change::CatalogTypedKeys)
        || matches!(model.field("type"), None | Some(Value::Null))
        || model.field("type").and_then(Value::as_str) == Some("chat")
}

impl Catalog {
    /// An empty catalog of `release` (what user catalogs are layered on when nothing is built in).
    pub fn empty(release: PiRelease) -> Catalog {
        Catalog {
            release,
            providers: Vec::new(),
            other: Vec::new(),
        }
    }

    /// pi-ai's built-in catalog of `release` (each provider's file parsed on first use).
    pub fn builtin(release: PiRelease) -> &'static Catalog {
        let slot = PiRelease::ALL
            .iter()
            .position(|r| *r == release)
            .expect("every release is in ALL");
        BUILTIN[slot].get_or_init(|| Catalog {
            release,
            providers: data_files(release)
                .iter()
                .map(|(provider, text)| Provider {
                    name: (*provider).to_string(),
                    release,
                    source: Some(text),
                    models: OnceLock::new(),
                })
                .collect(),
            other: Vec::new(),
        })
    }

    /// The release whose catalog this is (user models layered on top are read as that release
    /// reads them).
    pub fn release(&self) -> PiRelease {
        self.release
    }

    /// The built-in catalog of `release` with a user catalog (`models-store.json` shape) layered
    /// on top.
    pub fn with_user_file(
        release: PiRelease,
        text: &str,
        path: &str,
    ) -> Result<Catalog, CatalogError> {
        let mut cat = Catalog::builtin(release).clone();
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
            .map_err(|e| bad(format!("not valid JSON: {}", e.at_line())))?;
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
                let chat = is_chat(self.release, &m);
                let model = Model::from_value(m).map_err(|e| CatalogError::BadModel {
                    path: format!("{path}: $.{provider}.models[{i}]"),
                    source: e,
                })?;
                if chat {
                    self.insert(model);
                } else {
                    self.other.push(model);
                }
            }
        }
        Ok(())
    }

    /// Adds a model, replacing one with the same provider and id.
    pub fn insert(&mut self, model: Model) {
        let provider = model.provider().to_string();
        let slot = match self.providers.iter().position(|p| p.name == provider) {
            Some(i) => i,
            None => {
                self.providers.push(Provider {
                    name: provider,
                    release: self.release,
                    source: None,
                    models: OnceLock::new(),
                });
                self.providers.len() - 1
            }
        };
        let models = &mut self.providers[slot].models_mut().chat;
        match models.iter().position(|m| m.id() == model.id()) {
            Some(i) => models[i] = model,
            None => models.push(model),
        }
    }

    /// The model `provider/id`, if present.
    pub fn get(&self, provider: &str, id: &str) -> Option<&Model> {
        self.providers
            .iter()
            .find(|p| p.name == provider)
            .and_then(|p| p.models().chat.iter().find(|m| m.id() == id))
    }

    /// The provider a release calls `provider` by ([`Change::AzureProviderRenamed`]: from 1.3 an
    /// older `azure-openai-responses` is `azure`).
    pub fn provider_name<'p>(&self, provider: &'p str) -> &'p str {
        if provider == "azure-openai-responses" && self.release.has(Change::AzureProviderRenamed) {
            "azure"
        } else {
            provider
        }
    }

    /// Looks up `provider/id` (a provider a release renamed under its new name), with near-match
    /// suggestions when it is missing.
    pub fn lookup(&self, provider: &str, id: &str) -> Result<&Model, CatalogError> {
        if let Some(m) = self.get(provider, id) {
            return Ok(m);
        }
        let renamed = self.provider_name(provider);
        if renamed != provider {
            if let Some(m) = self.get(renamed, id) {
                return Ok(m);
            }
        }
        let Some(models) = self
            .providers
            .iter()
            .find(|p| p.name == renamed)
            .map(|p| &p.models().chat)
        else {
            let names: Vec<&str> = self.providers().collect();
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
                release: self.release,
                provider: provider.to_string(),
                suggestions,
            });
        };
        let mut suggestions: Vec<String> = near_matches(id, models.iter().map(Model::id), 5)
            .into_iter()
            .map(|m| format!("{renamed}/{m}"))
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
            release: self.release,
            provider: provider.to_string(),
            id: id.to_string(),
            suggestions,
        })
    }

    /// Every model, provider by provider, in catalog order.
    pub fn models(&self) -> impl Iterator<Item = &Model> {
        self.providers.iter().flat_map(|p| p.models().chat.iter())
    }

    /// The models that are not chat models (1.3 image and classifier models), in catalog order,
    /// then those of user catalogs. No request is built for them.
    pub fn other_models(&self) -> impl Iterator<Item = &Model> {
        self.providers
            .iter()
            .flat_map(|p| p.models().other.iter())
            .chain(&self.other)
    }

    /// Provider ids in catalog order.
    pub fn providers(&self) -> impl Iterator<Item = &str> {
        self.providers.iter().map(|p| p.name.as_str())
    }

    /// Number of models.
    pub fn len(&self) -> usize {
        self.providers.iter().map(|p| p.models().chat.len()).sum()
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
        for release in PiRelease::ALL {
            let manifest = forge_replay_model::json::parse(manifest(release)).unwrap();
            let files = manifest["files"].as_object().unwrap();
            assert_eq!(files.len(), data_files(release).len(), "{release}");
            for (provider, text) in data_files(release) {
                let want = files[&format!("{provider}.json")].as_str().unwrap();
                let got: String = Sha256::digest(text.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                assert_eq!(got, want, "{release} {provider}.json");
            }
        }
    }

    #[test]
    fn release_catalogs_differ_as_pi_ai_says() {
        let old = Catalog::builtin(PiRelease::V0_87_1);
        let new = Catalog::builtin(PiRelease::V1_3_0);
        // Counts of pi-ai's own getBuiltinModels over every provider (chat models).
        assert_eq!(old.len(), 1495);
        assert_eq!(new.len(), 1614);
        assert_eq!(new.other_models().count(), 100);
        assert!(old.other_models().next().is_none());
        // The azure rename: the old provider name resolves to the new one from 1.3.
        let m = new.lookup("azure-openai-responses", "gpt-5.5").unwrap();
        assert_eq!(m.provider(), "azure");
        assert!(old.lookup("azure", "gpt-5.5").is_err());
        let e = new
            .lookup("anthropic", "claude-opus-4-9")
            .unwrap_err()
            .to_string();
        assert!(e.contains("pi-ai 1.3.0 catalog"), "{e}");
    }

    #[test]
    fn lookup_and_suggestions() {
        let cat = Catalog::builtin(PiRelease::V0_87_1);
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
        let m = Catalog::builtin(PiRelease::V0_87_1).resolve(&spec).unwrap();
        assert_eq!(m.max_tokens(), Some(5.0));
        assert!(m.compat_true("supportsTemperature"));
        assert!(m.compat_true("supportsMidConvoToolChanges"));
    }

    #[test]
    fn user_catalog_layers() {
        let text = r#"{"anthropic":{"models":[{"id":"claude-opus-4-8","api":"anthropic-messages","provider":"anthropic","baseUrl":"https://proxy.example","maxTokens":7}]},
                      "local":{"models":[{"id":"m1","api":"openai-completions","baseUrl":"http://localhost"}]}}"#;
        let cat = Catalog::with_user_file(PiRelease::V0_87_1, text, "models-store.json").unwrap();
        assert_eq!(
            cat.get("anthropic", "claude-opus-4-8").unwrap().base_url(),
            "https://proxy.example"
        );
        assert_eq!(cat.get("local", "m1").unwrap().provider(), "local");
        assert_eq!(cat.len(), Catalog::builtin(PiRelease::V0_87_1).len() + 1);
    }
}
