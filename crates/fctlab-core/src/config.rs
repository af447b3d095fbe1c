//! The bottom of configuration: refusals, parameter tables and registry entries.
//!
//! Every building block (a congestion controller, a queue discipline, a
//! topology, a size distribution, an arrival process) is a registry [`Entry`]
//! of one shape: a stable name, a description, an optional parameter table
//! with cited defaults, and a factory that checks its own table. Building
//! blocks import this module and nothing of [`crate::scenario`]; the scenario
//! layer sits on top, looks entries up by name and hands each its table.
//!
//! A parameter table is a `serde` struct implementing [`Params`]: its
//! `Default` is the one place its defaults are written, and [`documented`]
//! reads them from there for `fctlab list`, the reference pages and report captions.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// A refused scenario: the key (dotted path) and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// A deserialisation message in the user's words:
/// "invalid type: floating point `2.5`, expected u64" becomes
/// "expected a whole number >= 0, got 2.5" (serde's own names of Rust types
/// mean nothing to someone writing a TOML file).
pub fn plain_words(msg: &str) -> String {
    let body = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "));
    let Some((got, expected)) = body.and_then(|b| b.rsplit_once(", expected ")) else {
        return msg.to_string();
    };
    let expected = match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number >= 0".to_string(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a sequence" => "a list".to_string(),
        "a map" => "a table".to_string(),
        e if e.starts_with("struct ") => "a table".to_string(),
        e => e.to_string(),
    };
    let got = if let Some(s) = got.strip_prefix("string ") {
        format!("the text {s}")
    } else if let Some(rest) = ["floating point ", "integer ", "boolean "]
        .iter()
        .find_map(|p| got.strip_prefix(p))
    {
        rest.trim_matches('`').to_string()
    } else {
        match got {
            "sequence" => "a list".to_string(),
            "map" => "a table".to_string(),
            "unit" | "null" => "nothing".to_string(),
            g => g.to_string(),
        }
    };
    format!("expected {expected}, got {got}")
}

/// The whole-number value of an integral float ("count = 2.5e4"), if `e`
/// refuses one where a whole number is expected.
fn integral_float(e: &serde_json::Error) -> bool {
    let msg = e.to_string();
    let Some(rest) = msg.strip_prefix("invalid type: floating point `") else {
        return false;
    };
    let Some((num, expected)) = rest.split_once("`, expected ") else {
        return false;
    };
    let whole = expected.starts_with('u') || expected.starts_with('i');
    whole
        && num
            .parse::<f64>()
            .is_ok_and(|x| x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15)
}

/// Turn the integral floats at `path` into integers, in every element of the
/// lists along it (a list's elements share one type).
fn make_whole(v: &mut Value, path: &[serde_path_to_error::Segment]) {
    use serde_path_to_error::Segment;
    match (path.split_first(), v) {
        (None, v) => {
            if let Some(x) = v.as_f64().filter(|x| x.fract() == 0.0 && v.is_f64()) {
                *v = if x < 0.0 {
                    Value::from(x as i64)
                } else {
                    Value::from(x as u64)
                };
            }
        }
        (Some((Segment::Seq { .. }, rest)), Value::Array(items)) => {
            items.iter_mut().for_each(|item| make_whole(item, rest));
        }
        (Some((Segment::Map { key }, rest)), Value::Object(m)) => {
            if let Some(item) = m.get_mut(key) {
                make_whole(item, rest);
            }
        }
        _ => {}
    }
}

/// Deserialise `v`, naming the key of an error; a float with no fractional
/// part is accepted where a whole number is expected (TOML's `2.5e4`).
pub fn from_value<T: DeserializeOwned>(mut v: Value) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    loop {
        match serde_path_to_error::deserialize(&v) {
            Err(e) if integral_float(e.inner()) => {
                let path: Vec<_> = e.path().iter().cloned().collect();
                let before = v.clone();
                make_whole(&mut v, &path);
                if v == before {
                    return Err(e);
                }
            }
            r => return r,
        }
    }
}

/// `Err(ConfigError)` naming `field`.
pub fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError::new(field, message))
}

/// A finite number > 0.
pub fn positive(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        err(field, format!("must be a positive number, got {v}"))
    }
}

/// A finite number >= 0.
pub fn non_negative(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        err(field, format!("must be a number >= 0, got {v}"))
    }
}

/// The longest simulated time a scenario may name (10^6 s, about 11.6 days):
/// any sum of a few such times stays far inside integer nanoseconds (u64
/// holds 1.8e10 s), so no time can overflow.
pub const MAX_SECONDS: f64 = 1e6;

/// The slowest and fastest link rates: at 1 b/s a 1 MB packet takes 8e6 s
/// of serialisation, still an integer number of nanoseconds; 10^15 b/s is
/// 10,000 times today's fastest links.
pub const MIN_RATE_BPS: f64 = 1.0;
pub const MAX_RATE_BPS: f64 = 1e15;

/// The largest flow, in packets (a flow this long at 10^15 b/s would outlast
/// [`MAX_SECONDS`]).
pub const MAX_FLOW_PKTS: u64 = 1_000_000_000_000;

/// The shortest timer or period a scenario may name: 1 microsecond. Time is
/// integer nanoseconds, so a shorter one rounds to a handful of ns or to 0
/// (a timer that fires again at once, forever); no protocol or sampler in
/// fctlab has a meaningful period below a microsecond.
pub const MIN_PERIOD_S: f64 = 1e-6;

/// Check a duration `v` given in `unit` (`s`, `ms`, with `per_s` of them in
/// a second): finite, >= 0, at most [`MAX_SECONDS`]; with `period`, a timer
/// or period, at least [`MIN_PERIOD_S`].
fn duration(field: &str, v: f64, period: bool, unit: &str, per_s: f64) -> Result<f64, ConfigError> {
    let (lo, hi) = (MIN_PERIOD_S * per_s, MAX_SECONDS * per_s);
    if !(v.is_finite() && v >= 0.0 && (v > 0.0 || !period)) {
        return err(
            field,
            if period {
                format!(
                    "must be a positive number of {}, at least {lo} {unit} and at most {hi:e} {unit}, got {v}",
                    unit_name(unit)
                )
            } else {
                format!("must be a number of {} >= 0, got {v}", unit_name(unit))
            },
        );
    }
    if period && v < lo {
        return err(
            field,
            format!("must be at least {lo} {unit} (a microsecond: time is integer ns and a shorter timer or period rounds to nothing), got {v}"),
        );
    }
    if v > hi {
        return err(
            field,
            format!("must be at most {hi:e} {unit} (the simulated time fctlab can hold with room to spare), got {v}"),
        );
    }
    Ok(v)
}

fn unit_name(unit: &str) -> &'static str {
    match unit {
        "s" => "seconds",
        "ms" => "milliseconds",
        _ => "microseconds",
    }
}

/// A duration in seconds: finite, >= 0, at most [`MAX_SECONDS`]; a timer or
/// period (`period`) is at least [`MIN_PERIOD_S`].
pub fn duration_s(field: &str, v: f64, period: bool) -> Result<f64, ConfigError> {
    duration(field, v, period, "s", 1.0)
}

/// A duration in milliseconds: finite, >= 0, at most [`MAX_SECONDS`]; a
/// timer or period (`period`) is at least [`MIN_PERIOD_S`] (0.001 ms).
pub fn duration_ms(field: &str, v: f64, period: bool) -> Result<f64, ConfigError> {
    duration(field, v, period, "ms", 1e3)
}

/// A duration in microseconds: finite, >= 0, at most [`MAX_SECONDS`]; a
/// timer or period (`period`) is at least [`MIN_PERIOD_S`] (1 us).
pub fn duration_us(field: &str, v: f64, period: bool) -> Result<f64, ConfigError> {
    duration(field, v, period, "us", 1e6)
}

/// A link rate in bits/s, within [`MIN_RATE_BPS`, `MAX_RATE_BPS`].
pub fn rate_bps(field: &str, v: f64) -> Result<f64, ConfigError> {
    if !(v.is_finite() && v > 0.0) {
        return err(field, format!("must be a positive number, got {v}"));
    }
    if !(MIN_RATE_BPS..=MAX_RATE_BPS).contains(&v) {
        return err(
            field,
            format!("must be between {MIN_RATE_BPS} and {MAX_RATE_BPS:e} bits/s, got {v}"),
        );
    }
    Ok(v)
}

/// An integer at most `max`.
pub fn at_most(field: &str, v: u64, max: u64, why: &str) -> Result<u64, ConfigError> {
    if v > max {
        return err(field, format!("must be at most {max} ({why}), got {v}"));
    }
    Ok(v)
}

/// `v` must be one of `allowed`.
pub fn one_of(field: &str, v: &str, allowed: &[&str]) -> Result<(), ConfigError> {
    if allowed.contains(&v) {
        Ok(())
    } else {
        err(field, format!("unknown value {v:?}; allowed: {}", allowed.join(", ")))
    }
}

/// A building block's parameter table as the user gave it (or not), with its
/// dotted key (`network.red`, `transport.hstcp`, `traffic[0].sizes`).
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    pub value: Option<&'a Value>,
    pub field: &'a str,
}

impl<'a> Table<'a> {
    pub fn new(value: Option<&'a Value>, field: &'a str) -> Self {
        Table { value, field }
    }

    /// No table given: every parameter at its default.
    pub fn absent(field: &'a str) -> Self {
        Table { value: None, field }
    }

    /// The dotted key of parameter `key` of this table.
    pub fn key(&self, key: &str) -> String {
        format!("{}.{key}", self.field)
    }

    /// Parse the table (unknown keys and wrong types refused, naming the key),
    /// fill in the defaults and check the values.
    pub fn parse<T: Params>(&self) -> Result<T, ConfigError> {
        let t: T = match self.value {
            None => T::default(),
            Some(v) => from_value(v.clone()).map_err(|e| {
                let path = e.path().to_string();
                let msg = plain_words(&e.into_inner().to_string());
                let field = if path == "." {
                    self.field.to_string()
                } else {
                    format!("{}.{path}", self.field)
                };
                let msg = msg
                    .strip_prefix("unknown field ")
                    .map(|r| format!("unknown key {r}"))
                    .unwrap_or(msg);
                ConfigError { field, message: msg }
            })?,
        };
        t.validate(self.field)?;
        Ok(t)
    }

    /// The raw value of `key`, if the table gives it.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.value.and_then(|v| v.get(key))
    }
}

/// One documented parameter: its key, and the source of its default (a paper,
/// an RFC, a reference implementation). Where the default is a placeholder
/// for a value derived at run time (RED's automatic thresholds), `derived`
/// says how.
#[derive(Clone, Copy, Debug)]
pub struct ParamDoc {
    pub key: &'static str,
    pub source: &'static str,
    pub derived: &'static str,
}

impl ParamDoc {
    pub const fn new(key: &'static str, source: &'static str) -> Self {
        ParamDoc {
            key,
            source,
            derived: "",
        }
    }

    /// A parameter whose default stands for a value derived at run time.
    pub const fn derived(key: &'static str, derived: &'static str, source: &'static str) -> Self {
        ParamDoc { key, source, derived }
    }
}

/// A parameter table: a `serde` struct whose `Default` holds the defaults.
pub trait Params: DeserializeOwned + Serialize + Default {
    /// One entry per key, in the order `fctlab list` shows them.
    const DOCS: &'static [ParamDoc];
    /// Check the values (`field` is the table's dotted key).
    fn validate(&self, _field: &str) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// A building block without parameters.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

impl Params for NoParams {
    const DOCS: &'static [ParamDoc] = &[];
}

/// A parameter as `fctlab list` shows it: the default is read from the
/// table's `Default`, so it is the value in effect.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub key: &'static str,
    pub default: Value,
    pub derived: &'static str,
    pub source: &'static str,
}

impl ParamInfo {
    /// The default as `fctlab list` writes it: the value in its shortest form
    /// (`5`, `0.1`, `1e-7`, `true`, `flow`), followed by how a placeholder is
    /// resolved; a default that is absent (`null`) is written as its derivation.
    pub fn default_text(&self) -> String {
        let v = match &self.default {
            Value::Null => return self.derived.to_string(),
            Value::Number(n) => match n.as_f64() {
                Some(x) if x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e16) => format!("{x:e}"),
                Some(x) => format!("{x}"),
                None => n.to_string(),
            },
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if self.derived.is_empty() {
            v
        } else {
            format!("{v} ({})", self.derived)
        }
    }
}

/// The documented parameters of table type `T`, defaults taken from `T::default()`.
///
/// Panics (a bug, caught by the registry's tests) if `T::DOCS` and the
/// table's keys differ.
pub fn documented<T: Params>() -> Vec<ParamInfo> {
    let d = serde_json::to_value(T::default()).unwrap_or(Value::Null);
    let keys: Vec<&String> = d.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    for k in &keys {
        assert!(
            T::DOCS.iter().any(|p| p.key == k.as_str()),
            "parameter {k} of {} is not documented",
            std::any::type_name::<T>()
        );
    }
    T::DOCS
        .iter()
        .map(|p| {
            let default = d.get(p.key).cloned().unwrap_or_else(|| {
                panic!(
                    "documented parameter {} is not a key of {}",
                    p.key,
                    std::any::type_name::<T>()
                )
            });
            ParamInfo {
                key: p.key,
                default,
                derived: p.derived,
                source: p.source,
            }
        })
        .collect()
}

/// One registered building block. `F` is the factory type of its kind.
#[derive(Clone, Copy)]
pub struct Entry<F: 'static> {
    /// The stable lowercase name used in TOML, Python and the CLI.
    pub name: &'static str,
    pub description: &'static str,
    /// Its parameter table's key under its section (`red` for `[network.red]`),
    /// if it has parameters.
    pub table: Option<&'static str>,
    /// Its parameters with their defaults and sources (`documented::<T>`).
    pub params: fn() -> Vec<ParamInfo>,
    /// Another building block it needs alongside (a scheme's router queue).
    pub requires: Option<&'static str>,
    /// Checks the table and builds the block.
    pub factory: F,
}

/// Look an entry up by name.
pub fn lookup<F>(registry: &'static [Entry<F>], name: &str) -> Option<&'static Entry<F>> {
    registry.iter().find(|e| e.name == name)
}

/// The names of a registry's entries, in order.
pub fn names<F>(registry: &'static [Entry<F>]) -> Vec<&'static str> {
    registry.iter().map(|e| e.name).collect()
}

/// Look `name` up in `registry`, or refuse it at `field`, listing the allowed names.
pub fn find<F>(registry: &'static [Entry<F>], field: &str, name: &str) -> Result<&'static Entry<F>, ConfigError> {
    lookup(registry, name).ok_or_else(|| {
        ConfigError::new(
            field,
            format!("unknown value {name:?}; allowed: {}", names(registry).join(", ")),
        )
    })
}
