//! Finding things in an assembled request without knowing its API.
//!
//! Every provider payload is a JSON tree with, somewhere, a *conversation list*: the first array
//! on a path whose elements include an object with a `role` key (`messages`, `input`, `contents`,
//! `context.messages`). Anything not under such a list is a *field* of the request (`system`,
//! `instructions`, `config.systemInstruction`, `tools`, …). The classifier asks two questions of a
//! payload: where does a marker string land, and where does a tool name land. Both answers are
//! [`Location`]s.

use serde_json::Value;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Where a JSON leaf sits, relative to the conversation list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// Outside any conversation list: a request field.
    Field { path: Vec<Seg> },
    /// Inside element `index` of the conversation list at `list`; `rest` goes on from the element.
    Item {
        list: Vec<Seg>,
        index: usize,
        rest: Vec<Seg>,
    },
}

impl Location {
    /// The conversation item index, if any.
    pub(crate) fn index(&self) -> Option<usize> {
        match self {
            Location::Item { index, .. } => Some(*index),
            Location::Field { .. } => None,
        }
    }

    /// The path from the root to the leaf.
    pub(crate) fn full_path(&self) -> Vec<Seg> {
        match self {
            Location::Field { path } => path.clone(),
            Location::Item { list, index, rest } => {
                let mut p = list.clone();
                p.push(Seg::Index(*index));
                p.extend(rest.iter().cloned());
                p
            }
        }
    }

    /// The keys of the path down to the first array index, joined with `.` (`config.systemInstruction`).
    pub(crate) fn field_name(&self) -> String {
        key_prefix(&self.full_path())
    }

    /// True if both locations are in the same request field (same top key path) or the same item.
    pub(crate) fn same_container(&self, other: &Location) -> bool {
        match (self, other) {
            (Location::Field { .. }, Location::Field { .. }) => {
                self.field_name() == other.field_name()
            }
            (
                Location::Item {
                    list: l1,
                    index: i1,
                    ..
                },
                Location::Item {
                    list: l2,
                    index: i2,
                    ..
                },
            ) => l1 == l2 && i1 == i2,
            _ => false,
        }
    }

    /// True if a step of the path below the conversation item (or field) is this key.
    pub(crate) fn passes_key(&self, key: &str) -> bool {
        let steps = match self {
            Location::Field { path } => path,
            Location::Item { rest, .. } => rest,
        };
        steps.iter().any(|s| matches!(s, Seg::Key(k) if k == key))
    }
}

/// The keys of a path until the first index, joined with `.`.
pub(crate) fn key_prefix(path: &[Seg]) -> String {
    let mut out = Vec::new();
    for s in path {
        match s {
            Seg::Key(k) => out.push(k.as_str()),
            Seg::Index(_) => break,
        }
    }
    out.join(".")
}

/// Renders a path as `a.b[0].c`.
pub(crate) fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The value at `path`.
pub(crate) fn get<'a>(root: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut v = root;
    for s in path {
        v = match (s, v) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn is_conversation(arr: &[Value]) -> bool {
    arr.iter()
        .any(|e| e.as_object().is_some_and(|o| o.contains_key("role")))
}

/// Classifies a root path: is it under a conversation list?
pub(crate) fn locate(root: &Value, path: &[Seg]) -> Location {
    let mut v = root;
    for (i, s) in path.iter().enumerate() {
        if let (Value::Array(arr), Seg::Index(idx)) = (v, s) {
            if is_conversation(arr) {
                return Location::Item {
                    list: path[..i].to_vec(),
                    index: *idx,
                    rest: path[i + 1..].to_vec(),
                };
            }
        }
        match get(v, std::slice::from_ref(s)) {
            Some(next) => v = next,
            None => break,
        }
    }
    Location::Field {
        path: path.to_vec(),
    }
}

/// Every path to a string leaf that contains `needle`.
pub(crate) fn text_paths(root: &Value, needle: &str) -> Vec<Vec<Seg>> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(root, &mut path, &mut |p, v| {
        if let Value::String(s) = v {
            if s.contains(needle) {
                out.push(p.to_vec());
            }
        }
    });
    out
}

/// Every path to a `"name": <name>` member (the path ends with `Key("name")`).
pub(crate) fn name_paths(root: &Value, name: &str) -> Vec<Vec<Seg>> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(root, &mut path, &mut |p, v| {
        if matches!(p.last(), Some(Seg::Key(k)) if k == "name") && v.as_str() == Some(name) {
            out.push(p.to_vec());
        }
    });
    out
}

/// Every path to an object that declares a tool: a string `name` plus a schema or description
/// member (`parameters`, `input_schema`, `parametersJsonSchema`, `inputSchema`, `description`).
pub(crate) fn declaration_paths(root: &Value) -> Vec<Vec<Seg>> {
    const SCHEMA_KEYS: [&str; 5] = [
        "parameters",
        "input_schema",
        "parametersJsonSchema",
        "inputSchema",
        "description",
    ];
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(root, &mut path, &mut |p, v| {
        if let Value::Object(m) = v {
            if m.get("name").is_some_and(Value::is_string)
                && SCHEMA_KEYS.iter().any(|k| m.contains_key(*k))
            {
                out.push(p.to_vec());
            }
        }
    });
    out
}

fn walk(v: &Value, path: &mut Vec<Seg>, f: &mut dyn FnMut(&[Seg], &Value)) {
    f(path, v);
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                path.push(Seg::Key(k.clone()));
                walk(child, path, f);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                walk(child, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

/// A copy without prompt-cache markers (`cache_control` members, `{"cachePoint": …}` elements),
/// which move between requests without changing the cached content. A `content` that is a
/// single plain text block becomes its string: Anthropic turns the last user message's string
/// into a block only to attach `cache_control`, which sends the same tokens.
pub(crate) fn without_cache_markers(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "cache_control")
                .map(|(k, v)| {
                    let v = without_cache_markers(v);
                    if k == "content" {
                        if let Some(text) = lone_text(&v) {
                            return (k.clone(), Value::String(text));
                        }
                    }
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|e| {
                    !e.as_object()
                        .is_some_and(|o| o.len() == 1 && o.contains_key("cachePoint"))
                })
                .map(without_cache_markers)
                .collect(),
        ),
        other => other.clone(),
    }
}

fn lone_text(v: &Value) -> Option<String> {
    let [block] = v.as_array()?.as_slice() else {
        return None;
    };
    let o = block.as_object()?;
    (o.len() == 2 && o.get("type")?.as_str()? == "text")
        .then(|| o.get("text")?.as_str().map(str::to_string))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locates_items_and_fields() {
        let p = json!({"system": [{"text": "LEAD"}], "messages": [{"role": "user", "content": "U1"}, {"role": "system", "content": [{"type": "text", "text": "MID"}]}]});
        let lead = locate(&p, &text_paths(&p, "LEAD")[0]);
        assert_eq!(lead.field_name(), "system");
        let mid = locate(&p, &text_paths(&p, "MID")[0]);
        assert_eq!(mid.index(), Some(1));
        assert!(mid.passes_key("content"));
        assert!(!mid.same_container(&lead));
    }

    #[test]
    fn tool_arrays_are_not_conversations() {
        let p = json!({"tools": [{"type": "function", "function": {"name": "grep"}}]});
        let loc = locate(&p, &name_paths(&p, "grep")[0]);
        assert_eq!(loc.field_name(), "tools");
        assert_eq!(render_path(&loc.full_path()), "tools[0].function.name");
    }

    #[test]
    fn strips_cache_markers() {
        let v = json!([{"text": "a", "cache_control": {"type": "ephemeral"}}, {"cachePoint": {"type": "default"}}]);
        assert_eq!(without_cache_markers(&v), json!([{"text": "a"}]));
        let m = json!({"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]});
        assert_eq!(
            without_cache_markers(&m),
            json!({"role": "user", "content": "hi"})
        );
    }
}
