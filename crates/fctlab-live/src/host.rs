//! A host: the senders and receivers of the flows that start or end on it,
//! driven by the wall clock over one UDP socket.

use crate::sock::Sock;
use crate::wire::{self, Bad};
use crate::{stop_requested, Clock, Refused};
use fctlab_core::net::{Packet, PacketKind};
use fctlab_core::scenario::Plan;
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

    /// Call an endpoint (`call` writes its packets into `pkts`) and send
    /// what it produced to `to`; an endpoint that panics loses its packets
    /// and ends its flow with status `error: ...`.
    fn call(
        &mut self,
        pkts: &mut Vec<Packet>,
        to: SocketAddr,
        sent_end: Option<&mut u64>,
        status: &mut Option<String>,
        call: impl FnOnce(&mut Vec<Packet>),
    ) {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| call(pkts))) {
            pkts.clear();
            *status = Some(format!("error: {}", panic_text(e)));
        }
        self.send_all(pkts, to, sent_end);
    }
}

/// Every flow of a host and where its run stands.
struct Host<'a> {
    cfg: &'a HostCfg,
    io: Io<'a>,
    /// Senders in the order they start.
    tx: Vec<Tx>,
    rx: Vec<Rx>,
    tx_of: HashMap<u32, usize>,
    rx_of: HashMap<u32, usize>,
    pkts: Vec<Packet>,
    /// The first sender not yet started.
    next_start: usize,
    /// Senders started and not over.
    active: Vec<usize>,
    /// Senders not over (started or not).
    tx_open: usize,
}

/// Run a host until its flows end (senders) or the stop file appears
/// (receivers), and report every flow.
pub fn run(cfg: &HostCfg) -> Result<HostOut, String> {
    let plan = fctlab_core::scenario::from_json(&cfg.scenario.to_string()).map_err(|e| e.to_string())?;
    let sock = Sock::bind(addr("bind", &cfg.bind)?).map_err(|e| format!("bind {}: {e}", cfg.bind))?;
    let clock = Clock { epoch_ns: cfg.epoch_ns };
    crate::tune_process(50);
    let mut host = Host::new(cfg, &plan, &sock)?;
    let mut rbuf = vec![0u8; 65536];
    let mut last_stop_check = 0u64;
    clock.wait_epoch();
    loop {
        host.receive(&sock, &clock, &mut rbuf);
        let now = clock.now();
        host.start_due(now);
        // Timers, completions and timeouts.
        let mut wake = now + 50_000_000;
        if let Some(t) = host.tx.get(host.next_start) {
            wake = wake.min(t.spec.start_ns);
        }
        wake = wake.min(host.serve_senders(now));
        wake = wake.min(host.serve_receivers(now));
        // The end: senders when every flow is over, receivers when asked.
        let stop = if now.saturating_sub(last_stop_check) >= 20_000_000 {
            last_stop_check = now;
            stop_requested(&cfg.stop_file)
        } else {
            false
        };
        if now >= cfg.deadline_ns || stop || (host.tx_open == 0 && host.rx.is_empty()) {
            break;
        }
        let now2 = clock.now();
        if wake > now2 {
            sock.wait(wake - now2);
        }
    }
    let _ = Bad::ALL;
    Ok(host.report(clock.now()))
}

impl<'a> Host<'a> {
    /// The endpoints of every flow of `cfg`, built as `plan`'s transport says.
    fn new(cfg: &'a HostCfg, plan: &Plan, sock: &'a Sock) -> Result<Self, String> {
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
        Ok(Host {
            cfg,
            io: Io {
                sock,
                buf: Vec::with_capacity(2048),
                out: HostOut::default(),
            },
            tx_of: tx.iter().enumerate().map(|(i, t)| (t.spec.flow, i)).collect(),
            rx_of: rx.iter().enumerate().map(|(i, r)| (r.spec.flow, i)).collect(),
            tx_open: tx.len(),
            tx,
            rx,
            pkts: Vec::new(),
            next_start: 0,
            active: Vec::new(),
        })
    }

    /// Hand every datagram waiting on the socket to its flow's endpoint.
    fn receive(&mut self, sock: &Sock, clock: &Clock, rbuf: &mut [u8]) {
        while let Some((b, _from)) = sock.recv(rbuf) {
            // The clock read after the datagram arrived: one sent after the
            // loop's reading above is not from the future.
            let now = clock.now();
            self.io.out.datagrams_in += 1;
            let refused = match wire::decode(b) {
                Err(e) => Some(e.name()),
                Ok(p) if p.ts > now => Some("timestamp"),
                Ok(p) => match p.kind {
                    PacketKind::Ack | PacketKind::SynAck => self.ack_in(&p, now),
                    PacketKind::Data | PacketKind::Syn => self.data_in(&p, now),
                },
            };
            if let Some(why) = refused {
                self.io.out.refused.add(why);
            }
        }
    }

    /// An ACK or SYN-ACK for one of the senders; why it is refused, if it is.
    fn ack_in(&mut self, p: &Packet, now: u64) -> Option<&'static str> {
        let Some(&i) = self.tx_of.get(&p.flow) else {
            return Some("unknown_flow");
        };
        let t = &mut self.tx[i];
        if !t.started || t.status.is_some() {
            return Some("flow_not_open");
        }
        if p.kind == PacketKind::Ack && p.seq > t.sent_end {
            return Some("seq");
        }
        t.heard_ns = now;
        t.last_ns = now;
        let ep = &mut t.ep;
        self.io
            .call(&mut self.pkts, t.peer, Some(&mut t.sent_end), &mut t.status, |out| {
                ep.on_packet(now, p, out)
            });
        None
    }

    /// Data or a SYN for one of the receivers; why it is refused, if it is.
    fn data_in(&mut self, p: &Packet, now: u64) -> Option<&'static str> {
        let Some(&i) = self.rx_of.get(&p.flow) else {
            return Some("unknown_flow");
        };
        let r = &mut self.rx[i];
        if r.status.is_some() {
            return Some("flow_not_open");
        }
        if p.kind == PacketKind::Data && p.seq >= r.spec.size_pkts {
            return Some("seq");
        }
        r.heard_ns = Some(now);
        let ep = &mut r.ep;
        self.io.call(&mut self.pkts, r.peer, None, &mut r.status, |out| {
            ep.on_packet(now, p, out)
        });
        None
    }

    /// Start the senders whose data is available by `now`.
    fn start_due(&mut self, now: u64) {
        while self.next_start < self.tx.len() && self.tx[self.next_start].spec.start_ns <= now {
            let t = &mut self.tx[self.next_start];
            t.started = true;
            t.heard_ns = now;
            // The flow starts when it was due, as in the simulator: a timer
            // that fires late is handled at its own time (the sender's clock
            // never runs ahead of the wall clock), so wake-up latency delays
            // packets but does not accumulate into a paced sender's gaps.
            let at = t.spec.start_ns;
            t.last_ns = at;
            let ep = &mut t.ep;
            self.io
                .call(&mut self.pkts, t.peer, Some(&mut t.sent_end), &mut t.status, |out| {
                    ep.start(at, out)
                });
            self.active.push(self.next_start);
            self.next_start += 1;
        }
    }

    /// Fire the active senders' due timers and end the flows that are over
    /// (done, peer timeout, deadline); the earliest timer still pending.
    fn serve_senders(&mut self, now: u64) -> u64 {
        let mut wake = u64::MAX;
        let (cfg, tx, io, pkts, tx_open) = (self.cfg, &mut self.tx, &mut self.io, &mut self.pkts, &mut self.tx_open);
        self.active.retain(|&i| {
            let t = &mut tx[i];
            if t.status.is_none() {
                if let Some(at) = t.ep.next_timer() {
                    if at <= now {
                        let at = at.max(t.last_ns);
                        t.last_ns = at;
                        let ep = &mut t.ep;
                        io.call(pkts, t.peer, Some(&mut t.sent_end), &mut t.status, |out| {
                            ep.on_timer(at, out)
                        });
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
                *tx_open -= 1;
                return false;
            }
            if let Some(at) = t.ep.next_timer() {
                wake = wake.min(at);
            }
            true
        });
        wake
    }

    /// Fire the receivers' due timers and time out those whose sender went
    /// quiet; the earliest timer still pending (not before `now + 1`).
    fn serve_receivers(&mut self, now: u64) -> u64 {
        let mut wake = u64::MAX;
        for r in self.rx.iter_mut() {
            if r.status.is_some() {
                continue;
            }
            if let Some(at) = r.ep.next_timer() {
                if at <= now {
                    let ep = &mut r.ep;
                    self.io
                        .call(&mut self.pkts, r.peer, None, &mut r.status, |out| ep.on_timer(now, out));
                }
                if let Some(at) = r.ep.next_timer() {
                    wake = wake.min(at.max(now + 1));
                }
            }
            if r.ep.finished_at().is_none() {
                if let Some(h) = r.heard_ns {
                    if now.saturating_sub(h) > self.cfg.peer_timeout_ns {
                        r.status = Some("peer-timeout".into());
                    }
                }
            }
        }
        wake
    }

    /// Every flow's outcome, the host stopping at `now`.
    fn report(self, now: u64) -> HostOut {
        let mut out = self.io.out;
        for t in self.tx {
            let status = t.status.unwrap_or_else(|| {
                if t.started {
                    "deadline".into()
                } else {
                    "not-started".into()
                }
            });
            out.flows.push(FlowOut {
                flow: t.spec.flow,
                role: "send",
                start_ns: t.started.then_some(t.spec.start_ns),
                finish_ns: None,
                acked_ns: t.acked_ns,
                retransmits: t.ep.retransmits(),
                status,
            });
        }
        for r in self.rx {
            let fin = r.ep.finished_at();
            let status = match (&r.status, fin, r.heard_ns) {
                (Some(s), _, _) => s.clone(),
                (None, Some(_), _) => "done".into(),
                (None, None, None) => "no-data".into(),
                (None, None, Some(_)) if now >= self.cfg.deadline_ns => "deadline".into(),
                (None, None, Some(_)) => "stopped".into(),
            };
            out.flows.push(FlowOut {
                flow: r.spec.flow,
                role: "recv",
                start_ns: None,
                finish_ns: fin,
                acked_ns: None,
                retransmits: 0,
                status,
            });
        }
        out
    }
}
