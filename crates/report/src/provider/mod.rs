//! The provider-support report: how each provider API carries system-prompt and tool changes,
//! measured by assembling probe requests, plus catalog facts and observed cache behaviour.
//!
//! Pipeline:
//! 1. [`variants::select`] picks one model per (API, mid-conversation flag set) of the catalog.
//! 2. Every [`probes::Probe`] is assembled for every variant through an [`Assembler`] (in the
//!    product: `forge-replay-wire`; in tests: captured pi-ai payloads or altered copies).
//! 3. [`classify::classify`] turns the assembled requests into [`classify::Cell`]s. No cell is
//!    written by hand: change an assembler's output and the cell changes.
//! 4. [`catalog`] adds flag counts, flagged models per provider and notable unflagged models;
//!    [`cache`] adds hit rates around tool changes from recorded sessions.
//! 5. [`render`] writes Markdown or HTML. Output is deterministic (no clocks, ordered maps).

pub mod cache;
pub mod catalog;
pub mod classify;
mod locate;
pub mod probes;
pub mod render;
pub mod variants;
pub mod wire;

use std::collections::BTreeMap;

use serde_json::Value;

pub use cache::{CacheSection, SessionCache};
pub use catalog::{CatalogFacts, CatalogProvenance};
pub use classify::{Aspect, Cell};
pub use probes::ProbeSet;
pub use variants::{CatalogModel, Mode, Variant};
pub use wire::{catalog_facts, WireAssembler};

/// Builds a provider request from an oracle-style case `{model: {provider, id, overrides?},
/// context, options}` and returns pi-ai's `onPayload` object, or an error message.
pub trait Assembler: Sync {
    fn assemble(&self, case: &Value) -> Result<Value, String>;
}

/// One probed variant and its measured cells.
#[derive(Debug, Clone)]
pub struct MeasuredVariant {
    pub variant: Variant,
    pub cells: BTreeMap<Aspect, Cell>,
    /// Per probe: sha256 of the assembled payload's JSON, `None` if the assembler failed.
    pub digests: BTreeMap<String, Option<String>>,
}

/// The measured effect of one flag: two variants of one API that differ only in this flag (or
/// an override variant against its unflagged model), and the cells that differ.
#[derive(Debug, Clone)]
pub struct FlagEffect {
    pub api: String,
    /// `sys`, `toolChanges`, … or `all six (override)`.
    pub flag: String,
    pub from: String,
    pub to: String,
    /// `(aspect, cell without, cell with)`; empty when the flag changed no cell.
    pub changes: Vec<(Aspect, String, String)>,
    /// Every probe's assembled request is byte-identical with and without the flag.
    pub identical_requests: bool,
}

/// Everything the report shows.
#[derive(Debug, Clone)]
pub struct ProviderReport {
    pub catalog: CatalogFacts,
    pub probes: ProbeSet,
    pub variants: Vec<MeasuredVariant>,
    pub effects: Vec<FlagEffect>,
    pub cache: Option<CacheSection>,
}

/// Assembles every probe for one variant.
pub fn measure_variant(
    variant: &Variant,
    probes: &ProbeSet,
    assembler: &dyn Assembler,
) -> MeasuredVariant {
    let mut results = classify::ProbeResults::new();
    for probe in &probes.probes {
        let case = serde_json::json!({
            "model": variant.case_model(),
            "context": probe.context,
            "options": probes.options,
            "env": probes.env,
        });
        results.insert(probe.name.clone(), assembler.assemble(&case));
    }
    let digests = results
        .iter()
        .map(|(name, r)| (name.clone(), r.as_ref().ok().map(digest)))
        .collect();
    MeasuredVariant {
        variant: variant.clone(),
        cells: classify::classify(&results),
        digests,
    }
}

fn digest(v: &Value) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(v.to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Measures every variant of the catalog and derives the flag effects.
pub fn build(
    catalog: CatalogFacts,
    probes: ProbeSet,
    assembler: &dyn Assembler,
    cache: Option<CacheSection>,
) -> ProviderReport {
    let selected = variants::select(&catalog.models, &probes.preferred_models);
    let measured: Vec<MeasuredVariant> = selected
        .iter()
        .map(|v| measure_variant(v, &probes, assembler))
        .collect();
    let effects = flag_effects(&measured);
    ProviderReport {
        catalog,
        probes,
        variants: measured,
        effects,
        cache,
    }
}

/// Pairs of variants of one API whose flag sets differ by exactly one flag, plus each override
/// variant against the unflagged variant of its API.
pub fn flag_effects(measured: &[MeasuredVariant]) -> Vec<FlagEffect> {
    let mut out = Vec::new();
    for a in measured {
        for b in measured {
            if a.variant.api != b.variant.api {
                continue;
            }
            let flag = match (&a.variant.mode, &b.variant.mode) {
                (Mode::Catalog(fa), Mode::Catalog(fb)) => {
                    let added: Vec<&&str> = fb.iter().filter(|f| !fa.contains(f)).collect();
                    if fb.len() == fa.len() + 1 && added.len() == 1 {
                        variants::short_flag(added[0]).to_string()
                    } else {
                        continue;
                    }
                }
                (Mode::Catalog(fa), Mode::Override) if fa.is_empty() => {
                    "all six (override)".to_string()
                }
                _ => continue,
            };
            let changes = Aspect::ALL
                .iter()
                .filter_map(|asp| {
                    let (x, y) = (a.cells.get(asp)?.text(), b.cells.get(asp)?.text());
                    (x != y).then_some((*asp, x, y))
                })
                .collect();
            out.push(FlagEffect {
                api: a.variant.api.clone(),
                flag,
                from: format!("{} ({})", a.variant.mode.label(), a.variant.reference()),
                to: format!("{} ({})", b.variant.mode.label(), b.variant.reference()),
                changes,
                identical_requests: a.digests == b.digests
                    && a.digests.values().all(Option::is_some),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
