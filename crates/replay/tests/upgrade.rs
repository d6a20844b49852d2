//! `forge-replay upgrade` against the real goldens: for every wire case that pi-ai 0.87.1
//! (`fixtures/wire`) and 1.3.0 (`fixtures/releases/1.3.0/wire`) both ran, `upgrade` of the case
//! reports a change exactly when the two releases' goldens differ, at exactly the paths where
//! they differ (payload, wire body, url, headers; the machine-dependent `user-agent` and
//! credentials, which the goldens and the wire crate leave out, are not compared).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use forge_replay_engine::diff;
use forge_replay_engine::upgrade::{self, Report, Status};
use forge_replay_model::json::parse;
use forge_replay_model::release::PiRelease;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn unchecked_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "user-agent"
        || n == "authorization"
        || n == "x-api-key"
        || n == "api-key"
        || n == "x-goog-api-key"
        || n == "chatgpt-account-id"
        || ["key", "token", "secret", "credential", "auth"]
            .iter()
            .any(|w| n.contains(w))
}

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
fn upgrade_of_every_shared_wire_case_names_exactly_the_paths_where_the_goldens_differ() {
    let old_dir = root().join("fixtures/wire");
    let new_dir = root().join("fixtures/releases/1.3.0/wire");
    let mut names: Vec<String> = std::fs::read_dir(&old_dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().to_string();
            n.strip_suffix(".case.json").map(str::to_string)
        })
        .filter(|n| new_dir.join(format!("{n}.expected.json")).exists())
        .collect();
    names.sort();
    assert!(names.len() >= 200, "only {} shared cases", names.len());
    let paths: Vec<PathBuf> = names
        .iter()
        .map(|n| old_dir.join(format!("{n}.case.json")))
        .collect();
    let report: Report = upgrade::upgrade(&paths, PiRelease::V0_87_1, PiRelease::V1_3_0);
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
            .filter(|p| {
                p.part != upgrade::Part::Headers || !unchecked_header(header_name(&p.path))
            })
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
        "{} of {} cases disagree with the goldens:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    // Both outcomes occur: the check is not vacuous.
    assert!(differ > 40 && equal > 40, "{differ} differ, {equal} equal");
}
