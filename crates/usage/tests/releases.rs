//! Corpus pricing per release: each session is priced with the catalog of the Pi release that
//! wrote it, detected from its markers exactly as `usage SESSION` detects them
//! (`forge_replay_session::release::detect`), or with one release for all (`--pi`).

use std::path::{Path, PathBuf};

use forge_replay_model::release::PiRelease;
use forge_replay_usage::corpus::{Corpus, CorpusPricing};
use forge_replay_usage::pricing::{Pricer, PricingUsage};
use forge_replay_usage::{SessionData, Totals};
use forge_replay_wire::Catalog;

const HEADER: &str = r#"{"type":"session","version":3,"id":"SID","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/work/proj"}"#;

/// A session with two requests: `anthropic/claude-sonnet-5-5` (in 1.3.0's catalog only) and
/// `google/gemini-2.5-pro` above 200k prompt tokens (tiered in 1.3.0 only). `extra` is added to
/// each assistant message (1.3.0 writes `thinkingLevel` and `durationMs`).
fn session(id: &str, extra: &str) -> String {
    let assistant = |n: u32, parent: &str, provider: &str, model: &str, api: &str, usage: &str| {
        format!(
            r#"{{"type":"message","id":"{id}-a{n}","parentId":"{parent}","timestamp":"2026-03-01T10:00:0{n}.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"api":"{api}","provider":"{provider}","model":"{model}","usage":{usage},"stopReason":"stop","timestamp":177000000{n}000{extra}}}}}"#
        )
    };
    let user = |n: u32, parent: &str| {
        let parent = if parent.is_empty() {
            "null".to_owned()
        } else {
            format!("\"{parent}\"")
        };
        format!(
            r#"{{"type":"message","id":"{id}-u{n}","parentId":{parent},"timestamp":"2026-03-01T10:00:0{n}.000Z","message":{{"role":"user","content":"hi","timestamp":1}}}}"#
        )
    };
    [
        HEADER.replace("SID", id),
        user(1, ""),
        assistant(
            2,
            &format!("{id}-u1"),
            "anthropic",
            "claude-sonnet-5-5",
            "anthropic-messages",
            r#"{"input":1200,"output":300,"cacheRead":40000,"cacheWrite":2000,"totalTokens":43500,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.05}}"#,
        ),
        user(3, &format!("{id}-a2")),
        assistant(
            4,
            &format!("{id}-u3"),
            "google",
            "gemini-2.5-pro",
            "google-generative-ai",
            r#"{"input":250000,"output":1000,"cacheRead":0,"cacheWrite":0,"totalTokens":251000,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.3225}}"#,
        ),
    ]
    .join("\n")
        + "\n"
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn price(release: PiRelease, provider: &str, model: &str, t: &Totals) -> Option<f64> {
    Pricer::of(Catalog::builtin(release))
        .price(Some(provider), Some(model), &PricingUsage::of(t, 0.0))
        .ok()
        .map(|p| p.total)
}

fn t(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Totals {
    Totals {
        requests: 1.0,
        input,
        output,
        cache_read,
        cache_write,
    }
}

#[test]
fn a_mixed_corpus_prices_each_session_with_its_release() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "a-old.jsonl", &session("old", ""));
    let new = write(
        dir.path(),
        "b-new.jsonl",
        &session("new", r#","thinkingLevel":"medium","durationMs":812"#),
    );
    // The files themselves say which release wrote them.
    assert_eq!(
        SessionData::read(&old).unwrap().release(),
        PiRelease::V0_87_1
    );
    assert_eq!(
        SessionData::read(&new).unwrap().release(),
        PiRelease::V1_3_0
    );

    let sonnet = t(1200.0, 300.0, 40000.0, 2000.0);
    let gemini = t(250000.0, 1000.0, 0.0, 0.0);
    // The catalogs differ on both models: sonnet-5-5 is new in 1.3.0, gemini-2.5-pro gained a
    // tier above 200k prompt tokens.
    assert_eq!(
        price(
            PiRelease::V0_87_1,
            "anthropic",
            "claude-sonnet-5-5",
            &sonnet
        ),
        None
    );
    let sonnet_13 = price(PiRelease::V1_3_0, "anthropic", "claude-sonnet-5-5", &sonnet)
        .expect("in the 1.3.0 catalog");
    let gemini_08 = price(PiRelease::V0_87_1, "google", "gemini-2.5-pro", &gemini).unwrap();
    let gemini_13 = price(PiRelease::V1_3_0, "google", "gemini-2.5-pro", &gemini).unwrap();
    // pi-ai's arithmetic: 1.25 and 10 USD per million at 0.87.1, the 2.5 / 15 tier at 1.3.0.
    assert_eq!(gemini_08, (1.25 / 1e6) * 250000.0 + (10.0 / 1e6) * 1000.0);
    assert_eq!(gemini_13, (2.5 / 1e6) * 250000.0 + (15.0 / 1e6) * 1000.0);

    let c = Corpus::scan(&[dir.path().to_owned()]);
    assert_eq!(c.files.len(), 2);
    let file = |name: &str| {
        c.files
            .iter()
            .position(|f| f.path.ends_with(name))
            .expect("scanned") as u32
    };
    let (fo, fnew) = (file("a-old.jsonl"), file("b-new.jsonl"));
    assert_eq!(c.files[fo as usize].release, PiRelease::V0_87_1);
    assert_eq!(c.files[fnew as usize].release, PiRelease::V1_3_0);
    let priced = |f: u32, model: &str| {
        let r = c
            .requests
            .iter()
            .find(|r| r.file == f && c.dicts.models[r.model as usize] == model)
            .expect("request");
        r.priced()
    };
    assert_eq!(priced(fo, "claude-sonnet-5-5"), None);
    assert_eq!(priced(fnew, "claude-sonnet-5-5"), Some(sonnet_13));
    assert_eq!(priced(fo, "gemini-2.5-pro"), Some(gemini_08));
    assert_eq!(priced(fnew, "gemini-2.5-pro"), Some(gemini_13));
    assert_ne!(gemini_08, gemini_13);
    // The unpriced reason names the release that could not price it.
    let reasons: Vec<String> = c.unpriced.keys().map(|u| u.to_string()).collect();
    assert_eq!(
        reasons,
        ["model anthropic/claude-sonnet-5-5 is not in the pi-ai 0.87.1 catalog"]
    );
    assert_eq!(c.release, "0.87.1, 1.3.0");
    let counts: Vec<(String, usize, f64)> = c
        .releases
        .iter()
        .map(|(r, n)| (r.clone(), n.files, n.requests))
        .collect();
    assert_eq!(
        counts,
        [("0.87.1".to_owned(), 1, 2.0), ("1.3.0".to_owned(), 1, 2.0)]
    );

    // --pi: one release's catalog for every session.
    for (release, sonnet_price, gemini_price) in [
        (PiRelease::V0_87_1, None, gemini_08),
        (PiRelease::V1_3_0, Some(sonnet_13), gemini_13),
    ] {
        let c = Corpus::scan_with(&[dir.path().to_owned()], &CorpusPricing::Release(release));
        assert_eq!(c.release, release.version());
        assert!(c.files.iter().all(|f| f.release == release));
        for f in 0..2u32 {
            let r = |model: &str| {
                c.requests
                    .iter()
                    .find(|r| r.file == f && c.dicts.models[r.model as usize] == model)
                    .and_then(|r| r.priced())
            };
            assert_eq!(r("claude-sonnet-5-5"), sonnet_price, "{release}");
            assert_eq!(r("gemini-2.5-pro"), Some(gemini_price), "{release}");
        }
    }
}

/// Every marker `detect` knows, one session each, and the fixture sessions: the corpus scan's
/// release is the session reader's.
#[test]
fn the_scan_detects_the_release_as_the_session_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    let base = session("m", "");
    let lines: Vec<&str> = base.lines().collect();
    let assistant = lines[2];
    let tool_result = r#"{"type":"message","id":"m-t","parentId":"m-a2","timestamp":"2026-03-01T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":2EXTRA}}"#;
    let variants: Vec<(&str, String)> = vec![
        ("none", base.clone()),
        (
            "thinking-level",
            base.replace(r#""stopReason":"stop""#, r#""stopReason":"stop","thinkingLevel":"off""#),
        ),
        (
            "assistant-duration",
            base.replace(r#""stopReason":"stop""#, r#""durationMs":5,"stopReason":"stop""#),
        ),
        (
            "tool-result-duration",
            format!("{base}{}\n", tool_result.replace("EXTRA", r#","durationMs":3"#)),
        ),
        (
            "nested-calls",
            format!("{base}{}\n", tool_result.replace("EXTRA", r#","nestedCalls":[]"#)),
        ),
        (
            "arguments-error",
            base.replace(
                r#"[{"type":"text","text":"ok"}]"#,
                r#"[{"type":"toolCall","id":"c","name":"read","arguments":{},"argumentsError":"bad json"}]"#,
            ),
        ),
        (
            "arguments-error-in-text-only",
            base.replace(r#""text":"ok""#, r#""text":"\"argumentsError\" here""#),
        ),
        (
            "virtual-state",
            format!(
                "{base}{}\n",
                r#"{"type":"custom","id":"m-c","parentId":"m-a4","timestamp":"2026-03-01T10:00:06.000Z","customType":"pi.virtual-model-state","data":{}}"#
            ),
        ),
        (
            "strict-fallback",
            base.replace(
                r#""stopReason":"stop""#,
                r#""diagnostics":[{"type":"anthropic_strict_tools_fallback","message":"m"}],"stopReason":"stop""#,
            ),
        ),
        (
            "thread-fallback-1.6",
            base.replace(
                r#""stopReason":"stop""#,
                r#""diagnostics":[{"type":"anthropic_thread_fallback"}],"stopReason":"stop""#,
            ),
        ),
        (
            "total-from-provider-1.6",
            base.replace(r#""total":0.05}"#, r#""total":0.05,"totalFromProvider":0.04}"#),
        ),
        (
            // A compaction's own usage (the summarization request) records it too.
            "compaction-total-from-provider-1.6",
            format!(
                "{base}{}\n",
                r#"{"type":"compaction","id":"m-k","parentId":"m-a4","timestamp":"2026-03-01T10:00:06.000Z","summary":"s","firstKeptEntryId":"m-a4","tokensBefore":9,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}}}"#
            ),
        ),
        (
            "summary-mentions-total-from-provider",
            format!(
                "{base}{}\n",
                r#"{"type":"branch_summary","id":"m-k","parentId":"m-a4","timestamp":"2026-03-01T10:00:06.000Z","fromId":"m-a2","summary":"\"totalFromProvider\": false"}"#
            ),
        ),
        (
            // An escaped string sends the line to the serde fallback, which must agree.
            "thinking-level-escaped",
            base.replace(
                r#""stopReason":"stop""#,
                r#""stopReason":"st\u006fp","thinkingLevel":"high""#,
            ),
        ),
        ("no-response", lines[..2].join("\n") + "\n"),
    ];
    let mut paths: Vec<PathBuf> = variants
        .iter()
        .map(|(name, text)| write(dir.path(), &format!("{name}.jsonl"), text))
        .collect();
    let root = forge_replay_testkit::fixtures_root();
    paths.extend(forge_replay_usage::corpus::find_session_files(&[root]).0);
    let mut seen_13 = 0;
    for p in &paths {
        let Ok((s, _)) = forge_replay_session::Session::open(p) else {
            continue;
        };
        let mut expected = forge_replay_session::release::detect(&s);
        // The one marker the scan does not look for (a pattern of the tree, see
        // `forge_replay_usage::markers`): the scan agrees with `detect` without it.
        expected
            .found
            .retain(|f| f.marker.name != "thinking-level-on-branch");
        let data = SessionData::read(p).unwrap();
        if data.header.is_none() {
            continue;
        }
        assert_eq!(
            data.release(),
            expected.release(),
            "{}: {}",
            p.display(),
            expected.describe()
        );
        assert_eq!(
            data.markers.evidence().verdict(),
            expected.verdict(),
            "{}",
            p.display()
        );
        seen_13 += usize::from(data.release() == PiRelease::V1_3_0);
    }
    assert!(!assistant.is_empty());
    // The variants with a marker, and the 1.3.0 fixture sessions.
    assert!(seen_13 >= 10, "{seen_13}");
}

/// Pi 1.3.0 records the calls a tool made (`nestedCalls`, without usage per call) and merges
/// their usage into the tool result's own `usage`; pi-forge-subagents writes the same calls both
/// as that native usage and as `details.forgeNestedUsage`. pi-forge counts only the nested
/// report (a tool result's `usage` never counts), so the calls are counted once.
#[test]
fn a_1_3_tool_result_with_merged_usage_counts_its_calls_once() {
    let dir = tempfile::tempdir().unwrap();
    let base = session("n", r#","thinkingLevel":"low""#);
    let tool_result = r#"{"type":"message","id":"n-t","parentId":"n-a4","timestamp":"2026-03-01T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"forge_subagent","content":[{"type":"text","text":"done"}],"details":{"forgeNestedUsage":{"schemaVersion":1,"requests":2,"input":100,"output":20,"cacheRead":900,"cacheWrite":50}},"usage":{"input":100,"output":20,"cacheRead":900,"cacheWrite":50,"totalTokens":1070,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.001}},"nestedCalls":{"calls":[{"id":"c1/1","name":"read","status":"ok","arguments":{"path":"a"},"durationMs":3}]},"isError":false,"durationMs":40,"timestamp":3}}"#;
    let p = write(dir.path(), "n.jsonl", &format!("{base}{tool_result}\n"));
    let data = SessionData::read(&p).unwrap();
    assert_eq!(data.release(), PiRelease::V1_3_0);
    let view = data.usage(None).unwrap();
    assert_eq!(view.main_session.requests, 2.0);
    assert_eq!(view.nested_session.calls, 1.0);
    assert_eq!(view.nested_session.totals.requests, 2.0);
    assert_eq!(view.nested_session.totals.cache_read, 900.0);
    let c = Corpus::scan(&[dir.path().to_owned()]);
    assert_eq!(c.requests.len(), 2);
    assert_eq!(c.nested.len(), 1);
    assert!(c.requests.iter().all(|r| r.input != 100.0));
}
