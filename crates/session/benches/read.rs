//! Benchmark: read, index and project the default leaf of a generated ~100 MB session.
//!
//! `cargo bench -p forge-replay-session --bench read [-- SIZE_MB]` prints MB/s per phase and the
//! peak resident set (VmHWM from /proc/self/status) against the bytes of entries kept. Targets
//! (issue 2): ≥ 200 MB/s for read + index + project, peak ≤ 2× the entries kept.

/// The allocator the `forge-replay` binary uses, so the figures are the CLI's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{BufWriter, Write};
use std::time::Instant;

use forge_replay_model::json;
use forge_replay_session::{llm, Session};

use forge_replay_model::rng::XorShift64 as Rng;

const WORDS: [&str; 16] = [
    "the",
    "session",
    "file",
    "reads",
    "tool",
    "result",
    "context",
    "cache",
    "model",
    "branch",
    "compaction",
    "fn",
    "let",
    "struct",
    "impl",
    "return",
];

fn text(rng: &mut Rng, min: usize, spread: u64) -> String {
    let bytes = min + rng.below(spread) as usize;
    let mut s = String::with_capacity(bytes + 16);
    while s.len() < bytes {
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        s.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
    s
}

fn js(s: &str) -> String {
    let mut out = String::new();
    json::write_string(&mut out, s);
    out
}

/// Writes a realistic session: a leading system message, then turns of user prompt, assistant
/// with thinking and tool calls, tool results with file contents; a compaction every ~2000
/// entries, and a side branch every ~500.
fn generate(
    path: &std::path::Path,
    target: u64,
    compactions: bool,
) -> std::io::Result<(u64, usize)> {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut line = |w: &mut BufWriter<std::fs::File>, s: String| -> std::io::Result<()> {
        written += s.len() as u64 + 1;
        w.write_all(s.as_bytes())?;
        w.write_all(b"\n")
    };
    line(
        &mut w,
        r#"{"type":"session","version":3,"id":"bench","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/project"}"#.to_string(),
    )?;
    let mut n = 0usize;
    let mut parent = "null".to_string();
    let mut last_kept = String::new();
    let ts = |n: usize| {
        format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            (n / 3600) % 24,
            (n / 60) % 60,
            n % 60
        )
    };
    let mut push = |w: &mut BufWriter<std::fs::File>,
                    parent: &mut String,
                    body: String,
                    n: &mut usize|
     -> std::io::Result<String> {
        *n += 1;
        let id = format!("{:08x}", *n);
        let s = format!(
            r#"{{"type":{body},"id":"{id}","parentId":{parent},"timestamp":"{}"}}"#,
            ts(*n)
        );
        line(w, s)?;
        *parent = format!("\"{id}\"");
        Ok(id)
    };
    // Entry bodies are written type-first so the id/parentId/timestamp come last: valid JSON
    // either way (key order does not matter for reading).
    let system = format!(
        r#""message","message":{{"role":"system","content":"","sections":{{"preamble":{}}},"toolsAdded":[{{"name":"read","description":"Read a file","parameters":{{"type":"object"}}}}],"timestamp":1}}"#,
        js(&text(&mut rng, 4000, 1))
    );
    push(&mut w, &mut parent, system, &mut n)?;
    loop {
        // `line` holds `written` mutably; read the file size instead.
        let size = w.get_ref().metadata()?.len() + w.buffer().len() as u64;
        if size >= target {
            break;
        }
        let user = format!(
            r#""message","message":{{"role":"user","content":[{{"type":"text","text":{}}}],"timestamp":{}}}"#,
            js(&text(&mut rng, 200, 800)),
            n
        );
        let uid = push(&mut w, &mut parent, user, &mut n)?;
        if last_kept.is_empty() {
            last_kept = uid.clone();
        }
        let calls = 1 + rng.below(3);
        for c in 0..calls {
            let assistant = format!(
                r#""message","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":{},"thinkingSignature":"sig"}},{{"type":"text","text":{}}},{{"type":"toolCall","id":"call_{n}_{c}","name":"read","arguments":{{"path":"src/lib.rs"}}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{{"input":1200,"output":80,"cacheRead":1000,"cacheWrite":100,"totalTokens":2380,"cost":{{"input":0.006,"output":0.002,"cacheRead":0.0005,"cacheWrite":0.000625,"total":0.009125}}}},"stopReason":"toolUse","timestamp":{n}}}"#,
                js(&text(&mut rng, 300, 700)),
                js(&text(&mut rng, 100, 400)),
            );
            push(&mut w, &mut parent, assistant, &mut n)?;
            let result = format!(
                r#""message","message":{{"role":"toolResult","toolCallId":"call_{n}_{c}","toolName":"read","content":[{{"type":"text","text":{}}}],"details":{{"lines":120}},"isError":false,"timestamp":{n}}}"#,
                js(&text(&mut rng, 1000, 6000)),
            );
            push(&mut w, &mut parent, result, &mut n)?;
        }
        let done = format!(
            r#""message","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":{n}}}"#,
            js(&text(&mut rng, 200, 600)),
        );
        push(&mut w, &mut parent, done, &mut n)?;
        if rng.below(60) == 0 {
            // A side branch off the current entry, then back.
            let back = parent.clone();
            let side = format!(
                r#""custom_message","customType":"note","content":{},"display":false"#,
                js(&text(&mut rng, 300, 1))
            );
            push(&mut w, &mut parent, side, &mut n)?;
            parent = back;
        }
        if compactions && rng.below(250) == 0 {
            let comp = format!(
                r#""compaction","summary":{},"firstKeptEntryId":"{last_kept}","tokensBefore":150000,"details":{{"readFiles":[],"modifiedFiles":[]}}"#,
                js(&text(&mut rng, 3000, 1))
            );
            push(&mut w, &mut parent, comp, &mut n)?;
            last_kept.clear();
        }
    }
    w.flush()?;
    drop(w);
    Ok((written, n))
}

/// CPU time of the whole process, all threads (utime + stime from `/proc/self/stat`, in
/// nanoseconds; 10 ms resolution). On a loaded machine wall time overstates the cost, so both
/// are reported.
fn cpu_ns() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // Fields after the `(comm)`: state is field 3; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    (ticks(11) + ticks(12)) * 10_000_000
}

fn vm_hwm_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn vm_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// One measured run, in its own process so that VmHWM is its own.
fn run(path: &std::path::Path, stream: bool) {
    let size = std::fs::metadata(path).expect("stat").len();
    let mib = size as f64 / (1024.0 * 1024.0);
    let base_rss = vm_rss_kb().unwrap_or(0);

    let c0 = cpu_ns();
    let t0 = Instant::now();
    let (session, diags) = Session::open(path).expect("open");
    let t_read = t0.elapsed();
    let c_read = cpu_ns() - c0;
    let rss_read = vm_rss_kb().unwrap_or(0);
    let kept: u64 = session
        .entries()
        .map(|e| e.raw().map_or(0, |r| r.len() as u64))
        .sum();

    // Project the default leaf: materialized (`Session::context`, what the library API returns),
    // or streamed (`ContextPlan`, what `forge-replay context` does), each message serialized.
    let leaf = session.default_leaf();
    let (messages, out_bytes) = if stream {
        let plan = session.plan(leaf);
        let mut n = 0usize;
        let mut bytes = 0usize;
        let mut text = String::new();
        for pos in 0..plan.entries().len() {
            // As `forge-replay context` does: canonical messages re-indented from their text.
            if let Some(raw) = plan.entry_message_raw(pos) {
                text.clear();
                if forge_replay_model::transcode::transcode_pretty_requiring(
                    &raw, 2, "content", &mut text,
                ) {
                    n += 1;
                    bytes += text.len();
                    continue;
                }
            }
            for m in plan.entry_messages(pos).expect("project") {
                n += 1;
                bytes += json::stringify_pretty(&m).len();
            }
        }
        (n, bytes)
    } else {
        let p = session.context(leaf).expect("project");
        (p.messages.len(), 0)
    };
    let total = t0.elapsed();
    let c_total = cpu_ns() - c0;
    let hwm = vm_hwm_kb().unwrap_or(0);
    if !stream {
        // Outside the timed part: what convertToLlm and serialization of the result cost.
        let p = session.context(leaf).expect("project");
        let c = cpu_ns();
        let llm_messages = llm::convert_to_llm(&p.messages);
        let c_llm = cpu_ns() - c;
        let c = cpu_ns();
        let bytes: usize = llm_messages
            .iter()
            .map(|m| json::stringify_pretty(m).len())
            .sum();
        let c_json = cpu_ns() - c;
        println!(
            "  (untimed) convertToLlm {:.1} ms; JSON.stringify(_, null, 2) of the result {:.1} ms for {:.1} MiB",
            c_llm as f64 / 1e6,
            c_json as f64 / 1e6,
            bytes as f64 / (1024.0 * 1024.0)
        );
    }

    let leaves: Vec<usize> = session.tree().leaves().collect();
    let rate = |secs: f64| mib / secs;
    let kept_mib = kept as f64 / (1024.0 * 1024.0);
    let over = |kb: u64| kb.saturating_sub(base_rss) as f64 / 1024.0;
    println!(
        "  {mib:.1} MiB, {} entries, {} leaves, {} diagnostics; default leaf: {messages} messages ({:.1} MiB written as JSON)",
        session.entries().len(),
        leaves.len(),
        diags.len(),
        out_bytes as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  read + index:           wall {:>7.1} ms {:>6.1} MiB/s | CPU {:>7.1} ms {:>6.1} MiB/s",
        t_read.as_secs_f64() * 1e3,
        rate(t_read.as_secs_f64()),
        c_read as f64 / 1e6,
        rate(c_read as f64 / 1e9)
    );
    println!(
        "  read + index + project: wall {:>7.1} ms {:>6.1} MiB/s | CPU {:>7.1} ms {:>6.1} MiB/s",
        total.as_secs_f64() * 1e3,
        rate(total.as_secs_f64()),
        c_total as f64 / 1e6,
        rate(c_total as f64 / 1e9)
    );
    println!(
        "  memory: entries kept {kept_mib:.1} MiB; after read +{:.1} MiB ({:.2}x); peak +{:.1} MiB ({:.2}x)",
        over(rss_read),
        over(rss_read) / kept_mib,
        over(hwm),
        over(hwm) / kept_mib
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(pos) = args.iter().position(|a| a == "--child") {
        let path = std::path::PathBuf::from(&args[pos + 1]);
        run(&path, args[pos + 2] == "stream");
        return;
    }
    let mb: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100);
    let dir = std::env::temp_dir().join(format!("forge-replay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = std::env::current_exe().expect("current exe");
    for (label, compactions) in [
        ("with compactions (one per ~250 turns)", true),
        (
            "no compaction (the default leaf's context is the whole path)",
            false,
        ),
    ] {
        let path = dir.join("session.jsonl");
        generate(&path, mb * 1024 * 1024, compactions).expect("generate");
        for mode in ["materialize", "stream"] {
            let what = if mode == "stream" {
                "projection streamed and written as JSON, as `forge-replay context` does"
            } else {
                "projection materialized (`Session::context`)"
            };
            println!("{label}; {what}:");
            let status = std::process::Command::new(&exe)
                .arg("--child")
                .arg(&path)
                .arg(mode)
                .status()
                .expect("run child");
            assert!(status.success());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
