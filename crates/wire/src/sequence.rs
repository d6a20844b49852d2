//! Multi-request cases ([`Sequence`]): the requests of one process, in order, with the
//! per-process state pi-ai keeps between them (Anthropic message threads, [`Threads`]).
//!
//! Follows `tools/pi-oracle`'s `captureSequence`: each request is assembled and sent; an
//! `anthropic-messages` endpoint answers the first attempt with the request's `reject` (if any)
//! and every other attempt with its `reply`, a one-text-block message whose id becomes the
//! continuation point. Requests of other APIs are assembled but not answered.

use serde_json::{Map, Value};

use crate::api::Api;
use crate::case::{Sequence, SequenceRequest};
use crate::catalog::Catalog;
use crate::error::AssembleError;
use crate::js::obj;
use crate::model::Model;
use crate::thread::{Answer, Exchange, Rejection, Threads};
use crate::Assembled;

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
    let mut out = Vec::with_capacity(sequence.requests.len());
    for request in &sequence.requests {
        let step = (|| {
            let model = catalog.resolve(request.model.as_ref().unwrap_or(&sequence.model))?;
            let assembled = crate::assemble(
                release,
                &model,
                &request.context,
                &request.options,
                request.entry,
                &sequence.env,
            )?;
            if assembled.api != Api::AnthropicMessages {
                return Ok(Step {
                    model,
                    exchange: Exchange {
                        rejected: Vec::new(),
                        sent: None,
                        fallback: None,
                        error: None,
                    },
                    assembled,
                    reply: None,
                });
            }
            let answer = match &request.reject {
                Some(r) => Answer::Rejected(Rejection::anthropic(
                    r.status,
                    r.error_code.as_deref(),
                    &r.message,
                )),
                None => Answer::Accepted,
            };
            let exchange = threads.send(&model, &assembled, &answer);
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
            })
        })();
        out.push(step);
    }
    Ok(out)
}
