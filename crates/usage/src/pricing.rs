//! Requests priced as pi-ai prices them: `calculateCost(model, usage)` over a release's catalog.
//!
//! pi-ai 0.87.1 (`dist/models.js`):
//!
//! ```text
//! inputTokens = usage.input + usage.cacheRead + usage.cacheWrite
//! rates = model.cost; matched = -1
//! for tier of model.cost.tiers ?? []:
//!     if inputTokens > tier.inputTokensAbove && tier.inputTokensAbove > matched: rates = tier; matched = …
//! longWrite = usage.cacheWrite1h ?? 0;  shortWrite = usage.cacheWrite - longWrite
//! input      = (rates.input / 1000000) * usage.input
//! output     = (rates.output / 1000000) * usage.output
//! cacheRead  = (rates.cacheRead / 1000000) * usage.cacheRead
//! cacheWrite = (rates.cacheWrite * shortWrite + rates.input * 2 * longWrite) / 1000000
//! total      = input + output + cacheRead + cacheWrite
//! ```
//!
//! The arithmetic here is the same doubles in the same order, so the results are equal to the
//! bit. A 1 h cache write costs twice the (tier's) input rate, not the 5 min `cacheWrite` rate.
//!
//! A request whose model is not in the catalog is **not priced** ([`Unpriced`]), never `$0`.
//! The catalog is a parameter ([`Pricer::new`]): another release's catalog prices the same usage
//! with that release's rates.

use std::fmt;

use forge_replay_model::release::PiRelease;
use forge_replay_wire::{Catalog, Model};
use serde::Serialize;
use serde_json::Value;

use crate::totals::Totals;

/// USD per million tokens (one row of `model.cost`, or one of its `tiers`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// A model's `cost`: the base rates and the prompt-size tiers.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrices {
    pub base: Rates,
    /// `(inputTokensAbove, rates)` in catalog order.
    pub tiers: Vec<(f64, Rates)>,
}

/// The tokens `calculateCost` reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PricingUsage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `usage.cacheWrite1h` (the part of `cache_write` written with 1 h retention).
    pub cache_write_1h: f64,
}

impl PricingUsage {
    /// A request's counted tokens and its 1 h write share.
    pub fn of(t: &Totals, cache_write_1h: f64) -> PricingUsage {
        PricingUsage {
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write,
            cache_write_1h,
        }
    }

    /// `input + cacheRead + cacheWrite`: what the tiers compare against.
    pub fn prompt(&self) -> f64 {
        self.input + self.cache_read + self.cache_write
    }
}

/// `usage.cost` as `calculateCost` fills it, in USD.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
}

/// Why a request has no price.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unpriced {
    /// The request names no provider or no model.
    NoModel,
    /// The model is not in the release's catalog.
    NotInCatalog {
        provider: String,
        model: String,
        release: String,
    },
    /// The catalog model's `cost` cannot be read as pi-ai reads it.
    BadCost {
        provider: String,
        model: String,
        field: String,
    },
    /// A nested report sums several requests; a tiered model prices each request by its own
    /// prompt size, which the sum no longer shows.
    TieredAggregate { provider: String, model: String },
}

impl fmt::Display for Unpriced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unpriced::NoModel => f.write_str("the request names no provider/model"),
            Unpriced::NotInCatalog {
                provider,
                model,
                release,
            } => write!(
                f,
                "model {provider}/{model} is not in the pi-ai {release} catalog"
            ),
            Unpriced::BadCost {
                provider,
                model,
                field,
            } => write!(
                f,
                "model {provider}/{model}: cost.{field} is not a number in the catalog"
            ),
            Unpriced::TieredAggregate { provider, model } => write!(
                f,
                "model {provider}/{model} has prompt-size tiers; a nested report sums several \
                 requests, so it cannot be priced per request"
            ),
        }
    }
}

impl Serialize for Unpriced {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

fn rate(v: Option<&Value>, field: &str) -> Result<f64, String> {
    v.and_then(Value::as_f64).ok_or_else(|| field.to_owned())
}

fn rates_of(v: &Value, prefix: &str) -> Result<Rates, String> {
    Ok(Rates {
        input: rate(v.get("input"), &format!("{prefix}input"))?,
        output: rate(v.get("output"), &format!("{prefix}output"))?,
        cache_read: rate(v.get("cacheRead"), &format!("{prefix}cacheRead"))?,
        cache_write: rate(v.get("cacheWrite"), &format!("{prefix}cacheWrite"))?,
    })
}

impl ModelPrices {
    /// Reads `model.cost` (`{input, output, cacheRead, cacheWrite, tiers?}`). `Err` names the
    /// field that is missing or not a number (where pi-ai would compute `NaN` or throw).
    pub fn from_cost(cost: &Value) -> Result<ModelPrices, String> {
        if !cost.is_object() {
            return Err("(object)".to_owned());
        }
        let base = rates_of(cost, "")?;
        let mut tiers = Vec::new();
        match cost.get("tiers") {
            None | Some(Value::Null) => {}
            Some(Value::Array(list)) => {
                for (i, t) in list.iter().enumerate() {
                    let prefix = format!("tiers[{i}].");
                    let above = rate(
                        t.get("inputTokensAbove"),
                        &format!("{prefix}inputTokensAbove"),
                    )?;
                    tiers.push((above, rates_of(t, &prefix)?));
                }
            }
            Some(_) => return Err("tiers".to_owned()),
        }
        Ok(ModelPrices { base, tiers })
    }

    /// The catalog model's prices.
    pub fn of_model(model: &Model) -> Result<ModelPrices, Unpriced> {
        let cost = model.get("cost").cloned().unwrap_or(Value::Null);
        ModelPrices::from_cost(&cost).map_err(|field| Unpriced::BadCost {
            provider: model.provider().to_owned(),
            model: model.id().to_owned(),
            field,
        })
    }

    /// `calculateCost`'s tier choice for a prompt of `input_tokens` tokens.
    pub fn rates_for(&self, input_tokens: f64) -> &Rates {
        let mut rates = &self.base;
        let mut matched = -1.0;
        for (above, tier) in &self.tiers {
            if input_tokens > *above && *above > matched {
                rates = tier;
                matched = *above;
            }
        }
        rates
    }

    /// `calculateCost(model, usage)`.
    pub fn calculate(&self, usage: &PricingUsage) -> Price {
        let rates = self.rates_for(usage.prompt());
        let long_write = usage.cache_write_1h;
        let short_write = usage.cache_write - long_write;
        let input = (rates.input / 1_000_000.0) * usage.input;
        let output = (rates.output / 1_000_000.0) * usage.output;
        let cache_read = (rates.cache_read / 1_000_000.0) * usage.cache_read;
        let cache_write =
            (rates.cache_write * short_write + rates.input * 2.0 * long_write) / 1_000_000.0;
        Price {
            input,
            output,
            cache_read,
            cache_write,
            total: input + output + cache_read + cache_write,
        }
    }
}

/// Prices requests against one catalog.
#[derive(Debug, Clone)]
pub struct Pricer<'c> {
    catalog: &'c Catalog,
    release: String,
}

impl Pricer<'static> {
    /// The embedded pi-ai catalog of the default release (0.87.1).
    pub fn builtin() -> Pricer<'static> {
        Pricer::of(Catalog::builtin(PiRelease::DEFAULT))
    }
}

impl<'c> Pricer<'c> {
    /// Prices with `catalog`, named by the release it belongs to.
    pub fn of(catalog: &'c Catalog) -> Pricer<'c> {
        Pricer::new(catalog, catalog.release().version())
    }
}

impl<'c> Pricer<'c> {
    /// Prices with `catalog`, the catalog of pi-ai `release` (named in [`Unpriced`] reasons).
    pub fn new(catalog: &'c Catalog, release: &str) -> Pricer<'c> {
        Pricer {
            catalog,
            release: release.to_owned(),
        }
    }

    pub fn release(&self) -> &str {
        &self.release
    }

    pub fn catalog(&self) -> &'c Catalog {
        self.catalog
    }

    /// The prices of `provider/model`.
    pub fn prices(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Result<ModelPrices, Unpriced> {
        let (Some(p), Some(m)) = (
            provider.filter(|p| !p.is_empty()),
            model.filter(|m| !m.is_empty()),
        ) else {
            return Err(Unpriced::NoModel);
        };
        match self.catalog.get(p, m) {
            Some(model) => ModelPrices::of_model(model),
            None => Err(Unpriced::NotInCatalog {
                provider: p.to_owned(),
                model: m.to_owned(),
                release: self.release.clone(),
            }),
        }
    }

    /// The API the catalog gives `provider/model`, if it knows the model.
    pub fn api(&self, provider: &str, model: &str) -> Option<&'c str> {
        self.catalog.get(provider, model).map(|m| m.api_name())
    }

    /// One request's price.
    pub fn price(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
        usage: &PricingUsage,
    ) -> Result<Price, Unpriced> {
        Ok(self.prices(provider, model)?.calculate(usage))
    }

    /// A nested report's price: `calculateCost` on its sums, which is exact for an untiered
    /// model (every rate is linear in the tokens) and refused for a tiered one with more than
    /// one request.
    pub fn price_aggregate(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
        requests: f64,
        usage: &PricingUsage,
    ) -> Result<Price, Unpriced> {
        let prices = self.prices(provider, model)?;
        if !prices.tiers.is_empty() && requests > 1.0 {
            return Err(Unpriced::TieredAggregate {
                provider: provider.unwrap_or_default().to_owned(),
                model: model.unwrap_or_default().to_owned(),
            });
        }
        Ok(prices.calculate(usage))
    }
}

/// `(provider, model, prices)`.
type MemoEntry = (Box<str>, Box<str>, Result<ModelPrices, Unpriced>);

/// A small per-worker memo of [`Pricer::prices`] keyed by `(provider, model)`: a corpus file
/// names few models, and a catalog lookup scans the provider's model list.
#[derive(Debug, Default)]
pub struct PriceMemo {
    entries: Vec<MemoEntry>,
}

impl PriceMemo {
    pub fn prices<'m>(
        &'m mut self,
        pricer: &Pricer<'_>,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> &'m Result<ModelPrices, Unpriced> {
        let at = self.position(pricer, provider, model);
        &self.entries[at].2
    }

    /// The memo entry of `(provider, model)` (computed on first use), for [`PriceMemo::at`]:
    /// a caller that meets the same pair many times keeps the position instead of comparing
    /// the strings again.
    pub fn position(
        &mut self,
        pricer: &Pricer<'_>,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> usize {
        let (p, m) = (provider.unwrap_or(""), model.unwrap_or(""));
        match self
            .entries
            .iter()
            .position(|(ep, em, _)| **ep == *p && **em == *m)
        {
            Some(i) => i,
            None => {
                self.entries
                    .push((p.into(), m.into(), pricer.prices(provider, model)));
                self.entries.len() - 1
            }
        }
    }

    /// The prices at a [`PriceMemo::position`].
    pub fn at(&self, position: usize) -> &Result<ModelPrices, Unpriced> {
        &self.entries[position].2
    }
}

/// `true` when Pi's recorded cost and the computed price differ by more than rounding: a
/// millionth of the larger amount, or a nano-dollar per request (recorders that round each
/// component to 1e-9 USD).
pub fn disagrees(recorded: f64, priced: f64, requests: f64) -> bool {
    let tolerance = 1e-6 * recorded.abs().max(priced.abs()) + 5e-9 * requests.max(1.0);
    (recorded - priced).abs() > tolerance
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(input: f64, output: f64, read: f64, write: f64, write_1h: f64) -> PricingUsage {
        PricingUsage {
            input,
            output,
            cache_read: read,
            cache_write: write,
            cache_write_1h: write_1h,
        }
    }

    #[test]
    fn one_hour_writes_cost_twice_the_input_rate() {
        let p = ModelPrices::from_cost(
            &json!({"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25}),
        )
        .unwrap();
        let short = p.calculate(&usage(0.0, 0.0, 0.0, 1_000_000.0, 0.0));
        let long = p.calculate(&usage(0.0, 0.0, 0.0, 1_000_000.0, 1_000_000.0));
        assert_eq!(short.cache_write, 6.25);
        assert_eq!(long.cache_write, 10.0);
    }

    #[test]
    fn tiers_apply_above_their_threshold_only() {
        let p = ModelPrices::from_cost(&json!({"input": 2.5, "output": 15, "cacheRead": 0.25, "cacheWrite": 0,
            "tiers": [{"inputTokensAbove": 272000, "input": 5, "output": 22.5, "cacheRead": 0.5, "cacheWrite": 0}]}))
        .unwrap();
        assert_eq!(p.rates_for(272_000.0).input, 2.5);
        assert_eq!(p.rates_for(272_001.0).input, 5.0);
    }

    #[test]
    fn unknown_models_are_not_priced() {
        let pricer = Pricer::builtin();
        let u = usage(10.0, 10.0, 0.0, 0.0, 0.0);
        let err = pricer
            .price(Some("mistral"), Some("devstral-medium"), &u)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "model mistral/devstral-medium is not in the pi-ai {} catalog",
                PiRelease::DEFAULT.version()
            )
        );
        assert_eq!(pricer.price(None, Some("x"), &u), Err(Unpriced::NoModel));
    }

    #[test]
    fn malformed_costs_name_the_field() {
        assert_eq!(
            ModelPrices::from_cost(
                &json!({"input": 1, "output": "2", "cacheRead": 0, "cacheWrite": 0})
            ),
            Err("output".to_owned())
        );
        assert_eq!(
            ModelPrices::from_cost(
                &json!({"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "tiers": [{"input": 1}]})
            ),
            Err("tiers[0].inputTokensAbove".to_owned())
        );
    }

    #[test]
    fn rounding_is_not_a_disagreement() {
        assert!(!disagrees(0.1 + 0.2, 0.3, 1.0));
        assert!(!disagrees(1.000_000_002, 1.0, 1.0));
        assert!(disagrees(1.01, 1.0, 1.0));
        assert!(disagrees(0.0, 1e-6, 1.0));
    }
}
