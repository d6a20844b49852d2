//! `report session --format json`: the numbers of the page.

use super::SessionReport;

/// `report session --format json`: the numbers of the page (summary, one object per request,
/// the breaks, the notes).
pub fn to_json(r: &SessionReport) -> serde_json::Value {
    use forge_replay_model::json::f64_to_value as num;
    use serde_json::json;
    let rate = |v: Option<f64>| v.map_or(serde_json::Value::Null, num);
    let requests: Vec<_> = r
        .requests
        .iter()
        .map(|q| {
            json!({
                "index": q.index,
                "entryId": q.entry_id,
                "line": q.line,
                "provider": q.provider,
                "model": q.model,
                "api": q.api,
                "timestamp": q.timestamp,
                "usage": q.usage.map(|u| u.to_json()),
                "hitRate": rate(q.hit_rate()),
                "nestedHitRate": rate(q.nested_hit_rate()),
                "cumulative": q.cumulative.to_json(),
                "cost": num(q.cost),
                "cumulativeCost": num(q.cumulative_cost),
                "keptPercent": rate(q.kept_percent),
                "divergedAt": q.diverged_at,
                "break": q.break_index,
            })
        })
        .collect();
    let breaks: Vec<_> = r
        .breaks
        .iter()
        .map(|b| {
            json!({
                "request": b.request,
                "entryId": b.entry_id,
                "previous": b.previous,
                "cause": b.cause.name(),
                "detail": b.detail,
                "expected": num(b.expected),
                "cacheRead": num(b.cache_read),
            })
        })
        .collect();
    json!({
        "file": r.file,
        "sessionId": r.session_id,
        "leaf": r.leaf_id,
        "retention": r.retention,
        "entries": r.entries,
        "pathEntries": r.path_entries,
        "leaves": r.leaves,
        "summary": {
            "main": r.summary.main.to_json(),
            "nested": r.summary.nested.to_json(),
            "combined": r.summary.combined.to_json(),
            "cost": num(r.summary.cost),
            "models": r.summary.models,
        },
        "noCacheData": r.no_cache_data,
        "requests": requests,
        "breaks": breaks,
        "notes": r.notes,
    })
}
