//! `forge-replay context --capabilities`, `capabilities` and `capability validate` (issue 4).

use forge_replay_model::json;
use serde_json::Value;

use crate::support::{fixture, Test};

fn session(name: &str) -> String {
    fixture(&format!("capabilities/sessions/{name}.jsonl"))
}

fn messages(out: &std::process::Output) -> Vec<Value> {
    let doc = json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    doc["messages"].as_array().unwrap().clone()
}

#[test]
fn context_capabilities_native_and_fallback() {
    let out = Test::new()
        .args([
            "context",
            &session("idle-on-off"),
            "--capabilities",
            "native",
        ])
        .run();
    let m = messages(&out);
    assert_eq!(m.len(), 9);
    assert_eq!(
        json::stringify(&m[3]),
        r#"{"role":"system","content":"","sections":{"forge-capability-act-review":"List findings before fixing anything."},"timestamp":1789898406000}"#
    );
    let out = Test::new()
        .args([
            "context",
            &session("idle-on-off"),
            "--capabilities",
            "fallback",
        ])
        .run();
    let m = messages(&out);
    assert_eq!(
        m[6]["content"],
        Value::from("[pi-forge capability update]\nRemoved system prompt section \"forge-capability-act-review\".")
    );
    // --llm converts after the capability step; leaf selection works as for plain context.
    let out = Test::new()
        .args([
            "context",
            &session("idle-on-off"),
            "--capabilities",
            "fallback",
            "--llm",
            "--leaf",
            "e0000006",
        ])
        .run();
    let m = messages(&out);
    assert_eq!(m.len(), 4);
    assert_eq!(m[3]["role"], "user");
}

#[test]
fn context_capabilities_fails_closed_with_forge_text_and_line() {
    Test::new()
        .args(["context", &session("corrupt-out-of-order"), "--capabilities", "native"])
        .status(2)
        .stderr_contains("corrupt-out-of-order.jsonl:8: entry e0000007: Invalid Forge capability delivery anchor: out-of-order cursor \"ev-1\" (index 0 < 1)")
        .run();
    // Without --capabilities the same file is Pi's plain projection.
    Test::new()
        .args(["context", &session("corrupt-out-of-order")])
        .run();
}

#[test]
fn capabilities_status_view() {
    Test::new()
        .args(["capabilities", &session("idle-on-off"), "--leaf", "e0000008", "--format", "text"])
        .stdout_contains("Capability capabilities: 1; attributed user updates; request prepared (not a model-obedience or delivery acknowledgment)\nCurrently selected tools: read, edit\n")
        .stdout_contains("act-review · project:review · user\n")
        .stdout_contains("  +tools: (none); -tools: bash\nList findings before fixing anything.\n")
        .run();
    Test::new()
        .args([
            "capabilities",
            &session("idle-on-off"),
            "--leaf",
            "e0000005",
            "--model",
            "anthropic/claude-opus-4-8",
            "--format",
            "text",
        ])
        .stdout_contains(
            "Capability capabilities: 1; native system sections; pending next request\n",
        )
        .run();
    // The request after the event was made with another model: Forge's model key differs.
    Test::new()
        .args([
            "capabilities",
            &session("idle-on-off"),
            "--leaf",
            "e0000008",
            "--model",
            "anthropic/claude-opus-4-8",
            "--format",
            "text",
        ])
        .stdout_contains(
            "Capability capabilities: 1; native system sections; pending next request\n",
        )
        .run();
    let out = Test::new()
        .args(["capabilities", &session("idle-on-off"), "--format", "json"])
        .run();
    let doc = json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(doc["delivery"], "prepared");
    assert_eq!(doc["active"], Value::Array(vec![]));
    assert_eq!(
        doc["effectiveTools"],
        serde_json::json!(["read", "bash", "edit"])
    );
    Test::new()
        .args(["capabilities", &session("legacy-state")])
        .status(2)
        .stderr_contains(":6: entry e0000005: This session contains legacy pre-capability state.")
        .stderr_contains("forge-replay: error: ")
        .stderr_not_contains("error: This session")
        .run();
}

#[test]
fn capability_validate_exact_diagnostics() {
    let dir = fixture("capabilities/library");
    Test::new()
        .args(["capability", "validate", &dir])
        .status(1)
        .stdout_contains("bad-tools.json: invalid\n  error [extraRootField]: Unsupported capability field: extraRootField\n  error [tools.extraToolField]: Unsupported tools field: extraToolField\n  error [tools.add[0]]: Tool name at index 0 must be a string.\n")
        .stdout_contains("  error: Duplicate project capability id: \"dup\" appears in multiple files (dup-a.json, dup-b.json).\n")
        .stdout_contains("review.json: ok (project:review)\n")
        .stdout_contains("6 files, 2 valid, 4 invalid\n")
        .stdout_not_contains(".hidden.json")
        .run();
    Test::new()
        .args([
            "capability",
            "validate",
            &fixture("capabilities/library/.pi/forge/capabilities/review.json"),
        ])
        .stdout_contains("1 file, 1 valid, 0 invalid\n")
        .run();
    let out = Test::new()
        .args([
            "capability",
            "validate",
            "--format",
            "json",
            &fixture("capabilities/library/.pi/forge/capabilities/broken.json"),
        ])
        .status(1)
        .run();
    let doc = json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(doc["files"][0]["diagnostics"][0]["message"], "Failed to parse JSON: Expected double-quoted property name in JSON at position 49 (line 2 column 1)");
    assert_eq!(doc["files"][0]["id"], "broken");
}
