//! Multi-request cases ([`Sequence`]): the requests of one process, in order, with the
//! per-process state pi-ai keeps between them (Anthropic message threads, [`Threads`]).
//!
//! Follows `tools/pi-oracle`'s `captureSequence`: each request is assembled and sent; an
//! `anthropic-messages` endpoint answers the first attempt with the request's `reject` (if any)
//! and every other attempt with its `reply`, a one-text-block message whose id becomes the
//! continuation point. A `bedrock-converse-stream` request's `reject` is a `ValidationException`
//! with its message. A rejection naming Claude's strict-tool limits makes pi-ai resend the request
//! with its `prefer` tools non-strict ([`crate::strict`]; 1.6 remembers the session for the
//! requests after it). Requests of other APIs are assembled but not answered.

use serde_json::{Map, Value};

use crate::api::Api;
use crate::case::{Sequence, SequenceRequest};
use crate::catalog::Catalog;
use crate::error::AssembleError;
use crate::js::obj;
use crate::model::Model;
use crate::strict::{fallback_diagnostic, Rejected, StrictLimits};
use crate::thread::{Answer, Exchange, Rejection, Threads};
use crate::{Assembled, Build};

/// One request of a sequence, as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The request's model.
    pub model: Model,
    /// The request: `payload` is the `onPayload` object; `wire` the first attempt's form in a
    /// fresh process (see [`Step::exchange`] for what was sent).
    pub assembled: Assembled,
    /// What was sent: rejected attempts and the answered one (their thread forms and bodies).
    pub exchange: Exchange,
    /// The assistant message pi-ai assembled from the reply (`None` when the request failed or
    /// its API is not answered).
    pub reply: Option<Value>,
    /// The strict-tools fallback of the request ([`crate::strict`]): the first attempt, with
    /// `prefer` tools strict, was rejected for Claude's limits and `assembled` is the resend.
    pub strict_fallback: Option<StrictFallback>,
}

/// A strict-tools fallback: what pi-ai records and the first attempt it replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictFallback {
    /// The diagnostic type (`anthropic_strict_tools_fallback`, `bedrock_strict_tools_fallback`).
    pub diagnostic: &'static str,
    /// Its `error.message`: the rejection's message.
    pub message: String,
    /// The `onPayload` object of the rejected first attempt (the resend's is
    /// `Step::assembled.payload`).
    pub rejected_payload: Value,
}

impl Step {
    /// `{"modelId", "payload", "wire": {url, method, body} | null, "thread": "create" |
    /// "continue" | null, "rejected"?: [{thread, url, method, body}], "fallback"?: {reason,
    /// message}, "error"?}` (what `forge-replay assemble` prints per request).
    pub fn to_json(&self) -> Value {
        let wire = |w: &crate::api::WireRequest| {
            obj!([
                ("url", Value::String(w.url.clone())),
                ("method", Value::String(w.method.clone())),
                ("body", w.body()),
            ])
        };
        let last = self.exchange.sent.as_ref();
        let mut m = Map::new();
        m.insert("modelId".into(), Value::String(self.model.id().to_string()));
        m.insert("payload".into(), self.assembled.payload.clone());
        let sent_wire = match last {
            Some(a) => wire(&a.wire),
            None if self.exchange.rejected.is_empty() => {
                self.assembled.wire.as_ref().map_or(Value::Null, wire)
            }
            None => Value::Null,
        };
        m.insert("wire".into(), sent_wire);
        m.insert(
            "thread".into(),
            last.and_then(|a| a.thread.as_ref())
                .map_or(Value::Null, |t| Value::String(t.name().into())),
        );
        if !self.exchange.rejected.is_empty() {
            let rejected = self
                .exchange
                .rejected
                .iter()
                .map(|a| {
                    let mut r = Map::new();
                    r.insert(
                        "thread".into(),
                        a.thread
                            .as_ref()
                            .map_or(Value::Null, |t| Value::String(t.name().into())),
                    );
                    if let Value::Object(w) = wire(&a.wire) {
                        r.extend(w);
                    }
                    Value::Object(r)
                })
                .collect();
            m.insert("rejected".into(), Value::Array(rejected));
        }
        if let Some(f) = &self.exchange.fallback {
            m.insert(
                "fallback".into(),
                obj!([
                    ("reason", Value::String(f.reason.clone())),
                    ("message", Value::String(f.message.clone())),
                ]),
            );
        }
        if let Some(e) = &self.exchange.error {
            m.insert("error".into(), Value::String(e.clone()));
        }
        if let Some(f) = &self.strict_fallback {
            m.insert(
                "strictFallback".into(),
                obj!([
                    ("type", Value::String(f.diagnostic.into())),
                    ("message", Value::String(f.message.clone())),
                    ("rejectedPayload", f.rejected_payload.clone()),
                ]),
            );
        }
        Value::Object(m)
    }
}

/// The assistant message pi-ai makes of a scripted one-text-block reply.
fn reply_message(model: &Model, request: &SequenceRequest) -> Value {
    obj!([
        ("role", Value::String("assistant".into())),
        (
            "content",
            Value::Array(vec![obj!([
                ("type", Value::String("text".into())),
                ("text", Value::String(request.reply.text.clone())),
            ])])
        ),
        ("api", Value::String(model.api_name().to_string())),
        ("provider", Value::String(model.provider().to_string())),
        ("model", Value::String(model.id().to_string())),
        ("responseId", request.reply.id.clone()),
        ("stopReason", Value::String("stop".into())),
    ])
}

/// Assembles and sends every request of `sequence` in one process, for the catalog's release.
/// A request pi-ai refuses is that request's error; the ones after it are still sent.
pub fn assemble_sequence(
    sequence: &Sequence,
    catalog: &Catalog,
) -> Result<Vec<Result<Step, AssembleError>>, AssembleError> {
    if let Some(pi) = sequence.pi.filter(|pi| *pi != catalog.release()) {
        return Err(AssembleError::ReleaseMismatch {
            case: pi,
            catalog: catalog.release(),
        });
    }
    let release = catalog.release();
    let mut threads = Threads::new();
    let mut limits = StrictLimits::new();
    let mut out = Vec::with_capacity(sequence.requests.len());
    for request in &sequence.requests {
        let step = (|| {
            let model = catalog.resolve(request.model.as_ref().unwrap_or(&sequence.model))?;
            let build = |disable: bool| {
                crate::assemble_with(
                    release,
                    &model,
                    &request.context,
                    &request.options,
                    request.entry,
                    &sequence.env,
                    Build {
                        disable_preferred_strict_tools: disable,
                        ..Build::default()
                    },
                )
            };
            // 1.6: a session over the strict-tool limits starts non-strict.
            let from_start = model
                .api()
                .is_some_and(|api| limits.starts_non_strict(release, api, &request.options));
            let mut assembled = build(from_start)?;
            let no_exchange = |error: Option<String>| Exchange {
                rejected: Vec::new(),
                sent: None,
                fallback: None,
                error,
            };
            if assembled.api == Api::BedrockConverseStream {
                // The AWS SDK answers a rejection with a `ValidationException` carrying `message`.
                let Some(r) = &request.reject else {
                    return Ok(Step {
                        model,
                        exchange: no_exchange(None),
                        assembled,
                        reply: None,
                        strict_fallback: None,
                    });
                };
                let rejected = Rejected {
                    status: None,
                    message: &r.message,
                };
                let Some(diagnostic) = fallback_diagnostic(
                    release,
                    assembled.api,
                    assembled.strict_tools_disabled,
                    assembled.has_preferred_strict_tools,
                    &rejected,
                ) else {
                    return Ok(Step {
                        model,
                        exchange: no_exchange(Some(r.message.clone())),
                        assembled,
                        reply: None,
                        strict_fallback: None,
                    });
                };
                limits.after_fallback(release, &request.options);
                let retry = build(true)?;
                let rejected_payload = std::mem::replace(&mut assembled, retry).payload;
                return Ok(Step {
                    model,
                    exchange: no_exchange(None),
                    assembled,
                    reply: None,
                    strict_fallback: Some(StrictFallback {
                        diagnostic,
                        message: r.message.clone(),
                        rejected_payload,
                    }),
                });
            }
            if assembled.api != Api::AnthropicMessages {
                return Ok(Step {
                    model,
                    exchange: no_exchange(None),
                    assembled,
                    reply: None,
                    strict_fallback: None,
                });
            }
            let rejection = request
                .reject
                .as_ref()
                .map(|r| Rejection::anthropic(r.status, r.error_code.as_deref(), &r.message));
            let answer = match &rejection {
                Some(r) => Answer::Rejected(r.clone()),
                None => Answer::Accepted,
            };
            let mut exchange = threads.send(&model, &assembled, &answer);
            let mut strict_fallback = None;
            // A rejection not about the thread may be a strict-limit one: rebuilt non-strict and
            // resent (through the thread state again, as `buildParams` and
            // `prepareThreadRequest` run again in pi-ai's loop).
            if let (Some(_), Some(r)) = (&exchange.error, &rejection) {
                let diagnostic = fallback_diagnostic(
                    release,
                    assembled.api,
                    assembled.strict_tools_disabled,
                    assembled.has_preferred_strict_tools,
                    &Rejected {
                        status: Some(r.status),
                        message: &r.message,
                    },
                );
                if let Some(diagnostic) = diagnostic {
                    limits.after_fallback(release, &request.options);
                    let retry = build(true)?;
                    let resent = threads.send(&model, &retry, &Answer::Accepted);
                    let mut rejected = std::mem::take(&mut exchange.rejected);
                    rejected.extend(resent.rejected);
                    exchange = Exchange { rejected, ..resent };
                    let rejected_payload = std::mem::replace(&mut assembled, retry).payload;
                    strict_fallback = Some(StrictFallback {
                        diagnostic,
                        message: r.message.clone(),
                        rejected_payload,
                    });
                }
            }
            let reply = if exchange.error.is_none() {
                let reply = reply_message(&model, request);
                threads.record_reply(release, &model, &assembled, &exchange, &reply)?;
                Some(reply)
            } else {
                None
            };
            Ok(Step {
                model,
                assembled,
                exchange,
                reply,
                strict_fallback,
            })
        })();
        out.push(step);
    }
    Ok(out)
}
