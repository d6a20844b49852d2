//! `priced` equals pi-ai's own `calculateCost` on the cases the real npm packages priced:
//! `fixtures/releases/<release>/pricing/cases.json` (`tools/pi-oracle/src/pricing.mjs --pi
//! <release>`, 577 (model, usage) cases per release; docs/fixtures.md). 0.87.1 and 1.3.0 are
//! priced with their embedded catalogs; 1.6.0 (not embedded yet) with its data files
//! (`crates/wire/data/pi-ai-1.6.0/`, the package's `dist/providers/data/` byte for byte) passed
//! to the same [`Pricer`].

use std::path::{Path, PathBuf};

use forge_replay_model::release::PiRelease;
use forge_replay_usage::pricing::{Pricer, PricingUsage, Unpriced};
use forge_replay_wire::{Catalog, Model};
use serde_json::{Map, Value};

fn root() -> PathBuf {
    forge_replay_testkit::repo_root()
}

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    forge_replay_model::json::parse(&text).expect("fixture is JSON")
}

/// A release's catalog read from its data files (for a release forge-replay does not embed yet),
/// flattened as pi-ai flattens them (every group of a provider file into one map of models).
fn release_catalog(release: &str) -> Catalog {
    let dir = root().join(format!("crates/wire/data/pi-ai-{release}"));
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.file_name().unwrap().to_string_lossy().starts_with('.')
        })
        .collect();
    names.sort();
    let mut catalog = Catalog::empty(PiRelease::LATEST);
    for file in names {
        let groups = load(&file);
        let mut flat = Map::new();
        for group in groups.as_object().into_iter().flat_map(|g| g.values()) {
            for (id, m) in group.as_object().into_iter().flatten() {
                flat.insert(id.clone(), m.clone());
            }
        }
        for (_, m) in flat {
            if let Ok(model) = Model::from_value(m) {
                catalog.insert(model);
            }
        }
    }
    catalog
}

/// A usage field as `calculateCost` reads it: an absent field is `undefined`, `NaN` in the
/// arithmetic.
fn field(u: &Value, k: &str) -> f64 {
    u.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// `String(v)` back to the double (`"NaN"`, `"1e-7"`, `"0.30000000000000004"`).
fn number(v: &Value, k: &str) -> f64 {
    let s = v
        .get(k)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("cost.{k} missing"));
    s.parse()
        .unwrap_or_else(|_| panic!("cost.{k} = {s:?} is not a number"))
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[derive(Default, Debug)]
struct Seen {
    priced: usize,
    absent: usize,
    tiered_above: usize,
    long_writes: usize,
    nan: usize,
}

fn check_release(release: &str, pricer: &Pricer<'_>) -> Seen {
    let doc = load(&root().join(format!("fixtures/releases/{release}/pricing/cases.json")));
    assert_eq!(doc["release"].as_str(), Some(release));
    let cases = doc["cases"].as_array().expect("cases");
    let mut seen = Seen::default();
    for c in cases {
        let name = c["name"].as_str().unwrap_or_default();
        let mut provider = c["model"]["provider"].as_str().unwrap_or_default();
        let id = c["model"]["id"].as_str().unwrap_or_default();
        // The fixture's own rule (docs/fixtures.md): `azure` is `azure-openai-responses` in 0.87.1.
        if release == "0.87.1" && provider == "azure" {
            provider = "azure-openai-responses";
        }
        if c.get("error").is_some() {
            // A usage object without `cost`: pi-ai throws writing into it. A price here is a
            // new object, so there is nothing to compare.
            continue;
        }
        let prices = pricer.prices(Some(provider), Some(id));
        if c["absent"].as_bool() == Some(true) {
            match prices {
                Err(Unpriced::NotInCatalog { .. }) => {}
                other => panic!("{release} {name}: pi-ai has no such model, we have {other:?}"),
            }
            seen.absent += 1;
            continue;
        }
        let prices = prices.unwrap_or_else(|e| panic!("{release} {name}: {e}"));
        let u = &c["usage"];
        let usage = PricingUsage {
            input: field(u, "input"),
            output: field(u, "output"),
            cache_read: field(u, "cacheRead"),
            cache_write: field(u, "cacheWrite"),
            cache_write_1h: u.get("cacheWrite1h").and_then(Value::as_f64).unwrap_or(0.0),
        };
        let got = prices.calculate(&usage);
        let want = &c["cost"];
        for (k, a) in [
            ("input", got.input),
            ("output", got.output),
            ("cacheRead", got.cache_read),
            ("cacheWrite", got.cache_write),
            ("total", got.total),
        ] {
            let b = number(want, k);
            assert!(
                same(a, b),
                "{release} {name} ({provider}/{id}): cost.{k} {a:?} != pi-ai {b:?}"
            );
        }
        seen.priced += 1;
        if !std::ptr::eq(prices.rates_for(usage.prompt()), &prices.base) {
            seen.tiered_above += 1;
        }
        if usage.cache_write_1h > 0.0 {
            seen.long_writes += 1;
        }
        if got.total.is_nan() {
            seen.nan += 1;
        }
    }
    let summary = &doc["summary"];
    assert_eq!(
        seen.priced as f64,
        summary["priced"].as_f64().unwrap(),
        "{release}"
    );
    assert_eq!(
        seen.absent as f64,
        summary["absent"].as_f64().unwrap(),
        "{release}"
    );
    seen
}

#[test]
fn priced_equals_pi_ai_0_87_1_calculate_cost_bit_for_bit() {
    let seen = check_release("0.87.1", &Pricer::builtin());
    assert!(seen.priced >= 200, "{seen:?}");
    assert!(
        seen.tiered_above >= 20 && seen.long_writes >= 20 && seen.nan > 0,
        "{seen:?}"
    );
}

#[test]
fn priced_equals_pi_ai_1_3_0_with_its_embedded_catalog() {
    let seen = check_release("1.3.0", &Pricer::of(Catalog::builtin(PiRelease::V1_3_0)));
    assert!(seen.priced >= 200 && seen.tiered_above >= 20, "{seen:?}");
}

#[test]
fn priced_equals_pi_ai_1_6_0_with_its_catalog() {
    let catalog = release_catalog("1.6.0");
    let seen = check_release("1.6.0", &Pricer::new(&catalog, "1.6.0"));
    assert!(seen.priced >= 200 && seen.tiered_above >= 20, "{seen:?}");
}
