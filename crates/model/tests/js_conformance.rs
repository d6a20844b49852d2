//! `forge_replay_model::js` against Node 22: every row of `fixtures/js/conformance.jsonl`
//! (made by `tools/pi-oracle/src/js-conformance.mjs`; see its header for the row format).

use std::collections::BTreeMap;

use forge_replay_model::js;
use forge_replay_model::json::{self, format_f64};
use serde_json::Value;

/// The table's encoding of a number that may be NaN, ±Infinity or -0.
fn decode_num(v: &Value) -> Option<f64> {
    match v.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        s => s.parse().ok(),
    }
}

fn encode_num(f: f64) -> Value {
    Value::String(if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if f == 0.0 && f.is_sign_negative() {
        "-0".into()
    } else {
        format_f64(f)
    })
}

fn same_num(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn str_in(input: Option<&Value>) -> Result<&str, String> {
    input
        .and_then(Value::as_str)
        .ok_or_else(|| "`in` is not a string".to_string())
}

fn pair_in(input: Option<&Value>) -> Result<(&Value, &Value), String> {
    match input.and_then(Value::as_array).map(Vec::as_slice) {
        Some([a, b]) => Ok((a, b)),
        _ => Err("`in` is not a pair".to_string()),
    }
}

/// What forge-replay computes for one row: `Ok(value)` in the table's encoding.
fn compute(op: &str, input: Option<&Value>) -> Result<Value, String> {
    Ok(match op {
        "truthy" => Value::Bool(js::truthy(input)),
        "String" => Value::String(js::to_string(input)),
        "Number" => encode_num(js::to_number(input)),
        "trim" => Value::String(js::trim(str_in(input)?).to_string()),
        "length" => Value::from(js::len(str_in(input)?)),
        "sanitizeSurrogates" => Value::String(js::sanitize_surrogates(str_in(input)?).into_owned()),
        "sort" => {
            let mut items: Vec<&str> = input
                .and_then(Value::as_array)
                .ok_or("`in` is not an array")?
                .iter()
                .map(|v| v.as_str().ok_or("not a string"))
                .collect::<Result<_, _>>()?;
            items.sort_by(|a, b| js::cmp_utf16(a, b));
            Value::from(items)
        }
        "slice" => {
            let (s, n) = pair_in(input)?;
            let s = s.as_str().ok_or("not a string")?;
            let n = n.as_u64().ok_or("not an index")? as usize;
            Value::String(js::slice_utf16(s, n).into_owned())
        }
        "Math.max" | "Math.min" => {
            let (a, b) = pair_in(input)?;
            let (a, b) = (decode_num(a).ok_or("bad a")?, decode_num(b).ok_or("bad b")?);
            encode_num(if op == "Math.max" {
                js::math_max(a, b)
            } else {
                js::math_min(a, b)
            })
        }
        "Date.parse" => encode_num(js::date::parse(str_in(input)?)),
        "Date" => encode_num(js::date::get_time(input)),
        "toISOString" => {
            let t = decode_num(input.ok_or("no `in`")?).ok_or("bad time")?;
            js::date::to_iso_string(t).map_or(Value::Null, Value::String)
        }
        "JSON.parse" => js::json_parse_error(str_in(input)?).map_or(Value::Null, Value::String),
        // Every code point /\s/ matches, ascending (as the generator lists them).
        "whitespace" => Value::from(
            (0..=0x10FFFF)
                .filter(|&c| char::from_u32(c).is_some_and(js::is_whitespace))
                .collect::<Vec<u32>>(),
        ),
        other => return Err(format!("unknown op {other:?}")),
    })
}

fn matches(op: &str, got: &Value, want: &Value) -> bool {
    match op {
        "Number" | "Math.max" | "Math.min" | "Date.parse" | "Date" => {
            match (decode_num(got), decode_num(want)) {
                (Some(a), Some(b)) => same_num(a, b),
                _ => false,
            }
        }
        _ => got == want,
    }
}

#[test]
fn every_row_matches_node_22() {
    let path = forge_replay_testkit::fixture("js/conformance.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().expect("a header line");
    let header = json::parse(header).expect("header is JSON");
    let node = header["generator"]["node"].as_str().unwrap_or_default();
    assert!(
        node.starts_with("22."),
        "made by Node {node:?}, not Node 22"
    );
    assert_eq!(header["generator"]["tz"], "UTC");

    let mut per_op: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, line) in lines {
        let n = i + 1;
        let row = json::parse(line).unwrap_or_else(|e| panic!("line {n}: {e}"));
        let op = row["op"].as_str().unwrap_or_default();
        *per_op.entry(op.to_string()).or_default() += 1;
        let input = row.get("in");
        let want = &row["out"];
        match compute(op, input) {
            Ok(got) if matches(op, &got, want) => {}
            Ok(got) => failures.push(format!(
                "line {n}: {op}({}) is {} in Node 22, forge-replay gives {}",
                input.map_or("undefined".into(), json::stringify),
                json::stringify(want),
                json::stringify(&got)
            )),
            Err(e) => failures.push(format!("line {n}: {op}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the rows differ from Node 22:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for op in [
        "truthy",
        "String",
        "Number",
        "trim",
        "whitespace",
        "length",
        "sort",
        "slice",
        "sanitizeSurrogates",
        "Math.max",
        "Math.min",
        "Date.parse",
        "Date",
        "toISOString",
        "JSON.parse",
    ] {
        assert!(per_op.contains_key(op), "no {op} rows in the table");
    }
}
