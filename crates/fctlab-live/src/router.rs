//! A user-space router port: the scenario's queue discipline (the core's own
//! code, RCP's and XCP's router halves included) applied to real datagrams,
//! serialised at the bottleneck's rate by the wall clock, then forwarded to
//! each flow's receiver.

use crate::sock::Sock;
use crate::wire;
use crate::{stop_requested, Clock, Refused};
use fctlab_core::net::queue::PortParams;
use fctlab_core::net::{Packet, PacketKind};
use fctlab_core::sim::tx_time_ns;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::SocketAddr;

#[derive(Clone, Debug, Deserialize)]
pub struct RouterCfg {
    pub scenario: serde_json::Value,
    pub epoch_ns: u64,
    pub bind: String,
    /// Where each flow's data and SYNs go next: its receiver.
    pub routes: HashMap<u32, String>,
    pub stop_file: Option<String>,
    pub deadline_ns: u64,
    /// Queue samples every this many ns.
    pub sample_ns: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RouterOut {
    pub refused: Refused,
    pub forwarded: u64,
    pub dropped: u64,
    /// Drops per flow (for the flows table).
    pub drops: HashMap<u32, u64>,
    /// Samples: time, packets queued, fraction of the interval spent serialising.
    pub t_ns: Vec<u64>,
    pub queue_pkts: Vec<u64>,
    pub utilization: Vec<f64>,
    /// Microseconds the router was late to send packets (max), a measure of its timing.
    pub max_late_us: f64,
    pub rate_bps: f64,
    pub limit_pkts: usize,
}

pub fn run(cfg: &RouterCfg) -> Result<RouterOut, String> {
    let plan = fctlab_core::scenario::from_json(&cfg.scenario.to_string()).map_err(|e| e.to_string())?;
    let link = &plan.topology.links[plan.topology.bottleneck as usize];
    let rate = link.rate_bps;
    let mut q = (plan.queue_builder)(PortParams { limit_pkts: plan.buffer_pkts, rate_bps: rate, delay_ns: link.delay_ns, seed: plan.seed, stream: PortParams::stream_of(&link.name) });
    let mut routes = HashMap::new();
    for (f, a) in &cfg.routes {
        routes.insert(*f, a.parse::<SocketAddr>().map_err(|_| format!("routes: not a socket address: {a:?}"))?);
    }
    let sock = Sock::bind(cfg.bind.parse().map_err(|_| format!("bind: not a socket address: {:?}", cfg.bind))?).map_err(|e| format!("bind {}: {e}", cfg.bind))?;
    let clock = Clock { epoch_ns: cfg.epoch_ns };
    let mut out = RouterOut { rate_bps: rate, limit_pkts: plan.buffer_pkts, ..Default::default() };
    let mut rbuf = vec![0u8; 65536];
    let mut wbuf = Vec::with_capacity(2048);
    // The packet being serialised and when its last bit leaves.
    let mut serving: Option<(Packet, u64)> = None;
    let mut busy_ns = 0u64;
    let mut next_sample = cfg.sample_ns;
    let mut busy_at_sample = 0u64;
    let mut last_stop_check = 0u64;
    clock.wait_epoch();
    loop {
        let now = clock.now();
        while let Some((b, _)) = sock.recv(&mut rbuf) {
            let p = match wire::decode(b) {
                Ok(p) => p,
                Err(e) => {
                    out.refused.add(e.name());
                    continue;
                }
            };
            if !matches!(p.kind, PacketKind::Data | PacketKind::Syn) {
                out.refused.add("direction");
                continue;
            }
            if !routes.contains_key(&p.flow) {
                out.refused.add("unknown_flow");
                continue;
            }
            if p.size_bytes as usize > wire::payload_len(p.size_bytes) + wire::IP_UDP || p.size_bytes == 0 || p.size_bytes > 65_535 {
                out.refused.add("size");
                continue;
            }
            if let Some(d) = q.enqueue(now, p) {
                out.dropped += 1;
                *out.drops.entry(d.flow).or_insert(0) += 1;
            }
        }
        // Serialise: each packet leaves when its last bit would, back to back
        // from the previous one (a late wake-up catches up, keeping the rate).
        let mut now = clock.now();
        loop {
            if let Some((p, done)) = serving {
                if done > now {
                    break;
                }
                out.max_late_us = out.max_late_us.max((now - done) as f64 / 1e3);
                wire::encode(&p, &mut wbuf);
                if sock.send(&wbuf, routes[&p.flow]) {
                    out.forwarded += 1;
                }
                serving = None;
                let t = done;
                if let Some(n) = q.dequeue(t) {
                    let tx = tx_time_ns(n.size_bytes as u64, rate);
                    busy_ns += tx;
                    serving = Some((n, t + tx));
                }
            } else if let Some(n) = q.dequeue(now) {
                let tx = tx_time_ns(n.size_bytes as u64, rate);
                busy_ns += tx;
                serving = Some((n, now + tx));
            } else {
                break;
            }
            now = clock.now();
        }
        while now >= next_sample {
            out.t_ns.push(next_sample);
            out.queue_pkts.push(q.len_pkts() as u64);
            out.utilization.push(((busy_ns - busy_at_sample) as f64 / cfg.sample_ns as f64).min(1.0));
            busy_at_sample = busy_ns;
            next_sample += cfg.sample_ns;
        }
        if now.saturating_sub(last_stop_check) >= 20_000_000 {
            last_stop_check = now;
            if stop_requested(&cfg.stop_file) {
                break;
            }
        }
        if now >= cfg.deadline_ns {
            break;
        }
        let mut wake = next_sample.min(now + 20_000_000);
        if let Some((_, done)) = serving {
            wake = wake.min(done);
        }
        if wake > now {
            sock.wait(wake - now);
        }
    }
    Ok(out)
}
