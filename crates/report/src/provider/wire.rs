//! The product's [`Assembler`] and catalog: `forge-replay-wire`.

use forge_replay_model::error::chain as error_chain;
use forge_replay_wire::catalog::manifest;
use forge_replay_wire::{assemble_case, Case, Catalog};
use serde_json::Value;

use super::catalog::{CatalogFacts, CatalogProvenance};
use super::variants::CatalogModel;
use super::Assembler;

/// Assembles probe cases with forge-replay's pi-ai port against a catalog.
#[derive(Debug)]
pub struct WireAssembler<'a> {
    pub catalog: &'a Catalog,
}

impl Assembler for WireAssembler<'_> {
    fn assemble(&self, case: &Value) -> Result<Value, String> {
        let mut case = Case::from_value(case).map_err(|e| error_chain(&e))?;
        // Probe cases are written once for every release: the catalog's release builds them.
        case.pi = None;
        assemble_case(&case, self.catalog)
            .map(|a| a.payload)
            .map_err(|e| error_chain(&e))
    }
}

/// The catalog's models and provenance (`user_catalog`: the `--catalog` path, if any).
pub fn catalog_facts(catalog: &Catalog, user_catalog: Option<String>) -> CatalogFacts {
    let manifest: Value = serde_json::from_str(manifest(catalog.release())).unwrap_or(Value::Null);
    let field = |k: &str| {
        manifest
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    let models = catalog
        .models()
        .map(|m| CatalogModel {
            provider: m.provider().to_string(),
            id: m.id().to_string(),
            api: m.api_name().to_string(),
            compat: m
                .compat()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        })
        .collect();
    CatalogFacts {
        provenance: CatalogProvenance {
            version: catalog.release().version().to_string(),
            generated_at: field("generatedAt"),
            structure_hash: field("structureHash"),
            user_catalog,
        },
        models,
    }
}
