//! Prints `{messages, llm, model, thinkingLevel}` for a session at a leaf, compact
//! (`JSON.stringify` bytes), with the file's diagnostics on stderr.
//!
//! `cargo run -p forge-replay-session --example project -- SESSION.jsonl [LEAF_ID]`

use forge_replay_session::{llm, Session};
use serde_json::{Map, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: project SESSION.jsonl [LEAF_ID]");
        std::process::exit(2);
    };
    let (session, diags) = Session::open(path)?;
    for d in &diags {
        eprintln!("{}", d.display(session.path()));
    }
    let leaf = session.resolve_leaf(args.get(2).map(String::as_str))?;
    let p = session.context(leaf)?;
    let mut m = Map::new();
    m.insert("llm".into(), Value::Array(llm::convert_to_llm(&p.messages)));
    m.insert("messages".into(), Value::Array(p.messages));
    m.insert("model".into(), p.model);
    if let Some(t) = p.thinking_level {
        m.insert("thinkingLevel".into(), t);
    }
    println!("{}", forge_replay_model::json::stringify(&Value::Object(m)));
    Ok(())
}
