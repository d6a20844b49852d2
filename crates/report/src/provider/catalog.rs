//! Catalog facts: which flags exist where, flagged models per provider, notable unflagged models.

use std::collections::{BTreeMap, BTreeSet};

use super::variants::{short_flag, CatalogModel, MID_FLAGS};

/// Where the catalog came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogProvenance {
    /// The pi-ai version (`0.87.1`).
    pub version: String,
    /// The manifest's `generatedAt`.
    pub generated_at: String,
    /// The manifest's `structureHash`.
    pub structure_hash: String,
    /// A user catalog layered on top (`--catalog`), as given.
    pub user_catalog: Option<String>,
}

/// The catalog as the report reads it.
#[derive(Debug, Clone)]
pub struct CatalogFacts {
    pub provenance: CatalogProvenance,
    pub models: Vec<CatalogModel>,
}

/// What one compat flag does in the pi-ai release `version` (the measured effect is computed
/// separately, see [`super::flag_effects`]).
pub fn flag_meaning(version: &str, flag: &str) -> &'static str {
    use forge_replay_model::release::{Change, PiRelease};
    let release = PiRelease::from_version(version).unwrap_or(PiRelease::DEFAULT);
    match flag {
        "supportsMidConvoToolChanges" if release.has(Change::AnthropicInlineToolDefinitions) => {
            "Anthropic: tool additions travel as `tool_addition` blocks defining the tool by value, removals as `tool_removal` blocks; `tools` keeps the initial list and a placeholder, redefinitions included. Needs the system-message flag."
        }
        "supportsMidConvoEffort" if release.has(Change::ResponsesConfigurationUpdate) => {
            "Anthropic: managed effort, per-turn `output_config` system messages and extra betas. OpenAI Responses: the thinking level in `configuration_update` input items, `reasoning.effort` fixed at `medium`."
        }
        "supportsMidConvoSystemMessages" => {
            "Without it every system message is folded into one leading prompt; with it later system messages travel in place (Anthropic: deferred to just before the next assistant turn)."
        }
        "supportsMidConvoToolChanges" => {
            "Anthropic: tool additions and removals travel as `tool_addition` / `tool_removal` blocks, later tools declared with `defer_loading`. Needs the system-message flag; not used after a redefinition."
        }
        "supportsMidConvoToolAdditions" => {
            "OpenAI Completions: additions travel as a `system` message with `tools` (Kimi style). Needs the system-message flag; additions only."
        }
        "supportsAdditionalTools" => {
            "Responses family: additions travel as an `additional_tools` input item. Additions only: any removal or redefinition falls back to the full tool list."
        }
        "supportsToolSearch" => {
            "Responses family: additions travel as a client `tool_search_call` / `tool_search_output` pair (only when additional tools are not supported). Additions only."
        }
        "supportsMidConvoEffort" => {
            "Anthropic: managed effort, per-turn `output_config` system messages and extra betas."
        }
        _ => "",
    }
}

/// Per flag and API: how many models and providers set it to `true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagCount {
    pub flag: &'static str,
    pub api: String,
    pub models: usize,
    pub providers: usize,
}

impl CatalogFacts {
    /// APIs in the catalog, sorted, with their model counts.
    pub fn apis(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for m in &self.models {
            *out.entry(m.api.clone()).or_default() += 1;
        }
        out
    }

    /// Flag usage per API (flags in [`MID_FLAGS`] order, then API name).
    pub fn flag_counts(&self) -> Vec<FlagCount> {
        let mut out = Vec::new();
        for flag in MID_FLAGS {
            let mut per_api: BTreeMap<&str, (usize, BTreeSet<&str>)> = BTreeMap::new();
            for m in &self.models {
                if m.mode().contains(&flag) {
                    let e = per_api.entry(m.api.as_str()).or_default();
                    e.0 += 1;
                    e.1.insert(m.provider.as_str());
                }
            }
            for (api, (models, providers)) in per_api {
                out.push(FlagCount {
                    flag,
                    api: api.to_string(),
                    models,
                    providers: providers.len(),
                });
            }
        }
        out
    }

    /// Flagged models (any mid-conversation flag), grouped by provider, sorted by provider then id.
    pub fn flagged_by_provider(&self) -> BTreeMap<String, Vec<&CatalogModel>> {
        let mut out: BTreeMap<String, Vec<&CatalogModel>> = BTreeMap::new();
        for m in &self.models {
            if !m.mode().is_empty() {
                out.entry(m.provider.clone()).or_default().push(m);
            }
        }
        for v in out.values_mut() {
            v.sort_by(|a, b| a.api.cmp(&b.api).then_with(|| a.id.cmp(&b.id)));
        }
        out
    }

    /// Unflagged models that share a base model id with a flagged model elsewhere (e.g.
    /// `amazon-bedrock/us.anthropic.claude-opus-4-8` vs `anthropic/claude-opus-4-8`): the same
    /// model without native system updates. Sorted by base id, then provider and id; each with the
    /// flagged references it mirrors.
    pub fn notable_unflagged(&self) -> Vec<(&CatalogModel, Vec<String>)> {
        let mut flagged: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for m in &self.models {
            if m.mode().contains(&"supportsMidConvoSystemMessages") {
                flagged
                    .entry(base_id(&m.id))
                    .or_default()
                    .push(m.reference());
            }
        }
        let mut out: Vec<(&CatalogModel, Vec<String>)> = self
            .models
            .iter()
            .filter(|m| !m.mode().contains(&"supportsMidConvoSystemMessages"))
            .filter_map(|m| flagged.get(&base_id(&m.id)).map(|f| (m, f.clone())))
            .collect();
        out.sort_by(|(a, _), (b, _)| {
            base_id(&a.id)
                .cmp(&base_id(&b.id))
                .then_with(|| a.provider.cmp(&b.provider))
                .then_with(|| a.id.cmp(&b.id))
        });
        out
    }
}

/// The mode label of a flag set (`sys + toolChanges`).
pub fn mode_label(flags: &[&str]) -> String {
    if flags.is_empty() {
        "unflagged".to_string()
    } else {
        flags
            .iter()
            .map(|f| short_flag(f))
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// A model id without routing decoration: the last `/` segment, Bedrock region and vendor
/// prefixes (`us.anthropic.`), version suffixes (`-v1:0`, `-v1`), `.` as `-`, lowercase.
pub fn base_id(id: &str) -> String {
    let mut s = id.rsplit('/').next().unwrap_or(id).to_ascii_lowercase();
    for region in ["us.", "eu.", "au.", "jp.", "apac.", "global.", "us-gov."] {
        if let Some(rest) = s.strip_prefix(region) {
            s = rest.to_string();
        }
    }
    if let Some((vendor, rest)) = s.split_once('.') {
        if !vendor.is_empty() && vendor.chars().all(|c| c.is_ascii_alphabetic()) {
            s = rest.to_string();
        }
    }
    for suffix in ["-v1:0", "-v2:0", "-v1"] {
        if let Some(rest) = s.strip_suffix(suffix) {
            s = rest.to_string();
        }
    }
    s.replace('.', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_ids() {
        assert_eq!(base_id("us.anthropic.claude-opus-4-8"), "claude-opus-4-8");
        assert_eq!(base_id("claude-opus-4.8"), "claude-opus-4-8");
        assert_eq!(base_id("anthropic/claude-opus-4.8"), "claude-opus-4-8");
        assert_eq!(base_id("anthropic.claude-opus-4-6-v1"), "claude-opus-4-6");
        assert_eq!(base_id("gpt-5.5"), "gpt-5-5");
        assert_eq!(base_id("accounts/fireworks/models/kimi-k3"), "kimi-k3");
    }
}
