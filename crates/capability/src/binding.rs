//! Preset capability bindings and their finite overrides (spec §1.5).

use forge_replay_model::js;
use serde::Serialize;
use serde_json::Value;

use crate::discovery::{parse_selector, Catalog};
use crate::event::{ResourceKey, Scope};
use crate::resource::{
    decode_capability, validate_tool_list, Capability, Diagnostic, Diags, MAX_CONTENT_LENGTH,
};
use crate::valid;

/// `MAX_CAPABILITY_BINDINGS`.
pub const MAX_CAPABILITY_BINDINGS: usize = 256;

/// Validated binding overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overrides {
    pub content: Option<String>,
    pub append_content: Option<String>,
    pub add: Option<Vec<String>>,
    pub remove: Option<Vec<String>>,
}

/// A schema-valid binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub selector: String,
    pub id: Option<String>,
    pub model_callable: bool,
    pub overrides: Option<Overrides>,
}

/// Validates one binding owned by a preset of scope `owner`; returns the binding when no error.
pub fn validate_binding(value: &Value, owner: Scope) -> (Option<Binding>, Vec<Diagnostic>) {
    let mut d = Diags::default();
    let Value::Object(m) = value else {
        d.push(None, "Capability binding must be an object.");
        return (None, d.0);
    };
    for (k, _) in forge_replay_model::json::js_key_order(m) {
        if !matches!(k.as_str(), "ref" | "id" | "modelCallable" | "overrides") {
            d.push(Some(k), format!("Unsupported binding field: {k}"));
        }
    }
    let mut selector = None;
    match m.get("ref") {
        None => d.push(Some("ref"), "Binding ref is required."),
        Some(Value::String(r)) if !js::trim(r).is_empty() => match parse_selector(r) {
            Err(e) => d.push(Some("ref"), e),
            Ok(sel) => {
                if owner == Scope::Global && sel.scope == Some(Scope::Project) {
                    d.push(
                        Some("ref"),
                        format!("Global binding cannot reference project capability: {r}."),
                    );
                } else {
                    selector = Some(r.clone());
                }
            }
        },
        Some(_) => d.push(Some("ref"), "Binding ref must be a non-empty string."),
    }
    let id = match m.get("id") {
        None => None,
        Some(Value::String(s)) if valid::is_resource_id(s) => Some(s.clone()),
        Some(_) => {
            d.push(Some("id"), "Binding id must be a valid resource id.");
            None
        }
    };
    let model_callable = match m.get("modelCallable") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            d.push(
                Some("modelCallable"),
                "modelCallable must be a boolean when provided.",
            );
            false
        }
    };
    let overrides = m.get("overrides").map(|o| validate_overrides(o, &mut d));
    let ok = d.0.is_empty();
    (
        ok.then(|| Binding {
            selector: selector.unwrap_or_default(),
            id,
            model_callable,
            overrides: overrides.flatten(),
        }),
        d.0,
    )
}

fn validate_overrides(v: &Value, d: &mut Diags) -> Option<Overrides> {
    let Value::Object(m) = v else {
        d.push(Some("overrides"), "overrides must be an object.");
        return None;
    };
    for (k, _) in forge_replay_model::json::js_key_order(m) {
        if !matches!(k.as_str(), "content" | "appendContent" | "tools") {
            d.push(
                Some(&format!("overrides.{k}")),
                format!("Unsupported override field: {k}"),
            );
        }
    }
    if m.contains_key("content") && m.contains_key("appendContent") {
        d.push(
            Some("overrides"),
            "Cannot specify both content and appendContent in overrides.",
        );
    }
    let mut o = Overrides::default();
    for key in ["content", "appendContent"] {
        let Some(v) = m.get(key) else { continue };
        let field = format!("overrides.{key}");
        match v {
            Value::String(s) if js::len(s) > MAX_CONTENT_LENGTH => d.push(
                Some(&field),
                format!("{field} exceeds maximum length of {MAX_CONTENT_LENGTH} characters."),
            ),
            Value::String(s) => {
                if key == "content" {
                    o.content = Some(s.clone());
                } else {
                    o.append_content = Some(s.clone());
                }
            }
            _ => d.push(Some(&field), format!("{field} must be a string.")),
        }
    }
    if let Some(t) = m.get("tools") {
        match t {
            Value::Object(tm) => {
                for (k, _) in forge_replay_model::json::js_key_order(tm) {
                    if k != "add" && k != "remove" {
                        d.push(
                            Some(&format!("overrides.tools.{k}")),
                            format!("Unsupported tools field in overrides: {k}"),
                        );
                    }
                }
                if let Some(a) = tm.get("add") {
                    o.add = Some(validate_tool_list(a, "overrides.tools.add", d));
                }
                if let Some(r) = tm.get("remove") {
                    o.remove = Some(validate_tool_list(r, "overrides.tools.remove", d));
                }
            }
            _ => d.push(
                Some("overrides.tools"),
                "overrides.tools must be an object.",
            ),
        }
    }
    Some(o)
}

/// Applies overrides to a usable base capability and re-validates the result.
pub fn apply_overrides(base: &Capability, o: &Overrides) -> Result<Capability, String> {
    let mut c = base.clone();
    if let Some(content) = &o.content {
        c.content = content.clone();
    } else if let Some(app) = &o.append_content {
        if c.content.is_empty() {
            c.content = app.clone();
        } else if !app.is_empty() {
            c.content = format!("{}\n\n{app}", c.content);
        }
    }
    if let Some(a) = &o.add {
        c.tools.add = a.clone();
    }
    if let Some(r) = &o.remove {
        c.tools.remove = r.clone();
    }
    let re = decode_capability(&c.to_value(), Some(&c.id));
    match re.first_error() {
        Some(e) => Err(e.to_string()),
        None => Ok(re.capability),
    }
}

/// A resolved preset binding.
#[derive(Debug, Clone)]
pub struct ResolvedBinding {
    pub id: String,
    pub reference: ResourceKey,
    pub preset: ResourceKey,
    pub model_callable: bool,
    pub capability: Capability,
}

/// `resolveCapabilityBindings(catalog, presetKey, bindings)`.
///
/// UNKNOWN (§9-adjacent): the exact text wrapping a per-binding schema error was not recorded
/// in the spec; we write `Invalid binding at index <i>: <message>`.
pub fn resolve_bindings(
    catalog: &Catalog,
    preset: &Value,
    bindings: &Value,
) -> Result<Vec<ResolvedBinding>, String> {
    let Value::Object(pk) = preset else {
        return Err("Preset key must be a plain object.".into());
    };
    if pk.len() != 2 || !pk.contains_key("scope") || !pk.contains_key("id") {
        return Err("Preset key must only contain scope and id.".into());
    }
    let Some(scope) = pk["scope"].as_str().and_then(Scope::parse) else {
        return Err("Invalid preset scope. Expected \"global\" or \"project\".".into());
    };
    let preset_id = match &pk["id"] {
        Value::String(s) if valid::is_resource_id(s) => s.clone(),
        _ => return Err("Invalid preset id; expected the resource ID grammar.".into()),
    };
    let Value::Array(items) = bindings else {
        return Err("Bindings must be an array.".into());
    };
    if items.len() > MAX_CAPABILITY_BINDINGS {
        return Err(format!(
            "Exceeded maximum bindings limit of {MAX_CAPABILITY_BINDINGS} (got {}).",
            items.len()
        ));
    }
    let mut valid = Vec::new();
    for (i, b) in items.iter().enumerate() {
        let (binding, diags) = validate_binding(b, scope);
        match (binding, diags.first()) {
            (Some(b), None) => valid.push(b),
            (_, Some(d)) => return Err(format!("Invalid binding at index {i}: {}", d.message)),
            (None, None) => return Err(format!("Invalid binding at index {i}")),
        }
    }
    let mut seen: Vec<String> = Vec::new();
    let mut selectors = Vec::new();
    for (i, b) in valid.iter().enumerate() {
        let sel = parse_selector(&b.selector)?;
        let eff = b.id.clone().unwrap_or_else(|| sel.id.clone());
        if seen.contains(&eff) {
            return Err(format!("Duplicate binding id \"{eff}\" at index {i}."));
        }
        seen.push(eff);
        selectors.push(sel);
    }
    let preset_key = ResourceKey {
        scope,
        id: preset_id,
    };
    let mut out = Vec::new();
    for ((b, sel), eff) in valid.iter().zip(selectors).zip(seen) {
        let target = ResourceKey {
            scope: sel.scope.unwrap_or(scope),
            id: sel.id,
        };
        let loaded = catalog.resolve(&target.to_string())?;
        let capability = match &b.overrides {
            Some(o) => apply_overrides(&loaded.capability, o)
                .map_err(|e| format!("Failed to apply overrides to \"{eff}\": {e}"))?,
            None => loaded.capability.clone(),
        };
        out.push(ResolvedBinding {
            id: eff,
            reference: target,
            preset: preset_key.clone(),
            model_callable: b.model_callable,
            capability,
        });
    }
    Ok(out)
}
