//! Benchmark: the redaction step over replay-shaped JSON text.
//!
//! `cargo bench -p forge-replay-model --bench redact` reads every `fixtures/agent/*/requests.json`
//! (real requests pi-ai built), takes each request as the CLI prints it (one pretty JSON chunk per
//! request), repeats them to ~50 MB and prints MB/s for `redact::json_text` over the chunks (the
//! pass every printed or written JSON document makes), beside `json::stringify_pretty` of the
//! same requests (the cost of producing that output at all), and for the same chunks with an
//! `apiKey` planted in every request (the splice path).

use std::time::Instant;

use forge_replay_model::{json, redact};

fn main() {
    let root = forge_replay_testkit::fixture("agent");
    let mut docs = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures/agent")
        .flatten()
        .map(|e| e.path().join("requests.json"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for p in files {
        let v = json::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        match v {
            serde_json::Value::Array(items) => docs.extend(items),
            other => docs.push(other),
        }
    }
    let chunks: Vec<String> = docs.iter().map(json::stringify_pretty).collect();
    let one: usize = chunks.iter().map(String::len).sum();
    let reps = (50_000_000 / one).max(1);
    let mb = (one * reps) as f64 / 1e6;

    let t = Instant::now();
    let mut bytes = 0;
    for _ in 0..reps {
        for d in &docs {
            bytes += json::stringify_pretty(d).len();
        }
    }
    let stringify = t.elapsed().as_secs_f64();
    assert_eq!(bytes, one * reps);

    let t = Instant::now();
    let mut changed = 0;
    for _ in 0..reps {
        for c in &chunks {
            if let std::borrow::Cow::Owned(r) = redact::json_text(c) {
                changed += 1;
                std::hint::black_box(r);
            }
        }
    }
    let scan = t.elapsed().as_secs_f64();
    let changed = changed / reps;

    let planted: Vec<String> = chunks
        .iter()
        .map(|c| c.replacen("\"model\":", "\"apiKey\": \"k\", \"model\":", 1))
        .collect();
    let t = Instant::now();
    for _ in 0..reps {
        for c in &planted {
            std::hint::black_box(redact::json_text(c));
        }
    }
    let splice = t.elapsed().as_secs_f64();
    assert!(redact::json_text(&planted[0]).contains("\"apiKey\": \"[redacted]\""));

    println!("| input | MB | json_text MB/s | stringify_pretty MB/s |");
    println!("|---|---|---|---|");
    println!(
        "| {} fixtures/agent requests × {reps} ({changed} hold something redacted) | {mb:.1} | {:.0} | {:.0} |",
        chunks.len(),
        mb / scan,
        mb / stringify
    );
    println!(
        "| same, an apiKey planted in every request | {mb:.1} | {:.0} | — |",
        mb / splice
    );
}
