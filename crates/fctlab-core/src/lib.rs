//! fctlab's engine: a fast, deterministic packet-level network simulator for
//! congestion-control research, centred on flow completion time.
//!
//! A scenario ([`scenario::Scenario`], usually parsed from JSON) is validated into
//! a [`scenario::Plan`], which [`engine::Engine`] runs to a [`engine::RunOutput`]:
//! one [`metrics::FlowRecord`] per flow plus sampled [`metrics::Series`].
//!
//! Layers, bottom to top: [`config`] (refusals, parameter tables, registry
//! entries) and [`sim`]; the building blocks [`net`], [`transport`],
//! [`protocols`], [`workload`], [`metrics`] and [`ideal`]; [`registry`];
//! [`scenario`]; [`engine`]. A module imports only from layers below it.

pub mod config;
pub mod engine;
pub mod ideal;
pub mod metrics;
pub mod net;
pub mod protocols;
pub mod registry;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod workload;

pub use engine::{run, Engine, Progress, RunOutput};
pub use scenario::{from_json, ConfigError, Plan, Scenario};

/// The engine's version, recorded in every run's manifest.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
