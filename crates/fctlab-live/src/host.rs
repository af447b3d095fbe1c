//! A host: the senders and receivers of the flows that start or end on it,
//! driven by the wall clock over one UDP socket.

use crate::sock::Sock;
use crate::wire::{self, Bad};
use crate::{stop_requested, Clock, Refused};
use fctlab_core::net::{Packet, PacketKind};
use fctlab_core::transport::{FlowSize, Receiver, Sender};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// One flow as a host sees it.
#[derive(Clone, Debug, Deserialize)]
pub struct FlowSpec {
    pub flow: u32,
    /// When its data becomes available (ns after the epoch; senders only).
    #[serde(default)]
    pub start_ns: u64,
    pub size_bytes: u64,
    pub size_pkts: u64,
    /// Where its packets go: the receiver (or the router in front of it) for
    /// a sender, the sender for a receiver.
    pub peer: String,
}

/// What a host runs.
#[derive(Clone, Debug, Deserialize)]
pub struct HostCfg {
    /// The scenario (JSON), whose transport section builds the endpoints.
    pub scenario: serde_json::Value,
    pub epoch_ns: u64,
    pub bind: String,
    #[serde(default)]
    pub send: Vec<FlowSpec>,
    #[serde(default)]
    pub recv: Vec<FlowSpec>,
    /// The run asks receivers to finish by creating this file.
    pub stop_file: Option<String>,
    /// Give up on every flow at this time (ns after the epoch).
    pub deadline_ns: u64,
    /// A flow that hears nothing from its peer for this long ends with
    /// status `peer-timeout`.
    pub peer_timeout_ns: u64,
}

/// One flow's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct FlowOut {
    pub flow: u32,
    pub role: &'static str,
    pub start_ns: Option<u64>,
    /// Receivers: when the last payload byte arrived.
    pub finish_ns: Option<u64>,
    /// Senders: when the whole flow was acknowledged.
    pub acked_ns: Option<u64>,
    pub retransmits: u64,
    /// `done`, `peer-timeout`, `deadline`, `no-data` (a receiver that never
    /// heard from its sender) or `error: ...` (an endpoint that failed).
    pub status: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct HostOut {
    pub flows: Vec<FlowOut>,
    pub refused: Refused,
    pub datagrams_in: u64,
    pub datagrams_out: u64,
    /// Datagrams the kernel would not take (counted as losses).
    pub send_failures: u64,
}

struct Tx {
    spec: FlowSpec,
    peer: SocketAddr,
    ep: Box<dyn Sender>,
    started: bool,
    /// One past the highest data sequence number sent.
    sent_end: u64,
    heard_ns: u64,
    /// The latest time handed to the endpoint (its clock never goes back).
    last_ns: u64,
    acked_ns: Option<u64>,
    status: Option<String>,
}

struct Rx {
    spec: FlowSpec,
    peer: SocketAddr,
    ep: Box<dyn Receiver>,
    heard_ns: Option<u64>,
    status: Option<String>,
}

fn addr(field: &str, s: &str) -> Result<SocketAddr, String> {
    s.parse().map_err(|_| format!("{field}: not a socket address: {s:?}"))
}

fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

struct Io<'a> {
    sock: &'a Sock,
    buf: Vec<u8>,
    out: HostOut,
}

impl Io<'_> {
    fn send_all(&mut self, pkts: &mut Vec<Packet>, to: SocketAddr, sent_end: Option<&mut u64>) {
        let mut end = 0;
        for p in pkts.drain(..) {
            if p.kind == PacketKind::Data {
                end = end.max(p.seq + 1);
            }
            wire::encode(&p, &mut self.buf);
            if self.sock.send(&self.buf, to) {
                self.out.datagrams_out += 1;
            } else {
                self.out.send_failures += 1;
            }
        }
        if let Some(s) = sent_end {
            *s = (*s).max(end);
        }
    }
}

/// Run a host until its flows end (senders) or the stop file appears
/// (receivers), and report every flow.
pub fn run(cfg: &HostCfg) -> Result<HostOut, String> {
    let plan = fctlab_core::scenario::from_json(&cfg.scenario.to_string()).map_err(|e| e.to_string())?;
    let sock = Sock::bind(addr("bind", &cfg.bind)?).map_err(|e| format!("bind {}: {e}", cfg.bind))?;
    let clock = Clock { epoch_ns: cfg.epoch_ns };
    crate::tune_process(50);
    let size = |f: &FlowSpec| FlowSize::Finite {
        bytes: f.size_bytes,
        pkts: f.size_pkts,
    };
    let mut tx: Vec<Tx> = Vec::new();
    for f in &cfg.send {
        let (s, _) = (plan.endpoints)(f.flow, size(f));
        tx.push(Tx {
            spec: f.clone(),
            peer: addr("send.peer", &f.peer)?,
            ep: s,
            started: false,
            sent_end: 0,
            heard_ns: 0,
            last_ns: 0,
            acked_ns: None,
            status: None,
        });
    }
    tx.sort_by_key(|t| (t.spec.start_ns, t.spec.flow));
    let mut rx: Vec<Rx> = Vec::new();
    for f in &cfg.recv {
        let (_, r) = (plan.endpoints)(f.flow, size(f));
        rx.push(Rx {
            spec: f.clone(),
            peer: addr("recv.peer", &f.peer)?,
            ep: r,
            heard_ns: None,
            status: None,
        });
    }
    let tx_of: HashMap<u32, usize> = tx.iter().enumerate().map(|(i, t)| (t.spec.flow, i)).collect();
    let rx_of: HashMap<u32, usize> = rx.iter().enumerate().map(|(i, r)| (r.spec.flow, i)).collect();
    let mut io = Io {
        sock: &sock,
        buf: Vec::with_capacity(2048),
        out: HostOut::default(),
    };
    let mut rbuf = vec![0u8; 65536];
    let mut pkts: Vec<Packet> = Vec::new();
    let mut next_start = 0usize;
    let mut active: Vec<usize> = Vec::new();
    let mut tx_open = tx.len();
    let mut last_stop_check = 0u64;
    clock.wait_epoch();
    loop {
        // Arrivals.
        while let Some((b, _from)) = sock.recv(&mut rbuf) {
            // The clock read after the datagram arrived: one sent after the
            // loop's reading above is not from the future.
            let now = clock.now();
            io.out.datagrams_in += 1;
            let p = match wire::decode(b) {
                Ok(p) => p,
                Err(e) => {
                    io.out.refused.add(e.name());
                    continue;
                }
            };
            if p.ts > now {
                io.out.refused.add("timestamp");
                continue;
            }
            match p.kind {
                PacketKind::Ack | PacketKind::SynAck => {
                    let Some(&i) = tx_of.get(&p.flow) else {
                        io.out.refused.add("unknown_flow");
                        continue;
                    };
                    let t = &mut tx[i];
                    if !t.started || t.status.is_some() {
                        io.out.refused.add("flow_not_open");
                        continue;
                    }
                    if p.kind == PacketKind::Ack && p.seq > t.sent_end {
                        io.out.refused.add("seq");
                        continue;
                    }
                    t.heard_ns = now;
                    t.last_ns = now;
                    match catch_unwind(AssertUnwindSafe(|| t.ep.on_packet(now, &p, &mut pkts))) {
                        Ok(()) => io.send_all(&mut pkts, t.peer, Some(&mut t.sent_end)),
                        Err(e) => {
                            pkts.clear();
                            t.status = Some(format!("error: {}", panic_text(e)));
                        }
                    }
                }
                PacketKind::Data | PacketKind::Syn => {
                    let Some(&i) = rx_of.get(&p.flow) else {
                        io.out.refused.add("unknown_flow");
                        continue;
                    };
                    let r = &mut rx[i];
                    if r.status.is_some() {
                        io.out.refused.add("flow_not_open");
                        continue;
                    }
                    if p.kind == PacketKind::Data && p.seq >= r.spec.size_pkts {
                        io.out.refused.add("seq");
                        continue;
                    }
                    r.heard_ns = Some(now);
                    match catch_unwind(AssertUnwindSafe(|| r.ep.on_packet(now, &p, &mut pkts))) {
                        Ok(()) => io.send_all(&mut pkts, r.peer, None),
                        Err(e) => {
                            pkts.clear();
                            r.status = Some(format!("error: {}", panic_text(e)));
                        }
                    }
                }
            }
        }
        let now = clock.now();
        // Flows whose data is available.
        while next_start < tx.len() && tx[next_start].spec.start_ns <= now {
            let t = &mut tx[next_start];
            t.started = true;
            t.heard_ns = now;
            // The flow starts when it was due, as in the simulator: a timer
            // that fires late is handled at its own time (the sender's clock
            // never runs ahead of the wall clock), so wake-up latency delays
            // packets but does not accumulate into a paced sender's gaps.
            let at = t.spec.start_ns;
            t.last_ns = at;
            match catch_unwind(AssertUnwindSafe(|| t.ep.start(at, &mut pkts))) {
                Ok(()) => io.send_all(&mut pkts, t.peer, Some(&mut t.sent_end)),
                Err(e) => {
                    pkts.clear();
                    t.status = Some(format!("error: {}", panic_text(e)));
                }
            }
            active.push(next_start);
            next_start += 1;
        }
        // Timers, completions and timeouts.
        let mut wake = now + 50_000_000;
        if next_start < tx.len() {
            wake = wake.min(tx[next_start].spec.start_ns);
        }
        active.retain(|&i| {
            let t = &mut tx[i];
            if t.status.is_none() {
                if let Some(at) = t.ep.next_timer() {
                    if at <= now {
                        let at = at.max(t.last_ns);
                        t.last_ns = at;
                        if let Err(e) = catch_unwind(AssertUnwindSafe(|| t.ep.on_timer(at, &mut pkts))) {
                            pkts.clear();
                            t.status = Some(format!("error: {}", panic_text(e)));
                        }
                        io.send_all(&mut pkts, t.peer, Some(&mut t.sent_end));
                    }
                }
            }
            if t.status.is_none() && t.ep.done() {
                t.acked_ns = Some(t.heard_ns);
                t.status = Some("done".into());
            }
            if t.status.is_none() && now.saturating_sub(t.heard_ns) > cfg.peer_timeout_ns {
                t.status = Some("peer-timeout".into());
            }
            if t.status.is_none() && now >= cfg.deadline_ns {
                t.status = Some("deadline".into());
            }
            if t.status.is_some() {
                tx_open -= 1;
                return false;
            }
            if let Some(at) = t.ep.next_timer() {
                wake = wake.min(at);
            }
            true
        });
        for r in rx.iter_mut() {
            if r.status.is_some() {
                continue;
            }
            if let Some(at) = r.ep.next_timer() {
                if at <= now {
                    if let Err(e) = catch_unwind(AssertUnwindSafe(|| r.ep.on_timer(now, &mut pkts))) {
                        pkts.clear();
                        r.status = Some(format!("error: {}", panic_text(e)));
                    }
                    io.send_all(&mut pkts, r.peer, None);
                }
                if let Some(at) = r.ep.next_timer() {
                    wake = wake.min(at.max(now + 1));
                }
            }
            if r.ep.finished_at().is_none() {
                if let Some(h) = r.heard_ns {
                    if now.saturating_sub(h) > cfg.peer_timeout_ns {
                        r.status = Some("peer-timeout".into());
                    }
                }
            }
        }
        // The end: senders when every flow is over, receivers when asked.
        let stop = if now.saturating_sub(last_stop_check) >= 20_000_000 {
            last_stop_check = now;
            stop_requested(&cfg.stop_file)
        } else {
            false
        };
        if now >= cfg.deadline_ns || stop || (tx_open == 0 && rx.is_empty()) {
            break;
        }
        let now2 = clock.now();
        if wake > now2 {
            sock.wait(wake - now2);
        }
    }
    let now = clock.now();
    for t in tx {
        let status = t.status.unwrap_or_else(|| {
            if t.started {
                "deadline".into()
            } else {
                "not-started".into()
            }
        });
        io.out.flows.push(FlowOut {
            flow: t.spec.flow,
            role: "send",
            start_ns: t.started.then_some(t.spec.start_ns),
            finish_ns: None,
            acked_ns: t.acked_ns,
            retransmits: t.ep.retransmits(),
            status,
        });
    }
    for r in rx {
        let fin = r.ep.finished_at();
        let status = match (&r.status, fin, r.heard_ns) {
            (Some(s), _, _) => s.clone(),
            (None, Some(_), _) => "done".into(),
            (None, None, None) => "no-data".into(),
            (None, None, Some(_)) => {
                if now >= cfg.deadline_ns {
                    "deadline".into()
                } else {
                    "stopped".into()
                }
            }
        };
        io.out.flows.push(FlowOut {
            flow: r.spec.flow,
            role: "recv",
            start_ns: None,
            finish_ns: fin,
            acked_ns: None,
            retransmits: 0,
            status,
        });
    }
    let _ = Bad::ALL;
    Ok(io.out)
}
