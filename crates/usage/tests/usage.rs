//! pi-forge's session cache-usage vectors ([T-USAGE], spec §6/§8) over committed JSONL fixtures,
//! plus corpus scanning, fork deduplication and the generator.

use std::path::PathBuf;

use forge_replay_model::json::stringify;
use forge_replay_usage::corpus::{Corpus, Filter, GroupBy};
use forge_replay_usage::gen::{generate, GenOptions};
use forge_replay_usage::{hit_rate, SessionData, Totals};
use serde_json::{json, Value};

fn fixture(name: &str) -> PathBuf {
    forge_replay_testkit::fixture("usage").join(name)
}

fn view(name: &str, leaf: Option<&str>) -> Value {
    let data = SessionData::read(&fixture(name)).expect("fixture readable");
    data.usage(leaf).expect("leaf exists").to_json()
}

fn totals(v: [f64; 5]) -> Value {
    json!({"requests": v[0], "input": v[1], "output": v[2], "cacheRead": v[3], "cacheWrite": v[4]})
}

fn nested(v: [f64; 8]) -> Value {
    json!({"requests": v[0], "input": v[1], "output": v[2], "cacheRead": v[3], "cacheWrite": v[4],
           "calls": v[5], "cacheUnknownCalls": v[6], "invalidCalls": v[7]})
}

/// Compares through JSON.stringify bytes so key order and number formatting count.
fn assert_json(actual: &Value, expected: &Value) {
    let norm = |v: &Value| stringify(&forge_replay_model::json::parse(&stringify(v)).unwrap());
    assert_eq!(stringify(actual), norm(expected));
}

#[test]
fn eighteen_entry_branch_fixture() {
    let v = view("t-usage-branch.jsonl", None);
    assert_json(
        &v,
        &json!({
            "main": {
                "turn": totals([2.0, 50.0, 5.0, 60.0, 30.0]),
                "session": totals([3.0, 60.0, 6.0, 150.0, 30.0]),
                "lastRequest": totals([1.0, 30.0, 3.0, 0.0, 10.0]),
            },
            "nested": {
                "turn": nested([3.0, 7.0, 9.0, 7.0, 1.0, 2.0, 1.0, 0.0]),
                "session": nested([12.0, 37.0, 49.0, 57.0, 7.0, 3.0, 1.0, 0.0]),
            }
        }),
    );
    let data = SessionData::read(&fixture("t-usage-branch.jsonl")).unwrap();
    let u = data.usage(None).unwrap();
    assert_eq!(u.main_session.hit_rate(), Some(150.0 / 240.0));
}

#[test]
fn native_tool_result_usage_is_never_counted() {
    assert_eq!(
        view("t-usage-native-tool-usage.jsonl", None),
        view("t-usage-branch.jsonl", None)
    );
}

#[test]
fn trailing_user_message_empties_the_turn() {
    let v = view("t-usage-trailing-user.jsonl", None);
    assert_eq!(v["main"]["turn"]["requests"], json!(0));
    assert_eq!(v["nested"]["turn"]["calls"], json!(0));
    assert_eq!(
        v["main"]["session"],
        view("t-usage-branch.jsonl", None)["main"]["session"]
    );
}

#[test]
fn zero_usage_errors_are_ignored_positive_ones_counted() {
    let v = view("t-usage-zero-usage.jsonl", None);
    assert_json(&v["main"]["session"], &totals([2.0, 4.0, 0.0, 6.0, 0.0]));
}

#[test]
fn invalid_nested_reports_are_counted_not_summed() {
    let v = view("t-usage-invalid-nested.jsonl", None);
    assert_eq!(v["nested"]["session"]["invalidCalls"], json!(2));
    assert_eq!(v["nested"]["session"]["calls"], json!(0));
    assert_eq!(v["nested"]["session"]["cacheRead"], json!(0));
    assert!(
        v["main"].get("lastRequest").is_none(),
        "no main request → no lastRequest key"
    );
}

#[test]
fn abandoned_sibling_branch_is_not_on_the_active_path() {
    // Same active path as the plain fixture, plus a sibling branch and a malformed line.
    assert_eq!(
        view("t-usage-branch-with-sibling.jsonl", None),
        view("t-usage-branch.jsonl", None)
    );
    let data = SessionData::read(&fixture("t-usage-branch-with-sibling.jsonl")).unwrap();
    assert_eq!(data.bad_lines.len(), 1);
    assert_eq!(data.bad_lines[0].line, 7);
    // At the sibling leaf only its request counts; the provider reported no cache data.
    let u = data.usage(Some("sib00002")).unwrap();
    assert_eq!(
        u.main_session,
        Totals {
            requests: 1.0,
            input: 500.0,
            output: 50.0,
            cache_read: 0.0,
            cache_write: 0.0
        }
    );
    assert!(u.main_session.no_cache_data());
    assert!(data.usage(Some("nope")).is_err());
}

#[test]
fn empty_branch_is_all_zeros_without_last_request() {
    let data = SessionData::default();
    let v = data.usage(None).unwrap().to_json();
    assert_json(
        &v,
        &json!({"main": {"turn": totals([0.0; 5]), "session": totals([0.0; 5])},
                "nested": {"turn": nested([0.0; 8]), "session": nested([0.0; 8])}}),
    );
    assert_eq!(hit_rate(0.0, 0.0, 0.0), None);
    assert_eq!(hit_rate(20.0, 60.0, 20.0), Some(0.6));
}

#[test]
fn sums_are_doubles() {
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n\
        {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":0.1,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0}}}\n\
        {\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":0.2,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0}}}\n";
    let data = SessionData::from_reader(std::io::BufReader::new(text.as_bytes())).unwrap();
    let v = data.usage(None).unwrap().to_json();
    assert_eq!(
        stringify(&v["main"]["session"]["input"]),
        "0.30000000000000004"
    );
}

#[test]
fn not_a_session_is_empty() {
    let text = "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":5}}}\n";
    let data = SessionData::from_reader(std::io::BufReader::new(text.as_bytes())).unwrap();
    assert!(!data.is_session());
    assert_eq!(data.usage(None).unwrap().main_session.requests, 0.0);
}

#[test]
fn version_one_files_are_a_linear_chain() {
    let text = "{\"type\":\"session\",\"id\":\"s\"}\n\
        {\"type\":\"message\",\"message\":{\"role\":\"user\"}}\n\
        {\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":5}}}\n";
    let data = SessionData::from_reader(std::io::BufReader::new(text.as_bytes())).unwrap();
    assert_eq!(data.usage(None).unwrap().main_turn.requests, 1.0);
}

#[test]
fn generated_corpus_is_deterministic_and_forks_are_deduplicated() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let opts = GenOptions {
        sessions: 12,
        entries: 120,
        seed: 7,
        forks: 0.4,
    };
    let sa = generate(a.path(), &opts).unwrap();
    let sb = generate(b.path(), &opts).unwrap();
    assert_eq!(sa.bytes, sb.bytes);
    assert!(sa.forks > 0, "some forks were generated");
    for (x, y) in sa.files.iter().zip(&sb.files) {
        // Fork headers name their parent by absolute path, so compare with the roots swapped.
        let tx = std::fs::read_to_string(x)
            .unwrap()
            .replace(&a.path().display().to_string(), "ROOT");
        let ty = std::fs::read_to_string(y)
            .unwrap()
            .replace(&b.path().display().to_string(), "ROOT");
        assert!(tx == ty, "{} differs from {}", x.display(), y.display());
    }
    let corpus = Corpus::scan(&[a.path().to_owned()]);
    assert_eq!(corpus.files.len(), 12);
    assert_eq!(corpus.forks(), sa.forks);
    assert!(corpus.fork_copies.requests > 0.0);
    assert!(
        corpus.requests.iter().any(|r| !r.active),
        "abandoned branches exist"
    );
    assert!(corpus
        .files
        .iter()
        .all(|f| f.bad_lines.is_empty() && f.error.is_none()));

    // Without deduplication every file counts its copies again.
    let naive: f64 = corpus
        .files
        .iter()
        .map(|f| {
            let d = SessionData::read(&f.path).unwrap();
            d.entries
                .iter()
                .filter_map(|e| e.message.as_ref()?.request)
                .map(|t| t.requests)
                .sum::<f64>()
        })
        .sum();
    assert_eq!(
        naive,
        corpus.requests.len() as f64 + corpus.fork_copies.requests
    );

    // Grouping sums to the totals; a filter narrows.
    let df = corpus.frame(&Filter::default()).unwrap();
    let groups = corpus
        .group(&df, GroupBy::Model, &Filter::default())
        .unwrap();
    let sum: f64 = groups.iter().map(|g| g.totals.cache_read).sum();
    let direct: f64 = corpus.requests.iter().map(|r| r.cache_read).sum();
    assert_eq!(sum, direct);
    let only = Filter {
        model: Some("claude".into()),
        ..Filter::default()
    };
    let df2 = corpus.frame(&only).unwrap();
    assert!(df2.height() < df.height());
}

#[test]
fn generated_sessions_follow_pi_layout() {
    let dir = tempfile::tempdir().unwrap();
    let s = generate(
        dir.path(),
        &GenOptions {
            sessions: 2,
            entries: 60,
            seed: 1,
            forks: 0.0,
        },
    )
    .unwrap();
    for f in &s.files {
        let parent = f
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            parent.starts_with("--home-dev-work-project-") && parent.ends_with("--"),
            "{parent}"
        );
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.ends_with(".jsonl") && name.contains("Z_"), "{name}");
        let text = std::fs::read_to_string(f).unwrap();
        assert_eq!(text.lines().count(), 60);
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["type"], "session");
        assert_eq!(first["version"], 3);
        let types: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(types[0], "model_change");
        assert_eq!(types[1], "thinking_level_change");
        let d = SessionData::read(f).unwrap();
        assert!(d.usage(None).unwrap().main_session.requests > 0.0);
    }
}

/// The bytes of every `*.jsonl` file under `fixtures/`.
fn fixture_files() -> Vec<Vec<u8>> {
    let root = forge_replay_testkit::fixtures_root();
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).expect("fixtures readable") {
            let path = item.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(std::fs::read(&path).expect("fixture readable"));
            }
        }
    }
    files
}

/// Every `*.jsonl` line under `fixtures/`.
fn fixture_lines() -> Vec<String> {
    fixture_files()
        .iter()
        .flat_map(|bytes| {
            String::from_utf8_lossy(bytes)
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Hand-made lines for the corners the fast scanner must leave to serde or get right.
const CORNERS: &[&str] = &[
    r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","usage":{"input":-0,"output":1e2,"cacheRead":12345678901234567890123,"cacheWrite":0.1,"cost":{"total":-0}}}}"#,
    r#"{"type":"message","id":"a","id":"b"}"#,
    r#"{"type":"message","message":{"role":"assistant","role":"user"}}"#,
    r#"{"type":"message","message":{"role":"assistant","usage":{"input":1,"input":2}}}"#,
    r#"{"t\u0079pe":"session","id":"x"}"#,
    r#"{"type":"session","id":"x\u0041"}"#,
    r#"{"type":"message","id":"a","message":{"role":"toolResult","details":{"forgeNestedUsage":{"input":1}}}}"#,
    r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":1e400}}}"#,
    r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":01}}}"#,
    r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":1.}}}"#,
    r#"{"type":"message","id":"a","message":{"role":"assistant","usage":{"input":-}}}"#,
    r#"{"type":"message","id":"a","message":{"content":"bad \x escape"}}"#,
    r#"{"type":"message","id":"a","message":{"content":"ok \u12 short"}}"#,
    r#"{"type":"message","id":"a","message":{"content":"tab	inside"}}"#,
    r#"{"type":"message","id":"a","message":{"content":[1,2,]}}"#,
    r#"{"type":"message","id":"a",}"#,
    r#"{"type":"message","id":"a"} x"#,
    r#"["session","x"]"#,
    r#"{"type":"session","id":"x","version":"3"}"#,
    r#"{"type":true,"id":5,"parentId":{},"message":[1],"version":null}"#,
    r#"  {"type":"session","id":"x"}  "#,
    r#"{"type":"message","message":{"usage":{"cost":{"total":1,"total":2}}}}"#,
    r#"{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
    r#"{"type":"message","message":{"role":"assistant","usage":{"input":truex}}}"#,
    r#"{"type":"message","message":{"role":"assistant","usage":{"input":nul}}}"#,
];

/// The fast scanner in front of serde answers exactly as serde does: on every fixture line, on
/// hand-made corners, and on every line cut short, with a byte replaced, and with a control
/// character inserted.
#[test]
fn fast_scanner_equals_serde_on_fixtures_and_mutations() {
    use forge_replay_usage::scan::{parse_line, parse_line_serde};
    let check = |text: &str| {
        let fast = parse_line(text, 7).map_err(|e| e.to_string());
        let serde = parse_line_serde(text, 7).map_err(|e| e.to_string());
        assert_eq!(fast, serde, "line: {text}");
    };
    let mut lines = fixture_lines();
    assert!(lines.len() > 1000, "fixtures found: {}", lines.len());
    lines.extend(CORNERS.iter().map(|s| s.to_string()));
    let mut checked = 0usize;
    for (n, line) in lines.iter().enumerate() {
        check(line);
        checked += 1;
        // Mutations on a sample of lines (every line for the corners), at a spread of offsets.
        if n % 7 != 0 && n + CORNERS.len() < lines.len() {
            continue;
        }
        let cuts: Vec<usize> = (0..line.len())
            .step_by((line.len() / 24).max(1))
            .filter(|&i| line.is_char_boundary(i))
            .collect();
        for &i in &cuts {
            check(&line[..i]);
            for replacement in ["\"", "\\", "}", ",", "\u{1}", "9", "-"] {
                let end = line[i..].chars().next().map_or(i, |c| i + c.len_utf8());
                check(&format!("{}{replacement}{}", &line[..i], &line[end..]));
            }
            check(&format!("{}\t{}", &line[..i], &line[i..]));
            checked += 9;
        }
    }
    assert!(checked > 10_000, "checked {checked}");
}

use forge_replay_model::rng::XorShift64 as Rng;

/// Random JSON-ish text biased towards session-line shapes: the keys the scanner keeps, every
/// kind of value, escapes, unicode, odd numbers, and (rarely) broken syntax.
fn random_value(r: &mut Rng, depth: u32, out: &mut String) {
    const KEYS: &[&str] = &[
        "type",
        "id",
        "parentId",
        "timestamp",
        "message",
        "version",
        "cwd",
        "parentSession",
        "role",
        "usage",
        "details",
        "model",
        "provider",
        "api",
        "stopReason",
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "cost",
        "total",
        "content",
        "forgeNestedUsage",
        "x",
        "t\\u0079pe",
        "1",
        "",
    ];
    const STRINGS: &[&str] = &[
        "message",
        "session",
        "assistant",
        "toolResult",
        "user",
        "a\\nb",
        "\\u00e9",
        "é✓😀",
        "\\ud800",
        "\\\"",
        "\\/",
        "x\\\\",
        "",
        "2026-01-01T00:00:00.000Z",
        "\\u001b[0m",
        "\\t",
    ];
    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "1",
        "12",
        "-5",
        "1.5",
        "1e3",
        "1E-2",
        "2.5e+10",
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "0.1",
        "9007199254740993",
        "1.0",
    ];
    const BROKEN: &[&str] = &[
        "01",
        "1.",
        "-",
        "+1",
        ".5",
        "tru",
        "nul",
        "\"\\x\"",
        "\"\\u12\"",
        "\"a\tb\"",
        "[1,]",
        "{,}",
    ];
    if r.below(200) == 0 {
        out.push_str(r.pick(BROKEN));
        return;
    }
    match if depth > 5 { r.below(4) } else { r.below(7) } {
        0 => {
            out.push('"');
            out.push_str(r.pick(STRINGS));
            out.push('"');
        }
        1 => out.push_str(r.pick(NUMBERS)),
        2 => out.push_str(r.pick(&["true", "false", "null"])),
        3 => out.push_str(r.pick(&["{}", "[]", "\"\""])),
        4 | 5 => {
            out.push('{');
            for i in 0..r.below(6) {
                if i > 0 {
                    out.push_str(if r.below(50) == 0 { ", " } else { "," });
                }
                out.push('"');
                out.push_str(r.pick(KEYS));
                out.push_str("\":");
                random_value(r, depth + 1, out);
            }
            out.push('}');
        }
        _ => {
            out.push('[');
            for i in 0..r.below(5) {
                if i > 0 {
                    out.push(',');
                }
                random_value(r, depth + 1, out);
            }
            out.push(']');
        }
    }
}

/// Property: on random lines (mostly objects with the kept keys at every level), the fast scanner
/// and serde agree exactly, including which lines are errors.
#[test]
fn fast_scanner_equals_serde_on_random_lines() {
    use forge_replay_usage::scan::{parse_line, parse_line_serde};
    let mut r = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut answered_ok = 0;
    for _ in 0..40_000 {
        let mut line = String::new();
        if r.below(10) == 0 {
            random_value(&mut r, 0, &mut line);
        } else {
            // An entry-shaped object: type, id, message with role/usage/details, extras.
            line.push_str("{\"type\":");
            random_value(&mut r, 3, &mut line);
            line.push_str(
                ",\"id\":\"e1\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":",
            );
            random_value(&mut r, 4, &mut line);
            line.push_str(",\"cost\":");
            random_value(&mut r, 4, &mut line);
            line.push_str("},\"details\":");
            random_value(&mut r, 3, &mut line);
            line.push_str(",\"content\":");
            random_value(&mut r, 2, &mut line);
            line.push('}');
            for _ in 0..r.below(3) {
                line.push_str(",\"");
                line.push_str(r.pick(&["x", "message", "parentId", "version", "timestamp"]));
                line.push_str("\":");
                random_value(&mut r, 1, &mut line);
            }
            line.push('}');
        }
        let fast = parse_line(&line, 3).map_err(|e| e.to_string());
        let serde = parse_line_serde(&line, 3).map_err(|e| e.to_string());
        answered_ok += usize::from(serde.is_ok());
        assert_eq!(fast, serde, "line: {line}");
    }
    // The generator must exercise both outcomes.
    assert!(
        answered_ok > 5_000 && answered_ok < 39_000,
        "ok lines: {answered_ok}"
    );
}

/// The reader parses lines in place in its buffer and copies only lines that cross a buffer
/// boundary: with a 7-byte buffer nearly every line crosses one, and the result must not change
/// (every fixture session, plus CRLF endings, blank lines and a last line without a newline).
#[test]
fn tiny_reader_buffers_read_the_same_records() {
    use std::io::BufReader;
    let mut texts = fixture_files();
    assert!(texts.len() > 20, "fixture sessions found: {}", texts.len());
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let entry = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[],"usage":{"input":5,"output":1,"cacheRead":7,"cacheWrite":0},"stopReason":"stop"}}"#;
    texts.push(format!("{header}\r\n\r\n  \n{entry}\r\nnot json\n{entry}").into_bytes());
    for text in &texts {
        let big = SessionData::from_reader(BufReader::with_capacity(1 << 16, &text[..])).unwrap();
        for cap in [7, 64, 1000] {
            let small = SessionData::from_reader(BufReader::with_capacity(cap, &text[..])).unwrap();
            assert_eq!(small.header, big.header);
            assert_eq!(small.entries, big.entries);
            assert_eq!(small.bad_lines, big.bad_lines);
        }
    }
    // The hand-made file: two entries, one bad line (line 5), blank lines skipped.
    let last =
        SessionData::from_reader(BufReader::with_capacity(7, &texts[texts.len() - 1][..])).unwrap();
    assert_eq!(last.entries.len(), 2);
    assert_eq!(last.bad_lines.len(), 1);
    assert_eq!(last.bad_lines[0].line, 5);
}

/// `SessionUsage::build` reads a branch in one pass and keeps only rows; it must equal the
/// slice functions over the branch's records (`summarize`, `request_rows`, `nested_rows`) on
/// every leaf of every committed session fixture.
#[test]
fn one_pass_session_usage_equals_the_branch_functions() {
    use forge_replay_usage::report::nested_rows;
    use forge_replay_usage::session_report::SessionUsage;
    use forge_replay_usage::{request_rows, session_branch, summarize};
    let files = forge_replay_testkit::jsonl_files(forge_replay_testkit::fixtures_root());
    let catalog =
        forge_replay_wire::Catalog::builtin(forge_replay_model::release::PiRelease::LATEST);
    let (mut sessions, mut leaves, mut with_rows) = (0, 0, 0);
    for f in &files {
        let Ok((session, _)) = forge_replay_session::Session::open(f) else {
            continue;
        };
        sessions += 1;
        for leaf in session.tree().leaves().collect::<Vec<_>>() {
            leaves += 1;
            let records = session_branch(&session, &session.path_to(leaf)).unwrap();
            let branch: Vec<_> = records.iter().collect();
            let u = SessionUsage::build(&session, Some(leaf), catalog).unwrap();
            let at = format!("{} leaf {leaf}", f.display());
            assert_eq!(u.view, summarize(&branch), "{at}");
            assert_eq!(u.rows, request_rows(&branch), "{at}");
            assert_eq!(u.nested, nested_rows(&branch), "{at}");
            with_rows += usize::from(!u.rows.is_empty() && !u.nested.is_empty());
        }
    }
    assert!(
        sessions > 50 && leaves > sessions && with_rows > 0,
        "{sessions} {leaves} {with_rows}"
    );
}
