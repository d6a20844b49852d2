//! `pi-messages` (pi-ai `api/pi-messages.js`, the Radius gateway protocol): one POST of
//! `{model, context, options}` to `{baseUrl}/messages`. The transcript is sent as it is: no
//! folding, no shared transform, no `maxTokens` clamping (`streamSimple` passes the options
//! through).

use crate::js::Field;

use serde_json::{Map, Value};

use crate::api::{merge_headers, ApiInput, ApiOutput, DUMMY_API_KEY};
use crate::error::AssembleError;
use crate::js::{self, s};
use crate::options::provider_env_value;

/// `resolveCacheRetention(cacheRetention, env)`: the explicit value, `"long"` under
/// `PI_CACHE_RETENTION=long`, else undefined.
fn cache_retention(options: &Map<String, Value>, input: &ApiInput<'_>) -> Option<Value> {
    match options.field("cacheRetention") {
        Some(v) if js::truthy(Some(v)) => Some(v.clone()),
        _ => (provider_env_value("PI_CACHE_RETENTION", options, input.env) == Some("long"))
            .then(|| s("long")),
    }
}

/// Assembles a `pi-messages` request.
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let model = input.model;
    let options = input.options;
    let api_key = match options.field("apiKey") {
        None => Some(DUMMY_API_KEY.to_string()),
        Some(v) if js::truthy(Some(v)) => Some(v.as_str().unwrap_or("").to_string()),
        Some(_) => None,
    };
    if api_key.is_none() {
        return Err(AssembleError::rejected(format!(
            "No API key provided for provider \"{}\"",
            model.provider()
        )));
    }

    let mut opts = Map::new();
    for (key, value) in [
        ("temperature", options.field("temperature").cloned()),
        ("maxTokens", options.field("maxTokens").cloned()),
        ("reasoning", options.field("reasoning").cloned()),
        ("cacheRetention", cache_retention(options, input)),
        ("sessionId", options.field("sessionId").cloned()),
        ("toolChoice", options.field("toolChoice").cloned()),
    ] {
        if let Some(v) = value {
            opts.insert(key.into(), v);
        }
    }
    let mut context = Map::new();
    context.insert(
        "messages".into(),
        Value::Array(input.messages.iter().copied().cloned().collect()),
    );
    let payload = js::obj!([
        ("model", s(model.id())),
        ("context", Value::Object(context)),
        ("options", Value::Object(opts)),
    ]);

    let mut url = format!("{}/messages", model.base_url().trim_end_matches('/'));
    if js::truthy(options.field("debug")) {
        url.push_str("?debug=1");
    }
    let mut headers = crate::api::identity_headers(input.release, model, options);
    headers.insert("authorization".into(), "Bearer [redacted]".into());
    headers.insert("accept".into(), "text/event-stream".into());
    headers.insert("content-type".into(), "application/json".into());
    merge_headers(&mut headers, options.field("headers"));
    let wire = input.post_json(crate::api::whatwg_url(&url), headers, &payload);
    Ok(ApiOutput {
        payload,
        wire: Some(wire),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Entry;
    use crate::model::Model;
    use crate::options::Env;
    use serde_json::json;

    #[test]
    fn sends_the_transcript_unfolded() {
        let model = Model::from_value(json!({"id":"balanced","api":"pi-messages","provider":"radius","baseUrl":"https://radius.pi.dev/v1/"})).unwrap();
        let messages = [
            json!({"role":"system","content":"a","timestamp":0}),
            json!({"role":"user","content":"hi","timestamp":1}),
            json!({"role":"system","content":"b","timestamp":2}),
        ];
        let options = json!({"sessionId":"s","reasoning":"high"})
            .as_object()
            .cloned()
            .unwrap();
        let env = Env::new([("PI_CACHE_RETENTION".to_string(), "long".to_string())].into());
        let refs: Vec<&Value> = messages.iter().collect();
        let release = forge_replay_model::release::PiRelease::V0_87_1;
        let out = assemble(&ApiInput {
            release,
            model: &model,
            messages: &refs,
            options: &options,
            entry: Entry::StreamSimple,
            env: &env,
            strict: &Default::default(),
            body: true,
            estimate: &crate::options::ContextEstimate::new(release, &refs),
        })
        .unwrap();
        let wire = out.wire.unwrap();
        assert_eq!(wire.url, "https://radius.pi.dev/v1/messages");
        assert_eq!(
            wire.body_text,
            r#"{"model":"balanced","context":{"messages":[{"role":"system","content":"a","timestamp":0},{"role":"user","content":"hi","timestamp":1},{"role":"system","content":"b","timestamp":2}]},"options":{"reasoning":"high","cacheRetention":"long","sessionId":"s"}}"#
        );
    }
}
