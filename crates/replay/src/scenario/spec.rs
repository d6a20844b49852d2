//! The scenario file format (TOML, `format = "forge-replay-scenario"`, `version = 1`).
//! Documented in `docs/scenarios.md`.

use indexmap::IndexMap;
use serde::Deserialize;

/// `format` value of every scenario file.
pub const SCENARIO_FORMAT: &str = "forge-replay-scenario";
/// The scenario format version this build reads.
pub const SCENARIO_VERSION: i64 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub format: String,
    pub version: i64,
    pub name: Option<String>,
    pub description: Option<String>,
    /// The Pi release the scenario is replayed as (`"1.3.0"`; default: `verify --pi`, else
    /// 0.87.1).
    pub pi: Option<String>,
    /// Session header id (default: derived from the name).
    pub session_id: Option<String>,
    /// Session header cwd (default `/home/dev/project`).
    pub cwd: Option<String>,
    /// Clock start, ISO (default `2026-01-01T00:00:00.000Z`); every entry advances it one second.
    pub start: Option<String>,
    /// Initial model `provider/id`.
    pub model: String,
    /// API of the initial model when the provider's default is not right.
    pub api: Option<String>,
    /// Initial thinking level (written as a `thinking_level_change` entry).
    pub thinking: Option<String>,
    /// Tools active before any capability (the Forge baseline), in order.
    pub tools: Vec<String>,
    /// Sections of the leading system message (default: a short preamble plus `cwd`).
    pub prompt: Option<IndexMap<String, String>>,
    /// Capability library directory, relative to the scenario file (default `capabilities` when
    /// it exists).
    pub library: Option<String>,
    /// Extra tool declarations (beyond Pi's built-in tools and `forge_capability`).
    #[serde(default)]
    pub tool: Vec<ToolSpec>,
    /// Presets by id, with their capability bindings.
    #[serde(default)]
    pub preset: IndexMap<String, PresetSpec>,
    /// Models `verify` replays this scenario against by default, besides `--apis`.
    #[serde(default)]
    pub verify_models: Vec<String>,
    #[serde(default)]
    pub step: Vec<toml::Spanned<Step>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema inline …
    pub parameters: Option<toml::Value>,
    /// … or in a JSON file inside the scenario directory.
    pub parameters_file: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetSpec {
    #[serde(default = "project_scope")]
    pub scope: String,
    #[serde(default)]
    pub capabilities: Vec<BindingSpec>,
}

fn project_scope() -> String {
    "project".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindingSpec {
    /// Capability selector (`[scope:]id`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Binding id (default: the selector's id).
    pub id: Option<String>,
    #[serde(default)]
    pub model_callable: bool,
    pub content: Option<String>,
    pub append_content: Option<String>,
    pub tools_add: Option<Vec<String>>,
    pub tools_remove: Option<Vec<String>>,
}

/// One step: exactly one action key, plus an optional `name` to refer to the entry it writes.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub name: Option<String>,
    pub user: Option<String>,
    pub assistant: Option<AssistantSpec>,
    pub capability: Option<CapabilitySpec>,
    pub preset: Option<String>,
    pub model: Option<String>,
    /// With `model`: the API when the provider's default is not right.
    pub api: Option<String>,
    pub thinking: Option<String>,
    pub compact: Option<CompactSpec>,
    pub branch: Option<BranchSpec>,
    pub label: Option<LabelSpec>,
    pub system: Option<SystemSpec>,
    pub custom_message: Option<CustomMessageSpec>,
    pub usage: Option<UsageEntrySpec>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AssistantSpec {
    pub text: Option<String>,
    pub thinking: Option<String>,
    pub signature: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallSpec>,
    pub usage: Option<UsageSpec>,
    /// `stop` (default; `toolUse` when there are tool calls), `length`, `error`, `aborted`.
    pub stop: Option<String>,
    pub error: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    pub id: Option<String>,
    pub name: String,
    #[serde(default = "empty_table")]
    pub arguments: toml::Value,
    /// Tool result text (default: generated; `forge_capability` calls get Forge's answer).
    pub result: Option<String>,
    #[serde(default)]
    pub is_error: bool,
    pub details: Option<toml::Value>,
    /// A nested usage report (`details.forgeNestedUsage`).
    pub nested_usage: Option<NestedUsageSpec>,
    /// No result is written (an orphaned call).
    #[serde(default)]
    pub no_result: bool,
}

fn empty_table() -> toml::Value {
    toml::Value::Table(toml::Table::new())
}

#[derive(Debug, Deserialize, Clone, Copy, Default)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NestedUsageSpec {
    pub requests: u64,
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    pub cache_read: Option<u64>,
    pub cache_write: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilitySpec {
    /// `enable`, `enable-bound`, `disable`, `add`, `reset`.
    pub op: String,
    /// `user` (default). Agent actions are `forge_capability` tool calls.
    pub by: Option<String>,
    /// `enable`: capability selector `[scope:]id`.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// `enable-bound`: binding id of the active preset.
    pub binding: Option<String>,
    /// `disable`: activation id, `scope:id`, capability id or binding id.
    pub target: Option<String>,
    /// `add`: the manual directive text.
    pub text: Option<String>,
    /// Anchor placement: `immediate` (idle, default) or `next-request` (written before the next
    /// request, as when the agent was busy) or `none` (never anchored: the projection's pending
    /// safety net delivers it).
    pub anchor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactSpec {
    pub summary: String,
    /// Name of the first kept entry (default: keep nothing).
    pub keep_from: Option<String>,
    #[serde(default = "default_tokens_before")]
    pub tokens_before: u64,
}

fn default_tokens_before() -> u64 {
    10000
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchSpec {
    /// Name of the entry to continue from.
    pub to: String,
    /// With a summary, Pi writes a `branch_summary` entry (`branchWithSummary`).
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSpec {
    pub target: String,
    pub label: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    #[serde(default)]
    pub content: String,
    /// Section patch (`""` removes a section: written as `null`).
    pub sections: Option<IndexMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomMessageSpec {
    pub custom_type: String,
    pub content: String,
    #[serde(default = "yes")]
    pub display: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageEntrySpec {
    #[serde(default = "cache_warm")]
    pub kind: String,
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
}

fn cache_warm() -> String {
    "cache_warm".into()
}
