//! Constrained sampling for tools (pi-ai `api/constrained-sampling.js`): strict JSON-schema tools
//! and grammar (custom) tools.

use crate::js::Field;
use serde_json::{Map, Value};

use crate::error::AssembleError;
use crate::js;
use forge_replay_model::release::{Change, PiRelease};

const UNSUPPORTED_STRICT_SCHEMA_KEYS: [&str; 16] = [
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
];

fn is_schema_object(v: &Value) -> bool {
    v.is_object()
}

fn type_list(schema: &Value) -> Vec<&Value> {
    match schema.field("type") {
        Some(Value::String(_)) => vec![&schema["type"]],
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    }
}

fn is_structured(schema: &Value) -> bool {
    if !is_schema_object(schema) {
        return false;
    }
    let types = type_list(schema);
    types.iter().any(|t| t.as_str() == Some("object"))
        || types.iter().any(|t| t.as_str() == Some("array"))
        || schema.field("properties").is_some()
        || schema.field("items").is_some()
}

fn allows_null(schema: &Value) -> bool {
    if !is_schema_object(schema) {
        return false;
    }
    let t = schema.field("type");
    if t.and_then(Value::as_str) == Some("null")
        || t.and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some("null")))
    {
        return true;
    }
    if matches!(schema.field("const"), Some(Value::Null))
        || schema
            .field("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(Value::is_null))
    {
        return true;
    }
    schema
        .field("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(allows_null))
}

/// A provider's extra strict-mode rule: `isUnsupportedKeyword(key, value)` (1.3).
pub type KeywordRule = fn(&str, &Value) -> bool;

/// What `makeJsonSchemaNodeStrict` refuses beyond the fixed keyword list.
#[derive(Debug, Clone, Copy)]
struct Rules {
    /// The provider's keyword rule.
    keyword: Option<KeywordRule>,
    /// 1.6 ([`Change::StrictSchemaRequiresType`]): a node without `type`, `anyOf` or `enum`.
    untyped_unsupported: bool,
}

impl Rules {
    fn of(release: Option<PiRelease>, keyword: Option<KeywordRule>) -> Rules {
        Rules {
            keyword,
            untyped_unsupported: release.is_some_and(|r| r.has(Change::StrictSchemaRequiresType)),
        }
    }
}

fn make_strict_node(schema: &mut Value, rules: Rules) -> Result<(), String> {
    let keyword = rules.keyword;
    let Some(obj) = schema.as_object_mut() else {
        return Err("boolean schemas are unsupported".into());
    };
    for key in UNSUPPORTED_STRICT_SCHEMA_KEYS {
        if obj.contains_key(key) {
            return Err(format!("{key} schemas are unsupported"));
        }
    }
    if let Some(rule) = keyword {
        // `for (const [key, value] of Object.entries(schema))`: JavaScript key order.
        for (key, value) in forge_replay_model::json::js_key_order(obj) {
            if rule(key, value) {
                return Err(format!(
                    "{key}: {} is unsupported",
                    forge_replay_model::json::stringify(value)
                ));
            }
        }
    }
    // OpenAI strict mode rejects nodes without a type; a bare enum counts as typed, a bare const
    // does not.
    if rules.untyped_unsupported
        && !obj.contains_key("type")
        && !obj.contains_key("anyOf")
        && !obj.contains_key("enum")
    {
        return Err("schemas without a type are unsupported".into());
    }
    if let Some(any_of) = obj.get_mut("anyOf") {
        match any_of.as_array_mut() {
            Some(variants) if !variants.is_empty() => {
                for v in variants.iter_mut() {
                    if is_structured(v) {
                        return Err("object and array unions are unsupported".into());
                    }
                    make_strict_node(v, rules)?;
                }
            }
            _ => return Err("anyOf must contain at least one schema".into()),
        }
    }
    if let Some(items) = obj.get_mut("items") {
        if items.is_array() {
            return Err("tuple schemas are unsupported".into());
        }
        make_strict_node(items, rules)?;
    }
    let is_object = obj.field("type").and_then(Value::as_str) == Some("object");
    if obj.contains_key("properties") && !is_object {
        return Err("properties require type object".into());
    }
    if !is_object {
        return Ok(());
    }
    if let Some(ap) = obj.field("additionalProperties") {
        if *ap != Value::Bool(false) {
            return Err("schema-valued or true additionalProperties is unsupported".into());
        }
    }
    if let Some(p) = obj.field("properties") {
        if !p.is_object() {
            return Err("object properties must be a schema map".into());
        }
    }
    if let Some(r) = obj.field("required") {
        let ok = r.as_array().is_some_and(|a| a.iter().all(Value::is_string));
        if !ok {
            return Err("object required must be a string array".into());
        }
    }
    let required: Vec<String> = obj
        .field("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut properties = obj
        .field("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let names: Vec<String> = forge_replay_model::json::js_key_order(&properties)
        .into_iter()
        .map(|(k, _)| k.clone())
        .collect();
    if required.iter().any(|k| !names.contains(k)) {
        return Err("required contains an unknown property".into());
    }
    for key in &names {
        let mut prop = properties.get(key).cloned().unwrap_or(Value::Null);
        make_strict_node(&mut prop, rules)?;
        if !required.contains(key) && !allows_null(&prop) {
            prop = js::obj!([(
                "anyOf",
                Value::Array(vec![prop, js::obj!([("type", js::s("null"))])]),
            )]);
        }
        properties.insert(key.clone(), prop);
    }
    if obj.contains_key("properties") {
        obj.insert("properties".into(), Value::Object(properties));
    }
    obj.insert(
        "required".into(),
        Value::Array(names.into_iter().map(Value::String).collect()),
    );
    obj.insert("additionalProperties".into(), Value::Bool(false));
    Ok(())
}

/// `makeStrictJsonSchema(schema)`; `Err` holds the unsupported-schema reason.
pub fn make_strict_json_schema(schema: &Value) -> Result<Value, String> {
    make_strict_json_schema_with(schema, None)
}

/// `makeStrictJsonSchema(schema, isUnsupportedKeyword)` without the rules of a release (1.3's).
pub fn make_strict_json_schema_with(
    schema: &Value,
    keyword: Option<KeywordRule>,
) -> Result<Value, String> {
    make_strict(schema, Rules::of(None, keyword))
}

/// `makeStrictJsonSchema(schema, isUnsupportedKeyword)` of `release` (1.6 refuses untyped nodes,
/// [`Change::StrictSchemaRequiresType`]).
pub fn make_strict_json_schema_for(
    release: PiRelease,
    schema: &Value,
    keyword: Option<KeywordRule>,
) -> Result<Value, String> {
    make_strict(schema, Rules::of(Some(release), keyword))
}

fn make_strict(schema: &Value, rules: Rules) -> Result<Value, String> {
    let mut cloned = schema.clone();
    if !is_schema_object(&cloned) {
        return Err("root schema must have type object".into());
    }
    make_strict_node(&mut cloned, rules)?;
    if cloned.field("type").and_then(Value::as_str) != Some("object") {
        return Err("root schema must have type object".into());
    }
    Ok(cloned)
}

/// `resolveJsonSchemaStrictSampling(tool, supportsStrictMode)` of `release`: `Some(true)` when
/// the tool is sent strict; pi-ai's error when a `require` tool cannot be.
pub fn resolve_json_schema_strict_sampling(
    release: PiRelease,
    tool: &Value,
    supports_strict: bool,
) -> Result<Option<bool>, AssembleError> {
    resolve_strict(tool, supports_strict, Rules::of(Some(release), None))
}

/// `resolveJsonSchemaStrictSampling(tool, supportsStrictMode, isUnsupportedKeyword)` (1.3: a
/// provider's keyword rule makes a "prefer" tool non-strict), without the rules added after 1.3.
pub fn resolve_json_schema_strict_sampling_with(
    tool: &Value,
    supports_strict: bool,
    keyword: Option<KeywordRule>,
) -> Result<Option<bool>, AssembleError> {
    resolve_strict(tool, supports_strict, Rules::of(None, keyword))
}

/// [`resolve_json_schema_strict_sampling_with`] of `release` (1.6: untyped nodes make a
/// "prefer" tool non-strict, [`Change::StrictSchemaRequiresType`]).
pub fn resolve_json_schema_strict_sampling_for(
    release: PiRelease,
    tool: &Value,
    supports_strict: bool,
    keyword: Option<KeywordRule>,
) -> Result<Option<bool>, AssembleError> {
    resolve_strict(tool, supports_strict, Rules::of(Some(release), keyword))
}

fn resolve_strict(
    tool: &Value,
    supports_strict: bool,
    rules: Rules,
) -> Result<Option<bool>, AssembleError> {
    let config = tool.field("constrainedSampling");
    if !js::truthy(config)
        || js::str_of(config.unwrap_or(&Value::Null), "type") != Some("json_schema")
    {
        return Ok(None);
    }
    let config = config.unwrap_or(&Value::Null);
    let require = js::str_of(config, "strict") == Some("require");
    let name = tool.field("name").and_then(Value::as_str).unwrap_or("");
    if supports_strict {
        return match make_strict(tool.field("parameters").unwrap_or(&Value::Null), rules) {
            Ok(_) => Ok(Some(true)),
            Err(_) if !require => Ok(None),
            Err(reason) => Err(AssembleError::rejected(format!(
                "Tool \"{name}\" requires JSON-schema constrained sampling, but {reason}."
            ))),
        };
    }
    if require {
        return Err(AssembleError::rejected(format!(
            "Tool \"{name}\" requires JSON-schema constrained sampling, but strict tools are unsupported."
        )));
    }
    Ok(None)
}

/// `prefersJsonSchemaStrictSampling(tool)`: a tool that asks for strict JSON-schema sampling only
/// when possible (`constrainedSampling: {type: "json_schema", strict: "prefer"}`).
pub fn prefers_json_schema_strict_sampling(tool: &Value) -> bool {
    let config = tool.field("constrainedSampling");
    js::truthy(config)
        && config.is_some_and(|c| {
            js::str_of(c, "type") == Some("json_schema")
                && js::str_of(c, "strict") == Some("prefer")
        })
}

/// `getJsonSchemaToolParameters(tool, strict)`.
pub fn json_schema_tool_parameters(tool: &Value, strict: Option<bool>) -> Value {
    let params = tool.field("parameters").cloned().unwrap_or(Value::Null);
    if strict == Some(true) {
        make_strict_json_schema(&params).unwrap_or(params)
    } else {
        params
    }
}

/// [`json_schema_tool_parameters`], `None` where pi-ai's value is `undefined` (a tool without
/// `parameters`, not strict): an object property holding it is not serialized.
pub fn defined_tool_parameters(tool: &Value, strict: Option<bool>) -> Option<Value> {
    if tool.field("parameters").is_none() && strict != Some(true) {
        return None;
    }
    Some(json_schema_tool_parameters(tool, strict))
}

/// A grammar tool's resolved format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    /// `"lark"` or `"regex"`.
    pub format: &'static str,
    /// The grammar text.
    pub definition: String,
    /// The one required string property that carries the input.
    pub input_property: String,
}

fn infer_grammar_input_property(tool: &Value) -> Result<String, String> {
    let schema = tool.field("parameters").unwrap_or(&Value::Null);
    if js::str_of(schema, "type") != Some("object") {
        return Err("grammar constrained sampling requires an object parameter schema".into());
    }
    let req = schema.field("required").and_then(Value::as_array);
    let prop = match req {
        Some(a) if a.len() == 1 && a[0].is_string() => a[0].as_str().unwrap_or("").to_string(),
        _ => {
            return Err(
                "grammar constrained sampling requires exactly one required string property".into(),
            )
        }
    };
    let entry = js::get(schema.field("properties"), &prop);
    if !js::truthy(entry) {
        return Err(format!(
            "grammar constrained sampling requires a properties entry for {prop}"
        ));
    }
    if entry.and_then(|e| e.field("type")).and_then(Value::as_str) != Some("string") {
        return Err(format!(
            "grammar constrained sampling property {prop} must have type string"
        ));
    }
    Ok(prop)
}

/// `resolveGrammarConstrainedSampling(tool, supportsOpenAIGrammarTools)`.
pub fn resolve_grammar_constrained_sampling(
    tool: &Value,
    supports: bool,
) -> Result<Option<Grammar>, AssembleError> {
    let config = tool.field("constrainedSampling");
    if !js::truthy(config) || js::str_of(config.unwrap_or(&Value::Null), "type") != Some("grammar")
    {
        return Ok(None);
    }
    if !supports {
        return Ok(None);
    }
    let name = tool.field("name").and_then(Value::as_str).unwrap_or("");
    let variants = js::get(config, "variants");
    let lark = js::get(variants, "openai_lark").and_then(Value::as_str);
    let regex = js::get(variants, "openai_regex").and_then(Value::as_str);
    let has_lark = lark.is_some_and(|s| !js::trim(s).is_empty());
    let has_regex = regex.is_some_and(|s| !js::trim(s).is_empty());
    if !has_lark && !has_regex {
        return Err(AssembleError::rejected(format!(
            "Tool \"{name}\" cannot use grammar constrained sampling: no supported grammar variant was provided."
        )));
    }
    match infer_grammar_input_property(tool) {
        Ok(input_property) => Ok(Some(Grammar {
            format: if has_lark { "lark" } else { "regex" },
            definition: if has_lark { lark } else { regex }
                .unwrap_or("")
                .to_string(),
            input_property,
        })),
        Err(m) => Err(AssembleError::rejected(format!(
            "Tool \"{name}\" cannot use grammar constrained sampling: {m}."
        ))),
    }
}

/// A property map helper: inserts `key` only when `value` is defined (JavaScript drops
/// `undefined` properties when serializing).
pub fn insert_defined(map: &mut Map<String, Value>, key: &str, value: Option<&Value>) {
    if let Some(v) = value {
        map.insert(key.to_string(), v.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_schema_wraps_optional_properties() {
        let s = json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]});
        let strict = make_strict_json_schema(&s).unwrap();
        assert_eq!(
            forge_replay_model::json::stringify(&strict),
            r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"anyOf":[{"type":"number"},{"type":"null"}]}},"required":["a","b"],"additionalProperties":false}"#
        );
        assert!(make_strict_json_schema(&json!({"type":"object","oneOf":[]})).is_err());
    }

    #[test]
    fn require_without_support_is_refused() {
        let tool = json!({"name":"t","parameters":{"type":"object"},"constrainedSampling":{"type":"json_schema","strict":"require"}});
        let e = resolve_json_schema_strict_sampling(PiRelease::V1_3_0, &tool, false).unwrap_err();
        assert!(e.to_string().contains("strict tools are unsupported"));
        assert_eq!(
            resolve_json_schema_strict_sampling(PiRelease::V1_3_0, &tool, true).unwrap(),
            Some(true)
        );
    }

    #[test]
    fn untyped_nodes_are_not_strict_from_1_6() {
        let schema = json!({"type":"object","properties":{"key":{"const":"mode"},"kind":{"enum":["a"]}},"required":["key","kind"]});
        let tool = json!({"name":"t","parameters":schema,"constrainedSampling":{"type":"json_schema","strict":"prefer"}});
        assert_eq!(
            resolve_json_schema_strict_sampling(PiRelease::V1_3_0, &tool, true).unwrap(),
            Some(true)
        );
        assert_eq!(
            resolve_json_schema_strict_sampling(PiRelease::V1_6_0, &tool, true).unwrap(),
            None
        );
        let mut require = tool.clone();
        require["constrainedSampling"]["strict"] = json!("require");
        let e = resolve_json_schema_strict_sampling(PiRelease::V1_6_0, &require, true).unwrap_err();
        assert!(
            e.to_string()
                .contains("but schemas without a type are unsupported."),
            "{e}"
        );
        // A bare `enum` counts as typed.
        let enum_only =
            json!({"type":"object","properties":{"kind":{"enum":["a"]}},"required":["kind"]});
        assert!(make_strict_json_schema_for(PiRelease::V1_6_0, &enum_only, None).is_ok());
    }
}
