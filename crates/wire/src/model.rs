//! A pi-ai `Model` object.
//!
//! The request builders read many optional fields (`compat.*`, `thinkingLevelMap`, `headers`,
//! `samplingParams`, …), and user catalogs may carry fields we do not know. So a [`Model`] keeps
//! the JSON object as is and offers typed accessors for the fields every builder needs.

use crate::js::Field;
use serde_json::{Map, Value};

use crate::api::Api;
use crate::js;

/// A pi-ai model: the catalog entry (or a user's full model object) after overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    value: Value,
    /// `id`, `api`, `provider`, `baseUrl` (read for every message by the shared transform; the
    /// model object has too many keys for a cheap scan, and hashing each time costs more).
    strings: [Box<str>; 4],
}

const ID: usize = 0;
const API: usize = 1;
const PROVIDER: usize = 2;
const BASE_URL: usize = 3;

/// A model object that lacks a field the assemblers need.
#[derive(Debug, thiserror::Error)]
#[error("field `{field}` must be {expected}")]
pub struct ModelError {
    /// The missing or mistyped field.
    pub field: &'static str,
    /// What it must be.
    pub expected: &'static str,
}

impl Model {
    /// Wraps a pi-ai model object. `id`, `api`, `provider` and `baseUrl` must be strings.
    pub fn from_value(value: Value) -> Result<Self, ModelError> {
        let Some(map) = value.as_object() else {
            return Err(ModelError {
                field: "(root)",
                expected: "an object",
            });
        };
        let mut strings: [Box<str>; 4] = Default::default();
        for (slot, field) in strings.iter_mut().zip(["id", "api", "provider", "baseUrl"]) {
            match map.get(field) {
                Some(Value::String(s)) => *slot = s.as_str().into(),
                _ => {
                    return Err(ModelError {
                        field,
                        expected: "a string",
                    })
                }
            }
        }
        Ok(Model { value, strings })
    }

    /// The model object.
    pub fn as_value(&self) -> &Value {
        &self.value
    }

    /// The model object's fields.
    pub fn as_map(&self) -> &Map<String, Value> {
        self.value.as_object().expect("checked in from_value")
    }

    /// Consumes the model, returning its JSON object.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// A field of the model object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value.get(key)
    }

    fn str_field(&self, key: &str) -> &str {
        self.value.get(key).and_then(Value::as_str).unwrap_or("")
    }

    /// `model.id`.
    pub fn id(&self) -> &str {
        &self.strings[ID]
    }

    /// `model.provider`.
    pub fn provider(&self) -> &str {
        &self.strings[PROVIDER]
    }

    /// `model.api` as written.
    pub fn api_name(&self) -> &str {
        &self.strings[API]
    }

    /// `model.api` if it is one of the ten known APIs.
    pub fn api(&self) -> Option<Api> {
        Api::from_name(self.api_name())
    }

    /// `model.baseUrl`.
    pub fn base_url(&self) -> &str {
        &self.strings[BASE_URL]
    }

    /// `model.name` (empty if absent).
    pub fn name(&self) -> &str {
        self.str_field("name")
    }

    /// `model.reasoning` (truthiness).
    pub fn reasoning(&self) -> bool {
        js::truthy(self.value.field("reasoning"))
    }

    /// `model.input.includes("image")`.
    pub fn supports_images(&self) -> bool {
        js::arr(&self.value, "input")
            .iter()
            .any(|v| v.as_str() == Some("image"))
    }

    /// `model.contextWindow` (0 when absent).
    pub fn context_window(&self) -> f64 {
        js::num_of(&self.value, "contextWindow").unwrap_or(0.0)
    }

    /// `model.maxTokens`, if set.
    pub fn max_tokens(&self) -> Option<f64> {
        js::num_of(&self.value, "maxTokens")
    }

    /// `model.maxTokens` as JavaScript arithmetic sees it (`Number(…)`: missing is NaN, `null` 0).
    pub fn max_tokens_number(&self) -> f64 {
        js::to_number(self.value.field("maxTokens"))
    }

    /// `model.compat`, if it is an object.
    pub fn compat(&self) -> Option<&Value> {
        self.value.field("compat").filter(|v| v.is_object())
    }

    /// `model.compat?.[key]`, with `null` kept.
    pub fn compat_value(&self, key: &str) -> Option<&Value> {
        js::get(self.compat(), key)
    }

    /// `model.compat?.[key]` when it is a boolean.
    pub fn compat_bool(&self, key: &str) -> Option<bool> {
        self.compat_value(key).and_then(Value::as_bool)
    }

    /// `model.compat?.[key] === true`.
    pub fn compat_true(&self, key: &str) -> bool {
        self.compat_bool(key) == Some(true)
    }

    /// `model.thinkingLevelMap`, if it is an object.
    pub fn thinking_level_map(&self) -> Option<&Value> {
        self.value
            .field("thinkingLevelMap")
            .filter(|v| v.is_object())
    }

    /// `model.thinkingLevelMap?.[level]`, with `null` kept (it marks an unsupported level).
    pub fn thinking_level(&self, level: &str) -> Option<&Value> {
        js::get(self.thinking_level_map(), level)
    }

    /// `model.headers`, if it is an object.
    pub fn headers(&self) -> Option<&Map<String, Value>> {
        self.value.field("headers").and_then(Value::as_object)
    }

    /// Whether the model carries `compat.supportsMidConvoSystemMessages === true`.
    pub fn is_flagged(&self) -> bool {
        self.compat_true("supportsMidConvoSystemMessages")
    }
}
