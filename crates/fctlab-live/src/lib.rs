//! fctlab's transports and router queues over real UDP sockets.
//!
//! The sans-IO senders and receivers of `fctlab-core` run here unchanged:
//! [`host::run`] hands them the wall clock (`CLOCK_MONOTONIC`, minus a common
//! epoch, so every namespace of a run shares one time axis) and the datagrams
//! that arrive, sends what they return, and sleeps until their next timer.
//! [`link::run`] emulates the links: delays, and on the bottleneck a queue
//! discipline of the core (RCP's and XCP's router halves included) applied to
//! real frames, serialised at the bottleneck's rate. [`wire`] is the datagram
//! format.

pub mod host;
pub mod link;
pub mod sock;
pub mod wire;

use serde::Serialize;
use std::collections::BTreeMap;

/// Nanoseconds of `CLOCK_MONOTONIC`.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A run's clock: nanoseconds since the epoch every process of the run was given.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub epoch_ns: u64,
}

impl Clock {
    pub fn now(&self) -> u64 {
        mono_ns().saturating_sub(self.epoch_ns)
    }
    /// Sleep until the epoch (processes start a little before it).
    pub fn wait_epoch(&self) {
        loop {
            let now = mono_ns();
            if now >= self.epoch_ns {
                return;
            }
            std::thread::sleep(std::time::Duration::from_nanos((self.epoch_ns - now).min(50_000_000)));
        }
    }
}

/// Datagrams refused, by reason (every [`wire::Bad`] reason, plus checks
/// against the flow's state: unknown flow, wrong direction, impossible
/// sequence number or timestamp).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Refused {
    pub counts: BTreeMap<String, u64>,
}

impl Refused {
    pub fn add(&mut self, why: &str) {
        *self.counts.entry(why.to_string()).or_insert(0) += 1;
    }
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}

/// Ask for precise wake-ups: timer slack of 1 ns (the default is 50 us) and,
/// where allowed (root), real-time FIFO scheduling at `priority`, so a busy
/// machine delays the run's packets less. The kernel's real-time throttling
/// (`sched_rt_runtime_us`) still leaves other work its share. Returns whether
/// real-time scheduling was granted.
pub fn tune_process(priority: i32) -> bool {
    // SAFETY: prctl and sched_setscheduler with plain integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        let p = libc::sched_param {
            sched_priority: priority,
        };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0
    }
}

/// Whether a stop file exists (how a run tells its processes to finish).
pub fn stop_requested(path: &Option<String>) -> bool {
    path.as_deref().is_some_and(|p| std::path::Path::new(p).exists())
}
