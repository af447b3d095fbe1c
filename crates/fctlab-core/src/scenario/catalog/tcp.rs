//! The TCP model options of `[transport]`, as the catalogue shows them: each
//! key's value under the presets (read off [`TcpOptions::default`],
//! [`TcpOptions::ns3`] and [`TcpOptions::linux`]), what it chooses and where each behaviour comes from
//! (the one place these are written is the `tcp_options!` list in
//! `transport/tcp/options.rs`).

pub use crate::transport::tcp::options::{TcpOptionDoc, OPTION_DOCS};
use crate::transport::tcp::TcpOptions;
use serde_json::Value;

/// The TCP model options' documentation, in the order `fctlab list` shows them.
pub fn tcp_option_docs() -> &'static [TcpOptionDoc] {
    OPTION_DOCS
}

/// Option `key`'s value under the `rfc` preset and the `ns3` preset.
pub fn preset_values(key: &str) -> (Value, Value) {
    let (rfc, ns3, _) = all_preset_values(key);
    (rfc, ns3)
}

/// Option `key`'s value under the `rfc`, `ns3` and `linux` presets.
pub fn all_preset_values(key: &str) -> (Value, Value, Value) {
    let pick = |o: TcpOptions| {
        serde_json::to_value(o)
            .ok()
            .map(|v| v[key].clone())
            .unwrap_or(Value::Null)
    };
    (
        pick(TcpOptions::default()),
        pick(TcpOptions::ns3()),
        pick(TcpOptions::linux()),
    )
}
