//! Bug (issue 20): outputs printed credentials. `replay` printed tool-call arguments named
//! `apiKey`, `api_key`, `token`, `password`; `replay --all-apis`/`--out` printed a message's own
//! `apiKey`, `Authorization`, `x-api-key` and `cookie` in the pi-messages request; `context`
//! printed all of them; `diff` printed both sides of a changed secret; an unknown
//! `--model sk-ant-…` was echoed in the error.
//!
//! This test plants credentials in every place a session, a case, a scenario, a catalog and a
//! capability can hold one (every planted value contains `PLANTED`), runs every command with
//! every output format and output file, and checks that no stdout, stderr or written file holds
//! any of them; with `--no-redact` they come back, and the run says it is unredacted.

use std::path::Path;
use std::process::Output;

use crate::integrity::{scenario_text, tree};
use crate::support::Test;

const MARK: &str = "PLANTED";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const USAGE: &str = r#""usage":{"input":120,"output":20,"cacheRead":0,"cacheWrite":120,"totalTokens":260,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#;

/// A session with credentials in tool-call arguments, message-level keys and headers, message
/// text, tool results and their details, a label and a custom entry.
fn session(model: &str) -> String {
    let lines = [
        r#"{"type":"session","version":3,"id":"019c0000-0000-7000-8000-00000000cafe","timestamp":"2026-02-01T08:00:00.000Z","cwd":"/home/dev/proj"}"#.to_string(),
        format!(r#"{{"type":"model_change","id":"00000001","parentId":null,"timestamp":"2026-02-01T08:00:01.000Z","provider":"anthropic","modelId":"{model}"}}"#),
        r#"{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2026-02-01T08:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"my key is sk-ant-api03-PLANTEDuserTEXT0123456789abcdef, use it"}],"timestamp":1769932802000,"apiKey":"PLANTED-msg-apikey","headers":{"Authorization":"Bearer PLANTED-msg-bearer-0123","x-api-key":"PLANTED-msg-xapikey","cookie":"session=PLANTED-msg-cookie"}}}"#.to_string(),
        format!(r#"{{"type":"message","id":"00000003","parentId":"00000002","timestamp":"2026-02-01T08:00:03.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"Calling."}},{{"type":"toolCall","id":"call-1","name":"bash","arguments":{{"command":"deploy","apiKey":"PLANTED-arg-apiKey","api_key":"PLANTED-arg-api_key","token":"PLANTED-arg-token","password":"PLANTED-arg-password"}}}}],"api":"anthropic-messages","provider":"anthropic","model":"{model}",{USAGE},"stopReason":"toolUse","timestamp":1769932803000}}}}"#),
        r#"{"type":"message","id":"00000004","parentId":"00000003","timestamp":"2026-02-01T08:00:04.000Z","message":{"role":"toolResult","toolCallId":"call-1","toolName":"bash","content":[{"type":"text","text":"export GITHUB_TOKEN=ghp_PLANTEDtoolRESULT0123456789abcdefghij"}],"details":{"secret":"PLANTED-details-secret"},"isError":false,"timestamp":1769932804000}}"#.to_string(),
        format!(r#"{{"type":"message","id":"00000005","parentId":"00000004","timestamp":"2026-02-01T08:00:05.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"Done."}}],"api":"anthropic-messages","provider":"anthropic","model":"{model}",{USAGE},"stopReason":"stop","timestamp":1769932805000}}}}"#),
        r#"{"type":"label","id":"00000006","parentId":"00000005","timestamp":"2026-02-01T08:00:06.000Z","targetId":"00000005","label":"Authorization: Bearer PLANTEDlabelBEARER01"}"#.to_string(),
        r#"{"type":"custom","id":"00000007","parentId":"00000006","timestamp":"2026-02-01T08:00:07.000Z","customType":"note","data":{"password":"PLANTED-custom-password"}}"#.to_string(),
    ];
    lines.join("\n") + "\n"
}

/// Every planted credential the outputs must not show.
fn leaks(text: &str) -> Vec<String> {
    text.match_indices(MARK)
        .map(|(i, _)| {
            let from = text[..i].char_indices().rev().nth(30).map_or(0, |(j, _)| j);
            let to = (i + 40).min(text.len());
            let mut to = to;
            while !text.is_char_boundary(to) {
                to -= 1;
            }
            text[from..to].to_string()
        })
        .collect()
}

struct Run {
    name: String,
    out: Output,
}

#[test]
fn no_output_of_any_command_holds_a_planted_credential() {
    let dir = tempfile::tempdir().unwrap();
    let inp = dir.path().join("in");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let p = |path: &Path| path.to_str().unwrap().to_string();

    let sess = inp.join("sessions/--home-dev-proj--/s.jsonl");
    write(&sess, &session("claude-opus-4-8"));
    // A session whose recorded model is itself a pasted key.
    let odd = inp.join("odd/o.jsonl");
    write(&odd, &session("sk-ant-api03-PLANTEDmodelNAME0123456789ab"));
    let case = inp.join("case.json");
    write(
        &case,
        r#"{"model":{"provider":"anthropic","id":"claude-opus-4-8"},
            "context":{"systemPrompt":"Deploy with Bearer PLANTEDcaseSYSTEM0123",
              "messages":[{"role":"user","content":"key sk-ant-api03-PLANTEDcaseUSER0123456789abc","timestamp":1},
                {"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"password":"PLANTED-case-password","cmd":"x"}}],
                 "api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2},
                {"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}]},
            "options":{"apiKey":"PLANTED-case-apikey","headers":{"x-api-key":"PLANTED-case-header"}}}"#,
    );
    let catalog = inp.join("models-store.json");
    write(
        &catalog,
        r#"{"acme":{"models":[{"id":"m1","name":"Acme with Bearer PLANTEDcatalogNAME01","api":"openai-completions",
             "baseUrl":"https://acme.invalid/v1?key=AIzaPLANTEDurlKEY0123456789abcdefghijkl","apiKey":"PLANTED-catalog-apikey",
             "headers":{"Authorization":"Bearer PLANTEDcatalogHEADER1"},"reasoning":false,"input":["text"],
             "cost":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0},"contextWindow":1000,"maxTokens":100}]}}"#,
    );
    let project = inp.join("project");
    write(
        &project.join(".pi/forge/capabilities/deploy.json"),
        r#"{"schemaVersion":1,"type":"pi-forge.capability","id":"deploy","name":"Deploy sk-ant-api03-PLANTEDcapNAME0123456789ab",
            "content":"Use Bearer PLANTEDcapCONTENT0123","apiKey":"PLANTED-cap-apikey","tools":{"add":[],"remove":[]}}"#,
    );
    let scen_dir = inp.join("scenarios");
    let scen = scen_dir.join("secret.toml");
    let scen_text = |password: &str| {
        scenario_text(Some("secret"), 2, "a").replace(
            "assistant.text = \"answer 0\"",
            &format!(
                "assistant.text = \"answer sk-ant-api03-PLANTEDscenTEXT0123456789ab\"\nassistant.tool_calls = [{{ name = \"read\", arguments = {{ path = \"x\", password = \"{password}\" }}, result = \"token ghp_PLANTEDscenRESULT0123456789abcdefghij\" }}]"
            ),
        )
    };
    write(&scen, &scen_text("PLANTED-scen-password-1"));
    let a = inp.join("a.json");
    let b = inp.join("b.json");
    write(
        &a,
        r#"{"headers":{"Authorization":"Bearer PLANTED-diff-left-1234"},"apiKey":"PLANTED-diff-left-key","messages":[{"content":"hi sk-ant-api03-PLANTEDdiffLEFT0123456789ab"}],"max_tokens":5}"#,
    );
    write(
        &b,
        r#"{"headers":{"Authorization":"Bearer PLANTED-diff-right-1234"},"apiKey":"PLANTED-diff-right-key","messages":[{"content":"hi sk-ant-api03-PLANTEDdiffRIGHT0123456789ab"}],"max_tokens":5}"#,
    );
    let inputs_before = tree(&inp);

    let s = p(&sess);
    let golden = p(&out.join("golden"));
    let o = |rel: &str| p(&out.join(rel));
    let commands: Vec<Vec<String>> = [
        vec!["context", &s],
        vec!["context", &s, "--llm"],
        vec!["context", &s, "--capabilities", "native"],
        vec!["context", &s, "--capabilities", "fallback", "--llm"],
        vec!["tree", &s],
        vec!["tree", &s, "--format", "json"],
        vec!["check", &s],
        vec!["check", &s, "--format", "json"],
        vec!["check", &p(&inp)],
        vec!["assemble", &p(&case)],
        vec![
            "models",
            "--catalog",
            &p(&catalog),
            "--api",
            "openai-completions",
        ],
        vec!["models", "--catalog", &p(&catalog), "--format", "json"],
        vec!["capabilities", &s],
        vec![
            "capabilities",
            &s,
            "--format",
            "json",
            "--project",
            &p(&project),
        ],
        vec!["capabilities", &s, "--project", &p(&project)],
        vec![
            "capabilities",
            &s,
            "--model",
            "sk-ant-api03-PLANTEDcapMODEL0123456789/x",
        ],
        vec![
            "capability",
            "validate",
            &p(&project.join(".pi/forge/capabilities")),
        ],
        vec![
            "capability",
            "validate",
            &p(&project.join(".pi/forge/capabilities")),
            "--format",
            "json",
        ],
        vec!["replay", &s],
        vec!["replay", &s, "--format", "text"],
        vec!["replay", &s, "--all-apis"],
        vec![
            "replay",
            &s,
            "--api",
            "pi-messages",
            "--out",
            &o("replay-out"),
        ],
        vec!["replay", &s, "--all-apis", "--out", &o("replay-all")],
        vec![
            "replay",
            &s,
            "--model",
            "anthropic/sk-ant-api03-PLANTEDcliMODEL0123456789ab",
        ],
        vec!["replay", &p(&odd)],
        vec![
            "replay",
            &s,
            "--catalog",
            &p(&catalog),
            "--model",
            "acme/m1",
        ],
        vec!["cache", "explain", &s],
        vec![
            "cache",
            "explain",
            &s,
            "--format",
            "json",
            "--plot",
            &o("explain.svg"),
        ],
        vec!["usage", &s],
        vec![
            "usage",
            &s,
            "--requests",
            "--format",
            "json",
            "--plot",
            &o("usage.svg"),
        ],
        vec!["usage", &p(&odd), "--requests"],
        vec!["usage", &p(&odd), "--format", "csv"],
        vec!["usage", &p(&odd), "--format", "md"],
        vec!["usage", "--corpus", &p(&inp), "--by", "model"],
        vec![
            "usage",
            "--corpus",
            &p(&inp),
            "--format",
            "json",
            "--by",
            "session",
            "--csv",
            &o("corpus.csv"),
            "--json",
            &o("corpus.ndjson"),
            "--parquet",
            &o("corpus-pq"),
            "--plot",
            &o("corpus.svg"),
        ],
        vec![
            "usage",
            "--corpus",
            &p(&inp),
            "--format",
            "md",
            "--by",
            "project",
        ],
        vec!["scenario", &p(&scen), "--out", &o("compiled")],
        vec![
            "verify",
            &p(&scen_dir),
            "--apis",
            "anthropic-messages,pi-messages",
            "--bless",
            "--golden-dir",
            &golden,
        ],
        vec![
            "verify",
            &p(&scen_dir),
            "--apis",
            "anthropic-messages,pi-messages",
            "--golden-dir",
            &golden,
            "--format",
            "json",
            "--junit",
            &o("junit.xml"),
        ],
        vec![
            "verify",
            &p(&scen_dir),
            "--models",
            "anthropic/sk-ant-api03-PLANTEDverifyMODEL01234567",
            "--golden-dir",
            &golden,
        ],
        vec!["diff", &p(&a), &p(&b)],
        vec!["diff", &p(&a), &p(&b), "--format", "json"],
        vec![
            "report",
            "providers",
            "--sessions",
            &p(&inp.join("sessions")),
            "--out",
            &o("report/providers.md"),
        ],
        vec![
            "report",
            "providers",
            "--sessions",
            &p(&inp.join("sessions")),
            "--format",
            "html",
        ],
        vec!["report", "session", &s, "--out", &o("session.html")],
        vec!["report", "session", &p(&odd), "--out", &o("odd.html")],
        vec![
            "gen-corpus",
            "--out",
            &o("generated"),
            "--sessions",
            "3",
            "--entries",
            "20",
        ],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_string).collect())
    .collect();

    let mut runs = Vec::new();
    for c in &commands {
        let out = Test::new().args(c).any_status().run();
        runs.push(Run {
            name: c.join(" "),
            out,
        });
    }
    let mut found = Vec::new();
    for r in &runs {
        for (stream, bytes) in [("stdout", &r.out.stdout), ("stderr", &r.out.stderr)] {
            for l in leaks(&String::from_utf8_lossy(bytes)) {
                found.push(format!("{} ({stream}): …{l}…", r.name));
            }
        }
    }
    for (name, bytes) in tree(&out) {
        for l in leaks(&String::from_utf8_lossy(&bytes)) {
            found.push(format!("file {name}: …{l}…"));
        }
    }
    assert!(
        found.is_empty(),
        "{} leaks:\n{}",
        found.len(),
        found.join("\n")
    );
    // A diff of a changed secret inside verify: goldens blessed without redaction, then a changed
    // password: the failure shows the path, never either value.
    let raw_golden = o("golden-raw");
    Test::new()
        .args([
            "verify",
            &p(&scen_dir),
            "--apis",
            "anthropic-messages",
            "--bless",
            "--no-redact",
            "--golden-dir",
            &raw_golden,
        ])
        .run();
    let raw = tree(&out.join("golden-raw"));
    assert!(
        raw.iter()
            .any(|f| !leaks(&String::from_utf8_lossy(&f.1)).is_empty()),
        "--no-redact goldens keep the secrets"
    );
    std::fs::remove_dir_all(out.join("golden-raw")).unwrap();
    // (the raw goldens are removed above so the scan below only sees redacted output)
    let raw_golden2 = o("golden-raw2");
    let scen2_dir = dir.path().join("in2");
    write(
        &scen2_dir.join("secret.toml"),
        &scen_text("PLANTED-scen-password-1"),
    );
    Test::new()
        .args([
            "verify",
            &p(&scen2_dir),
            "--apis",
            "anthropic-messages",
            "--bless",
            "--no-redact",
            "--golden-dir",
            &raw_golden2,
        ])
        .run();
    write(
        &scen2_dir.join("secret.toml"),
        &scen_text("PLANTED-scen-password-2"),
    );
    let failed = Test::new()
        .args([
            "verify",
            &p(&scen2_dir),
            "--apis",
            "anthropic-messages",
            "--golden-dir",
            &raw_golden2,
            "--junit",
            &o("junit-fail.xml"),
        ])
        .status(1)
        .stdout_contains("input.password")
        .run();
    std::fs::remove_dir_all(out.join("golden-raw2")).unwrap();
    let all = String::from_utf8_lossy(&failed.stdout).into_owned()
        + &String::from_utf8_lossy(&failed.stderr)
        + &String::from_utf8_lossy(&std::fs::read(out.join("junit-fail.xml")).unwrap());
    assert!(
        leaks(&all).is_empty(),
        "a changed secret shown: {:?}",
        leaks(&all)
    );

    // Every command did its job (a leak-free failure would prove nothing).
    for r in &runs {
        let code = r.out.status.code();
        let expect_fail = r.name.contains("PLANTEDcliMODEL")
            || r.name.contains("PLANTEDverifyMODEL")
            || r.name.contains("PLANTEDcapMODEL")
            || r.name.contains("odd/o.jsonl") && r.name.starts_with("replay")
            || r.name.contains("odd/o.jsonl") && r.name.starts_with("report session")
            || r.name.starts_with("check")
            || r.name.starts_with("diff")
            || r.name.starts_with("capability validate");
        if !expect_fail {
            assert_eq!(
                code,
                Some(0),
                "{}: {}",
                r.name,
                String::from_utf8_lossy(&r.out.stderr)
            );
        }
    }
    // The error that used to echo the key still says what is wrong.
    let bad_model = runs
        .iter()
        .find(|r| r.name.contains("PLANTEDcliMODEL"))
        .unwrap();
    assert_eq!(bad_model.out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad_model.out.stderr);
    assert!(stderr.contains("[redacted]"), "{stderr}");
    assert_eq!(tree(&inp), inputs_before, "inputs are never modified");

    // --no-redact: the same commands show the secrets again, and say so.
    for c in [
        vec!["context", s.as_str(), "--no-redact"],
        vec!["replay", s.as_str(), "--all-apis", "--no-redact"],
        vec!["--no-redact", "diff", &p(&a), &p(&b)],
        vec![
            "replay",
            s.as_str(),
            "--model",
            "anthropic/sk-ant-api03-PLANTEDcliMODEL0123456789ab",
            "--no-redact",
        ],
    ] {
        let r = Test::new().args(&c).any_status().run();
        let all =
            String::from_utf8_lossy(&r.stdout).into_owned() + &String::from_utf8_lossy(&r.stderr);
        assert!(
            !leaks(&all).is_empty(),
            "{c:?} with --no-redact shows nothing planted"
        );
        assert!(
            String::from_utf8_lossy(&r.stderr).contains("--no-redact: output is not redacted"),
            "{c:?}"
        );
    }
}
