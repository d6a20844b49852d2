//! `cache explain`'s incremental path (each request flattened taking over the previous one's
//! elements, compared element by element) against the from-scratch path (every request flattened
//! on its own, compared as whole texts), on the committed fixtures and scenarios and on generated
//! trees: a chain, a comb (one leaf per node), branches with compactions, model switches and
//! capability changes. Every leaf of every session is explained both ways.

use std::path::{Path, PathBuf};

use forge_replay_engine::replay::{self, ReplayOptions, Target};
use forge_replay_engine::scenario;
use forge_replay_session::Session;
use forge_replay_usage::explain::order::{common_prefix, CacheOrder};
use forge_replay_usage::explain::{explain, explain_reference, ExplainOptions};
use forge_replay_wire::{Api, Catalog};

fn root() -> PathBuf {
    forge_replay_testkit::repo_root()
}

/// The line of `text` holding byte `at`, as the whole-text diagnosis read it.
fn line_of(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    &text[start..end]
}

/// A scenario of `turns` user/assistant turns with what makes requests diverge: tool calls,
/// thinking-level changes, model switches (another API), compactions, capability toggles and,
/// with `comb`, a second reply to every user message (a leaf per node), with `branches`, a
/// navigation back every 7 turns with a branch summary.
fn generated(turns: usize, comb: bool, branches: bool, compactions: bool) -> String {
    let mut t = String::from(
        "format = \"forge-replay-scenario\"\nversion = 1\nmodel = \"anthropic/claude-opus-4-8\"\ntools = [\"read\", \"bash\"]\n",
    );
    let mut on = false;
    for k in 0..turns {
        let usage = format!(
            "assistant.usage = {{ input = {}, output = 10, cache_read = {}, cache_write = 40 }}\n",
            50 + k,
            if k % 5 == 4 { 0 } else { 300 * k }
        );
        t.push_str(&format!(
            "\n[[step]]\nuser = \"Step {k}: look at file {k}.\"\n"
        ));
        if comb {
            t.push_str(&format!(
                "\n[[step]]\nname = \"alt{k}\"\nassistant.text = \"Alternative {k}.\"\n{usage}"
            ));
            t.push_str(&format!("\n[[step]]\nbranch = {{ to = \"u{k}\" }}\n"));
        }
        let name = if comb {
            format!("name = \"r{k}\"\n")
        } else {
            String::new()
        };
        if k % 3 == 1 {
            t.push_str(&format!(
                "\n[[step]]\n{name}assistant.text = \"Reading file {k}.\"\nassistant.tool_calls = [{{ name = \"read\", arguments = {{ path = \"src/f{k}.rs\" }}, result = \"fn f{k}() {{}}\" }}]\n{usage}"
            ));
            t.push_str(&format!(
                "\n[[step]]\nassistant.text = \"File {k} is read.\"\n{usage}"
            ));
        } else {
            t.push_str(&format!(
                "\n[[step]]\n{name}assistant.text = \"File {k} defines f{k}.\"\n{usage}"
            ));
        }
        if k % 4 == 2 {
            t.push_str(&format!(
                "\n[[step]]\nthinking = \"{}\"\n",
                ["high", "off", "low"][k % 3]
            ));
        }
        if k % 6 == 3 {
            t.push_str(&format!(
                "\n[[step]]\nmodel = \"{}\"\n",
                [
                    "openai/gpt-5.5",
                    "anthropic/claude-opus-4-8",
                    "google/gemini-2.5-pro"
                ][k % 3]
            ));
        }
        if k % 5 == 2 {
            // After a navigation the active set is the branch's: only add there.
            t.push_str(&if on && !branches {
                "\n[[step]]\ncapability = { op = \"disable\", target = \"manual\" }\n".to_string()
            } else {
                format!("\n[[step]]\ncapability = {{ op = \"add\", text = \"Rule {k}: keep functions short.\" }}\n")
            });
            on = !on;
        }
        if compactions && k % 9 == 8 {
            t.push_str(&format!(
                "\n[[step]]\ncompact = {{ summary = \"Up to step {k}.\", tokens_before = {} }}\n",
                1000 * k
            ));
        }
        if branches && k % 7 == 6 {
            t.push_str(&format!(
                "\n[[step]]\nbranch = {{ to = \"b{k}\", summary = \"Tried step {k} another way.\" }}\n"
            ));
        }
        if branches && k % 7 == 3 {
            // The target of the navigation three turns later.
            t.push_str(&format!(
                "\n[[step]]\nname = \"b{}\"\nuser = \"Checkpoint {k}.\"\n",
                k + 3
            ));
            t.push_str(&format!(
                "\n[[step]]\nassistant.text = \"Noted {k}.\"\n{usage}"
            ));
        }
    }
    // `branch.to` needs the user steps named: name every user step of a comb.
    if comb {
        let mut out = String::new();
        let mut k = 0;
        for line in t.lines() {
            if line.starts_with("user = \"Step ") {
                out.push_str(&format!("name = \"u{k}\"\n"));
                k += 1;
            }
            out.push_str(line);
            out.push('\n');
        }
        t = out;
    }
    t
}

fn compile(dir: &Path, name: &str, text: &str) -> String {
    let f = dir.join(format!("{name}.toml"));
    std::fs::write(&f, text).unwrap();
    let loaded = scenario::load(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
    scenario::compile(&loaded)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .session_jsonl
}

fn sessions(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .flatten()
    {
        let p = d.path();
        if p.extension().is_some_and(|e| e == "toml") {
            if let Ok(c) = scenario::load(&p).and_then(|l| scenario::compile(&l)) {
                out.push((p.display().to_string(), c.session_jsonl));
            }
        }
    }
    for dir in ["fixtures/agent", "fixtures/sessions", "fixtures/cache"] {
        for d in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let p = d.path().join("session.jsonl");
            if let Ok(t) = std::fs::read_to_string(&p) {
                out.push((p.display().to_string(), t));
            }
        }
    }
    for (name, turns, comb, branches, compactions) in [
        ("chain", 60, false, false, false),
        ("comb", 30, true, false, false),
        ("branches-compactions", 60, false, true, true),
        ("comb-compactions", 30, true, false, true),
    ] {
        let text = generated(turns, comb, branches, compactions);
        out.push((name.to_string(), compile(dir, name, &text)));
    }
    out
}

/// Every leaf's explanation is the same both ways, and the flattening of every request for every
/// API is the same taken over from the previous request as made from scratch, with the same
/// comparisons.
#[test]
fn the_incremental_explanation_equals_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = Catalog::builtin(forge_replay_model::release::PiRelease::V0_87_1);
    let mut explained = 0;
    let mut breaks = 0;
    let mut compared = 0;
    let mut diverged = 0;
    let mut shared = 0;
    let mut reused = 0;
    for (name, text) in sessions(dir.path()) {
        let Ok((s, _)) = Session::from_reader(text.as_bytes(), &name) else {
            continue;
        };
        let leaves: Vec<Option<String>> = std::iter::once(None)
            .chain(
                s.tree()
                    .leaves()
                    .filter_map(|l| s.entry(l).id().map(|id| Some(id.to_string()))),
            )
            .collect();
        for leaf in &leaves {
            let mut opts = ExplainOptions::new(catalog);
            opts.leaf = leaf.clone();
            if let Ok(e) = explain(&s, &opts) {
                // The streamed document is the tree's, byte for byte.
                assert_eq!(
                    e.to_json_text(),
                    forge_replay_model::json::stringify_pretty(&e.to_json()),
                    "{name} at {leaf:?}"
                );
            }
            let got = explain(&s, &opts).map(|e| e.to_json().to_string());
            let want = explain_reference(&s, &opts).map(|e| e.to_json().to_string());
            match (&got, &want) {
                (Ok(g), Ok(w)) => {
                    assert_eq!(g, w, "{name} at {leaf:?}");
                    explained += 1;
                    breaks += g.matches("\"cause\"").count();
                }
                (Err(g), Err(w)) => assert_eq!(g.to_string(), w.to_string(), "{name}"),
                _ => panic!("{name} at {leaf:?}: {got:?} / {want:?}"),
            }
        }
        // Every API: each request flattened after the previous one of its API.
        let mut ropts = ReplayOptions::new(catalog);
        ropts.target = Target::all_apis(catalog);
        // A payload the next request can be built in is handed back (the next request then
        // says which messages it kept); the others are kept for the comparison by value.
        let mut last: Vec<(Api, CacheOrder, Option<serde_json::Value>, u64)> = Vec::new();
        let _ = replay::replay_each_recycling(&s, &ropts, |r| {
            let scratch = CacheOrder::of(r.api, &r.provider, &r.model, &r.payload);
            let earlier = last.iter().find(|(a, _, _, _)| *a == r.api);
            let kept_messages = earlier.map_or(0, |(_, _, _, token)| r.reuse.kept_after(*token));
            reused += kept_messages;
            let taken = CacheOrder::of_after(
                r.api,
                &r.provider,
                &r.model,
                &r.payload,
                earlier.map(
                    |(_, order, payload, _)| forge_replay_usage::explain::order::Earlier {
                        order,
                        payload: payload.as_ref(),
                        kept_messages,
                    },
                ),
            );
            let (st, tt) = (scratch.text(), taken.text());
            assert_eq!(tt, st, "{name}: request {} on {}", r.index, r.api.name());
            assert_eq!(taken.segments(), scratch.segments());
            assert_eq!(taken.tools, scratch.tools);
            assert_eq!(taken.chars(), st.chars().count());
            if let Some((_, prev, _, _)) = earlier {
                shared += taken.shared_elements(prev);
                let pt = prev.text();
                let kept = prev.common_prefix(&taken);
                assert_eq!(kept, common_prefix(&pt, &tt), "{name}: request {}", r.index);
                assert_eq!(prev.chars_before(kept), pt[..kept].chars().count());
                assert_eq!(prev.line_at(kept), line_of(&pt, kept));
                assert_eq!(taken.line_at(kept), line_of(&tt, kept));
                let seg = |o: &CacheOrder| {
                    o.segments()
                        .iter()
                        .find(|(_, end)| kept < *end)
                        .map(|(s, _)| *s)
                };
                assert_eq!(prev.segment_at(kept), seg(prev));
                compared += 1;
                diverged += usize::from(kept < pt.len());
            }
            last.retain(|(a, _, _, _)| *a != r.api);
            let token = r.reuse.token;
            if token == 0 {
                last.push((r.api, taken, Some(r.payload), token));
                Ok(None)
            } else {
                last.push((r.api, taken, None, token));
                Ok(Some(r.payload))
            }
        });
    }
    // What the comparison covered: many leaves, breaks, divergences and taken-over elements.
    assert!(explained > 100, "{explained} explanations");
    assert!(breaks > 50, "{breaks} breaks");
    assert!(
        compared > 1000 && diverged > 200,
        "{compared} compared, {diverged} diverged"
    );
    assert!(shared > 10_000, "{shared} elements taken over");
    assert!(
        reused > 500,
        "{reused} messages kept from the previous payload"
    );
}
