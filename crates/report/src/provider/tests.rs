//! Tests over the payloads the real pi-ai 0.87.1 produced for the probes
//! (`fixtures/report/pi-ai`, written by `tools/pi-oracle/src/report-probes.mjs`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::classify::{Aspect, Cell};
use super::variants::{self, CatalogModel, Mode, Variant};
use super::{catalog_facts, measure_variant, Assembler, ProbeSet, WireAssembler};
use forge_replay_model::release::PiRelease;
use forge_replay_wire::Catalog;

pub(crate) fn fixtures() -> PathBuf {
    forge_replay_testkit::fixture("report/pi-ai")
}

/// Answers from the captured pi-ai payloads; `alter` may change a payload before it is returned.
pub(crate) struct OracleAssembler {
    probes: ProbeSet,
    /// variant `model` JSON (as text) → fixture directory
    dirs: BTreeMap<String, PathBuf>,
    pub(crate) alter: Option<Alter>,
}

/// `(provider JSON, probe name, payload)` → altered payload.
type Alter = Box<dyn Fn(&str, &str, &mut Value) + Sync>;

impl OracleAssembler {
    pub(crate) fn new() -> OracleAssembler {
        let index: Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join("index.json")).expect("fixtures index"),
        )
        .expect("index json");
        let dirs = index["variants"]
            .as_array()
            .expect("variants")
            .iter()
            .map(|v| {
                (
                    v["model"].to_string(),
                    fixtures().join(v["dir"].as_str().expect("dir")),
                )
            })
            .collect();
        OracleAssembler {
            probes: ProbeSet::builtin().expect("probes"),
            dirs,
            alter: None,
        }
    }

    pub(crate) fn variant_models(&self) -> Vec<String> {
        self.dirs.keys().cloned().collect()
    }
}

impl Assembler for OracleAssembler {
    fn assemble(&self, case: &Value) -> Result<Value, String> {
        let dir = self
            .dirs
            .get(&case["model"].to_string())
            .ok_or_else(|| format!("no captured payloads for {}", case["model"]))?;
        let probe = self
            .probes
            .probes
            .iter()
            .find(|p| p.context == case["context"])
            .ok_or("unknown probe context")?;
        let text = std::fs::read_to_string(dir.join(format!("{}.json", probe.name)))
            .map_err(|e| e.to_string())?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let mut payload = doc["payload"].clone();
        if let Some(alter) = &self.alter {
            alter(
                &case["model"]["provider"].to_string(),
                &probe.name,
                &mut payload,
            );
        }
        Ok(payload)
    }
}

pub(crate) fn catalog_models() -> Vec<CatalogModel> {
    catalog_facts(Catalog::builtin(PiRelease::V0_87_1), None).models
}

fn selected() -> Vec<Variant> {
    let probes = ProbeSet::builtin().unwrap();
    variants::select(&catalog_models(), &probes.preferred_models)
}

fn measured(asm: &OracleAssembler) -> BTreeMap<String, BTreeMap<Aspect, Cell>> {
    measured_with(asm)
}

fn measured_with(asm: &dyn Assembler) -> BTreeMap<String, BTreeMap<Aspect, Cell>> {
    let probes = ProbeSet::builtin().unwrap();
    selected()
        .iter()
        .map(|v| {
            (
                format!("{} {} {}", v.api, v.mode.label(), v.reference()),
                measure_variant(v, &probes, asm).cells,
            )
        })
        .collect()
}

#[test]
fn variant_selection_matches_the_oracle_script() {
    let asm = OracleAssembler::new();
    let mut ours: Vec<String> = selected()
        .iter()
        .map(|v| v.case_model().to_string())
        .collect();
    ours.sort();
    assert_eq!(
        ours,
        asm.variant_models(),
        "fixtures/report/pi-ai is stale: rerun tools/pi-oracle/src/report-probes.mjs"
    );
}

#[test]
fn every_cell_is_measured_on_real_pi_ai_payloads() {
    let asm = OracleAssembler::new();
    for (name, cells) in measured(&asm) {
        for (aspect, cell) in cells {
            assert!(
                matches!(cell, Cell::Measured(_)),
                "{name} {aspect:?}: {cell:?}"
            );
        }
    }
}

#[test]
fn classification_of_known_paths() {
    let asm = OracleAssembler::new();
    let m = measured(&asm);
    let get = |k: &str, a: Aspect| m[k][&a].text();
    let opus = "anthropic-messages sys + toolChanges anthropic/claude-opus-4-8";
    assert!(get(opus, Aspect::Instructions).starts_with("deferred past the next user message"));
    assert_eq!(
        get(opus, Aspect::ToolAddition),
        "in-place `tool_addition` block (role `system`); declared in `tools` with `defer_loading`"
    );
    assert_eq!(
        get(opus, Aspect::ToolRemoval),
        "in-place `tool_removal` block (role `system`); the tool stays declared in `tools`"
    );
    assert_eq!(
        get(opus, Aspect::PrefixAddition),
        "kept (deferred declarations appended)"
    );
    let sonnet = "anthropic-messages unflagged anthropic/claude-sonnet-4-6";
    assert!(get(sonnet, Aspect::Instructions).starts_with("folded into the leading prompt"));
    assert_eq!(
        get(sonnet, Aspect::PrefixInstructions),
        "breaks: leading prompt rewritten"
    );
    let gpt = "openai-responses sys + additionalTools + toolSearch openai/gpt-5.5";
    assert_eq!(get(gpt, Aspect::Instructions), "in place, role `developer`");
    assert_eq!(
        get(gpt, Aspect::ToolAddition),
        "`additional_tools` item (role `developer`)"
    );
    assert_eq!(
        get(gpt, Aspect::AfterRemoval),
        "full tool list: added to `tools`"
    );
    assert_eq!(
        get(gpt, Aspect::PrefixRemoval),
        "breaks: tool list rewritten"
    );
    let codex = "openai-codex-responses sys + toolSearch openai-codex/gpt-5.5";
    assert!(get(codex, Aspect::ToolAddition)
        .starts_with("`tool_search_call` + `tool_search_output` pair"));
    assert_eq!(get(codex, Aspect::Leading), "`instructions` field");
    let kimi = "openai-completions sys + toolAdditions moonshotai/kimi-k3";
    assert_eq!(
        get(kimi, Aspect::ToolAddition),
        "`system` message with `tools`"
    );
    let gemini = "google-generative-ai override: all six flags on google/gemini-2.5-pro";
    assert!(get(gemini, Aspect::Instructions).starts_with("folded into the leading prompt"));
    let radius = "pi-messages unflagged radius/balanced";
    assert_eq!(
        get(radius, Aspect::Leading),
        "first message, role `system`, raw `sections` (not rendered)"
    );
}

/// The acceptance check: change one assembler's output (a copy of pi-ai's) and the
/// cell changes.
#[test]
fn altering_one_assembler_changes_its_cells() {
    let before = measured(&OracleAssembler::new());
    let mut asm = OracleAssembler::new();
    // Pretend openai-responses sent the addition in the tool list instead of additional_tools.
    asm.alter = Some(Box::new(|provider, probe, payload| {
        if provider == "\"openai\"" && probe == "tool-addition" {
            let Some(input) = payload["input"].as_array_mut() else {
                return;
            };
            let mut moved = Vec::new();
            input.retain(|i| {
                if i["type"] == "additional_tools" {
                    moved.extend(i["tools"].as_array().cloned().unwrap_or_default());
                    false
                } else {
                    true
                }
            });
            if let Some(tools) = payload["tools"].as_array_mut() {
                tools.extend(moved);
            }
        }
    }));
    let after = measured(&asm);
    let gpt = "openai-responses sys + additionalTools + toolSearch openai/gpt-5.5";
    assert_eq!(
        after[gpt][&Aspect::ToolAddition].text(),
        "full tool list: added to `tools`"
    );
    assert_eq!(
        after[gpt][&Aspect::PrefixAddition].text(),
        "breaks: tool list extended"
    );
    let changed: Vec<String> = before
        .iter()
        .flat_map(|(k, cells)| {
            cells
                .iter()
                .filter(|(a, c)| after[k][a] != **c)
                .map(move |(a, _)| format!("{k} {}", a.key()))
        })
        .collect();
    assert!(
        changed
            .iter()
            .all(|c| c.starts_with("openai-responses ") && c.contains("openai/")),
        "{changed:?}"
    );
}

#[test]
fn variant_modes_cover_the_catalog() {
    let v = selected();
    assert!(v
        .iter()
        .any(|v| v.mode == Mode::Override && v.api == "google-vertex"));
    assert!(!v
        .iter()
        .any(|v| v.mode == Mode::Override && v.api == "anthropic-messages"));
}

/// Fidelity of the measurement: forge-replay's own assemblers give the same cells as the real
/// pi-ai payloads, for every variant and aspect.
#[test]
fn wire_assemblers_measure_like_pi_ai() {
    let oracle = measured(&OracleAssembler::new());
    let ours = measured_with(&WireAssembler {
        catalog: Catalog::builtin(PiRelease::V0_87_1),
    });
    let mut diffs = Vec::new();
    for (k, cells) in &oracle {
        for (a, c) in cells {
            let o = &ours[k][a];
            if o != c {
                diffs.push(format!(
                    "{k} {}:\n  pi-ai: {}\n  ours:  {}",
                    a.key(),
                    c.text(),
                    o.text()
                ));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn cache_section_places_requests_around_tool_changes() {
    let session = forge_replay_testkit::fixture("agent/anthropic-opus-tools/session.jsonl");
    let s = super::cache::analyze_session(&session, &catalog_models()).expect("session");
    assert_eq!(s.tool_changes, 1, "{s:?}");
    let phases: Vec<super::cache::Phase> = s.requests.iter().map(|r| r.phase).collect();
    use super::cache::Phase::*;
    let at = phases
        .iter()
        .position(|p| *p == At)
        .expect("a request at the change");
    assert_eq!(phases[at - 1], Before);
    assert_eq!(s.requests[at].change.as_deref(), Some("-bash"));
    assert!(s.requests[0].native, "claude-opus-4-8 is flagged");
    let section = super::cache::CacheSection {
        sessions: vec![s],
        unreadable: vec![],
    };
    assert!(section.by_phase().contains_key(&("native", At)));
}
