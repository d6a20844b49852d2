//! Command-line arguments (clap derive). One struct per subcommand.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use forge_replay_capability::projection::Presentation;
use forge_replay_engine::replay::{parse_model, AfterTree, REPRESENTATIVE_MODELS};
use forge_replay_model::choice::Choice;
use forge_replay_usage::corpus::{Day, GroupBy};
use forge_replay_usage::explain::Retention;

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

pub use crate::release::PiArg;

pub use forge_replay_report::format::{Format, TextOrJson, FORMAT_RULE, TABULAR, TEXT_JSON};

/// The values `allowed` of a library's vocabulary ([`Choice`]: `--format`, `--retention`, `--by`
/// …), listed in `--help` with what each means, old names accepted.
#[derive(Debug, Clone, Copy)]
pub struct ChoiceParser<T: 'static>(&'static [T]);

/// A parser for every value of `T`.
pub const fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(T::ALL)
}

/// A `--format` parser that accepts these formats only.
pub const fn formats(allowed: &'static [Format]) -> ChoiceParser<Format> {
    ChoiceParser(allowed)
}

impl<T: Choice> clap::builder::TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let names = PossibleValuesParser::new(self.possible_values().into_iter().flatten());
        let name = names.parse_ref(cmd, arg, value)?;
        Ok(T::named(&name, self.0).unwrap_or(self.0[0]))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|c| {
            clap::builder::PossibleValue::new(c.name())
                .help(c.help())
                .aliases(c.aliases().iter().copied())
        })))
    }
}

/// `--catalog FILE`, shared by every command that reads a release's model catalog.
#[derive(Debug, Clone, Default, Args)]
pub struct CatalogArg {
    /// A models file (same shape as Pi's `models-store.json`) layered over the built-in catalog
    /// of the release followed.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Option<PathBuf>,
}

impl CatalogArg {
    pub fn path(&self) -> Option<&std::path::Path> {
        self.catalog.as_deref()
    }
}

/// `--leaf ENTRY_ID`, shared by every command that works at one leaf of a session.
#[derive(Debug, Clone, Default, Args)]
pub struct LeafArg {
    /// Entry id of the leaf to work at (default: the last entry of the file, as Pi does on
    /// load).
    #[arg(long = "leaf", value_name = "ENTRY_ID")]
    pub leaf: Option<String>,
}

/// `--retention short|long`, shared by the commands that explain prompt-cache breaks.
#[derive(Debug, Clone, Copy, Args)]
pub struct RetentionArg {
    /// Cache retention the session ran with (`long` = `PI_CACHE_RETENTION=long`): TTL 5 min or
    /// 1 h, or the model's `promptCache` seconds from the catalog.
    #[arg(long = "retention", value_parser = choice::<Retention>(), default_value = "short")]
    pub retention: Retention,
}

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
    /// Print a shell completion script (for example `forge-replay completions bash >
    /// ~/.local/share/bash-completion/completions/forge-replay`).
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per command into a directory.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Session files (.jsonl), scenarios (.toml), wire case files (.case.json) or directories
    /// of them (default: Pi's sessions directory, `$PI_CODING_AGENT_DIR/sessions` or
    /// `~/.pi/agent/sessions`).
    pub inputs: Vec<PathBuf>,
    /// The release the requests are built with now.
    #[arg(long, value_name = "RELEASE")]
    pub from: String,
    /// The release to move to.
    #[arg(long, value_name = "RELEASE")]
    pub to: String,
    /// Output format; default `text`, also when piped: the changes are for the person reading a terminal or CI log, the exit code is the result for scripts; `json` for the details, `md` for a pull request.
    #[arg(long, value_parser = formats(&[Format::Text, Format::Json, Format::Md]), default_value = "text")]
    pub format: Format,
    /// Exit 1 only when a change of these kinds is found (headers, tools, system, thinking,
    /// max-tokens, sampling, messages, threading, other; missing-model for a model the target
    /// release lacks). Default: any change.
    #[arg(long, value_name = "KIND,...", value_delimiter = ',')]
    pub fail_on: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReleasesArgs {
    /// Only this release's changes (against the release before it).
    #[arg(long = "pi", value_name = "RELEASE")]
    pub pi: Option<String>,
    /// Output format (`md` is `docs/releases.md`); default: text on a terminal, json when
    /// stdout is not one.
    #[arg(long, value_parser = formats(&[Format::Text, Format::Json, Format::Md]))]
    pub format: Option<Format>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `forge-replay.1` and one `forge-replay-<command>.1` per command into this
    /// directory instead of printing `forge-replay.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    #[command(flatten)]
    pub leaf: LeafArg,
    /// Apply `convertToLlm` (the messages as the provider layer receives them).
    #[arg(long)]
    pub llm: bool,
    /// Apply pi-forge's capability projection (from the snapshots the session's own events hold).
    #[arg(long, value_parser = choice::<Presentation>())]
    pub capabilities: Option<Presentation>,
    /// Output format: `json` is `{"leafId", "messages"}` as Pi builds it, `text` one line per
    /// message; default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    /// Output format; default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Session files or directories of sessions (every `*.jsonl` below them; default: Pi's
    /// sessions directory, `$PI_CODING_AGENT_DIR/sessions` or `~/.pi/agent/sessions`).
    pub paths: Vec<PathBuf>,
    /// Output format; default `text`, also when piped: the findings are for the person reading a terminal or CI log, the exit code is the result for scripts; `json` for the details.
    #[arg(long, value_parser = formats(TEXT_JSON), default_value = "text")]
    pub format: Format,
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
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// Output format: `json` is `{api, payload, wire}`, `text` a summary of the request;
    /// default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Only models of this API.
    #[arg(long, value_parser = api_names())]
    pub api: Option<String>,
    /// Only models with `compat.supportsMidConvoSystemMessages`.
    #[arg(long)]
    pub flagged: bool,
    /// Output format; default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// List what changed between two releases' catalogs (`0.87.1..1.3.0`): models added,
    /// removed and re-flagged.
    #[arg(long, value_name = "FROM..TO", conflicts_with = "pi")]
    pub changes: Option<String>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct CapabilitiesArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    #[command(flatten)]
    pub leaf: LeafArg,
    /// Output format; default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    /// Project root: discover its capability library (and the global one) and list what is
    /// available.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Model used to decide native vs user-update presentation (`provider/id`).
    #[arg(long, value_parser = parse_model, value_name = "PROVIDER/ID")]
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
    /// Capability resource files (`*.json`) or directories of them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format; default `text`, also when piped: the findings are for the person reading a terminal or CI log, the exit code is the result for scripts; `json` for the details.
    #[arg(long, value_parser = formats(TEXT_JSON), default_value = "text")]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Session JSONL file.
    pub session: PathBuf,
    #[command(flatten)]
    pub leaf: LeafArg,
    /// Re-target every request to this model (`provider/id`).
    #[arg(long, conflicts_with_all = ["api", "all_apis"], value_parser = parse_model, value_name = "PROVIDER/ID")]
    pub model: Option<String>,
    /// Re-target to the representative model of this API.
    #[arg(long, conflicts_with = "all_apis", value_parser = api_names())]
    pub api: Option<String>,
    /// Replay against the representative model of every API.
    #[arg(long)]
    pub all_apis: bool,
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// Write one file per request plus `index.json` into this directory (new or empty, or a
    /// previous `--out` of replay).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The thinking level of a request after a `/tree` navigation when the response does not
    /// record it (0.87.1): `live` (the agent keeps its level; default) or `path` (the level on
    /// the request's path, as a Pi resumed on that branch restores it).
    #[arg(long, value_parser = choice::<AfterTree>(), default_value = "live")]
    pub after_tree: AfterTree,
    /// Tool declarations a `prepareLoadout` hook hid from the requests (Pi 1.3; a session does
    /// not record them), comma separated.
    #[arg(long, value_delimiter = ',', value_name = "TOOL,...")]
    pub hide_declarations: Vec<String>,
    /// Output format on stdout: `json` is `{"requests": [...]}` in full, `text` a summary with
    /// one row per request and what changed from the one before; default: text on a terminal,
    /// json when stdout is not one (scripts and `jq` keep getting the requests).
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Scenario files or directories (default: `scenarios/`).
    pub paths: Vec<PathBuf>,
    /// `all` (the default) or a comma-separated list of APIs; each runs on its representative
    /// model.
    #[arg(long, value_delimiter = ',', value_parser = api_names_or_all())]
    pub apis: Vec<String>,
    /// Comma-separated `provider/id` list of models to replay on instead of `--apis`.
    #[arg(long, value_name = "PROVIDER/ID,...")]
    pub models: Option<String>,
    /// Write the current output as the new goldens.
    #[arg(long)]
    pub bless: bool,
    /// Also write a JUnit XML report (one test case per scenario × model) to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Output format; default `text`, also when piped: the differences are for the person reading a terminal or CI log, the exit code is the result for scripts (and `--junit` for CI); `json` for the details.
    #[arg(long, value_parser = formats(TEXT_JSON), default_value = "text")]
    pub format: Format,
    /// Golden tree (default: the `fixtures/golden` of the nearest directory at or above the
    /// scenarios that has one; never looked up from the working directory).
    #[arg(long, value_name = "DIR")]
    pub golden_dir: Option<PathBuf>,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old payload (JSON: a payload, a golden, a replay record or a pi-forge save).
    pub a: PathBuf,
    /// The new payload.
    pub b: PathBuf,
    /// Output format; default `text`, also when piped: the differences are for the person reading a terminal or CI log, the exit code is the result for scripts; `json` for the details.
    #[arg(long, value_parser = formats(TEXT_JSON), default_value = "text")]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Output directory for `session.jsonl` and the capability library.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Session file (omit with --corpus).
    #[arg(required_unless_present = "corpus", conflicts_with = "corpus")]
    pub session: Option<PathBuf>,
    #[command(flatten)]
    pub leaf: LeafArg,
    /// One row per request.
    #[arg(long)]
    pub requests: bool,
    /// Output format (`csv`: rates as fractions, costs in dollars, counts as integers);
    /// default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TABULAR))]
    pub format: Option<Format>,
    /// Analyse every `*.jsonl` under these directories (default: Pi's sessions directory,
    /// `$PI_CODING_AGENT_DIR/sessions` or `~/.pi/agent/sessions`).
    #[arg(long, num_args = 0.., value_name = "DIR", conflicts_with_all = ["leaf", "requests"])]
    pub corpus: Option<Vec<PathBuf>>,
    /// With --corpus: one row per group (default: model).
    #[arg(long, value_parser = choice::<GroupBy>(), conflicts_with = "session")]
    pub by: Option<GroupBy>,
    /// With --corpus: only requests on or after this day (UTC), `YYYY-MM-DD` or `YYYYMMDD`.
    #[arg(long, value_name = "DAY", value_parser = Day::parse, conflicts_with = "session")]
    pub since: Option<Day>,
    /// With --corpus: only requests on or before this day (UTC), `YYYY-MM-DD` or `YYYYMMDD`.
    #[arg(long, value_name = "DAY", value_parser = Day::parse, conflicts_with = "session")]
    pub until: Option<Day>,
    /// With --corpus: only models whose id contains this text, or exactly this `provider/model`.
    #[arg(long = "model", value_name = "MODEL", conflicts_with = "session")]
    pub model_filter: Option<String>,
    /// With --corpus: only sessions whose cwd contains this text.
    #[arg(long, value_name = "TEXT", conflicts_with = "session")]
    pub project: Option<String>,
    /// With --corpus: write the request table as CSV to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "session")]
    pub csv: Option<PathBuf>,
    /// With --corpus: write the request table as a hive-partitioned Parquet dataset into this
    /// directory (new, empty, or a previous --parquet dataset).
    #[arg(long, value_name = "DIR", conflicts_with = "session")]
    pub parquet: Option<PathBuf>,
    /// With --corpus: write the request table as JSON to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "session")]
    pub json: Option<PathBuf>,
    /// Draw the hit rate (per request for a session, per model for a corpus) to this file
    /// (`.png` or `.svg`).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Exit 1 when the main-agent hit rate is below this: a fraction from 0 to 1 (`0.85`) or a
    /// percentage with `%` (`85%`).
    #[arg(long, value_name = "RATE", value_parser = forge_replay_usage::session_report::parse_min_hit_rate)]
    pub min_hit_rate: Option<f64>,
    #[command(flatten)]
    pub pi: PiArg,
    /// With --corpus: replay every session (`cache explain`) and sum what the confirmed cache
    /// breaks re-billed, by cause, model and project.
    #[arg(long, conflicts_with = "session")]
    pub breaks: bool,
    /// With --corpus: the directory of the incremental index, which lets a re-run read only the
    /// files that changed, and of a grown file only its new lines (default:
    /// $XDG_CACHE_HOME/forge-replay, else ~/.cache/forge-replay).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["no_cache", "session"])]
    pub cache: Option<PathBuf>,
    /// With --corpus: read every file whole, without reading or writing the index.
    #[arg(long, conflicts_with = "session")]
    pub no_cache: bool,
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
    #[command(flatten)]
    pub leaf: LeafArg,
    /// Output format; default: text on a terminal, json when stdout is not one.
    #[arg(long, value_parser = formats(TEXT_JSON))]
    pub format: Option<Format>,
    /// Write the hit rate per request with the confirmed breaks marked (.png or .svg).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub catalog: CatalogArg,
    #[command(flatten)]
    pub retention: RetentionArg,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct GenCorpusArgs {
    /// Output directory (Pi's sessions layout; new, empty, or a previous gen-corpus output).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Number of session files.
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    /// Lines per session file, header included (at least 8).
    #[arg(long, default_value_t = 200, value_parser = forge_replay_usage::gen::parse_entries)]
    pub entries: usize,
    /// Random seed: the same seed writes the same corpus.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fraction of sessions (0 to 1) that are forks of the previous one.
    #[arg(long, default_value_t = 0.0, value_parser = forge_replay_usage::gen::parse_forks)]
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
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Output format; default `html`, also when piped: the report is a page to open or share
    /// (`json` is the same numbers for scripts).
    #[arg(long, value_parser = formats(&[Format::Html, Format::Json]), default_value = "html")]
    pub format: Format,
    #[command(flatten)]
    pub leaf: LeafArg,
    #[command(flatten)]
    pub catalog: CatalogArg,
    #[command(flatten)]
    pub retention: RetentionArg,
    #[command(flatten)]
    pub pi: PiArg,
}

#[derive(Debug, Args)]
pub struct ReportProvidersArgs {
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// Session files or directories whose measured cache behaviour goes into the report
    /// (`--sessions` alone: Pi's sessions directory, `$PI_CODING_AGENT_DIR/sessions` or
    /// `~/.pi/agent/sessions`).
    #[arg(long, num_args = 0.., value_name = "PATH")]
    pub sessions: Option<Vec<PathBuf>>,
    /// Write the report to this file (default: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Output format; default `md`, also on a terminal: the report is a document
    /// (`reports/provider-support.md` is this output), `html` a page with the plots inline.
    #[arg(long, value_parser = formats(&[Format::Md, Format::Html]), default_value = "md")]
    pub format: Format,
    #[command(flatten)]
    pub pi: PiArg,
}
