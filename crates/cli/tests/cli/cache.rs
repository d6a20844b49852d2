//! `forge-replay cache explain`: one test per break cause over `fixtures/cache/<cause>/`
//! (compiled from the scenarios beside them by `fixtures/cache/regen.sh`).

use serde_json::Value;

use crate::support::{fixture, Test};

fn session(name: &str) -> String {
    fixture(&format!("cache/{name}/session.jsonl"))
}

/// `cache explain --format json` of a fixture.
fn explain_json(name: &str, extra: &[&str]) -> Value {
    let out = Test::new()
        .args(["cache", "explain", &session(name), "--format", "json"])
        .args(extra)
        .run();
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// `(entryId, cause)` of every confirmed break.
fn breaks(v: &Value) -> Vec<(String, String)> {
    v["breaks"]
        .as_array()
        .expect("breaks array")
        .iter()
        .map(|b| {
            (
                b["entryId"].as_str().unwrap().to_string(),
                b["cause"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn one_break(name: &str, entry: &str, cause: &str) -> Value {
    let v = explain_json(name, &[]);
    assert_eq!(
        breaks(&v),
        [(entry.to_string(), cause.to_string())],
        "{name}: {v:#}"
    );
    v
}

#[test]
fn tool_list_change() {
    let v = one_break("tool-change", "0000000c", "tool-change");
    assert_eq!(v["requests"][2]["divergedAt"], "tools");
    assert!(v["breaks"][0]["detail"]
        .as_str()
        .unwrap()
        .starts_with("removed bash, edit, write"));
}

#[test]
fn tool_list_change_not_confirmed_by_usage_is_not_listed() {
    let v = explain_json("tool-change-unconfirmed", &[]);
    assert_eq!(v["requests"][2]["divergedAt"], "tools");
    assert!(breaks(&v).is_empty());
}

#[test]
fn system_prompt_fold() {
    let v = one_break("system-fold", "00000007", "system-fold");
    assert_eq!(v["requests"][1]["divergedAt"], "system");
}

#[test]
fn model_switch() {
    let v = one_break("model-switch", "00000007", "model-switch");
    assert_eq!(v["requests"][1]["keptPercent"].as_f64(), Some(0.0));
    // The next OpenAI request reads the cache again: no break.
    assert_eq!(v["requests"][2]["break"], Value::Null);
}

#[test]
fn compaction() {
    one_break("compaction", "00000009", "compaction");
}

#[test]
fn thinking_level_change() {
    let v = one_break("thinking-change", "00000008", "thinking-change");
    assert_eq!(v["requests"][1]["divergedAt"], "thinking");
}

#[test]
fn capability_update() {
    one_break("capability-update", "00000009", "capability-update");
}

#[test]
fn time_gap_beyond_ttl() {
    one_break("ttl", "00000006", "ttl-expired");
    // A 1 h retention covers the 10 min gap: the miss is then unexplained.
    let v = explain_json("ttl", &["--retention", "long"]);
    assert_eq!(breaks(&v), [("00000006".into(), "unexplained".into())]);
}

#[test]
fn unexplained() {
    one_break("unexplained", "00000006", "unexplained");
}

#[test]
fn all_zero_cache_counts_say_no_cache_data() {
    let v = explain_json("no-cache-data", &[]);
    assert_eq!(v["noCacheData"], true);
    assert!(breaks(&v).is_empty());
    Test::new()
        .args([
            "cache",
            "explain",
            &session("no-cache-data"),
            "--format",
            "text",
        ])
        .stdout_contains("no cache data: the provider reported zero cacheRead and cacheWrite")
        .run();
}

#[test]
fn json_has_stable_top_level_keys() {
    let v = explain_json("compaction", &[]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "session",
            "leafId",
            "retention",
            "noCacheData",
            "requests",
            "breaks",
            "rebilled",
            "stopped"
        ]
    );
    assert_eq!(v["stopped"], Value::Null);
    // Counts survive the redaction step (a key with "token" in it would be `[redacted]`).
    assert!(v["rebilled"]["total"]["resent"].is_number(), "{v}");
    for r in v["requests"].as_array().unwrap() {
        assert!(r["cacheableTokens"].is_number(), "{r}");
    }
    assert_eq!(v["leafId"], "00000009");
    assert_eq!(v["requests"].as_array().unwrap().len(), 3);
}

#[test]
fn text_table_names_the_cause() {
    Test::new()
        .args([
            "cache",
            "explain",
            &session("tool-change"),
            "--format",
            "text",
        ])
        .stdout_contains("tool-change: removed bash, edit, write")
        .stdout_contains("1 confirmed cache break\n")
        .run();
}

#[test]
fn leaf_selects_the_path() {
    let v = explain_json("compaction", &["--leaf", "00000006"]);
    assert_eq!(v["requests"].as_array().unwrap().len(), 2);
    assert!(breaks(&v).is_empty());
}

#[test]
fn plot_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("breaks.svg");
    Test::new()
        .args(["cache", "explain", &session("tool-change"), "--plot"])
        .arg(&png)
        .run();
    let svg = std::fs::read_to_string(&png).unwrap();
    assert!(svg.contains("tool-change"), "break label drawn");
}

#[test]
fn missing_session_is_bad_input() {
    Test::new()
        .args(["cache", "explain", "/nonexistent/session.jsonl"])
        .stderr_contains("forge-replay: error:")
        .status(2)
        .run();
}

#[test]
fn tour_lists_four_causes_in_order() {
    let v = explain_json("tour", &[]);
    let got: Vec<String> = breaks(&v).into_iter().map(|(_, c)| c).collect();
    assert_eq!(
        got,
        [
            "tool-change",
            "thinking-change",
            "compaction",
            "ttl-expired"
        ]
    );
    Test::new()
        .args(["cache", "explain", &session("tour"), "--format", "text"])
        .stdout_contains("changed")
        .stdout_contains("4 confirmed cache breaks")
        .run();
}

#[test]
fn a_request_that_cannot_be_replayed_stops_with_the_rows_before_it() {
    // The tour with a corrupted capability fingerprint: Forge fails closed at request 2, and so
    // does the replay; requests 0 and 1 are still diagnosed.
    let out = Test::new()
        .args(["cache", "explain", &session("stopped"), "--format", "json"])
        .stderr_contains("Snapshot fingerprint mismatch")
        .status(2)
        .run();
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["requests"].as_array().unwrap().len(), 2);
    assert!(v["stopped"]
        .as_str()
        .unwrap()
        .contains("cannot build the request context"));
}
