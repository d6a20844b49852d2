//! `convertToLlm` (`pi-coding-agent/dist/core/messages.js`): coding-agent message roles to the
//! messages pi-ai receives.

use forge_replay_model::js::{self, Field};
use forge_replay_model::message::Message;
use serde_json::{Map, Value};

/// `COMPACTION_SUMMARY_PREFIX`.
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// `COMPACTION_SUMMARY_SUFFIX`.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// `BRANCH_SUMMARY_PREFIX`.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// `BRANCH_SUMMARY_SUFFIX` (no newline before it, unlike the compaction suffix).
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// `bashExecutionToText(msg)`.
pub fn bash_execution_to_text(m: &Map<String, Value>) -> String {
    let mut text = format!("Ran `{}`\n", js::to_string(m.get("command")));
    if js::truthy(m.get("output")) {
        text.push_str("```\n");
        text.push_str(&js::to_string(m.get("output")));
        text.push_str("\n```");
    } else {
        text.push_str("(no output)");
    }
    if js::truthy(m.get("cancelled")) {
        text.push_str("\n\n(command cancelled)");
    } else {
        let code = m.get("exitCode");
        let is_zero = matches!(code, Some(Value::Number(n)) if forge_replay_model::json::number_to_f64(n) == 0.0);
        if !matches!(code, None | Some(Value::Null)) && !is_zero {
            text.push_str("\n\nCommand exited with code ");
            text.push_str(&js::to_string(code));
        }
    }
    if js::truthy(m.get("truncated")) && js::truthy(m.get("fullOutputPath")) {
        text.push_str("\n\n[Output truncated. Full output: ");
        text.push_str(&js::to_string(m.get("fullOutputPath")));
        text.push(']');
    }
    text
}

fn text_content(text: String) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), Value::from("text"));
    block.insert("text".into(), Value::from(text));
    Value::Array(vec![Value::Object(block)])
}

fn user(content: Option<Value>, timestamp: Option<&Value>) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), Value::from("user"));
    if let Some(c) = content {
        m.insert("content".into(), c);
    }
    if let Some(t) = timestamp {
        m.insert("timestamp".into(), t.clone());
    }
    Value::Object(m)
}

/// Converts one message; `None` when `convertToLlm` drops it.
pub fn convert_message(message: &Value) -> Option<Value> {
    let m = message.as_object()?;
    let role = m.get("role")?.as_str()?;
    let ts = m.get("timestamp");
    match role {
        "system" | "user" | "assistant" | "toolResult" => Some(message.clone()),
        "bashExecution" => {
            if js::truthy(m.get("excludeFromContext")) {
                return None;
            }
            Some(user(Some(text_content(bash_execution_to_text(m))), ts))
        }
        "custom" => {
            let content = match m.get("content") {
                Some(Value::String(s)) => Some(text_content(s.clone())),
                other => other.cloned(),
            };
            Some(user(content, ts))
        }
        "branchSummary" => Some(user(
            Some(text_content(format!(
                "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
                js::to_string(m.get("summary"))
            ))),
            ts,
        )),
        "compactionSummary" => Some(user(
            Some(text_content(format!(
                "{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}",
                js::to_string(m.get("summary"))
            ))),
            ts,
        )),
        _ => None,
    }
}

/// `convertToLlm(messages)`.
pub fn convert_to_llm(messages: &[Value]) -> Vec<Value> {
    messages.iter().filter_map(convert_message).collect()
}

/// [`convert_to_llm`] that takes the messages: the four LLM roles (nearly all of a context) are
/// moved, not copied.
/// Borrowed messages ([`Message`] over `Cow`) stay borrowed.
pub fn convert_to_llm_owned<M: Message>(messages: Vec<M>) -> Vec<M> {
    messages
        .into_iter()
        .filter_map(|m| {
            let passes = matches!(
                m.borrow().field("role").and_then(Value::as_str),
                Some("system" | "user" | "assistant" | "toolResult")
            );
            if passes {
                Some(m)
            } else {
                convert_message(m.borrow()).map(M::from_value)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bash_text() {
        let m = json!({"role":"bashExecution","command":"ls","output":"","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/x","timestamp":5});
        let out = convert_to_llm(&[m]);
        assert_eq!(
            out[0]["content"][0]["text"],
            "Ran `ls`\n(no output)\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/x]"
        );
        let excluded = json!({"role":"bashExecution","command":"ls","excludeFromContext":true});
        assert!(convert_to_llm(&[excluded]).is_empty());
    }

    #[test]
    fn owned_conversion_equals_borrowed() {
        let messages = vec![
            json!({"role":"user","content":"a","timestamp":1}),
            json!({"role":"bashExecution","command":"ls","output":"x","exitCode":0,"timestamp":2}),
            json!({"role":"custom","customType":"t","content":"c","timestamp":3}),
            json!({"role":"assistant","content":[],"timestamp":4}),
            json!({"role":"weird"}),
            json!("not an object"),
            json!({"role":"compactionSummary","summary":"S","timestamp":5}),
        ];
        assert_eq!(
            convert_to_llm_owned(messages.clone()),
            convert_to_llm(&messages)
        );
    }

    #[test]
    fn summaries() {
        let out = convert_to_llm(&[
            json!({"role":"branchSummary","summary":"S","fromId":"x","timestamp":1}),
            json!({"role":"compactionSummary","summary":"S","tokensBefore":3,"timestamp":1}),
            json!({"role":"weird"}),
        ]);
        assert_eq!(out.len(), 2);
        assert!(out[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("S</summary>"));
        assert!(out[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("S\n</summary>"));
    }
}
