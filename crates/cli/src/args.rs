//! Command-line arguments (clap derive). One struct per subcommand.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use forge_replay_engine::replay::REPRESENTATIVE_MODELS;

/// The ten pi-ai APIs, as `--api` accepts them.
fn api_names() -> PossibleValuesParser {
    PossibleValuesParser::new(REPRESENTATIVE_MODELS.iter().map(|(api, _)| *api))
}

/// `all` or one of the ten APIs (`verify --apis`).
fn api_names_or_all() -> PossibleValuesParser {
    PossibleValuesParser::new(
        std::iter::once("all").chain(REPRESENTATIVE_MODELS.iter().map(|(api, _)| *api)),
    )
}

/// A `provider/id` model (the id may contain `/`).
fn provider_model(s: &str) -> Result<String, String> {
    match s.split_once('/') {
        Some((p, id)) if !p.is_empty() && !id.is_empty() => Ok(s.to_string()),
        _ => Err("expected provider/id, for example anthropic/claude-opus-4-8".into()),
    }
}

pub use crate::release::PiArg;

/// Replay, verify and analyse Pi coding-agent sessions offline.
#[derive(Debug, Parser)]
#[command(name = "forge-replay", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print and write secrets as they are (by default every output is redacted: API keys,
    /// tokens, passwords, authorization and cookie values become `[redacted]`).
    #[arg(long, global = true)]
    pub no_redact: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the messages Pi puts in front of the model at a leaf.
    Context(ContextArgs),
    /// Show a session's tree: branches, leaves, compactions, labels, models.
    Tree(TreeArgs),
    /// Structural and recovery diagnostics for sessions (exit 0 clean, 1 findings, 2 unreadable).
    Check(CheckArgs),
    /// Assemble the provider request pi-ai would send for a case file.
    Assemble(AssembleArgs),
    /// List the model catalog with its compat flags.
    Models(ModelsArgs),
    /// Show pi-forge capability state at a leaf.
    Capabilities(CapabilitiesArgs),
    /// pi-forge capability resources.
    #[command(subcommand)]
    Capability(CapabilityCommand),
    /// Rebuild every request of a session as the agent sent it.
    Replay(ReplayArgs),
    /// Compare scenario replays with golden payloads.
    Verify(VerifyArgs),
    /// Structural diff of two payload files.
    Diff(DiffArgs),
    /// Compile a scenario into a Pi session JSONL.
    Scenario(ScenarioArgs),
    /// Prompt-cache usage for one session or a corpus.
    Usage(UsageArgs),
    /// Prompt-cache diagnosis.
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Write a corpus of realistic generated Pi sessions.
    GenCorpus(GenCorpusArgs),
    /// Generated reports.
    #[command(subcommand)]
    Report(ReportCommand),
    /// The supported Pi releases and what each one changes.
    Releases(ReleasesArgs),
    /// What changes in every request when Pi moves to another release (exit 0 no change, 1
    /// changes, 2 bad input).
    Upgrade(UpgradeArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpgradeFormat {
    Text,
    Json,
    Md,
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Session files (.jsonl), scenarios (.toml), wire case files (.case.json) or directories
    /// of them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The release the requests are built with now.
    #[arg(long, value_name = "RELEASE")]
    pub from: String,
    /// The release to move to.
    #[arg(long, value_name = "RELEASE")]
    pub to: String,
    #[arg(long, value_enum, default_value = "text")]
    pub format: UpgradeFormat,
    /// Exit 1 only when a change of these kinds is found (headers, tools, system, thinking,
    /// max-tokens, sampling, messages, threading, other; missing-model for a model the target
    /// release lacks). Default: any change.
    #[arg(long, value_name = "KIND,...", value_delimiter = ',')]
    pub fail_on: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReleasesFormat {
    Text,
    Md,
    Json,
}

#[derive(Debug, Args)]
pub struct ReleasesArgs {
    /// Only this release's changes (against the release before it).
    #[arg(long = "pi", value_name = "RELEASE")]
    pub pi: Option<String>,
    /// `md` is `docs/releases.md`.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReleasesFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Presentation {
    /// Native system sections (models flagged `supportsMidConvoSystemMessages`).
    Native,
    /// Attributed `[pi-forge capability update]` user messages.
    Fallback,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    /// Entry id to project at (default: the last entry of the file, as Pi does on load).
    #[arg(long)]
    pub leaf: Option<String>,
    /// Apply `convertToLlm` (the messages as the provider layer receives them).
    #[arg(long)]
    pub llm: bool,
    /// Apply pi-forge's capability projection (from the snapshots the session's own events hold).
    #[arg(long, value_enum)]
    pub capabilities: Option<Presentation>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    pub session: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Session files or directories of sessions.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
    /// Only structural checks (skip capability and request recovery checks).
    #[arg(long)]
    pub structural: bool,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// Case file `{model, context, options?, entry?}`.
    pub case: PathBuf,
    /// A models file (same shape as Pi's `models-store.json`) layered over the built-in catalog.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableOrJson {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Only models of this API.
    #[arg(long, value_parser = api_names())]
    pub api: Option<String>,
    /// Only models with `compat.supportsMidConvoSystemMessages`.
    #[arg(long)]
    pub flagged: bool,
    #[arg(long, value_enum, default_value = "table")]
    pub format: TableOrJson,
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// List what changed between two releases' catalogs (`0.87.1..1.3.0`): models added,
    /// removed and re-flagged.
    #[arg(long, value_name = "FROM..TO", conflicts_with = "pi")]
    pub changes: Option<String>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct CapabilitiesArgs {
    pub session: PathBuf,
    #[arg(long)]
    pub leaf: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Model used to decide native vs user-update presentation (`provider/id`).
    #[arg(long, value_parser = provider_model, value_name = "PROVIDER/ID")]
    pub model: Option<String>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Subcommand)]
pub enum CapabilityCommand {
    /// Validate capability resource files with pi-forge's exact diagnostics.
    Validate(ValidateArgs),
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    pub session: PathBuf,
    #[arg(long)]
    pub leaf: Option<String>,
    /// Re-target every request to this model (`provider/id`).
    #[arg(long, conflicts_with_all = ["api", "all_apis"], value_parser = provider_model, value_name = "PROVIDER/ID")]
    pub model: Option<String>,
    /// Re-target to the representative model of this API.
    #[arg(long, conflicts_with = "all_apis", value_parser = api_names())]
    pub api: Option<String>,
    /// Replay against the representative model of every API.
    #[arg(long)]
    pub all_apis: bool,
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// Write one file per request plus `index.json` here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The thinking level of a request after a `/tree` navigation when the response does not
    /// record it (0.87.1): `live` (the agent keeps its level; default) or `path` (the level on
    /// the request's path, as a Pi resumed on that branch restores it).
    #[arg(long, value_enum, default_value = "live")]
    pub after_tree: AfterTreeArg,
    /// Tool declarations a `prepareLoadout` hook hid from the requests (Pi 1.3; a session does
    /// not record them), comma separated.
    #[arg(long, value_delimiter = ',', value_name = "TOOL,...")]
    pub hide_declarations: Vec<String>,
    #[arg(long, value_enum, default_value = "json")]
    pub format: TextOrJson,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AfterTreeArg {
    Live,
    Path,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Scenario files or directories (default: `scenarios/`).
    pub paths: Vec<PathBuf>,
    /// `all` (the default) or a comma-separated list of APIs; each runs on its representative
    /// model.
    #[arg(long, value_delimiter = ',', value_parser = api_names_or_all())]
    pub apis: Vec<String>,
    /// Comma-separated `provider/id` list.
    #[arg(long)]
    pub models: Option<String>,
    /// Write the current output as the new goldens.
    #[arg(long)]
    pub bless: bool,
    #[arg(long)]
    pub junit: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
    /// Golden tree (default: the `fixtures/golden` of the nearest directory at or above the
    /// scenarios that has one; never looked up from the working directory).
    #[arg(long)]
    pub golden_dir: Option<PathBuf>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Output directory for `session.jsonl` and the capability library.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UsageFormat {
    Table,
    Json,
    Csv,
    Md,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Session file (omit with --corpus).
    pub session: Option<PathBuf>,
    #[arg(long)]
    pub leaf: Option<String>,
    /// One row per request.
    #[arg(long)]
    pub requests: bool,
    #[arg(long, value_enum, default_value = "table")]
    pub format: UsageFormat,
    /// Analyse every `*.jsonl` under these directories (default: Pi's sessions directory).
    #[arg(long, num_args = 0..)]
    pub corpus: Option<Vec<PathBuf>>,
    #[arg(long)]
    pub by: Option<String>,
    #[arg(long)]
    pub since: Option<String>,
    #[arg(long)]
    pub until: Option<String>,
    #[arg(long = "model")]
    pub model_filter: Option<String>,
    #[arg(long)]
    pub project: Option<String>,
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[arg(long)]
    pub parquet: Option<PathBuf>,
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[arg(long)]
    pub plot: Option<PathBuf>,
    #[arg(long)]
    pub min_hit_rate: Option<f64>,
    #[command(flatten)]
    pub pi: PiArg,
    /// With --corpus: replay every session (`cache explain`) and sum what the confirmed cache
    /// breaks re-billed, by cause, model and project.
    #[arg(long)]
    pub breaks: bool,
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Explain each prompt-cache break of a session.
    Explain(CacheExplainArgs),
}

#[derive(Debug, Args)]
pub struct CacheExplainArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    /// Entry id of the leaf (default: the last entry of the file, as Pi does on load).
    #[arg(long)]
    pub leaf: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
    /// Write the hit rate per request with the confirmed breaks marked (.png or .svg).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Extra model catalog (JSON) layered over pi-ai's.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// Cache retention the session ran with (`long` = `PI_CACHE_RETENTION=long`): TTL 5 min or 1 h,
    /// or the model's `promptCache` seconds from the catalog.
    #[arg(long, value_enum, default_value = "short")]
    pub retention: CacheRetention,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheRetention {
    Short,
    Long,
}

#[derive(Debug, Args)]
pub struct GenCorpusArgs {
    /// Output directory (Pi's sessions layout).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    #[arg(long, default_value_t = 200)]
    pub entries: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fraction of sessions that are forks of another.
    #[arg(long, default_value_t = 0.0)]
    pub forks: f64,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// The provider-support report.
    Providers(ReportProvidersArgs),
    /// One self-contained HTML page about one session: tree, hit rates, tokens, cost, breaks, diffs.
    Session(ReportSessionArgs),
}

#[derive(Debug, Args)]
pub struct ReportSessionArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    /// Write the page here (default: stdout, when it is not a terminal).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Entry id of the leaf (default: the last entry of the file, as Pi does on load).
    #[arg(long)]
    pub leaf: Option<String>,
    /// Extra model catalog (JSON) layered over pi-ai's.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// Cache retention the session ran with (as `cache explain --retention`).
    #[arg(long, value_enum, default_value = "short")]
    pub retention: CacheRetention,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Md,
    Html,
}

#[derive(Debug, Args)]
pub struct ReportProvidersArgs {
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    #[arg(long, num_args = 1..)]
    pub sessions: Vec<PathBuf>,
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: ReportFormat,
    #[command(flatten)]
    pub pi: PiArg,
}
