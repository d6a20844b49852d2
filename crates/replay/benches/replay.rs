//! Replay and verify benchmark (no Criterion: wall time and peak RSS, printed as Markdown).
//!
//! `cargo bench -p forge-replay-engine --bench replay [-- matrix|N...]`
//!
//! * `matrix`: every shipped scenario × the ten APIs compared with the committed goldens (what
//!   `forge-replay verify scenarios` does, without the CLI).
//! * `N` (default 250 500 1000): replay of a generated session with N requests, each request
//!   serialized as `replay --format json` writes it; reports output bytes and MB/s.
//!
//! Peak RSS is the process high-water mark (`VmHWM`), so run one measurement per process for
//! clean RSS figures (scripts/bench-replay.sh does).

use std::path::PathBuf;
use std::time::Instant;

use forge_replay_engine::golden::GoldenStore;
use forge_replay_engine::replay::{replay_each, ReplayOptions, REPRESENTATIVE_MODELS};
use forge_replay_engine::{scenario, verify};
use forge_replay_model::json;
use forge_replay_model::release::PiRelease;
use forge_replay_session::Session;
use forge_replay_wire::Catalog;

fn root() -> PathBuf {
    forge_replay_testkit::repo_root()
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn matrix() {
    let scenarios = scenario::discover(&[root().join("scenarios")]).expect("scenarios");
    let opts = verify::VerifyOptions {
        scenarios: scenarios.clone(),
        models: REPRESENTATIVE_MODELS
            .iter()
            .map(|(_, m)| m.to_string())
            .collect(),
        catalog: Catalog::builtin(PiRelease::V0_87_1),
        store: GoldenStore::new(root().join("fixtures/golden")),
        bless: false,
        pi: None,
    };
    let t = Instant::now();
    let cases = verify::verify(&opts).expect("verify");
    let secs = t.elapsed().as_secs_f64();
    let s = verify::summarize(&cases);
    println!(
        "| matrix | {} scenarios × 10 APIs | {} requests, {} passed / {} failed / {} errors | {secs:.3} | {:.0} |",
        scenarios.len(),
        s.requests,
        s.passed,
        s.failed,
        s.errors,
        peak_rss_mib()
    );
}

/// A scenario with `n` requests: n/2 turns of (tool call, answer), a capability toggled every
/// 25 turns.
fn generated(n: usize) -> String {
    let mut s = String::from(
        "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"anthropic/claude-opus-4-8\"\nthinking = \"medium\"\ntools = [\"read\", \"bash\", \"edit\"]\n",
    );
    let mut on = false;
    for t in 0..n / 2 {
        if t % 25 == 10 {
            s.push_str(if on {
                "\n[[step]]\ncapability = { op = \"disable\", target = \"no-rm\" }\n"
            } else {
                "\n[[step]]\ncapability = { op = \"enable\", ref = \"no-rm\" }\n"
            });
            on = !on;
        }
        let pad = "x".repeat(200);
        s.push_str(&format!(
            "\n[[step]]\nuser = \"Step {t}: read file {t} and summarise it.\"\n\n[[step]]\nassistant.text = \"Reading src/file{t}.rs.\"\nassistant.tool_calls = [{{ name = \"read\", arguments = {{ path = \"src/file{t}.rs\" }}, result = \"fn f{t}() {{ /* {pad} */ }}\\n\" }}]\nassistant.usage = {{ input = {}, output = 40, cache_read = {}, cache_write = 300 }}\n\n[[step]]\nassistant.text = \"file{t}.rs defines f{t}.\"\nassistant.usage = {{ input = 60, output = 10, cache_read = {}, cache_write = 60 }}\n",
            1000 + 300 * t,
            300 * t,
            1000 + 300 * t
        ));
    }
    s
}

fn long_session(n: usize) {
    let dir = std::env::temp_dir().join(format!("forge-replay-bench-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let lib = dir.join("capabilities");
    std::fs::create_dir_all(&lib).expect("lib dir");
    std::fs::copy(
        root().join("scenarios/capabilities/no-rm.json"),
        lib.join("no-rm.json"),
    )
    .expect("copy capability");
    let file = dir.join("scenario.toml");
    std::fs::write(&file, generated(n)).expect("write scenario");
    let compiled = scenario::compile(&scenario::load(&file).expect("load")).expect("compile");
    let (session, _) =
        Session::from_reader(compiled.session_jsonl.as_bytes(), &file).expect("session");
    let opts = ReplayOptions::new(Catalog::builtin(PiRelease::V0_87_1));
    let t = Instant::now();
    let mut bytes = 0usize;
    let mut count = 0usize;
    replay_each(&session, &opts, |r| {
        bytes += json::stringify_pretty(&r.into_json()).len();
        count += 1;
        Ok(())
    })
    .expect("replay");
    let secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "| replay | {n} requests ({} entries) | {count} requests, {:.1} MB out, {:.0} MB/s | {secs:.3} | {:.0} |",
        compiled.entries,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs.max(1e-9),
        peak_rss_mib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!("| run | input | result | wall (s) | peak RSS (MiB) |\n|---|---|---|---:|---:|");
    if args.is_empty() {
        matrix();
        for n in [250, 500, 1000] {
            long_session(n);
        }
        return;
    }
    for a in args {
        match a.as_str() {
            "matrix" => matrix(),
            n => long_session(n.parse().expect("N or `matrix`")),
        }
    }
}
