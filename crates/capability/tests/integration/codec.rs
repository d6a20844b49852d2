//! [T-CODEC]: resource codec, serializer, bindings and overrides (spec §1).

use forge_replay_capability::binding::{apply_overrides, validate_binding, Overrides};
use forge_replay_capability::discovery::parse_selector;
use forge_replay_capability::event::Scope;
use forge_replay_capability::resource::{decode_capability, parse_capability, Decoded};
use serde_json::{json, Value};

fn decode(v: Value) -> Decoded {
    decode_capability(&v, Some("file-id"))
}

fn messages(d: &Decoded) -> Vec<(Option<String>, String)> {
    d.diagnostics
        .iter()
        .map(|x| (x.field.clone(), x.message.clone()))
        .collect()
}

fn base() -> Value {
    json!({"schemaVersion":1,"type":"pi-forge.capability","id":"review","name":"Review","description":"Reviews","content":"List findings.","tools":{"add":["grep"],"remove":["bash"]}})
}

#[test]
fn full_valid_parse() {
    let d = decode(base());
    assert!(d.is_usable());
    assert_eq!(d.capability.tools.add, vec!["grep"]);
    assert_eq!(d.capability.name.as_deref(), Some("Review"));
}

#[test]
fn omitted_tools_become_empty_lists() {
    let d = decode(json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":"x"}));
    assert!(d.is_usable());
    assert_eq!(
        d.capability.serialize(),
        "{\n  \"schemaVersion\": 1,\n  \"type\": \"pi-forge.capability\",\n  \"id\": \"a\",\n  \"content\": \"x\",\n  \"tools\": {\n    \"add\": [],\n    \"remove\": []\n  }\n}\n"
    );
}

#[test]
fn raw_whitespace_preserved_and_tool_only_allowed() {
    let d =
        decode(json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":"  x \n"}));
    assert_eq!(d.capability.content, "  x \n");
    let d = decode(
        json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":"","tools":{"remove":["bash"]}}),
    );
    assert!(d.is_usable());
}

#[test]
fn no_effect_rejected_with_js_trim() {
    // U+FEFF is JavaScript whitespace; U+0085 is not.
    let d = decode(
        json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":" \u{feff}\t"}),
    );
    assert_eq!(
        messages(&d),
        vec![(None, "Capability capability must have non-empty content or at least one tool effect (add or remove).".to_string())]
    );
    let d =
        decode(json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":"\u{85}"}));
    assert!(d.is_usable());
}

#[test]
fn bad_ids() {
    for id in ["-bad-start", "has:colon", "has space", "", "tool/slash"] {
        let mut v = base();
        v["id"] = json!(id);
        let d = decode(v);
        assert_eq!(
            messages(&d),
            vec![(Some("id".into()), "Capability capability id must start with a letter or number and contain only letters, numbers, dots, underscores, and hyphens.".into())],
            "{id}"
        );
        // Normalized id: raw non-empty string, else the fallback.
        assert_eq!(d.capability.id, if id.is_empty() { "file-id" } else { id });
    }
}

#[test]
fn unknown_fields_and_definition_only_fields() {
    let mut v = base();
    v["extraRootField"] = json!(1);
    v["authorization"] = json!({});
    v["modelCallable"] = json!(true);
    v["tools"]["extraToolField"] = json!([]);
    let d = decode(v);
    assert_eq!(
        messages(&d),
        vec![
            (
                Some("extraRootField".into()),
                "Unsupported capability field: extraRootField".into()
            ),
            (
                Some("authorization".into()),
                "Unsupported capability field: authorization".into()
            ),
            (
                Some("modelCallable".into()),
                "Unsupported capability field: modelCallable".into()
            ),
            (
                Some("tools.extraToolField".into()),
                "Unsupported tools field: extraToolField".into()
            ),
        ]
    );
}

#[test]
fn check_order_and_messages() {
    let d = decode(
        json!({"schemaVersion":2,"type":"x","id":5,"name":7,"description":false,"content":3,"tools":[]}),
    );
    assert_eq!(
        messages(&d),
        vec![
            (Some("schemaVersion".into()), "schemaVersion must be 1.".into()),
            (Some("type".into()), "type must be \"pi-forge.capability\".".into()),
            (Some("id".into()), "Capability capability id must start with a letter or number and contain only letters, numbers, dots, underscores, and hyphens.".into()),
            (Some("name".into()), "name must be a string when provided.".into()),
            (Some("description".into()), "description must be a string when provided.".into()),
            (Some("content".into()), "content must be a string.".into()),
            (Some("tools".into()), "tools must be an object.".into()),
        ]
    );
    assert_eq!(d.capability.id, "file-id");
    // schemaVersion 1.0 is the number 1.
    let d = decode_capability(
        &forge_replay_model::json::parse(
            r#"{"schemaVersion":1.0,"type":"pi-forge.capability","id":"a","content":"x"}"#,
        )
        .unwrap(),
        None,
    );
    assert!(d.is_usable());
}

#[test]
fn root_must_be_object() {
    for v in [json!([]), json!(null), json!("x")] {
        let d = decode_capability(&v, None);
        assert_eq!(
            messages(&d),
            vec![(
                None,
                "Capability capability root must be a JSON object.".into()
            )]
        );
        assert_eq!(d.capability.id, "unknown");
    }
}

#[test]
fn bad_tool_names() {
    let mut v = base();
    v["tools"] = json!({"add":[1,"","has space","ctl\u{1}","wild*","q?","x".repeat(129), "ok", "\u{feff}bom"]});
    let d = decode(v);
    assert_eq!(
        messages(&d),
        vec![
            (
                Some("tools.add[0]".into()),
                "Tool name at index 0 must be a string.".into()
            ),
            (
                Some("tools.add[1]".into()),
                "Tool name at index 1 cannot be empty.".into()
            ),
            (
                Some("tools.add[2]".into()),
                "Tool name at index 2 (\"has space\") cannot contain whitespace.".into()
            ),
            (
                Some("tools.add[3]".into()),
                "Tool name at index 3 cannot contain control characters.".into()
            ),
            (
                Some("tools.add[4]".into()),
                "Tool name at index 4 (\"wild*\") cannot contain wildcard characters (* or ?)."
                    .into()
            ),
            (
                Some("tools.add[5]".into()),
                "Tool name at index 5 (\"q?\") cannot contain wildcard characters (* or ?).".into()
            ),
            (
                Some("tools.add[6]".into()),
                "Tool name at index 6 exceeds maximum length of 128 characters.".into()
            ),
            (
                Some("tools.add[8]".into()),
                "Tool name at index 8 (\"\u{feff}bom\") cannot contain whitespace.".into()
            ),
        ]
    );
    assert_eq!(d.capability.tools.add, vec!["ok"]);
}

#[test]
fn tool_list_limits_and_duplicates() {
    let mut v = base();
    let many: Vec<String> = (0..257).map(|i| format!("t{i}")).collect();
    v["tools"] = json!({"add": many, "remove": "bash"});
    let d = decode(v);
    assert_eq!(
        messages(&d),
        vec![
            (
                Some("tools.add".into()),
                "tools.add cannot exceed 256 tools (got 257).".into()
            ),
            (
                Some("tools.remove".into()),
                "tools.remove must be an array of tool names.".into()
            ),
        ]
    );
    let mut v = base();
    v["tools"] = json!({"add":["a","a"],"remove":["a"]});
    let d = decode(v);
    assert!(d.is_usable());
    assert_eq!(d.capability.tools.add, vec!["a", "a"]);
}

#[test]
fn content_limit_counts_utf16_units() {
    let mut v = base();
    v["content"] = json!("x".repeat(100_001));
    assert_eq!(
        messages(&decode(v)),
        vec![(
            Some("content".into()),
            "content exceeds maximum length of 100000 characters.".into()
        )]
    );
    // 50000 astral characters = 100000 units: allowed; one more unit is not.
    let mut v = base();
    v["content"] = json!("😀".repeat(50_000));
    assert!(decode(v).is_usable());
    let mut v = base();
    v["content"] = json!(format!("{}x", "😀".repeat(50_000)));
    assert!(!decode(v).is_usable());
    // Name limit 1000.
    let mut v = base();
    v["name"] = json!("n".repeat(1001));
    let d = decode(v);
    assert_eq!(
        messages(&d),
        vec![(
            Some("name".into()),
            "name exceeds maximum length of 1000 characters.".into()
        )]
    );
    assert_eq!(d.capability.name, None);
}

#[test]
fn duplicate_diagnostics_are_collapsed() {
    let mut v = base();
    v["tools"] = json!({"add":["a b"],"remove":["a b"]});
    assert_eq!(decode(v).diagnostics.len(), 2);
}

#[test]
fn invalid_json_fault_uses_filename_id() {
    let d = parse_capability("{not json", "broken");
    assert_eq!(d.capability.id, "broken");
    assert_eq!(d.diagnostics.len(), 1);
    assert!(d.diagnostics[0]
        .message
        .starts_with("Failed to parse JSON: "));
    assert_eq!(
        parse_capability("", "e").diagnostics[0].message,
        "Failed to parse JSON: Unexpected end of JSON input"
    );
}

#[test]
fn serializer_round_trip() {
    let d = decode(base());
    let text = d.capability.serialize();
    assert!(text.ends_with("}\n"));
    let again = parse_capability(&text, "x");
    assert!(again.is_usable());
    assert_eq!(again.capability, d.capability);
    assert_eq!(again.capability.serialize(), text);
}

#[test]
fn selectors() {
    assert_eq!(parse_selector("  review ").unwrap().id, "review");
    assert_eq!(parse_selector("project:a:b").unwrap_err(), "Invalid resource id: a:b. Ids must start with a letter or number and contain only letters, numbers, dots, underscores, and hyphens.");
    assert_eq!(
        parse_selector("team:a").unwrap_err(),
        "Unknown scope prefix: team. Expected \"project\" or \"global\"."
    );
    assert_eq!(
        parse_selector(" ").unwrap_err(),
        "Resource selector must not be empty."
    );
    assert_eq!(
        parse_selector("global:x").unwrap().scope,
        Some(Scope::Global)
    );
}

#[test]
fn binding_scope_rules() {
    let (b, d) = validate_binding(&json!({"ref":"project:review"}), Scope::Global);
    assert!(b.is_none());
    assert_eq!(
        d[0].message,
        "Global binding cannot reference project capability: project:review."
    );
    let (b, _) = validate_binding(
        &json!({"ref":"project:review","modelCallable":true}),
        Scope::Project,
    );
    assert!(b.unwrap().model_callable);
    let (_, d) = validate_binding(
        &json!({"ref":"  ","id":"-x","modelCallable":"yes","extra":1}),
        Scope::Project,
    );
    let m: Vec<&str> = d.iter().map(|x| x.message.as_str()).collect();
    assert_eq!(
        m,
        vec![
            "Unsupported binding field: extra",
            "Binding ref must be a non-empty string.",
            "Binding id must be a valid resource id.",
            "modelCallable must be a boolean when provided."
        ]
    );
    let (_, d) = validate_binding(&json!({}), Scope::Project);
    assert_eq!(d[0].message, "Binding ref is required.");
    let (_, d) = validate_binding(&json!(3), Scope::Project);
    assert_eq!(d[0].message, "Capability binding must be an object.");
}

#[test]
fn override_rules() {
    let (_, d) = validate_binding(
        &json!({"ref":"a","overrides":{"content":"x","appendContent":"y","tools":{"add":["b c"],"x":1},"z":1}}),
        Scope::Project,
    );
    let m: Vec<&str> = d.iter().map(|x| x.message.as_str()).collect();
    assert_eq!(
        m,
        vec![
            "Unsupported override field: z",
            "Cannot specify both content and appendContent in overrides.",
            "Unsupported tools field in overrides: x",
            "Tool name at index 0 (\"b c\") cannot contain whitespace.",
        ]
    );
    let base = decode(json!({"schemaVersion":1,"type":"pi-forge.capability","id":"a","content":"Primary instructions.","tools":{"add":["x"],"remove":["y"]}})).capability;
    let o = Overrides {
        append_content: Some("Additional guidelines.".into()),
        ..Default::default()
    };
    assert_eq!(
        apply_overrides(&base, &o).unwrap().content,
        "Primary instructions.\n\nAdditional guidelines."
    );
    let mut empty = base.clone();
    empty.content = String::new();
    let o = Overrides {
        append_content: Some("First guidelines.".into()),
        ..Default::default()
    };
    assert_eq!(
        apply_overrides(&empty, &o).unwrap().content,
        "First guidelines."
    );
    let o = Overrides {
        remove: Some(vec!["z".into()]),
        ..Default::default()
    };
    let c = apply_overrides(&base, &o).unwrap();
    assert_eq!(
        (c.tools.add, c.tools.remove),
        (vec!["x".to_string()], vec!["z".to_string()])
    );
    // Overrides can make a capability useless: re-validated.
    let o = Overrides {
        content: Some(" ".into()),
        add: Some(vec![]),
        remove: Some(vec![]),
        ..Default::default()
    };
    assert!(apply_overrides(&base, &o)
        .unwrap_err()
        .contains("tool effect"));
}
