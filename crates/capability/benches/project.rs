//! Capability projection throughput on a generated session (not a timed test).
//!
//! `cargo bench -p forge-replay-capability --bench project [-- TURNS]` builds a linear session of
//! TURNS user/assistant turns (default 5000) with a capability on/off every few turns, anchors,
//! and a compaction every 500 turns, then measures:
//! * `project_at` at the last entry (one request, from scratch);
//! * `Replayer` over every request of the path (the replay engine's use).

use std::fmt::Write as _;
use std::time::Instant;

use forge_replay_capability::context::{project_at, Options, Replayer};
use forge_replay_capability::event::{make_snapshot, patch, Source};
use forge_replay_capability::projection::Presentation;
use forge_replay_model::json;
use forge_replay_session::Session;
use serde_json::json;

fn generate(turns: usize) -> String {
    let mut s = String::new();
    let mut n = 0usize;
    let mut parent = serde_json::Value::Null;
    let mut line = |s: &mut String, mut v: serde_json::Value, parent: &mut serde_json::Value| {
        n += 1;
        let id = format!("{n:08x}");
        v["id"] = json!(id);
        v["parentId"] = parent.clone();
        v["timestamp"] = json!("2026-09-20T10:00:00.000Z");
        *parent = json!(id);
        writeln!(s, "{}", json::stringify(&v)).unwrap();
        id
    };
    writeln!(s, r#"{{"type":"session","version":3,"id":"bench","timestamp":"2026-09-20T10:00:00.000Z","cwd":"/tmp"}}"#).unwrap();
    line(
        &mut s,
        json!({"type":"message","message":{"role":"system","content":"","sections":{"preamble":"You are Pi."},"timestamp":1}}),
        &mut parent,
    );
    let mut active: Option<String> = None;
    let mut ev = 0;
    let mut last_user = String::new();
    for t in 0..turns {
        let u = line(
            &mut s,
            json!({"type":"message","message":{"role":"user","content":[{"type":"text","text":format!("turn {t} ") + &"x".repeat(200)}],"timestamp":t}}),
            &mut parent,
        );
        if t % 50 == 0 {
            last_user = u;
        }
        line(
            &mut s,
            json!({"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"ok ".repeat(60)}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":t}}),
            &mut parent,
        );
        if t % 7 == 3 {
            ev += 1;
            let eid = format!("ev-{ev}");
            let data = match active.take() {
                None => {
                    let aid = format!("act-{ev}");
                    let snap = make_snapshot(
                        &aid,
                        Source::Manual,
                        None,
                        &format!("Rule {ev}"),
                        patch(&[], &["bash"]),
                    );
                    active = Some(aid);
                    json!({"schemaVersion":1,"eventId":eid,"op":"activate","actor":"user","createdAt":t,"snapshot":snap.to_value()})
                }
                Some(aid) => {
                    json!({"schemaVersion":1,"eventId":eid,"op":"deactivate","actor":"user","createdAt":t,"activationId":aid})
                }
            };
            line(
                &mut s,
                json!({"type":"custom","customType":"pi-forge-capability-event","data":data}),
                &mut parent,
            );
            line(
                &mut s,
                json!({"type":"custom","customType":"pi-forge-capability-delivery","data":{"schemaVersion":1,"throughEventId":eid}}),
                &mut parent,
            );
        }
        if t % 500 == 499 {
            line(
                &mut s,
                json!({"type":"compaction","summary":"s","firstKeptEntryId":last_user,"tokensBefore":1,"systemMessage":{"role":"system","content":"","sections":{"preamble":"You are Pi."},"timestamp":1}}),
                &mut parent,
            );
        }
    }
    s
}

fn main() {
    let turns: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5000);
    let text = generate(turns);
    let (session, _) = Session::from_reader(text.as_bytes(), "bench.jsonl").unwrap();
    let entries = session.entries().len();
    let opts = Options::new(Presentation::Native);

    let t0 = Instant::now();
    let ctx = project_at(&session, session.default_leaf(), opts).unwrap();
    let one = t0.elapsed();

    let t1 = Instant::now();
    let mut r = Replayer::new(&session);
    let mut requests = 0usize;
    let mut messages = 0usize;
    for i in 0..entries {
        if session.entry(i).is_assistant_message() {
            messages += r.project(opts).unwrap().messages.len();
            requests += 1;
        }
        r.push(i).unwrap();
    }
    let all = t1.elapsed();

    // Baseline: Pi's projection alone (the session crate's builder), same requests.
    let t2 = Instant::now();
    let mut b = session.builder();
    for i in 0..entries {
        if session.entry(i).is_assistant_message() {
            std::hint::black_box(b.snapshot().expect("snapshot"));
        }
        b.push(i).unwrap();
    }
    let pi_only = t2.elapsed();
    println!(
        "session: {} MB, {entries} entries, {} events, {} messages at the leaf",
        text.len() / 1_000_000,
        ctx.history.events.len(),
        ctx.messages.len()
    );
    println!("project_at(leaf): {:.1} ms", one.as_secs_f64() * 1e3);
    println!(
        "Replayer, every request: {requests} requests in {:.2} s ({:.0} requests/s, {:.2} ms/request, {messages} messages projected)",
        all.as_secs_f64(),
        requests as f64 / all.as_secs_f64(),
        all.as_secs_f64() * 1e3 / requests as f64
    );
    println!(
        "  of which Pi's projection alone (session builder snapshot): {:.2} s ({:.2} ms/request); capability step: {:.2} ms/request",
        pi_only.as_secs_f64(),
        pi_only.as_secs_f64() * 1e3 / requests as f64,
        (all.as_secs_f64() - pi_only.as_secs_f64()) * 1e3 / requests as f64
    );
}
