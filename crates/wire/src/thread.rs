//! Anthropic message threads (pi-ai 1.6, [`Change::AnthropicMessageThreads`]): the per-process
//! state that turns a request into a thread `create` or `continue`, and the fallback rules.
//!
//! pi-ai keeps, per `sessionId`, where the session's next request can continue: the number of
//! converted messages the server already holds (the last request's messages plus its reply), a
//! hash of them and of the settings a thread fixes ([`prefix_hash`], `hashThreadPrefix`), and
//! the reply's id. A request whose messages extend that prefix under the same settings is sent as
//! `{type:"continue", previous_message_id}` with only the new messages and without `system` and
//! `tools`; any other request creates a new thread (`{type:"create"}`, the full request). The
//! `onPayload` object never changes: it is the un-threaded params.
//!
//! [`Threads`] is that state for one process. [`Threads::send`] follows `prepareThreadRequest` and
//! `sendThreadRequest` for what the endpoint answered the first attempt ([`Answer`]): a rejection
//! about the thread is resent once, as a new thread (`thread_not_found`, …) or, when the endpoint
//! cannot thread (`thread_unsupported_request`, or a 400 without a code that names `thread`),
//! without `thread`, which turns threads off for the session; both record an
//! `anthropic_thread_fallback` diagnostic ([`Fallback`]). [`Threads::record_reply`] follows
//! `recordThreadReply`: a clean reply with a response id, not answered by a fallback model,
//! becomes the next continuation point.
//!
//! pi-ai caps the state at 10,000 sessions (least recently updated dropped); a replay holds one
//! session, or a handful, so the cap is not modelled.

use std::collections::HashMap;

use forge_replay_model::json::{stringify, write_compact, write_string};
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::api::WireRequest;
use crate::error::AssembleError;
use crate::hash::short_hash;
use crate::js::Field;
use crate::model::Model;
use crate::Assembled;

/// Rejections of a `continue` that a new thread fixes (`NEW_THREAD_ERRORS`).
pub const NEW_THREAD_ERRORS: [&str; 4] = [
    "thread_not_found",
    "thread_already_continued",
    "thread_continue_in_flight",
    "thread_fingerprint_mismatch",
];

/// The `anthropic_thread_fallback` diagnostic type.
pub const FALLBACK_DIAGNOSTIC: &str = "anthropic_thread_fallback";

/// The thread settings of a request when threads apply (`threadSessionId` defined).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    /// The state key: `options.sessionId` as JSON (`"\"019a…\""`).
    pub session: String,
    /// `options.disableContinuation !== true`: whether a `thread` is sent at all (the beta is
    /// sent either way).
    pub continuation: bool,
    pub(crate) is_oauth: bool,
    pub(crate) allow_empty_signature: bool,
}

/// The `thread` field a request carried.
#[derive(Debug, Clone, PartialEq)]
pub enum ThreadForm {
    /// `{type:"create"}`: the full request, starting a thread.
    Create,
    /// `{type:"continue", previous_message_id}`: only the new messages.
    Continue {
        /// The reply the request continues (`state.replyId`).
        previous_message_id: Value,
    },
}

impl ThreadForm {
    /// `create` or `continue`.
    pub fn name(&self) -> &'static str {
        match self {
            ThreadForm::Create => "create",
            ThreadForm::Continue { .. } => "continue",
        }
    }

    /// The `thread` object.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), Value::String(self.name().into()));
        if let ThreadForm::Continue {
            previous_message_id,
        } = self
        {
            m.insert("previous_message_id".into(), previous_message_id.clone());
        }
        Value::Object(m)
    }
}

/// The request body pi-ai's SDK sends for `params` (the `onPayload` object): without `betas`
/// (sent as the `anthropic-beta` header) and the keys in `skip`, with `messages` replaced when
/// given, and `thread` last (`{...params, thread}`).
pub fn body_text(
    params: &Value,
    skip: &[&str],
    messages: Option<&[Value]>,
    thread: Option<&ThreadForm>,
) -> String {
    let Value::Object(map) = params else {
        return stringify(params);
    };
    let mut out = String::with_capacity(16 * 1024);
    out.push('{');
    let mut first = true;
    let mut member = |out: &mut String, k: &str| {
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, k);
        out.push(':');
    };
    for (k, v) in map {
        if k == "betas" || skip.contains(&k.as_str()) || (k == "thread" && thread.is_some()) {
            continue;
        }
        member(&mut out, k);
        match (k.as_str(), messages) {
            ("messages", Some(m)) => {
                out.push('[');
                for (i, msg) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_compact(&mut out, msg);
                }
                out.push(']');
            }
            _ => write_compact(&mut out, v),
        }
    }
    if let Some(t) = thread {
        member(&mut out, "thread");
        write_compact(&mut out, &t.to_json());
    }
    out.push('}');
    out
}

/// `JSON.stringify(messages, replacer)` of `hashThreadPrefix`: `cache_control` dropped and a
/// string `content` written as one text block, at any depth.
fn write_normalized(out: &mut String, v: &Value) {
    match v {
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_normalized(out, x);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            for (k, x) in m {
                if k == "cache_control" {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                write_string(out, k);
                out.push(':');
                match x {
                    Value::String(text) if k == "content" => {
                        out.push_str("[{\"type\":\"text\",\"text\":");
                        write_string(out, text);
                        out.push_str("}]");
                    }
                    _ => write_normalized(out, x),
                }
            }
            out.push('}');
        }
        other => write_compact(out, other),
    }
}

/// `hashThreadPrefix(model, params, messages)`: the settings a thread fixes (endpoint, model,
/// `system`, `tools`, `thinking`, `output_config`, `tool_choice`, `betas`, `fallbacks`, as sent)
/// and the normalized messages the server holds.
pub fn prefix_hash(model: &Model, params: &Value, messages: &[&Value]) -> String {
    let field = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
    let settings = Value::Array(vec![
        field(model.get("provider")),
        field(model.get("baseUrl")),
        field(params.field("model")),
        field(params.field("system")),
        field(params.field("tools")),
        field(params.field("thinking")),
        field(params.field("output_config")),
        field(params.field("tool_choice")),
        field(params.field("betas")),
        field(params.field("fallbacks")),
    ]);
    let mut text = stringify(&settings);
    text.push('[');
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        write_normalized(&mut text, m);
    }
    text.push(']');
    short_hash(&text)
}

/// A session's state: where its next request can continue, or off.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    /// The endpoint rejected threads: no `thread` is sent any more (the beta still is).
    Off,
    /// The last clean reply: the messages the server holds and the reply's id.
    At {
        prefix_count: usize,
        prefix_hash: String,
        reply_id: Value,
    },
}

/// How the endpoint answered the first attempt of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Accepted (a reply streamed).
    Accepted,
    /// Rejected with an HTTP error; a resend is accepted.
    Rejected(Rejection),
}

/// An HTTP error of the Anthropic API, as pi-ai's SDK reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// HTTP status.
    pub status: u16,
    /// `error.details.error_code`.
    pub error_code: Option<String>,
    /// The SDK's `error.message` (`"400 {\"type\":\"error\",…}"`).
    pub message: String,
}

impl Rejection {
    /// The error an Anthropic endpoint returns as `{type:"error", error:{type:
    /// "invalid_request_error", message, details?:{error_code}}}`, with the message the SDK makes
    /// of it (`"<status> <body JSON>"`).
    pub fn anthropic(status: u16, error_code: Option<&str>, message: &str) -> Rejection {
        let mut error = Map::new();
        error.insert("type".into(), Value::String("invalid_request_error".into()));
        error.insert("message".into(), Value::String(message.into()));
        if let Some(code) = error_code {
            let mut d = Map::new();
            d.insert("error_code".into(), Value::String(code.into()));
            error.insert("details".into(), Value::Object(d));
        }
        let mut body = Map::new();
        body.insert("type".into(), Value::String("error".into()));
        body.insert("error".into(), Value::Object(error));
        Rejection {
            status,
            error_code: error_code.map(str::to_string),
            message: format!("{status} {}", stringify(&Value::Object(body))),
        }
    }

    /// The rejection a recorded `anthropic_thread_fallback` diagnostic stands for: its
    /// `details.reason` is the error code, or the HTTP status when there was none.
    pub fn from_reason(reason: &str, message: Option<&str>) -> Rejection {
        match reason.parse::<u16>() {
            Ok(status) => Rejection {
                status,
                error_code: None,
                // Without a code pi-ai only resends when the message names the thread.
                message: message.map_or_else(|| format!("{status} thread"), str::to_string),
            },
            Err(_) => Rejection {
                status: 400,
                error_code: Some(reason.to_string()),
                message: message.unwrap_or_default().to_string(),
            },
        }
    }

    fn starts_new_thread(&self) -> bool {
        self.error_code
            .as_deref()
            .is_some_and(|c| NEW_THREAD_ERRORS.contains(&c))
    }

    fn threads_unsupported(&self) -> bool {
        self.error_code.as_deref() == Some("thread_unsupported_request")
            || (self.error_code.is_none() && self.status == 400 && self.message.contains("thread"))
    }
}

/// The `anthropic_thread_fallback` diagnostic of a resent request.
#[derive(Debug, Clone, PartialEq)]
pub struct Fallback {
    /// `details.reason`: the error code, or the status.
    pub reason: String,
    /// `error.message`.
    pub message: String,
}

/// One HTTP request of an [`Exchange`].
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// The `thread` it carried.
    pub thread: Option<ThreadForm>,
    pub wire: WireRequest,
}

/// What one request sent: the attempts the endpoint rejected and the one it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// Rejected attempts, in order.
    pub rejected: Vec<Attempt>,
    /// The answered attempt; `None` when the rejection was not about the thread (pi-ai passes
    /// the error on, nothing is resent).
    pub sent: Option<Attempt>,
    /// The diagnostic pi-ai records when it resends.
    pub fallback: Option<Fallback>,
    /// The error the request failed with (no attempt was answered).
    pub error: Option<String>,
}

impl Exchange {
    /// The request answered, or the last rejected one.
    pub fn last(&self) -> Option<&Attempt> {
        self.sent.as_ref().or(self.rejected.last())
    }

    /// The `thread` of the answered request (what `recordThreadReply` needs).
    pub fn answered_thread(&self) -> Option<&ThreadForm> {
        self.sent.as_ref().and_then(|a| a.thread.as_ref())
    }
}

/// pi-ai's thread state of one process (`threadState`, keyed by session id).
#[derive(Debug, Clone, Default)]
pub struct Threads {
    sessions: HashMap<String, Slot>,
}

impl Threads {
    /// A fresh process: no session has a thread.
    pub fn new() -> Threads {
        Threads::default()
    }

    /// Forgets every session (`cleanupSessionResources()`, or a new process).
    pub fn clear(&mut self) {
        self.sessions.clear();
    }

    /// Forgets one session's continuation point, keeping an `off` (what another request of the
    /// session that this replay does not rebuild would have done to it: consumed or replaced it).
    pub fn forget(&mut self, session: &str) {
        if let Some(Slot::At { .. }) = self.sessions.get(session) {
            self.sessions.remove(session);
        }
    }

    /// Turns threads off for a session (a fallback recorded on a request this replay does not
    /// rebuild).
    pub fn turn_off(&mut self, session: &str) {
        self.sessions.insert(session.to_string(), Slot::Off);
    }

    /// Whether the endpoint turned threads off for the session.
    pub fn is_off(&self, session: &str) -> bool {
        self.sessions.get(session) == Some(&Slot::Off)
    }

    /// `prepareThreadRequest`: the `thread` the next request of `assembled`'s session carries
    /// (`None`: threads are off, disabled for the request, or do not apply), consuming the
    /// continuation point when it continues.
    fn prepare(&mut self, model: &Model, assembled: &Assembled) -> Option<(ThreadForm, usize)> {
        let info = assembled.thread.as_ref().filter(|t| t.continuation)?;
        let messages = assembled
            .payload
            .field("messages")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        match self.sessions.get(&info.session) {
            Some(Slot::Off) => None,
            Some(Slot::At {
                prefix_count,
                prefix_hash: hash,
                reply_id,
            }) if messages.len() > *prefix_count
                && prefix_hash(
                    model,
                    &assembled.payload,
                    &messages[..*prefix_count].iter().collect::<Vec<_>>(),
                ) == *hash =>
            {
                let form = ThreadForm::Continue {
                    previous_message_id: reply_id.clone(),
                };
                let count = *prefix_count;
                // Each reply can be continued once.
                self.sessions.remove(&info.session);
                Some((form, count))
            }
            _ => Some((ThreadForm::Create, 0)),
        }
    }

    /// Sends `assembled` (its payload is the request's params) as pi-ai 1.6 does in this
    /// process, the endpoint answering the first attempt with `answer` and a resend with
    /// success.
    pub fn send(&mut self, model: &Model, assembled: &Assembled, answer: &Answer) -> Exchange {
        let Some(wire) = &assembled.wire else {
            return Exchange {
                rejected: Vec::new(),
                sent: None,
                fallback: None,
                error: None,
            };
        };
        let params = &assembled.payload;
        let attempt = |thread: Option<ThreadForm>, skip: usize| {
            let body = match &thread {
                None => body_text(params, &[], None, None),
                Some(ThreadForm::Create) => body_text(params, &[], None, thread.as_ref()),
                Some(ThreadForm::Continue { .. }) => {
                    let messages = params
                        .field("messages")
                        .and_then(Value::as_array)
                        .map_or(&[][..], |m| &m[skip.min(m.len())..]);
                    body_text(
                        params,
                        &["system", "tools"],
                        Some(messages),
                        thread.as_ref(),
                    )
                }
            };
            Attempt {
                thread,
                // The assembled body is replaced, so it is not copied.
                wire: WireRequest {
                    url: wire.url.clone(),
                    method: wire.method.clone(),
                    headers: wire.headers.clone(),
                    body_text: body,
                },
            }
        };
        let prepared = self.prepare(model, assembled);
        let first = match &prepared {
            Some((form, skip)) => attempt(Some(form.clone()), *skip),
            None => attempt(None, 0),
        };
        let rejection = match answer {
            Answer::Accepted => None,
            Answer::Rejected(r) => Some(r),
        };
        let Some(rejection) = rejection else {
            return Exchange {
                rejected: Vec::new(),
                sent: Some(first),
                fallback: None,
                error: None,
            };
        };
        let failed = |first: Attempt| Exchange {
            rejected: vec![first],
            sent: None,
            fallback: None,
            error: Some(rejection.message.clone()),
        };
        if prepared.is_none() || !(rejection.starts_new_thread() || rejection.threads_unsupported())
        {
            return failed(first);
        }
        let fallback = Some(Fallback {
            reason: rejection
                .error_code
                .clone()
                .unwrap_or_else(|| rejection.status.to_string()),
            message: rejection.message.clone(),
        });
        let resent = if rejection.starts_new_thread() {
            attempt(Some(ThreadForm::Create), 0)
        } else {
            if let Some(t) = &assembled.thread {
                self.sessions.insert(t.session.clone(), Slot::Off);
            }
            attempt(None, 0)
        };
        Exchange {
            rejected: vec![first],
            sent: Some(resent),
            fallback,
            error: None,
        }
    }

    /// `recordThreadReply`: after `output` (pi-ai's assistant message) answered the threaded
    /// request of `exchange`, the session's next request can continue after it, unless the reply
    /// has no response id or a fallback model answered (`responseModel`).
    pub fn record_reply(
        &mut self,
        release: PiRelease,
        model: &Model,
        assembled: &Assembled,
        exchange: &Exchange,
        output: &Value,
    ) -> Result<(), AssembleError> {
        let Some(info) = &assembled.thread else {
            return Ok(());
        };
        if exchange.answered_thread().is_none() || !release.has(Change::AnthropicMessageThreads) {
            return Ok(());
        }
        let Some(reply_id) = output.field("responseId") else {
            return Ok(());
        };
        if output.field("responseModel").is_some() {
            return Ok(());
        }
        let reply = crate::api::anthropic::convert_reply(
            release,
            model,
            output,
            info.is_oauth,
            info.allow_empty_signature,
        )?;
        // The messages the server now holds: the request's, then the reply (borrowed, not copied).
        let prefix: Vec<&Value> = assembled
            .payload
            .field("messages")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .chain(&reply)
            .collect();
        let hash = prefix_hash(model, &assembled.payload, &prefix);
        self.sessions.insert(
            info.session.clone(),
            Slot::At {
                prefix_count: prefix.len(),
                prefix_hash: hash,
                reply_id: reply_id.clone(),
            },
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalized_messages_ignore_cache_markers_and_string_content() {
        let model = Model::from_value(
            json!({"id":"m","api":"anthropic-messages","provider":"anthropic","baseUrl":"https://api.anthropic.com"}),
        )
        .unwrap();
        let params = json!({"model": "m", "system": [{"type": "text", "text": "s"}]});
        let a = json!({"role": "user", "content": "hi"});
        let b = json!({"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]});
        let (a, b) = ([&a], [&b]);
        assert_eq!(
            prefix_hash(&model, &params, &a),
            prefix_hash(&model, &params, &b)
        );
        let other = json!({"model": "m", "system": [{"type": "text", "text": "t"}]});
        assert_ne!(
            prefix_hash(&model, &params, &a),
            prefix_hash(&model, &other, &a)
        );
    }

    #[test]
    fn body_keeps_key_order_and_puts_thread_last() {
        let params = json!({"model": "m", "messages": [1, 2, 3], "max_tokens": 5, "stream": true,
            "betas": ["b"], "system": [], "tools": [], "thinking": {"type": "disabled"}});
        assert_eq!(
            body_text(&params, &[], None, Some(&ThreadForm::Create)),
            r#"{"model":"m","messages":[1,2,3],"max_tokens":5,"stream":true,"system":[],"tools":[],"thinking":{"type":"disabled"},"thread":{"type":"create"}}"#
        );
        let cont = ThreadForm::Continue {
            previous_message_id: json!("msg_1"),
        };
        assert_eq!(
            body_text(
                &params,
                &["system", "tools"],
                Some(&[json!(3)]),
                Some(&cont)
            ),
            r#"{"model":"m","messages":[3],"max_tokens":5,"stream":true,"thinking":{"type":"disabled"},"thread":{"type":"continue","previous_message_id":"msg_1"}}"#
        );
    }

    #[test]
    fn rejections_follow_the_sdk_message_and_pi_ai_rules() {
        let r = Rejection::anthropic(400, Some("thread_not_found"), "thread not found");
        assert_eq!(
            r.message,
            r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"thread not found","details":{"error_code":"thread_not_found"}}}"#
        );
        assert!(r.starts_new_thread() && !r.threads_unsupported());
        let r = Rejection::anthropic(400, None, "thread: Extra inputs are not permitted");
        assert!(r.threads_unsupported());
        let r = Rejection::anthropic(400, None, "prompt is too long");
        assert!(!r.threads_unsupported() && !r.starts_new_thread());
        assert!(Rejection::from_reason("400", None).threads_unsupported());
        assert!(Rejection::from_reason("thread_unsupported_request", None).threads_unsupported());
        assert!(Rejection::from_reason("thread_fingerprint_mismatch", None).starts_new_thread());
    }
}
