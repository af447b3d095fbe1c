//! Simulated time, the event queue and the run's random-number streams.
//!
//! Time is an integer number of nanoseconds ([`Time`]); there is no floating-point
//! time anywhere in the engine. Events that fall on the same nanosecond fire in the
//! order they were scheduled, so a run is a pure function of (config, seed).

mod prefetch;
mod queue;
mod rng;
mod wheel;

pub use prefetch::prefetch_block;
pub use queue::{Event, EventQueue};
pub use rng::{splitmix64, stream_rng, Rng};

/// Simulated time in nanoseconds since the start of the run.
pub type Time = u64;

pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Seconds (as given in a scenario) to nanoseconds, rounded to the nearest ns.
pub fn secs_to_ns(s: f64) -> Time {
    (s * 1e9).round() as Time
}

/// Milliseconds to nanoseconds, rounded to the nearest ns.
pub fn ms_to_ns(ms: f64) -> Time {
    (ms * 1e6).round() as Time
}

/// Microseconds to nanoseconds, rounded to the nearest ns.
pub fn us_to_ns(us: f64) -> Time {
    (us * 1e3).round() as Time
}

/// Serialisation time of `bytes` on a link of `rate_bps`, rounded to the
/// nearest ns and at least 1 ns, so simulated time advances with every packet
/// even on the fastest links.
pub fn tx_time_ns(bytes: u64, rate_bps: f64) -> Time {
    ((bytes as f64 * 8e9 / rate_bps).round() as Time).max(1)
}
