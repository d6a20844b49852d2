//! Request assembly speed: one 200-message context per API, assembled repeatedly.
//!
//! `cargo bench -p forge-replay-wire --bench assemble` prints one line per API with the mean
//! time per request (µs) and a JSON summary line. The contexts are `fixtures/wire/bench/<api>.case.json`
//! (the ones `tools/pi-oracle/bench-wire.mjs --with-rust` times pi-ai on, in the same run);
//! without them the same generator runs here. With `WIRE_BENCH_CASES_DIR=DIR` it also writes
//! the exact cases (`DIR/<api>.case.json`, the oracle case format) so the Node micro-benchmark in
//! tools/pi-oracle can time pi-ai on the same contexts. `WIRE_BENCH_ITERS` sets the iteration
//! count (default 300); `WIRE_BENCH_ONLY=<api>` runs one API; `WIRE_BENCH_PI=<release>` assembles
//! as that Pi release (default 0.87.1; the contexts are the same).

/// The allocator the `forge-replay` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::Instant;

use forge_replay_model::json::{stringify, stringify_pretty};
use forge_replay_model::release::PiRelease;
use forge_replay_wire::{assemble_case, AssembleError, Case, Catalog};
use serde_json::{json, Value};

/// One model per API (catalog references; Azure gets a base URL).
const MODELS: [(&str, &str, &str); 10] = [
    ("anthropic-messages", "anthropic", "claude-opus-4-8"),
    ("openai-responses", "openai", "gpt-5.5"),
    (
        "azure-openai-responses",
        "azure-openai-responses",
        "gpt-5.5",
    ),
    ("openai-codex-responses", "openai-codex", "gpt-5.5"),
    ("openai-completions", "moonshotai", "kimi-k3"),
    ("mistral-conversations", "mistral", "mistral-large-latest"),
    ("google-generative-ai", "google", "gemini-2.5-pro"),
    ("google-vertex", "google-vertex", "gemini-2.5-flash"),
    (
        "bedrock-converse-stream",
        "amazon-bedrock",
        "global.anthropic.claude-opus-4-8",
    ),
    ("pi-messages", "radius", "balanced"),
];

fn tool(name: &str, desc: &str) -> Value {
    json!({"name": name, "description": desc, "parameters": {"type": "object",
        "properties": {"path": {"type": "string", "description": "File path"}, "limit": {"type": "number"}},
        "required": ["path"]}})
}

/// A realistic 200-message transcript: a leading system message with sections and tools, turns of
/// user / assistant (thinking, text, tool call) / tool result, two mid-conversation system updates.
fn context(api: &str, provider: &str, id: &str) -> Value {
    let mut messages = vec![json!({
        "role": "system", "content": "",
        "sections": {"preamble": "You are an expert coding assistant operating inside pi.",
                     "tools": "<tools>\n- read: Read file contents\n- bash: Execute bash commands\n</tools>",
                     "cwd": "<cwd>\n/home/dev/project\n</cwd>"},
        "toolsAdded": [tool("read", "Read a file"), tool("bash", "Run a shell command")],
        "timestamp": 1_733_234_400_000u64
    })];
    let mut t = 1_733_234_400_000u64;
    let mut turn = 0;
    while messages.len() < 200 {
        t += 1000;
        turn += 1;
        if turn == 20 || turn == 40 {
            messages.push(json!({"role": "system", "content": format!("Update {turn}: prefer grep."),
                "sections": {"skills": format!("<skills>\n- search {turn}\n</skills>"), "cwd": null},
                "toolsAdded": [tool(&format!("grep{turn}"), "Search file contents")], "timestamp": t}));
            continue;
        }
        messages.push(json!({"role": "user", "content": [{"type": "text",
            "text": format!("Step {turn}: look at src/module_{turn}.rs and explain what changes — ünïcødé ✓.")}], "timestamp": t}));
        let call_id = format!("toolu_{turn:04}");
        // Responses APIs keep a same-model reasoning item (the signature is its JSON).
        let signature = if api.contains("responses") {
            stringify(
                &json!({"type": "reasoning", "id": format!("rs_{turn:04}"), "summary": [],
                "encrypted_content": format!("gAAAA{}", "e".repeat(120))}),
            )
        } else {
            format!("sig-{turn}")
        };
        messages.push(json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": format!("I should read module {turn}."), "thinkingSignature": signature},
                {"type": "text", "text": format!("Reading module {turn}.")},
                {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": format!("src/module_{turn}.rs"), "limit": 200}}],
            "api": api, "provider": provider, "model": id,
            "usage": {"input": 1000 + turn * 50, "output": 80, "cacheRead": 900, "cacheWrite": 100, "totalTokens": 2080 + turn * 50,
                      "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
            "stopReason": "toolUse", "timestamp": t + 1}));
        messages.push(json!({"role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": format!("fn f{turn}() {{\n    // {}\n}}\n", "x".repeat(400))}],
            "isError": false, "timestamp": t + 2}));
    }
    messages.truncate(200);
    json!({"messages": messages})
}

/// CPU time of this thread in ns (`/proc/thread-self/schedstat`), so timings survive a loaded
/// machine.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let iters: usize = std::env::var("WIRE_BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let out_dir = std::env::var("WIRE_BENCH_CASES_DIR").ok();
    let release = std::env::var("WIRE_BENCH_PI")
        .ok()
        .map(|v| PiRelease::parse(&v).unwrap_or_else(|e| panic!("WIRE_BENCH_PI: {e}")))
        .unwrap_or(PiRelease::V0_87_1);
    let catalog = Catalog::builtin(release);
    let mut summary = serde_json::Map::new();
    let mut summary_cpu = serde_json::Map::new();
    let mut floors = serde_json::Map::new();
    let only = std::env::var("WIRE_BENCH_ONLY").ok();
    for (api, provider, id) in MODELS {
        if only.as_deref().is_some_and(|o| o != api) {
            continue;
        }
        // The shared contexts (fixtures/wire/bench, also timed by tools/pi-oracle/bench-wire.mjs),
        // else the same generator here.
        let shared =
            forge_replay_testkit::fixtures_root().join(format!("wire/bench/{api}.case.json"));
        let case_json = match std::fs::read_to_string(&shared)
            .ok()
            .and_then(|t| forge_replay_model::json::parse(&t).ok())
        {
            Some(v) => v,
            None => {
                let mut model = json!({"provider": provider, "id": id});
                if api == "azure-openai-responses" {
                    model["overrides"] =
                        json!({"baseUrl": "https://bench.openai.azure.com/openai/v1"});
                }
                json!({
                    "model": model,
                    "context": context(api, provider, id),
                    "options": {"sessionId": "019a0000-0000-7000-8000-000000000001", "reasoning": "medium"},
                })
            }
        };
        if let Some(dir) = &out_dir {
            let _ = std::fs::create_dir_all(dir);
            let path = format!("{dir}/{api}.case.json");
            let tmp = format!("{path}.tmp");
            if std::fs::write(&tmp, stringify_pretty(&case_json)).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
        let case = match Case::from_value(&case_json) {
            Ok(c) => c,
            Err(e) => {
                println!("{api:<26} bad case: {e}");
                continue;
            }
        };
        match assemble_case(&case, catalog) {
            Err(AssembleError::Unsupported { .. }) => {
                println!("{api:<26} (builder not written yet)");
                continue;
            }
            Err(e) => {
                println!("{api:<26} error: {e}");
                continue;
            }
            Ok(_) => {}
        }
        // Warm up, then time assembly plus body serialization.
        for _ in 0..iters / 10 + 1 {
            black_box(assemble_case(black_box(&case), catalog).ok());
        }
        let start = Instant::now();
        let cpu_start = thread_cpu_ns();
        let mut bytes = 0usize;
        for _ in 0..iters {
            let a = assemble_case(black_box(&case), catalog).expect("assembles");
            bytes += a
                .wire
                .as_ref()
                .map_or_else(|| stringify(&a.payload).len(), |w| w.body_text.len());
            black_box(a);
        }
        let per = start.elapsed().as_secs_f64() * 1e6 / iters as f64;
        let cpu = match (cpu_start, thread_cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e3 / iters as f64,
            _ => per,
        };
        println!(
            "{api:<26} {cpu:>9.1} µs CPU/request {per:>9.1} µs wall  ({} KiB body, {iters} iterations)",
            bytes / iters / 1024
        );
        summary.insert(api.to_string(), json!((per * 10.0).round() / 10.0));
        summary_cpu.insert(api.to_string(), json!((cpu * 10.0).round() / 10.0));

        // Floors: what producing these body bytes costs at the least, whatever the builder.
        let a = assemble_case(&case, catalog).expect("assembles");
        let body_text = a
            .wire
            .as_ref()
            .map_or_else(|| stringify(&a.payload), |w| w.body_text.clone());
        let body_value = forge_replay_model::json::parse(&body_text).expect("body is JSON");
        // Best of 20 batches, wall clock: a floor should not carry the machine's other load
        // (thread CPU time is too coarse here: it advances in scheduler ticks).
        let floor = |f: &mut dyn FnMut() -> usize| {
            let batch = (iters / 20).max(10);
            for _ in 0..batch {
                black_box(f());
            }
            (0..20)
                .map(|_| {
                    let start = Instant::now();
                    for _ in 0..batch {
                        black_box(f());
                    }
                    start.elapsed().as_secs_f64() * 1e6 / batch as f64
                })
                .fold(f64::INFINITY, f64::min)
        };
        // Each floor writes into one reused buffer, so no allocation or page fault is counted.
        let mut text = String::with_capacity(body_text.len() * 2);
        let mut bytes = Vec::with_capacity(body_text.len() * 2);
        // Writing the finished body as JSON text from a tree of values (no building, no
        // transform): the least a builder over the in-memory transcript must do.
        let write = floor(&mut || {
            text.clear();
            forge_replay_model::json::write_compact(&mut text, black_box(&body_value));
            text.len()
        });
        // serde_json's own writer on the same tree (no JavaScript number/escape rules).
        let serde = floor(&mut || {
            bytes.clear();
            serde_json::to_writer(&mut bytes, black_box(&body_value)).map_or(0, |()| bytes.len())
        });
        // Copying the finished bytes.
        let copy = floor(&mut || {
            bytes.clear();
            bytes.extend_from_slice(black_box(body_text.as_bytes()));
            bytes.len()
        });
        println!(
            "{:<26} floors: write tree {write:>7.1} µs, serde_json {serde:>7.1} µs, memcpy {copy:>6.1} µs",
            ""
        );
        let round = |x: f64| json!((x * 10.0).round() / 10.0);
        floors.insert(
            api.to_string(),
            json!({"write_tree": round(write), "serde_json": round(serde), "memcpy": round(copy),
                   "body_bytes": body_text.len()}),
        );
    }
    // `rust`: wall-clock µs per request (what tools/pi-oracle/bench-wire.mjs compares);
    // `rust_cpu`: this thread's CPU µs per request; `floor_cpu`: CPU µs to write the same body
    // from a finished value tree, with serde_json, and to copy its bytes.
    let line = json!({"unit": "us_per_request", "messages": 200, "rust": summary, "rust_cpu": summary_cpu,
                      "floor_cpu": floors});
    println!("{}", stringify(&line));
}
