//! `forge-replay upgrade` against the real goldens: for every wire case that pi-ai 0.87.1
//! (`fixtures/wire`) and a later release (`fixtures/releases/<release>/wire`, 1.3.0 and 1.6.0)
//! both ran, `upgrade` of the case reports a change exactly when the two releases' goldens differ,
//! at exactly the paths where they differ (payload, wire body, url, headers; the
//! machine-dependent `user-agent` and credentials, which the goldens and the wire crate leave
//! out, are not compared). The same holds per request for the agent scripts both releases ran.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use forge_replay_engine::diff;
use forge_replay_engine::upgrade::{self, Report, Status};
use forge_replay_model::json::parse;
use forge_replay_model::release::PiRelease;
use serde_json::Value;

fn root() -> PathBuf {
    forge_replay_testkit::repo_root()
}

#[path = "../../wire/tests/shared/headers.rs"]
mod headers;
use headers::unchecked_header;

/// `x-api-key` of `$["x-api-key"]` or `$.authorization`.
fn header_name(path: &str) -> &str {
    let p = path.trim_start_matches('$');
    p.strip_prefix("[\"")
        .and_then(|p| p.strip_suffix("\"]"))
        .or_else(|| p.strip_prefix('.'))
        .unwrap_or(p)
}

fn read(p: &Path) -> Value {
    parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// `(part, path)` of every difference between two goldens.
fn golden_paths(a: &Value, b: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let add = |out: &mut BTreeSet<(String, String)>, part: &str, x: &Value, y: &Value| {
        for c in diff::diff(x, y).changes {
            out.insert((part.to_string(), c.path().to_string()));
        }
    };
    let field = |v: &Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    let (pa, pb) = (field(a, "payload"), field(b, "payload"));
    if pa.is_null() || pb.is_null() {
        if field(a, "error") != field(b, "error") || pa.is_null() != pb.is_null() {
            out.insert(("error".into(), "$".into()));
        }
        return out;
    }
    add(&mut out, "payload", &pa, &pb);
    let (wa, wb) = (field(a, "wire"), field(b, "wire"));
    if !wa.is_null() && !wb.is_null() {
        add(&mut out, "body", &field(&wa, "body"), &field(&wb, "body"));
        if wa.get("url") != wb.get("url") {
            out.insert(("url".into(), "$".into()));
        }
        let headers = |w: &Value| -> Value {
            Value::Object(
                w.get("headers")
                    .and_then(Value::as_object)
                    .map(|h| {
                        h.iter()
                            .filter(|(k, _)| !unchecked_header(k))
                            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                            .collect()
                    })
                    .unwrap_or_default(),
            )
        };
        add(&mut out, "headers", &headers(&wa), &headers(&wb));
    } else if wa.is_null() != wb.is_null() {
        out.insert(("body".into(), "$".into()));
    }
    out
}

#[test]
fn upgrade_of_every_shared_wire_case_to_1_3_0_names_exactly_the_paths_where_the_goldens_differ() {
    wire_cases_agree(PiRelease::V1_3_0, 200);
}

#[test]
fn upgrade_of_every_shared_wire_case_to_1_6_0_names_exactly_the_paths_where_the_goldens_differ() {
    wire_cases_agree(PiRelease::V1_6_0, 190);
}

/// `upgrade` from 0.87.1 to `to` of every case both releases' goldens hold (at least `min`).
fn wire_cases_agree(to: PiRelease, min: usize) {
    let old_dir = root().join("fixtures/wire");
    let new_dir = root().join(format!("fixtures/releases/{to}/wire"));
    let mut names: Vec<String> = std::fs::read_dir(&old_dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().to_string();
            n.strip_suffix(".case.json").map(str::to_string)
        })
        .filter(|n| new_dir.join(format!("{n}.expected.json")).exists())
        .collect();
    names.sort();
    assert!(names.len() >= min, "only {} shared cases", names.len());
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| old_dir.join(format!("{n}.case.json")))
        .collect();
    let report: Report = upgrade::upgrade(&paths, PiRelease::V0_87_1, to);
    let mut failures = Vec::new();
    let (mut differ, mut equal) = (0, 0);
    for (name, input) in names.iter().zip(&report.inputs) {
        let want = golden_paths(
            &read(&old_dir.join(format!("{name}.expected.json"))),
            &read(&new_dir.join(format!("{name}.expected.json"))),
        );
        if let Some(e) = &input.error {
            failures.push(format!("{name}: upgrade failed: {e}"));
            continue;
        }
        let [r] = input.requests.as_slice() else {
            failures.push(format!("{name}: {} requests", input.requests.len()));
            continue;
        };
        let Status::Compared(c) = &r.status else {
            failures.push(format!("{name}: not compared: {:?}", r.status));
            continue;
        };
        // Credential headers are not in the goldens (pi-oracle never records them), so a
        // change of them (anthropic-kimi-coding-k3: `x-api-key` → `authorization` in 1.3) cannot
        // be confirmed here; every other path must be.
        let got: BTreeSet<(String, String)> = c
            .changes
            .iter()
            .filter(|p| p.part != upgrade::Part::Headers || !unchecked_header(header_name(&p.path)))
            .map(|p| (p.part.name().to_string(), p.path.clone()))
            .collect();
        if want.is_empty() {
            equal += 1;
        } else {
            differ += 1;
        }
        if got != want {
            failures.push(format!(
                "{name}: upgrade names {:?}, the goldens differ at {:?}",
                got.difference(&want).collect::<Vec<_>>(),
                want.difference(&got).collect::<Vec<_>>()
            ));
        }
        // The first changed byte is where the sent bodies part.
        if let Some(cache) = &c.cache {
            assert_eq!(c.first_changed_byte.is_none(), cache.kept, "{name}");
        }
    }
    assert!(
        failures.is_empty(),
        "0.87.1 -> {to}: {} of {} cases disagree with the goldens:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    // Both outcomes occur: the check is not vacuous.
    assert!(differ > 40 && equal > 40, "{differ} differ, {equal} equal");
}

/// Every committed agent session (written by real Pi 0.87.1 and 1.3.0 `AgentSession`s), upgraded
/// from 0.87.1 to 1.3.0: no input fails, and the summary with each input's kinds is pinned.
/// This is a regression snapshot of forge-replay's own output, not a golden from Pi.
#[test]
fn upgrade_of_the_committed_agent_sessions_ours_regression_snapshot() {
    let dirs = [
        root().join("fixtures/agent"),
        root().join("fixtures/releases/1.3.0/agent"),
    ];
    let paths = upgrade::expand(&dirs).unwrap();
    assert!(paths.len() >= 20, "{} sessions", paths.len());
    let report = upgrade::upgrade(&paths, PiRelease::V0_87_1, PiRelease::V1_3_0);
    let mut text = String::new();
    let base = root();
    for input in &report.inputs {
        assert!(
            input.error.is_none(),
            "{}: {:?}",
            input.path.display(),
            input.error
        );
        let rel = input.path.strip_prefix(&base).unwrap_or(&input.path);
        let mut kinds = BTreeSet::new();
        let (mut changed, mut missing) = (0, 0);
        for r in &input.requests {
            match &r.status {
                Status::Compared(c) => {
                    if c.changed() {
                        changed += 1;
                    }
                    kinds.extend(c.kinds().into_iter().map(|k| k.name()));
                }
                _ => missing += 1,
            }
        }
        text.push_str(&format!(
            "{}: {} request(s), {changed} changed, {missing} not compared (model missing in one release) [{}]\n",
            rel.display(),
            input.requests.len(),
            kinds.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    text.push('\n');
    text.push_str(&upgrade::summary_text(&upgrade::summarize(&report)));
    insta::assert_snapshot!("upgrade_agent_sessions_0_87_1_to_1_3_0_ours", text);
}

/// Fields a later session records on its own messages that a 0.87.1 run of the same script does
/// not, or records otherwise (the clock; the faux provider's usage, which it counts from the
/// request it got): they reach a request only where an API sends the transcript as it is
/// (pi-messages), and they are a difference of the two sessions, not of the releases.
fn session_recorded(path: &str) -> bool {
    path.starts_with("$.context.messages[")
        && ([".timestamp", ".thinkingLevel", ".durationMs"]
            .iter()
            .any(|f| path.ends_with(f))
            || path.contains(".usage."))
}

/// The thinking level the session file sets before each assistant message, in file order.
/// The agent clamps a script's level to what the release's catalog says the model can do, so
/// two runs of one script can record different levels: their sessions differ, and no upgrade of
/// one predicts the other's requests.
fn recorded_levels(session: &Path) -> Vec<String> {
    let mut level = String::from("off");
    let mut out = Vec::new();
    for line in std::fs::read_to_string(session).unwrap().lines() {
        let v = parse(line).unwrap();
        match v["type"].as_str() {
            Some("thinking_level_change") => {
                level = v["thinkingLevel"].as_str().unwrap_or("off").to_string()
            }
            Some("message") if v["message"]["role"] == "assistant" => out.push(level.clone()),
            _ => {}
        }
    }
    out
}

/// The Done-when for sessions: each agent script was run by real Pi 0.87.1
/// (`fixtures/agent/<name>`) and by real Pi 1.3.0 (`fixtures/releases/1.3.0/agent/<name>`), and
/// both runs recorded every request they sent (`requests.json`). `upgrade` of the 0.87.1 session
/// to 1.3.0 must name, for every request (matched by the assistant entry it produced), exactly
/// the payload and body paths where the two real runs' requests differ.
#[test]
fn upgrade_of_the_0_87_1_agent_sessions_to_1_3_0_names_the_paths_where_the_real_runs_differ() {
    agent_runs_agree(PiRelease::V1_3_0, 10, &[]);
}

#[test]
fn upgrade_of_the_0_87_1_agent_sessions_to_1_6_0_names_the_paths_where_the_real_runs_differ() {
    // 0.87.1's catalog says mistral-large-latest cannot reason (the agent records `off`); 1.6's
    // says it can (`medium`, then `high`).
    agent_runs_agree(PiRelease::V1_6_0, 10, &["mistral-large-tools"]);
}

/// `upgrade` from 0.87.1 to `to` of every agent script both releases ran (at least `min`), except
/// the scripts whose two runs recorded different thinking levels (`clamped`, checked to be
/// exactly those).
fn agent_runs_agree(to: PiRelease, min: usize, clamped: &[&str]) {
    let old_root = root().join("fixtures/agent");
    let new_root = root().join(format!("fixtures/releases/{to}/agent"));
    let mut names: Vec<String> = std::fs::read_dir(&old_root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| new_root.join(n).join("requests.json").exists())
        .collect();
    names.sort();
    let differ_in_levels: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| {
            recorded_levels(&old_root.join(n).join("session.jsonl"))
                != recorded_levels(&new_root.join(n).join("session.jsonl"))
        })
        .collect();
    assert_eq!(
        differ_in_levels, clamped,
        "0.87.1 -> {to}: scripts whose runs recorded other thinking levels"
    );
    names.retain(|n| !clamped.contains(&n.as_str()));
    assert!(names.len() >= min, "{names:?}");
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| old_root.join(n).join("session.jsonl"))
        .collect();
    let report = upgrade::upgrade(&paths, PiRelease::V0_87_1, to);
    let by_entry = |p: PathBuf| -> std::collections::HashMap<String, Value> {
        match read(&p) {
            Value::Array(a) => a
                .into_iter()
                .filter_map(|r| Some((r.get("entryId")?.as_str()?.to_string(), r)))
                .collect(),
            _ => panic!("{}", p.display()),
        }
    };
    let mut failures = Vec::new();
    let (mut checked, mut differ) = (0, 0);
    for (name, input) in names.iter().zip(&report.inputs) {
        assert!(input.error.is_none(), "{name}: {:?}", input.error);
        let old = by_entry(old_root.join(name).join("requests.json"));
        let new = by_entry(new_root.join(name).join("requests.json"));
        for r in &input.requests {
            let entry = r.entry_id.clone().unwrap_or_default();
            let (Some(a), Some(b)) = (old.get(&entry), new.get(&entry)) else {
                failures.push(format!("{name} {entry}: not in both runs' requests"));
                continue;
            };
            let Status::Compared(c) = &r.status else {
                failures.push(format!("{name} {entry}: not compared: {:?}", r.status));
                continue;
            };
            let mut want = BTreeSet::new();
            for ch in diff::diff(&a["payload"], &b["payload"]).changes {
                if !session_recorded(ch.path()) {
                    want.insert(("payload".to_string(), ch.path().to_string()));
                }
            }
            if a["wire"].is_object() && b["wire"].is_object() {
                for ch in diff::diff(&a["wire"]["body"], &b["wire"]["body"]).changes {
                    if !session_recorded(ch.path()) {
                        want.insert(("body".to_string(), ch.path().to_string()));
                    }
                }
            }
            let got: BTreeSet<(String, String)> = c
                .changes
                .iter()
                .filter(|p| matches!(p.part, upgrade::Part::Payload | upgrade::Part::Body))
                .map(|p| (p.part.name().to_string(), p.path.clone()))
                .collect();
            checked += 1;
            if !want.is_empty() {
                differ += 1;
            }
            if got != want {
                failures.push(format!(
                    "{name} {entry}: upgrade names {:?}, the real runs differ at {:?}",
                    got.difference(&want).collect::<Vec<_>>(),
                    want.difference(&got).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "0.87.1 -> {to}: {} of {checked} requests disagree with the real runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        checked >= 50 && differ >= 10,
        "{checked} checked, {differ} differ"
    );
}

/// `docs/upgrade.md` lists [`upgrade::KIND_TABLE`] row by row, in order.
#[test]
fn docs_list_the_kind_table() {
    let doc = std::fs::read_to_string(root().join("docs/upgrade.md")).unwrap();
    let rows: Vec<String> = doc
        .lines()
        .filter(|l| l.starts_with("| `$"))
        .map(str::to_string)
        .collect();
    let want: Vec<String> = upgrade::KIND_TABLE
        .iter()
        .map(|(p, k)| format!("| `{p}` | {} |", k.name()))
        .collect();
    assert_eq!(rows, want, "docs/upgrade.md's kind table is not KIND_TABLE");
}

/// A request the target release sends as an Anthropic thread `continue` (1.6): the real 1.6 run
/// of the same script continued at the same requests; the changes only the thread makes (no
/// system prompt, no tools, only the new messages) are of kind threading, and the cache is
/// judged on the whole prompt the endpoint rebuilds, which here the old release sent byte for
/// byte.
#[test]
fn a_thread_continue_is_threading_and_keeps_the_prompt_whole() {
    let name = "anthropic-opus-tools";
    let old = root().join(format!("fixtures/agent/{name}/session.jsonl"));
    let real = read(&root().join(format!(
        "fixtures/releases/1.6.0/agent/{name}/requests.json"
    )));
    let real_forms: Vec<(String, String)> = real
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            Some((
                r["entryId"].as_str()?.to_string(),
                r["wire"]["body"]["thread"]["type"]
                    .as_str()
                    .unwrap_or("none")
                    .to_string(),
            ))
        })
        .collect();
    let report = upgrade::upgrade(&[old], PiRelease::V0_87_1, PiRelease::V1_6_0);
    let input = &report.inputs[0];
    assert!(input.error.is_none(), "{:?}", input.error);
    let mut continued = 0;
    for r in &input.requests {
        let Status::Compared(c) = &r.status else {
            panic!("{:?}", r.status)
        };
        let cache = c.cache.as_ref().unwrap();
        let entry = r.entry_id.as_deref().unwrap();
        let form = &real_forms.iter().find(|(e, _)| e == entry).unwrap().1;
        assert_eq!(
            cache.continued_thread,
            form == "continue",
            "{entry}: the real run's thread form is {form}"
        );
        if cache.continued_thread {
            continued += 1;
            let kinds: Vec<&str> = c.kinds().into_iter().map(|k| k.name()).collect();
            assert_eq!(kinds, ["headers", "threading"], "{entry}");
            assert!(cache.kept, "{entry}: {cache:?}");
            assert!(c.first_changed_byte.is_some(), "{entry}");
        }
    }
    assert!(continued >= 2, "{continued} continues");
}
