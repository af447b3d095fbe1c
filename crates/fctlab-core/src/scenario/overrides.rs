//! Transport settings per sender, per traffic entry and per flow.
//!
//! `[transport]` holds the run's settings. `transport.per_sender[i]` overrides
//! any of its keys for sender *i*'s flows, and a `[[traffic]]` or `[[flows]]`
//! entry's own `transport` table overrides them again for that entry's flows
//! (so one run can mix schemes, initial windows or reference RTTs). Packet
//! sizes and the handshake stay run-wide: loads, line rates, flow sizes and
//! the PS baseline are computed from them. Each distinct merged table is
//! resolved once into its endpoint builder; flows carry its index.

use super::{de_error, set_aside_tcp_options, TransportCfg};
use crate::config::{err, ConfigError};
use crate::registry::Registries;
use crate::transport::{EndpointBuilder, TransportParams};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Keys an override may not set, and why.
const RUN_WIDE: &[&str] = &["mss_bytes", "header_bytes", "handshake", "per_sender"];

/// The run's distinct transports; index 0 is `[transport]` itself.
pub struct Transports {
    pub list: Vec<(TransportParams, EndpointBuilder)>,
    /// The scheme of each entry of `list`.
    pub schemes: Vec<String>,
    keys: HashMap<String, u16>,
    base: Map<String, Value>,
    per_sender: Vec<Option<Map<String, Value>>>,
    tables: Vec<&'static str>,
    queue: String,
}

impl Transports {
    /// The base transport (already resolved) and the per-sender overrides,
    /// each checked on its own so its errors name its entry.
    pub fn new(
        t: &TransportCfg,
        base: (TransportParams, EndpointBuilder),
        senders: u32,
        queue: &str,
        reg: &Registries,
    ) -> Result<Self, ConfigError> {
        let mut raw = match serde_json::to_value(t) {
            Ok(Value::Object(m)) => m,
            _ => unreachable!("TransportCfg serialises to an object"),
        };
        raw.remove("per_sender");
        for (k, v) in t.tables.iter().chain(&t.tcp) {
            raw.insert(k.clone(), v.clone());
        }
        let key = canonical(&raw);
        let mut me = Transports {
            list: vec![base],
            schemes: vec![t.scheme.clone()],
            keys: HashMap::from([(key, 0)]),
            base: raw,
            per_sender: Vec::new(),
            tables: reg.transport_tables(),
            queue: queue.to_string(),
        };
        if t.per_sender.len() > senders as usize {
            return err(
                "transport.per_sender",
                format!("has {} entries but there are {senders} senders", t.per_sender.len()),
            );
        }
        for (i, ovr) in t.per_sender.iter().enumerate() {
            let field = format!("transport.per_sender[{i}]");
            let mut m = me.base.clone();
            me.apply(&mut m, ovr, &field)?;
            me.resolve(m.clone(), &field, reg)?;
            me.per_sender.push(Some(m));
        }
        Ok(me)
    }

    /// The index of the transport of a flow of `sender` whose entry (a
    /// traffic or flows entry named `field`) has the override `entry`.
    pub fn index(
        &mut self,
        sender: u32,
        entry: Option<&Value>,
        field: &str,
        reg: &Registries,
    ) -> Result<u16, ConfigError> {
        let per = self.per_sender.get(sender as usize).and_then(|m| m.as_ref());
        if entry.is_none() && per.is_none() {
            return Ok(0);
        }
        let mut m = per.cloned().unwrap_or_else(|| self.base.clone());
        if let Some(e) = entry {
            self.apply(&mut m, e, &format!("{field}.transport"))?;
        }
        self.resolve(m, &format!("{field}.transport"), reg)
    }

    /// Write the keys of `ovr` over `m`.
    fn apply(&self, m: &mut Map<String, Value>, ovr: &Value, field: &str) -> Result<(), ConfigError> {
        let Some(o) = ovr.as_object() else {
            return err(field, "must be a table of [transport] keys");
        };
        for k in RUN_WIDE {
            if o.contains_key(*k) {
                return err(
                    format!("{field}.{k}"),
                    "is run-wide: set it in [transport] (packet sizes and the handshake are the same for every flow)",
                );
            }
        }
        if let Some(s) = o.get("scheme") {
            if m.get("scheme") != Some(s) {
                // Another scheme: the previous scheme's own table no longer applies.
                for t in &self.tables {
                    m.remove(*t);
                }
            }
        }
        for (k, v) in o {
            match (m.get_mut(k), v) {
                (Some(Value::Object(old)), Value::Object(new)) if self.tables.contains(&k.as_str()) => {
                    for (kk, vv) in new {
                        old.insert(kk.clone(), vv.clone());
                    }
                }
                _ => {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(())
    }

    /// The index of the merged table `m`, resolving it if it is new.
    fn resolve(&mut self, mut m: Map<String, Value>, field: &str, reg: &Registries) -> Result<u16, ConfigError> {
        let key = canonical(&m);
        if let Some(&i) = self.keys.get(&key) {
            return Ok(i);
        }
        let mut tables = super::Tables::new();
        for t in &self.tables {
            if let Some(v) = m.remove(*t) {
                tables.insert(t.to_string(), v);
            }
        }
        let tcp = set_aside_tcp_options(&mut m);
        let mut cfg: TransportCfg = crate::config::from_value(Value::Object(m)).map_err(|e| de_error(e, field))?;
        cfg.tables = tables;
        cfg.tcp = tcp;
        let resolved = super::resolve::transport(&cfg, &self.queue, reg).map_err(|e| rename(e, field))?;
        if self.list.len() >= u16::MAX as usize {
            return err(field, "more than 65,535 distinct transport settings in one run");
        }
        self.list.push(resolved);
        self.schemes.push(cfg.scheme.clone());
        let i = (self.list.len() - 1) as u16;
        self.keys.insert(key, i);
        Ok(i)
    }
}

/// A table's text with its keys in order, so equal tables compare equal.
fn canonical(m: &Map<String, Value>) -> String {
    // serde_json's Map is ordered by key (no `preserve_order` feature).
    serde_json::to_string(m).expect("JSON values serialise")
}

/// An error of the resolved table, named under the override's field.
fn rename(e: ConfigError, field: &str) -> ConfigError {
    if e.field == "network.queue" {
        return ConfigError {
            field: format!("{field}.scheme"),
            message: e.message,
        };
    }
    match e.field.strip_prefix("transport") {
        Some(rest) => ConfigError {
            field: format!("{field}{rest}"),
            message: e.message,
        },
        None => e,
    }
}
