//! A generator of realistic Pi 0.87.1 session corpora (deterministic for a seed).
//!
//! Layout and shapes follow Pi: `<out>/--<cwd with / replaced by ->--/<ISO time with : and .
//! replaced by ->_<sessionId>.jsonl`; a `session` header (`version: 3`, `cwd`, `parentSession` for
//! forks), `model_change`, `thinking_level_change`, a system message with sections and
//! `toolsAdded`, then turns of user / assistant (`toolUse` → `toolResult` → … → `stop`) messages
//! with usage that grows with the context (cache reads of the stable prefix, cache writes of the
//! new suffix, misses after idle gaps beyond the cache TTL and after compactions, model
//! switches), abandoned branches (a user re-asks from an earlier entry, sometimes with a
//! `branch_summary`), compactions, aborted requests, subagent tool results carrying
//! `details.forgeNestedUsage`, and forks that copy the ancestor entries of an earlier session
//! with their ids into a new file.

use std::path::{Path, PathBuf};

use forge_replay_model::js::date;
use forge_replay_model::json::stringify;
use serde_json::{json, Value};

/// Options of [`generate`].
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub sessions: usize,
    /// Lines per session file, header included.
    pub entries: usize,
    pub seed: u64,
    /// Fraction (0..=1) of sessions that are forks of the previous one.
    pub forks: f64,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Default)]
pub struct GenSummary {
    pub files: Vec<PathBuf>,
    pub bytes: u64,
    pub forks: usize,
    /// A previous `gen-corpus` output was there and has been replaced whole.
    pub replaced: bool,
}

impl GenSummary {
    /// What was written with `opts` into `dir`, as said on stderr.
    pub fn wrote(&self, opts: &GenOptions, dir: &Path) -> String {
        use forge_replay_model::text::count;
        format!(
            "wrote {} ({}), {} lines each, {:.1} MB under {}{}",
            count(self.files.len(), "session", "sessions"),
            count(self.forks, "fork", "forks"),
            opts.entries,
            self.bytes as f64 / 1e6,
            dir.display(),
            if self.replaced {
                " (the previous gen-corpus output there was replaced whole)"
            } else {
                ""
            }
        )
    }
}

/// A `--forks` that is not a fraction from 0 to 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a fraction from 0 to 1 (0.2 = one session in five)")]
pub struct BadForks;

/// [`GenOptions::forks`] from text: a fraction from 0 to 1.
pub fn parse_forks(s: &str) -> Result<f64, BadForks> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(BadForks),
    }
}

/// Fewer lines than this cannot hold a session: a header, the model and thinking changes, a
/// system message and one full turn.
pub const MIN_ENTRIES: usize = 8;

/// An `--entries` below [`MIN_ENTRIES`] or not a whole number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a whole number of lines, at least 8")]
pub struct BadEntries;

/// [`GenOptions::entries`] from text: a whole number of at least [`MIN_ENTRIES`].
pub fn parse_entries(s: &str) -> Result<usize, BadEntries> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= MIN_ENTRIES => Ok(n),
        _ => Err(BadEntries),
    }
}

/// Errors of [`generate`].
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error(transparent)]
    Write(#[from] forge_replay_io::WriteError),
}

/// SplitMix64: small, fast, deterministic.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from_digit(self.below(16) as u32, 16).unwrap_or('0'))
            .collect()
    }
}

/// A model with per-million-token prices and how its provider reports caching.
struct ModelSpec {
    provider: &'static str,
    id: &'static str,
    api: &'static str,
    price: [f64; 4], // input, output, cacheRead, cacheWrite per 1M tokens
    cache: CacheStyle,
}

#[derive(Clone, Copy, PartialEq)]
enum CacheStyle {
    /// Explicit breakpoints: cacheRead of the prefix, cacheWrite of the new suffix.
    Anthropic,
    /// Automatic prefix caching: cacheRead only, uncached rest counted as input.
    OpenAi,
    /// The provider reports no cache counts.
    None,
}

const MODELS: [ModelSpec; 6] = [
    ModelSpec {
        provider: "anthropic",
        id: "claude-opus-4-8",
        api: "anthropic-messages",
        price: [5.0, 25.0, 0.5, 6.25],
        cache: CacheStyle::Anthropic,
    },
    ModelSpec {
        provider: "anthropic",
        id: "claude-sonnet-4-6",
        api: "anthropic-messages",
        price: [3.0, 15.0, 0.3, 3.75],
        cache: CacheStyle::Anthropic,
    },
    ModelSpec {
        provider: "openai",
        id: "gpt-5.5",
        api: "openai-responses",
        price: [1.25, 10.0, 0.125, 0.0],
        cache: CacheStyle::OpenAi,
    },
    ModelSpec {
        provider: "openai-codex",
        id: "gpt-5.6-sol",
        api: "openai-codex-responses",
        price: [1.25, 10.0, 0.125, 0.0],
        cache: CacheStyle::OpenAi,
    },
    ModelSpec {
        provider: "google",
        id: "gemini-2.5-pro",
        api: "google-generative-ai",
        price: [1.25, 10.0, 0.31, 0.0],
        cache: CacheStyle::OpenAi,
    },
    ModelSpec {
        provider: "mistral",
        id: "devstral-medium-latest",
        api: "mistral-conversations",
        price: [0.4, 2.0, 0.0, 0.0],
        cache: CacheStyle::None,
    },
];

const WORDS: [&str; 32] = [
    "the", "file", "function", "returns", "error", "test", "module", "config", "value", "cache",
    "request", "session", "branch", "build", "update", "parser", "result", "with", "and", "for",
    "struct", "field", "handler", "check", "path", "output", "input", "token", "model", "tool",
    "line", "data",
];

const TOOLS: [&str; 5] = ["read", "bash", "edit", "write", "grep"];

/// Every tool a generated session calls, declared by its system message: [`TOOLS`] and the
/// subagent tool.
const DECLARED: [&str; 6] = ["read", "bash", "edit", "write", "grep", "subagent"];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::with_capacity(n * 6);
    for i in 0..n {
        if i > 0 {
            s.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        let w: &&str = rng.pick(&WORDS);
        s.push_str(w);
    }
    s
}

/// `new Date(ms).toISOString()` (the generator's clock stays in the years after 2026).
fn iso(ms: i64) -> String {
    date::to_iso_string(ms as f64).unwrap_or_default()
}

fn round_cost(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// One line written so far and its id, for forks.
struct Written {
    id: String,
    parent: Option<String>,
    text: String,
    /// Entry time (ms), so a fork is created after the entries it copies.
    time: i64,
}

struct SessionGen<'a> {
    rng: &'a mut Rng,
    lines: Vec<Written>,
    leaf: Option<String>,
    now: i64,
    model: usize,
    context: u64,
    cached_prefix: u64,
    last_user_parent: Option<String>,
    used_ids: std::collections::HashSet<String>,
    /// The leading system message without its timestamp (restated by compactions).
    system: Value,
}

impl SessionGen<'_> {
    fn new_id(&mut self) -> String {
        loop {
            let id = self.rng.hex(8);
            if self.used_ids.insert(id.clone()) {
                return id;
            }
        }
    }

    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.now += self.rng.range(lo, hi) as i64;
        self.now
    }

    /// Appends an entry with the base fields first (Pi's key order) and makes it the leaf.
    fn append(&mut self, ty: &str, fields: Value) -> String {
        let id = self.new_id();
        let mut obj = serde_json::Map::new();
        obj.insert("type".into(), json!(ty));
        obj.insert("id".into(), json!(id));
        obj.insert(
            "parentId".into(),
            self.leaf.clone().map_or(Value::Null, Value::String),
        );
        obj.insert("timestamp".into(), json!(iso(self.now)));
        if let Value::Object(f) = fields {
            obj.extend(f);
        }
        let text = stringify(&Value::Object(obj));
        self.lines.push(Written {
            id: id.clone(),
            parent: self.leaf.clone(),
            text,
            time: self.now,
        });
        self.leaf = Some(id.clone());
        id
    }

    fn message(&mut self, message: Value) -> String {
        self.append("message", json!({ "message": message }))
    }

    fn spec(&self) -> &'static ModelSpec {
        &MODELS[self.model]
    }

    /// Usage of one request that sends the whole context plus `new_tokens`.
    fn usage(&mut self, new_tokens: u64, output: u64) -> Value {
        let spec = self.spec();
        let prompt = self.context + new_tokens;
        let (input, read, write) = match spec.cache {
            CacheStyle::Anthropic => {
                let read = self.cached_prefix.min(prompt);
                let uncached = self.rng.range(1, 30).min(prompt - read);
                (uncached, read, prompt - read - uncached)
            }
            CacheStyle::OpenAi => {
                // Cached in 128-token blocks of the stable prefix.
                let read = self.cached_prefix.min(prompt) / 128 * 128;
                (prompt - read, read, 0)
            }
            CacheStyle::None => (prompt, 0, 0),
        };
        self.context = prompt + output;
        self.cached_prefix = prompt;
        let p = spec.price;
        let c = [
            round_cost(input as f64 * p[0] / 1e6),
            round_cost(output as f64 * p[1] / 1e6),
            round_cost(read as f64 * p[2] / 1e6),
            round_cost(write as f64 * p[3] / 1e6),
        ];
        json!({
            "input": input, "output": output, "cacheRead": read, "cacheWrite": write,
            "totalTokens": input + output + read + write,
            "cost": {"input": c[0], "output": c[1], "cacheRead": c[2], "cacheWrite": c[3], "total": c[0] + c[1] + c[2] + c[3]}
        })
    }

    fn assistant(&mut self, content: Value, usage: Value, stop: &str) -> String {
        let spec = self.spec();
        let ts = self.now;
        self.message(json!({
            "role": "assistant", "content": content, "api": spec.api, "provider": spec.provider,
            "model": spec.id, "usage": usage, "stopReason": stop, "timestamp": ts
        }))
    }

    fn header_lines(&mut self) {
        let spec = self.spec();
        self.tick(500, 1500);
        self.append(
            "model_change",
            json!({"provider": spec.provider, "modelId": spec.id}),
        );
        self.tick(200, 900);
        let level = *self.rng.pick(&["off", "low", "medium", "high"]);
        self.append("thinking_level_change", json!({"thinkingLevel": level}));
        self.tick(200, 900);
        let tools: Vec<Value> = DECLARED
            .iter()
            .map(|t| json!({"name": t, "description": format!("{t} tool"), "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}))
            .collect();
        let ts = self.now;
        let preamble = words(self.rng, 60);
        let listed: String = DECLARED.iter().map(|t| format!("- {t}\n")).collect();
        self.system = json!({
            "role": "system", "content": "",
            "sections": {"preamble": preamble, "tools": format!("<tools>\n{listed}</tools>")},
            "toolsAdded": tools
        });
        let mut system = self.system.clone();
        system["timestamp"] = json!(ts);
        self.message(system);
        self.context = 3000 + self.rng.below(2000);
        self.cached_prefix = 0;
    }

    /// One user turn; returns when `budget` lines are used up.
    fn turn(&mut self, budget: usize) {
        // Occasionally re-ask from before the previous turn: an abandoned branch.
        if self.lines.len() > 12 && self.rng.chance(0.06) {
            if let Some(parent) = self.last_user_parent.clone() {
                let from = self.leaf.clone().unwrap_or_else(|| "root".into());
                self.leaf = Some(parent.clone());
                self.context = self.context * 2 / 3;
                self.cached_prefix = self.context / 2;
                if self.rng.chance(0.5) && self.lines.len() + 1 < budget {
                    self.tick(2000, 9000);
                    let summary = words(self.rng, 25);
                    self.append("branch_summary", json!({"fromId": from, "summary": summary, "details": {"readFiles": [], "modifiedFiles": []}, "fromHook": false}));
                }
            }
        }
        // Idle gaps past the 5-minute cache TTL.
        if self.rng.chance(0.08) {
            self.tick(400_000, 4_000_000);
            self.cached_prefix = 0;
        } else {
            self.tick(5_000, 90_000);
        }
        if self.rng.chance(0.04) && self.lines.len() + 2 < budget {
            self.model = self.rng.below(MODELS.len() as u64) as usize;
            let spec = self.spec();
            self.append(
                "model_change",
                json!({"provider": spec.provider, "modelId": spec.id}),
            );
            self.cached_prefix = 0;
        }
        self.last_user_parent = self.leaf.clone();
        let n = self.rng.range(10, 60) as usize;
        let text = words(self.rng, n);
        let ts = self.now;
        self.message(
            json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}),
        );
        let rounds = self.rng.range(0, 4);
        for r in 0..=rounds {
            if self.lines.len() >= budget {
                return;
            }
            self.tick(2_000, 40_000);
            let last = r == rounds || self.lines.len() + 2 >= budget;
            if self.rng.chance(0.02) {
                // An aborted request that reported nothing.
                let zero = json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
                self.assistant(json!([]), zero, "aborted");
                continue;
            }
            let out_words = self.rng.range(10, 80) as usize;
            let text = words(self.rng, out_words);
            let output = out_words as u64 * 2 + self.rng.below(400);
            let new_tokens = self.rng.range(20, 400);
            if last {
                let usage = self.usage(new_tokens, output);
                self.assistant(json!([{"type": "text", "text": text}]), usage, "stop");
                return;
            }
            let tool = *self.rng.pick(&TOOLS);
            let subagent = self.rng.chance(0.04);
            let tool = if subagent { "subagent" } else { tool };
            let call_id = format!("toolu_{}", self.rng.hex(20));
            let path = format!("src/{}.rs", self.rng.pick(&WORDS));
            let usage = self.usage(new_tokens, output);
            self.assistant(
                json!([{"type": "text", "text": text}, {"type": "toolCall", "id": call_id, "name": tool, "arguments": {"path": path}}]),
                usage,
                "toolUse",
            );
            if self.lines.len() >= budget {
                return;
            }
            self.tick(100, 8_000);
            let body_words = self.rng.range(30, 200) as usize;
            let body = words(self.rng, body_words);
            self.context += body_words as u64 * 2;
            let details = if subagent {
                let reqs = self.rng.range(1, 6);
                let input = self.rng.range(100, 3000);
                let output = self.rng.range(50, 2000);
                let nested = match self.rng.below(10) {
                    0 => {
                        json!({"schemaVersion": 1, "requests": reqs, "input": input, "output": output})
                    }
                    1 => {
                        json!({"schemaVersion": 1, "requests": -1, "input": input, "output": output})
                    }
                    _ => {
                        json!({"schemaVersion": 1, "requests": reqs, "input": input, "output": output, "cacheRead": self.rng.range(0, 40_000), "cacheWrite": self.rng.range(0, 4_000)})
                    }
                };
                // Half of the reports name the sub-agent's model as pi-forge-subagents'
                // `forge_subagent` result does (`details.response.model`), so they can be priced.
                if reqs % 2 == 0 {
                    json!({"forgeNestedUsage": nested, "response": {"status": "completed", "model": {"provider": "anthropic", "id": "claude-sonnet-4-6"}}})
                } else {
                    json!({"forgeNestedUsage": nested})
                }
            } else {
                json!({"exitCode": 0, "truncated": false})
            };
            let ts = self.now;
            self.message(json!({
                "role": "toolResult", "toolCallId": call_id, "toolName": tool,
                "content": [{"type": "text", "text": body}], "details": details, "isError": false, "timestamp": ts
            }));
        }
    }

    fn compaction(&mut self) {
        self.tick(1_000, 5_000);
        let kept = self
            .last_user_parent
            .clone()
            .or_else(|| self.leaf.clone())
            .unwrap_or_default();
        let before = self.context;
        let summary = words(self.rng, 80);
        let spec = self.spec();
        let (input, output) = (before, self.rng.range(300, 1500));
        // Pi restates the current system message (and so the declared tools) on the compaction.
        let mut system = self.system.clone();
        system["timestamp"] = json!(self.now);
        let p = spec.price;
        let c = [
            round_cost(input as f64 * p[0] / 1e6),
            round_cost(output as f64 * p[1] / 1e6),
        ];
        self.append(
            "compaction",
            json!({
                "summary": summary, "firstKeptEntryId": kept, "tokensBefore": before,
                "details": {"readFiles": ["README.md"], "modifiedFiles": []},
                "usage": {"input": input, "output": output, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + output,
                          "cost": {"input": c[0], "output": c[1], "cacheRead": 0, "cacheWrite": 0, "total": c[0] + c[1]}},
                "fromHook": false, "systemMessage": system
            }),
        );
        self.context = 4000 + output + self.rng.below(3000);
        self.cached_prefix = 0;
    }

    fn body(&mut self, lines: usize) {
        while self.lines.len() < lines {
            if self.lines.len() > 40 && self.rng.chance(0.03) {
                self.compaction();
                continue;
            }
            self.turn(lines);
        }
    }
}

fn session_id(rng: &mut Rng, ms: i64) -> String {
    let t = format!("{:012x}", ms as u64 & 0xFFFF_FFFF_FFFF);
    format!(
        "{}-{}-7{}-{}{}-{}",
        &t[0..8],
        &t[8..12],
        rng.hex(3),
        ["8", "9", "a", "b"][rng.below(4) as usize],
        rng.hex(3),
        rng.hex(12)
    )
}

/// Writes `opts.sessions` session files under `out` in Pi's layout. The corpus is one set
/// ([`forge_replay_io::DirSet`]): it appears under `out` complete, or not at all.
pub fn generate(out: &Path, opts: &GenOptions) -> Result<GenSummary, GenError> {
    let replaced = out.join(forge_replay_io::SET_MARKER).is_file();
    let mut set = forge_replay_io::DirSet::begin(out, "corpus")?;
    let mut rng = Rng(opts.seed ^ 0x5EED_F0E5_u64.rotate_left(17));
    let projects = (opts.sessions / 40).clamp(1, 50);
    let start = date::days_from_civil(2026, 1, 1) * date::MS_PER_DAY;
    let mut summary = GenSummary {
        replaced,
        ..GenSummary::default()
    };
    // The previous non-fork session, kept so a fork can copy its ancestors.
    let mut previous: Option<(PathBuf, String, Vec<Written>, usize, i64, Value)> = None;
    let lines = opts.entries.max(8);
    for _ in 0..opts.sessions {
        let fork = previous.is_some() && rng.chance(opts.forks);
        let (project, mut now) = match (&previous, fork) {
            (Some((_, _, _, p, t, _)), true) => (*p, *t),
            _ => (
                rng.below(projects as u64) as usize,
                start + rng.below(90 * date::MS_PER_DAY as u64) as i64,
            ),
        };
        // A fork copies a prefix of the parent's active path and is created after it.
        let fork_cut = match (&previous, fork) {
            (Some((_, _, plines, _, _, _)), true) => {
                let path_idx = active_path(plines);
                let mut cut = (path_idx.len() / 3
                    + rng.below((path_idx.len() / 2).max(1) as u64) as usize)
                    .min(path_idx.len());
                // The copy keeps the header entries (the system message declares the tools) and
                // ends after a finished turn (never on a tool call without its result, nor on a
                // tool result a later compaction could keep without its call).
                cut = cut.max(3.min(path_idx.len()));
                while cut > 3 && {
                    let last = &plines[path_idx[cut - 1]].text;
                    last.contains("\"stopReason\":\"toolUse\"")
                        || last.contains("\"role\":\"toolResult\"")
                } {
                    cut -= 1;
                }
                if let Some(&last) = path_idx[..cut].last() {
                    now = now.max(plines[last].time) + rng.range(60_000, 7_200_000) as i64;
                }
                Some((path_idx, cut))
            }
            _ => None,
        };
        now -= now % 1000;
        let cwd = format!("/home/dev/work/project-{project:02}");
        let dir = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
        let id = session_id(&mut rng, now);
        let name = format!("{}_{}.jsonl", iso(now).replace([':', '.'], "-"), id);
        let rel = format!("{dir}/{name}");
        let path = out.join(&dir).join(name);
        let mut header = serde_json::Map::new();
        header.insert("type".into(), json!("session"));
        header.insert("version".into(), json!(3));
        header.insert("id".into(), json!(id));
        header.insert("timestamp".into(), json!(iso(now)));
        header.insert("cwd".into(), json!(cwd));
        let mut g = SessionGen {
            rng: &mut rng,
            lines: Vec::new(),
            leaf: None,
            now,
            model: 0,
            context: 0,
            cached_prefix: 0,
            last_user_parent: None,
            used_ids: Default::default(),
            system: Value::Null,
        };
        if let (true, Some((ppath, _, plines, _, _, psystem))) = (fork, &previous) {
            g.system = psystem.clone();
            header.insert("parentSession".into(), json!(ppath.display().to_string()));
            // Copy the active path of the parent up to a point, verbatim (same ids).
            let (path_idx, cut) = fork_cut.clone().unwrap_or_default();
            for &k in &path_idx[..cut] {
                let w = &plines[k];
                g.used_ids.insert(w.id.clone());
                g.lines.push(Written {
                    id: w.id.clone(),
                    parent: w.parent.clone(),
                    text: w.text.clone(),
                    time: w.time,
                });
                g.leaf = Some(w.id.clone());
                // A compaction keeps from the entry before the last user message, never from a
                // tool result whose call it would drop.
                if w.text.contains("\"role\":\"user\"") {
                    g.last_user_parent = w.parent.clone();
                }
            }
            g.model = g.rng.below(MODELS.len() as u64) as usize;
            g.context = 20_000;
            g.cached_prefix = 0;
            summary.forks += 1;
        } else {
            g.model = g.rng.below(MODELS.len() as u64) as usize;
            g.header_lines();
        }
        g.body(lines - 1);
        let written = std::mem::take(&mut g.lines);
        let g_system = std::mem::take(&mut g.system);
        let mut text = stringify(&Value::Object(header));
        text.push('\n');
        for w in &written {
            text.push_str(&w.text);
            text.push('\n');
        }
        set.write(&rel, text.as_bytes())?;
        summary.bytes += text.len() as u64;
        summary.files.push(path.clone());
        if !fork {
            previous = Some((path, id, written, project, now, g_system));
        }
    }
    set.commit()?;
    Ok(summary)
}

fn active_path(lines: &[Written]) -> Vec<usize> {
    let by_id: std::collections::HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .map(|(i, w)| (w.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    let mut at = lines.len().checked_sub(1);
    while let Some(i) = at {
        out.push(i);
        at = lines[i]
            .parent
            .as_deref()
            .and_then(|p| by_id.get(p).copied());
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_and_entries_are_checked_and_the_summary_said() {
        assert_eq!(parse_forks(" 0.2 "), Ok(0.2));
        assert_eq!(parse_forks("1.5"), Err(BadForks));
        assert_eq!(parse_forks("NaN"), Err(BadForks));
        assert_eq!(parse_entries("8"), Ok(8));
        assert_eq!(parse_entries("7"), Err(BadEntries));
        let summary = GenSummary {
            files: vec![PathBuf::from("a.jsonl")],
            bytes: 1_500_000,
            forks: 0,
            replaced: true,
        };
        let opts = GenOptions {
            sessions: 1,
            entries: 9,
            seed: 1,
            forks: 0.0,
        };
        assert_eq!(
            summary.wrote(&opts, Path::new("out")),
            "wrote 1 session (0 forks), 9 lines each, 1.5 MB under out (the previous gen-corpus output there was replaced whole)"
        );
    }

    /// Every model a generated session names is in the pi-ai catalog the corpus targets, with
    /// the API the session records (so `replay` and `cache explain` can rebuild its requests).
    #[test]
    fn generated_models_are_in_the_catalog_with_their_api() {
        let catalog =
            forge_replay_wire::Catalog::builtin(forge_replay_model::release::PiRelease::DEFAULT);
        for m in &MODELS {
            let model = catalog
                .get(m.provider, m.id)
                .unwrap_or_else(|| panic!("{}/{} is not in the catalog", m.provider, m.id));
            assert_eq!(model.api_name(), m.api, "{}/{}", m.provider, m.id);
        }
    }

    #[test]
    fn a_second_run_into_the_same_directory_replaces_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("corpus");
        let opts = GenOptions {
            sessions: 2,
            entries: 10,
            seed: 1,
            forks: 0.0,
        };
        assert!(!generate(&out, &opts).unwrap().replaced);
        let again = generate(&out, &opts).unwrap();
        assert!(again.replaced);
        assert_eq!(again.files.len(), 2);
    }

    /// The system message declares every tool a session calls.
    #[test]
    fn every_called_tool_is_declared() {
        for t in TOOLS.iter().chain(&["subagent"]) {
            assert!(DECLARED.contains(t), "{t}");
        }
    }
}
