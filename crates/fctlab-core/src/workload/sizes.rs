//! Flow-size distributions, sampled by inversion from one uniform draw each.
//!
//! Each distribution is a registry entry whose parameter table is the
//! traffic entry's `sizes` table without its `dist` key. The laws built from
//! other laws or from data, `mixture` and `empirical`, have files of their own
//! ([`super::mixture`], [`super::empirical`]).

use crate::config::{at_most, documented, err, positive, ConfigError, Entry, ParamDoc, Params, Table, MAX_FLOW_PKTS};
use crate::sim::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// The largest mean flow size of any law, in packets (1.5 TB of 1500-byte
/// packets); single draws may reach [`MAX_FLOW_PKTS`].
pub const MAX_MEAN_PKTS: f64 = 1e9;

/// The largest Pareto shape: above it x_m = mean (shape - 1)/shape is within
/// 0.1% of the mean and the law is a fixed size in all but name (and mean x
/// (shape - 1) overflows f64 past shape 1e299).
pub const MAX_PARETO_SHAPE: f64 = 1000.0;

/// The largest share of a Pareto law's mean that may lie in draws beyond
/// [`MAX_FLOW_PKTS`], where they are cut: (x_m / cap)^(shape - 1) (the
/// integral of x f(x) above the cap over the mean). Beyond it the nominal
/// mean, which sets the arrival rate for a load, is not the mean of the draws.
pub const MAX_PARETO_CUT_SHARE: f64 = 0.1;

/// A flow-size distribution, in packets (each `mss_bytes` of payload).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Pareto with the given mean and shape (> 1): scale x_m = mean (shape-1)/shape,
    /// X = x_m / U^(1/shape); sizes are rounded up to whole packets.
    Pareto { mean_pkts: f64, shape: f64 },
    /// Every flow the same size.
    Fixed { pkts: u64 },
    /// Uniform over the integers [min_pkts, max_pkts].
    Uniform { min_pkts: u64, max_pkts: u64 },
    /// Exponential with the given mean, rounded up to whole packets.
    Exponential { mean_pkts: f64 },
    /// Uniform over min_pkts, min_pkts + step_pkts, ..., max_pkts (step > 1;
    /// `uniform` with `step_pkts`).
    Lattice {
        min_pkts: u64,
        step_pkts: u64,
        max_pkts: u64,
    },
    /// Components drawn with given weights ([`super::mixture`]).
    Mixture(super::mixture::Mixture),
    /// Values with probabilities, or a CDF table ([`super::empirical`]).
    Empirical(super::empirical::Empirical),
}

/// What a size distribution's factory may need besides its table.
#[derive(Clone, Copy)]
pub struct SizeContext {
    /// Payload bytes per packet, to turn byte sizes into packets.
    pub mss_bytes: u32,
    /// The size registry, for laws built from other laws (`mixture`).
    pub sizes: &'static [SizeEntry],
}

/// Checks a distribution's table and returns it.
pub type SizeFactory = fn(Table, &SizeContext) -> Result<SizeDist, ConfigError>;

impl SizeContext {
    /// Resolve a sizes table `{ dist = "<name>", ...its parameters }` given at
    /// `field` through the size registry.
    pub fn resolve(&self, v: &serde_json::Value, field: &str) -> Result<SizeDist, ConfigError> {
        let Some(obj) = v.as_object() else {
            return err(field, "expected a table { dist = ..., ... }");
        };
        let dist = match obj.get("dist") {
            Some(serde_json::Value::String(d)) => d.as_str(),
            Some(_) => return err(format!("{field}.dist"), "expected a string"),
            None => return err(format!("{field}.dist"), "required key is missing"),
        };
        let entry = crate::config::find(self.sizes, &format!("{field}.dist"), dist)?;
        let mut rest = obj.clone();
        rest.remove("dist");
        let rest = serde_json::Value::Object(rest);
        let d = (entry.factory)(Table::new(Some(&rest), field), self)?;
        let m = d.mean_pkts();
        if m > MAX_MEAN_PKTS {
            return err(
                field,
                format!("the mean flow size must be at most {MAX_MEAN_PKTS:e} packets, got {m:.3e}"),
            );
        }
        Ok(d)
    }
}

/// A registered size distribution (see `crate::registry::SIZES`).
pub type SizeEntry = Entry<SizeFactory>;

/// A mean given in packets or in bytes (exactly one of them).
fn mean_of(t: &Table, mean_pkts: Option<f64>, mean_bytes: Option<f64>, mss: u32) -> Result<f64, ConfigError> {
    let (m, key) = match (mean_pkts, mean_bytes) {
        (Some(m), None) => (positive(&t.key("mean_pkts"), m)?, "mean_pkts"),
        (None, Some(b)) => (positive(&t.key("mean_bytes"), b)? / mss as f64, "mean_bytes"),
        (Some(_), Some(_)) => return err(t.key("mean_bytes"), "give mean_pkts or mean_bytes, not both"),
        (None, None) => return err(t.key("mean_pkts"), "required key is missing (or give mean_bytes)"),
    };
    if m > MAX_MEAN_PKTS {
        return err(
            t.key(key),
            format!("a mean of at most {MAX_MEAN_PKTS:e} packets is allowed, got {m:.3e}"),
        );
    }
    Ok(m)
}

/// `sizes = { dist = "pareto", ... }`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ParetoCfg {
    pub mean_pkts: Option<f64>,
    pub mean_bytes: Option<f64>,
    pub shape: Option<f64>,
}

impl Params for ParetoCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("mean_pkts", "required (or mean_bytes): the mean flow size, at most 1e9 packets"),
        ParamDoc::new("mean_bytes", "the mean in payload bytes, instead of mean_pkts"),
        ParamDoc::new(
            "shape",
            "required, > 1 and at most 1000, and heavy enough in its tail that at most 10% of the mean lies beyond the 10^12-packet cap on a flow (shape 1.2: mean up to 6e7 packets) (the 2006 FCT paper: 1.2; its released scripts: 1.8)",
        ),
    ];
}

pub const PARETO: SizeEntry = Entry {
    name: "pareto",
    description: "Pareto by mean and shape, rounded up to whole packets",
    table: None,
    params: documented::<ParetoCfg>,
    requires: None,
    factory: |t, cx| {
        let c: ParetoCfg = t.parse()?;
        let shape = c
            .shape
            .ok_or_else(|| ConfigError::new(t.key("shape"), "required key is missing"))?;
        if !(shape.is_finite() && shape > 1.0) {
            return err(
                t.key("shape"),
                format!("must be > 1 (the mean is infinite otherwise), got {shape}"),
            );
        }
        if shape > MAX_PARETO_SHAPE {
            return err(
                t.key("shape"),
                format!("must be at most {MAX_PARETO_SHAPE} (above it the law is a fixed size; use dist = \"fixed\"), got {shape}"),
            );
        }
        let mean_pkts = mean_of(&t, c.mean_pkts, c.mean_bytes, cx.mss_bytes)?;
        let xm = mean_pkts * (shape - 1.0) / shape;
        let cut = (xm / MAX_FLOW_PKTS as f64).powf(shape - 1.0);
        if cut > MAX_PARETO_CUT_SHARE {
            return err(
                t.key("shape"),
                format!("is too heavy-tailed for a mean of {mean_pkts} packets: {:.0}% of the mean lies in flows over the {MAX_FLOW_PKTS:e}-packet cap, at most 10% may (a larger shape or a smaller mean)", cut * 100.0),
            );
        }
        Ok(SizeDist::Pareto { mean_pkts, shape })
    },
};

/// `sizes = { dist = "exponential", ... }`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExponentialCfg {
    pub mean_pkts: Option<f64>,
    pub mean_bytes: Option<f64>,
}

impl Params for ExponentialCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "mean_pkts",
            "required (or mean_bytes): the mean flow size, at most 1e9 packets",
        ),
        ParamDoc::new("mean_bytes", "the mean in payload bytes, instead of mean_pkts"),
    ];
}

pub const EXPONENTIAL: SizeEntry = Entry {
    name: "exponential",
    description: "exponential by mean, rounded up to whole packets",
    table: None,
    params: documented::<ExponentialCfg>,
    requires: None,
    factory: |t, cx| {
        let c: ExponentialCfg = t.parse()?;
        Ok(SizeDist::Exponential {
            mean_pkts: mean_of(&t, c.mean_pkts, c.mean_bytes, cx.mss_bytes)?,
        })
    },
};

/// `sizes = { dist = "fixed", ... }`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FixedCfg {
    pub pkts: Option<u64>,
    pub bytes: Option<u64>,
}

impl Params for FixedCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("pkts", "the size in packets (give pkts or bytes), at most 1e9"),
        ParamDoc::new("bytes", "the size in payload bytes, rounded up to whole packets"),
    ];
}

pub const FIXED: SizeEntry = Entry {
    name: "fixed",
    description: "every flow the same size",
    table: None,
    params: documented::<FixedCfg>,
    requires: None,
    factory: |t, cx| {
        let c: FixedCfg = t.parse()?;
        let pkts = match (c.pkts, c.bytes) {
            (Some(p), None) => p,
            (None, Some(b)) => b.div_ceil(cx.mss_bytes as u64),
            _ => return err(t.key("pkts"), "give exactly one of pkts or bytes"),
        };
        if pkts == 0 {
            return err(t.key("pkts"), "must be at least 1");
        }
        at_most(&t.key("pkts"), pkts, MAX_FLOW_PKTS, "10^12 packets")?;
        Ok(SizeDist::Fixed { pkts })
    },
};

/// `sizes = { dist = "uniform", ... }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UniformCfg {
    pub min_pkts: Option<u64>,
    pub max_pkts: Option<u64>,
    pub step_pkts: u64,
}

impl Default for UniformCfg {
    fn default() -> Self {
        UniformCfg {
            min_pkts: None,
            max_pkts: None,
            step_pkts: 1,
        }
    }
}

impl Params for UniformCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("min_pkts", "required, >= 1"),
        ParamDoc::new("max_pkts", "required, >= min_pkts (with step_pkts: min_pkts plus a multiple of it)"),
        ParamDoc::new("step_pkts", "spacing of the values: 1 is every whole packet; Mussmann 2012 draws its marker flows from every 25th size, 100..1075"),
    ];
}

pub const UNIFORM: SizeEntry = Entry {
    name: "uniform",
    description: "uniform over whole packets in [min, max], or over min, min + step, ..., max",
    table: None,
    params: documented::<UniformCfg>,
    requires: None,
    factory: |t, _| {
        let c: UniformCfg = t.parse()?;
        let (lo, hi) = match (c.min_pkts, c.max_pkts) {
            (Some(a), Some(b)) => (a, b),
            _ => return err(t.key("min_pkts"), "uniform needs min_pkts and max_pkts"),
        };
        if lo == 0 || hi < lo {
            return err(
                t.key("max_pkts"),
                format!("need 1 <= min_pkts <= max_pkts, got {lo}..{hi}"),
            );
        }
        at_most(&t.key("max_pkts"), hi, MAX_FLOW_PKTS, "10^12 packets")?;
        match c.step_pkts {
            0 => err(t.key("step_pkts"), "must be at least 1"),
            // Step 1 keeps the plain law (and its draws) exactly.
            1 => Ok(SizeDist::Uniform {
                min_pkts: lo,
                max_pkts: hi,
            }),
            s if (hi - lo) % s != 0 => err(
                t.key("max_pkts"),
                format!("must be min_pkts plus a multiple of step_pkts = {s}, got {lo}..{hi}"),
            ),
            s => Ok(SizeDist::Lattice {
                min_pkts: lo,
                step_pkts: s,
                max_pkts: hi,
            }),
        }
    },
};

impl SizeDist {
    /// Draw a size in packets: at least 1, and at most `MAX_FLOW_PKTS` (the
    /// far tail of a heavy-tailed law is cut there; no test workload reaches it).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match *self {
            SizeDist::Pareto { mean_pkts, shape } => {
                let xm = mean_pkts * (shape - 1.0) / shape;
                let u = 1.0 - rng.random::<f64>(); // (0, 1]
                let x = xm / libm::pow(u, 1.0 / shape);
                (x.ceil() as u64).clamp(1, MAX_FLOW_PKTS)
            }
            SizeDist::Fixed { pkts } => pkts,
            SizeDist::Uniform { min_pkts, max_pkts } => rng.random_range(min_pkts..=max_pkts),
            SizeDist::Exponential { mean_pkts } => {
                let x = super::exponential(rng, mean_pkts);
                (x.ceil() as u64).clamp(1, MAX_FLOW_PKTS)
            }
            SizeDist::Lattice {
                min_pkts,
                step_pkts,
                max_pkts,
            } => min_pkts + step_pkts * rng.random_range(0..=(max_pkts - min_pkts) / step_pkts),
            SizeDist::Mixture(ref m) => m.sample(rng),
            SizeDist::Empirical(ref e) => e.sample(rng),
        }
    }

    /// The nominal mean in packets (before rounding up), used to set the
    /// arrival rate for a target load. Laws of whole packets (fixed, uniform,
    /// empirical) give the exact mean of their draws; a mixture the weighted
    /// mean of its components' means.
    pub fn mean_pkts(&self) -> f64 {
        match *self {
            SizeDist::Pareto { mean_pkts, .. } | SizeDist::Exponential { mean_pkts } => mean_pkts,
            SizeDist::Fixed { pkts } => pkts as f64,
            SizeDist::Uniform { min_pkts, max_pkts } | SizeDist::Lattice { min_pkts, max_pkts, .. } => {
                (min_pkts + max_pkts) as f64 / 2.0
            }
            SizeDist::Mixture(ref m) => m.mean_pkts(),
            SizeDist::Empirical(ref e) => e.mean_pkts(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::stream_rng;

    #[test]
    fn pareto_sample_mean_and_tail() {
        // Shape 2.5 has finite variance, so the sample mean converges quickly.
        let d = SizeDist::Pareto {
            mean_pkts: 30.0,
            shape: 2.5,
        };
        let mut r = stream_rng(1, 0);
        let n = 400_000;
        let xs: Vec<u64> = (0..n).map(|_| d.sample(&mut r)).collect();
        // Rounding up adds about half a packet to the mean of the continuous law.
        let mean = xs.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - 30.5).abs() < 0.5, "mean {mean}");
        // P(X > x) = (x_m / x)^shape with x_m = 18: P(X > 36) = 2^-2.5 = 0.1768.
        let tail = xs.iter().filter(|&&x| x > 36).count() as f64 / n as f64;
        assert!((tail - 0.1768).abs() < 0.004, "tail {tail}");
    }

    #[test]
    fn uniform_and_fixed() {
        let mut r = stream_rng(1, 0);
        let d = SizeDist::Uniform {
            min_pkts: 3,
            max_pkts: 5,
        };
        let xs: Vec<u64> = (0..1000).map(|_| d.sample(&mut r)).collect();
        assert!(xs.iter().all(|&x| (3..=5).contains(&x)));
        assert!((3..=5).all(|v| xs.contains(&v)));
        assert_eq!(SizeDist::Fixed { pkts: 7 }.sample(&mut r), 7);
    }
}
