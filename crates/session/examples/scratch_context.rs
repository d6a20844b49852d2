use forge_replay_session::{llm, Session};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (s, diags) = Session::open(&args[1]).unwrap();
    for d in &diags {
        eprintln!("{}", d.display(s.path()));
    }
    let leaf = s.resolve_leaf(args.get(2).map(|x| x.as_str())).unwrap();
    let p = s.context(leaf).unwrap();
    let mut m = serde_json::Map::new();
    m.insert(
        "messages".into(),
        serde_json::Value::Array(p.messages.clone()),
    );
    m.insert(
        "llm".into(),
        serde_json::Value::Array(llm::convert_to_llm(&p.messages)),
    );
    m.insert("model".into(), p.model.clone());
    println!(
        "{}",
        forge_replay_model::json::stringify(&serde_json::Value::Object(m))
    );
}
