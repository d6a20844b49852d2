//! [T-PROJ] 13–15: preset system prompt helpers (spec §5.9).

use forge_replay_capability::preset::{
    current_system_prompt, pi_base_prompt, project_preset_system_prompt,
};
use forge_replay_model::json;
use serde_json::json;

#[test]
fn first_system_gets_compiled_and_builtins_are_stripped() {
    let messages = vec![
        json!({"role":"system","content":"old","sections":{"preamble":"P","foreign_addon":"F"},"toolsAdded":[{"name":"read"}],"timestamp":1}),
        json!({"role":"user","content":"u","timestamp":2}),
        json!({"role":"system","content":"","sections":{"cwd":"C","forge-capability-a":"x"},"timestamp":3}),
        json!({"role":"system","content":"","sections":{"tools":"T"},"toolsRemoved":[{"name":"bash"}],"timestamp":4}),
    ];
    let out = project_preset_system_prompt(messages, "COMPILED");
    assert_eq!(
        json::stringify(&out[0]),
        r#"{"role":"system","content":"COMPILED","sections":{"foreign_addon":"F"},"toolsAdded":[{"name":"read"}],"timestamp":1}"#
    );
    assert_eq!(out[1], json!({"role":"user","content":"u","timestamp":2}));
    assert_eq!(
        out[2],
        json!({"role":"system","content":"","sections":{"forge-capability-a":"x"},"timestamp":3})
    );
    assert_eq!(
        json::stringify(&out[3]),
        r#"{"role":"system","content":"","toolsRemoved":[{"name":"bash"}],"timestamp":4}"#
    );
}

#[test]
fn no_system_message_prepends_one() {
    let out = project_preset_system_prompt(
        vec![json!({"role":"user","content":"u","timestamp":2})],
        "C",
    );
    assert_eq!(
        json::stringify(&out[0]),
        r#"{"role":"system","content":"C","timestamp":0}"#
    );
    assert_eq!(out.len(), 2);
}

#[test]
fn pi_base_prompt_keeps_first_content_and_builtin_sections() {
    let messages = vec![
        json!({"role":"system","content":"Base","sections":{"preamble":"P","foreign":"F"},"timestamp":1}),
        json!({"role":"system","content":"Later text","sections":{"cwd":"C","preamble":null},"timestamp":2}),
    ];
    assert_eq!(pi_base_prompt(&messages, "fallback"), "Base\n\nC");
    assert_eq!(
        pi_base_prompt(&[json!({"role":"user","content":"x"})], "fallback"),
        "fallback"
    );
    assert_eq!(
        current_system_prompt(&messages),
        "Base\n\nLater text\n\nF\n\nC"
    );
}
