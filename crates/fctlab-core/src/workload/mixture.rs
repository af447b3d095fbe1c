//! `mixture`: a size law made of other size laws, each drawn with a given
//! weight. Each component is any registered law, written as a `sizes` table
//! of its own plus its `weight`:
//!
//! ```toml
//! # Mussmann 2012, section 5.1: 1 flow in 500 is a "marker" flow whose size is
//! # uniform over every 25th packet count from 100 to 1075; the rest are Pareto
//! # with mean 25 and shape 1.2.
//! sizes = { dist = "mixture", components = [
//!     { weight = 499, dist = "pareto", mean_pkts = 25, shape = 1.2 },
//!     { weight = 1, dist = "uniform", min_pkts = 100, max_pkts = 1075, step_pkts = 25 } ] }
//! ```
//!
//! A draw takes one uniform number to choose the component (by inversion of
//! the cumulative weights, in the order written), then the component's own
//! draws from the same stream. The mean is the weighted mean of the
//! components' means, exactly what the Poisson rate for a given load needs.

use super::sizes::{SizeDist, SizeEntry};
use crate::config::{documented, err, positive, ConfigError, Entry, ParamDoc, Params};
use crate::sim::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Components with their cumulative weights, normalised to end at 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Mixture {
    /// (cumulative probability up to and including this component, its law).
    parts: Vec<(f64, SizeDist)>,
    /// Each component's probability (weight / total weight).
    probs: Vec<f64>,
}

impl Mixture {
    /// A mixture of `(weight, law)` pairs; weights are positive and finite.
    pub fn new(components: Vec<(f64, SizeDist)>) -> Mixture {
        let total: f64 = components.iter().map(|c| c.0).sum();
        let mut acc = 0.0;
        let probs = components.iter().map(|c| c.0 / total).collect();
        let n = components.len();
        let parts = components
            .into_iter()
            .enumerate()
            .map(|(i, (w, d))| {
                acc += w;
                // The last bound is exactly 1, so every u in [0, 1) finds a component.
                (if i + 1 == n { 1.0 } else { acc / total }, d)
            })
            .collect();
        Mixture { parts, probs }
    }

    /// The components' laws, in order.
    pub fn components(&self) -> impl Iterator<Item = &SizeDist> {
        self.parts.iter().map(|p| &p.1)
    }

    /// Each component's probability.
    pub fn probabilities(&self) -> &[f64] {
        &self.probs
    }

    /// Draw a size: one uniform number picks the component, which then draws.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.random::<f64>();
        let i = self.parts.partition_point(|p| p.0 <= u).min(self.parts.len() - 1);
        self.parts[i].1.sample(rng)
    }

    /// Sum of probability x component mean.
    pub fn mean_pkts(&self) -> f64 {
        self.probs
            .iter()
            .zip(&self.parts)
            .map(|(p, c)| p * c.1.mean_pkts())
            .sum()
    }
}

/// `sizes = { dist = "mixture", components = [...] }`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MixtureCfg {
    pub components: Vec<serde_json::Value>,
}

impl Params for MixtureCfg {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "components",
        "required: a list of sizes tables { weight = w, dist = \"<law>\", ...its parameters }, drawn with probability weight / total weight (Mussmann 2012 mixes 1-in-500 marker flows into Pareto sizes)",
    )];
}

pub const ENTRY: SizeEntry = Entry {
    name: "mixture",
    description: "a mixture of registered size laws with weights: components = [{ weight, dist, ... }, ...]",
    table: None,
    params: documented::<MixtureCfg>,
    requires: None,
    factory: |t, cx| {
        let c: MixtureCfg = t.parse()?;
        if c.components.is_empty() {
            return err(
                t.key("components"),
                "required: at least one component { weight = ..., dist = ..., ... }",
            );
        }
        let mut parts = Vec::with_capacity(c.components.len());
        for (i, v) in c.components.iter().enumerate() {
            let field = format!("{}.components[{i}]", t.field);
            let Some(obj) = v.as_object() else {
                return err(field, "expected a table { weight = ..., dist = ..., ... }");
            };
            let w = match obj.get("weight") {
                Some(w) => w
                    .as_f64()
                    .ok_or_else(|| ConfigError::new(format!("{field}.weight"), "expected a number"))?,
                None => return err(format!("{field}.weight"), "required key is missing"),
            };
            let w = positive(&format!("{field}.weight"), w)?;
            let mut rest = obj.clone();
            rest.remove("weight");
            parts.push((w, cx.resolve(&serde_json::Value::Object(rest), &field)?));
        }
        Ok(SizeDist::Mixture(Mixture::new(parts)))
    },
};
