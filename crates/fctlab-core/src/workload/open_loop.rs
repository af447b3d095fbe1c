//! Open-loop sources: traffic that ignores congestion (Kanakia, Keshav &
//! Mishra 1991, the 1991 benchmark's "non-compliant cross-traffic", its
//! torture test's on-off sources, and its single-packet-delay probe).
//!
//! Each is an arrival process whose `[[traffic]]` entry gives every sender
//! in `senders` one source, from `start_s` to `stop_s` (or the run's
//! `stop_s`; one of them is required). A source sends data packets of
//! `pkt_bytes` on the wire (default: a full data packet, `mss_bytes +
//! header_bytes`), never retransmits and never slows down; the run does not
//! wait for it (it ends when the finite flows are done, or at `stop_s`).
//! A source appears in `flows` as one long-lived row per sender.
//!
//! - `poisson-packets`: packets at exponential gaps; `load` is the
//!   entry's aggregate rate as a fraction of the bottleneck (bytes on the
//!   wire, split evenly over its senders), or `rate_per_s` packets per second
//!   per sender. Nothing is acknowledged.
//! - `on-off`: periodic: `on_ms` sending evenly spaced packets at `load` of
//!   the bottleneck (per sender), then `off_ms` silent, starting with an on
//!   period at `start_s`. Nothing is acknowledged.
//! - `probe`: one packet of `pkt_bytes` (default 500) every `interval_ms`
//!   (default 20), the benchmark's probe; the receiver answers each at once
//!   with a header-sized ACK. Both carry the PROBE flag, and the run's
//!   `probes` table holds, per probe packet, its one-way delay and the time
//!   from sending it to receiving its ACK ("single packet delay", the
//!   benchmark's second metric).

use super::arrivals::{ArrivalEntry, Arrivals, Context, Generator, Measure, TrafficCfg};
use super::exponential;
use crate::config::{documented, duration_ms, err, positive, ConfigError, Entry, NoParams};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::{ms_to_ns, Rng, Time, NS_PER_S};
use crate::transport::{EndpointBuilder, Receiver, Sender};
use std::sync::Arc;

/// How an open-loop source spaces its packets.
#[derive(Clone, Debug, PartialEq)]
pub enum Process {
    /// Exponential gaps of this mean.
    Poisson { mean_gap_ns: f64 },
    /// `on_ns` at one packet per `gap_ns`, then `off_ns` silent, repeated.
    OnOff { on_ns: Time, off_ns: Time, gap_ns: f64 },
    /// One packet every `gap_ns`.
    Periodic { gap_ns: Time },
}

/// A resolved open-loop source (one per sender of its entry).
#[derive(Clone, Debug, PartialEq)]
pub struct OpenLoop {
    pub process: Process,
    /// Bytes on the wire per packet.
    pub pkt_bytes: u32,
    /// Whether the receiver acknowledges each packet (probes).
    pub ack: bool,
    /// Header bytes of an ACK.
    pub ack_bytes: u32,
}

impl OpenLoop {
    /// The endpoints of one source that stops at `stop_ns`, drawing its gaps
    /// from `rng` (its own stream).
    pub fn endpoints(&self, stop_ns: Option<Time>, rng: Rng) -> EndpointBuilder {
        let me = self.clone();
        let rng = std::sync::Mutex::new(Some(rng));
        Arc::new(move |id, _size| {
            let r = rng
                .lock()
                .expect("not poisoned")
                .take()
                .unwrap_or_else(|| crate::sim::stream_rng(0, id as u64));
            (
                Box::new(OpenLoopSender::new(id, me.clone(), stop_ns, r)) as Box<dyn Sender>,
                Box::new(OpenLoopReceiver {
                    flow: id,
                    ack: me.ack,
                    ack_bytes: me.ack_bytes,
                    got: 0,
                }) as Box<dyn Receiver>,
            )
        })
    }
}

/// The sending half: emits packets on its schedule until `stop_ns`.
pub struct OpenLoopSender {
    flow: u32,
    src: OpenLoop,
    stop_ns: Option<Time>,
    rng: Rng,
    started_at: Time,
    next: Option<Time>,
    /// The next packet's sequence number (packets sent so far).
    pub sent: u64,
    done: bool,
}

impl OpenLoopSender {
    pub fn new(flow: u32, src: OpenLoop, stop_ns: Option<Time>, rng: Rng) -> Self {
        OpenLoopSender {
            flow,
            src,
            stop_ns,
            rng,
            started_at: 0,
            next: None,
            sent: 0,
            done: false,
        }
    }

    /// The send time after one at `t`.
    fn after(&mut self, t: Time) -> Time {
        match self.src.process {
            Process::Poisson { mean_gap_ns } => t + (exponential(&mut self.rng, mean_gap_ns).round() as Time).max(1),
            Process::Periodic { gap_ns } => t + gap_ns,
            Process::OnOff { on_ns, off_ns, gap_ns } => {
                // Packet k of a period leaves at period start + k gap while
                // that is within the on time.
                let period = on_ns + off_ns;
                let since = t - self.started_at;
                let (p, into) = (since / period, since % period);
                let k = (into as f64 / gap_ns).round() + 1.0;
                let next_in = (k * gap_ns).round() as Time;
                if next_in < on_ns {
                    self.started_at + p * period + next_in
                } else {
                    self.started_at + (p + 1) * period
                }
            }
        }
    }

    fn emit(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut pkt = Packet::new(self.flow, PacketKind::Data, self.src.pkt_bytes, self.sent, now);
        if self.src.ack {
            pkt.flags |= flags::PROBE;
        }
        self.sent += 1;
        out.push(pkt);
        let n = self.after(now);
        self.schedule(n);
    }

    fn schedule(&mut self, t: Time) {
        if self.stop_ns.is_some_and(|s| t >= s) {
            self.next = None;
            self.done = true;
        } else {
            self.next = Some(t);
        }
    }
}

impl Sender for OpenLoopSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started_at = now;
        match self.src.process {
            // A Poisson stream's first packet comes one gap after the start.
            Process::Poisson { .. } => {
                let t = self.after(now);
                self.schedule(t);
            }
            _ if self.stop_ns.is_some_and(|s| now >= s) => self.done = true,
            _ => self.emit(now, out),
        }
    }

    fn on_packet(&mut self, _now: Time, _pkt: &Packet, _out: &mut Vec<Packet>) {}

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.next.is_some_and(|t| now >= t) {
            self.emit(now, out);
        }
    }

    fn next_timer(&self) -> Option<Time> {
        self.next
    }

    fn done(&self) -> bool {
        self.done
    }

    fn retransmits(&self) -> u64 {
        0
    }

    fn cwnd_pkts(&self) -> f64 {
        0.0
    }

    fn srtt_ns(&self) -> Option<Time> {
        None
    }
}

/// The receiving half: counts packets and, for probes, answers each.
pub struct OpenLoopReceiver {
    flow: u32,
    ack: bool,
    ack_bytes: u32,
    got: u64,
}

impl Receiver for OpenLoopReceiver {
    fn on_packet(&mut self, _now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        self.got += 1;
        if self.ack {
            // The ACK names the probe it answers and echoes its send time.
            let mut a = Packet::new(self.flow, PacketKind::Ack, self.ack_bytes, pkt.seq, pkt.ts);
            a.flags |= flags::PROBE;
            out.push(a);
        }
    }

    fn on_timer(&mut self, _now: Time, _out: &mut Vec<Packet>) {}

    fn next_timer(&self) -> Option<Time> {
        None
    }

    fn finished_at(&self) -> Option<Time> {
        None
    }

    fn in_order_pkts(&self) -> u64 {
        self.got
    }
}

fn pkt_bytes(g: &TrafficCfg, cx: &Context, default: f64) -> Result<u32, ConfigError> {
    let b = g.pkt_bytes.unwrap_or(default.round() as u32);
    if !(1..=1_000_000).contains(&b) {
        return err(
            format!("{}.pkt_bytes", cx.field),
            format!("must be 1 to 1000000 bytes, got {b}"),
        );
    }
    Ok(b)
}

fn open_loop(g: &TrafficCfg, cx: &Context, src: OpenLoop) -> Result<Generator, ConfigError> {
    let (senders, start_ns, stop_ns) = cx.common(g)?;
    let stop = stop_ns.or(cx.run_stop_ns);
    if stop.is_none() {
        return err(
            format!("{}.stop_s", cx.field),
            "an open-loop source needs a stop time: give stop_s here or for the run",
        );
    }
    if g.sizes.is_some()
        || g.count.is_some()
        || g.think_s != 0.0
        || g.measure_every.is_some()
        || g.measure_fraction.is_some()
    {
        return err(
            cx.field.to_string(),
            "open-loop sources take no sizes, count, think_s or measure keys",
        );
    }
    Ok(Generator {
        arrivals: Arrivals::OpenLoop(src),
        sizes: None,
        senders,
        start_ns,
        stop_ns: stop,
        count: None,
        measure: Measure::Never,
        hosts: None,
    })
}

fn check_only(g: &TrafficCfg, cx: &Context, allowed: &[&str]) -> Result<(), ConfigError> {
    let given = [
        ("load", g.load.is_some()),
        ("rate_per_s", g.rate_per_s.is_some()),
        ("on_ms", g.on_ms.is_some()),
        ("off_ms", g.off_ms.is_some()),
        ("interval_ms", g.interval_ms.is_some()),
    ];
    for (k, set) in given {
        if set && !allowed.contains(&k) {
            return err(
                format!("{}.{k}", cx.field),
                format!(
                    "is not a key of arrivals = {:?} (keys: {})",
                    g.arrivals,
                    allowed.join(", ")
                ),
            );
        }
    }
    Ok(())
}

/// Packets per second from `load` (a fraction of the bottleneck, bytes on
/// the wire) or `rate_per_s`.
fn rate_pps(g: &TrafficCfg, cx: &Context, bytes: u32, share: f64) -> Result<f64, ConfigError> {
    let r = match (g.load, g.rate_per_s) {
        (Some(load), None) => {
            positive(&format!("{}.load", cx.field), load)? * cx.bottleneck_bps / (8.0 * bytes as f64) * share
        }
        (None, Some(r)) => positive(&format!("{}.rate_per_s", cx.field), r)?,
        _ => return err(format!("{}.load", cx.field), "give exactly one of load or rate_per_s"),
    };
    let k = if g.load.is_some() { "load" } else { "rate_per_s" };
    super::arrivals::arrival_rate(format!("{}.{k}", cx.field), r, "packets per sender")
}

/// `poisson-packets`.
pub const POISSON_PACKETS: ArrivalEntry = Entry {
    name: "poisson-packets",
    description: "open loop: each sender sends packets at exponential gaps, never slowing down or retransmitting. Keys: load (aggregate, split over senders) or rate_per_s (per sender), pkt_bytes, senders, start_s, stop_s",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        check_only(g, cx, &["load", "rate_per_s"])?;
        let bytes = pkt_bytes(g, cx, cx.pkt_bytes)?;
        let n = g.senders.as_ref().map_or(cx.senders as usize, |v| v.len().max(1));
        let r = rate_pps(g, cx, bytes, 1.0 / n as f64)?;
        open_loop(g, cx, OpenLoop { process: Process::Poisson { mean_gap_ns: NS_PER_S as f64 / r }, pkt_bytes: bytes, ack: false, ack_bytes: 0 })
    },
};

/// `on-off`.
pub const ON_OFF: ArrivalEntry = Entry {
    name: "on-off",
    description: "open loop: each sender alternates on_ms sending evenly spaced packets at load (of the bottleneck, per sender) or rate_per_s and off_ms silent. Keys: load or rate_per_s, on_ms, off_ms, pkt_bytes, senders, start_s, stop_s",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        check_only(g, cx, &["load", "rate_per_s", "on_ms", "off_ms"])?;
        let bytes = pkt_bytes(g, cx, cx.pkt_bytes)?;
        let r = rate_pps(g, cx, bytes, 1.0)?;
        let (Some(on), Some(off)) = (g.on_ms, g.off_ms) else { return err(format!("{}.on_ms", cx.field), "on-off needs on_ms and off_ms") };
        let on_ns = ms_to_ns(duration_ms(&format!("{}.on_ms", cx.field), on, true)?);
        let off_ns = ms_to_ns(duration_ms(&format!("{}.off_ms", cx.field), off, false)?);
        open_loop(g, cx, OpenLoop { process: Process::OnOff { on_ns, off_ns, gap_ns: NS_PER_S as f64 / r }, pkt_bytes: bytes, ack: false, ack_bytes: 0 })
    },
};

/// `probe`.
pub const PROBE: ArrivalEntry = Entry {
    name: "probe",
    description: "open loop: each sender sends one pkt_bytes packet (default 500) every interval_ms (default 20), answered at once by the receiver; one-way and round-trip delays in the run's probes table. Keys: interval_ms, pkt_bytes, senders, start_s, stop_s",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        check_only(g, cx, &["interval_ms"])?;
        let bytes = pkt_bytes(g, cx, 500.0)?;
        let interval = ms_to_ns(duration_ms(&format!("{}.interval_ms", cx.field), g.interval_ms.unwrap_or(20.0), true)?);
        let header = (cx.pkt_bytes as u32).saturating_sub(cx.mss_bytes).max(1);
        open_loop(g, cx, OpenLoop { process: Process::Periodic { gap_ns: interval }, pkt_bytes: bytes, ack: true, ack_bytes: header })
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn sender(p: Process, stop: Option<Time>) -> OpenLoopSender {
        OpenLoopSender::new(
            0,
            OpenLoop {
                process: p,
                pkt_bytes: 500,
                ack: false,
                ack_bytes: 40,
            },
            stop,
            crate::sim::stream_rng(1, 1),
        )
    }

    fn times(s: &mut OpenLoopSender, start: Time) -> Vec<Time> {
        let mut out = Vec::new();
        s.start(start, &mut out);
        while let Some(t) = s.next_timer() {
            s.on_timer(t, &mut out);
        }
        out.iter().map(|p| p.ts).collect()
    }

    #[test]
    fn on_off_sends_during_on_periods_only() {
        // On 2.5 ms at one packet per 0.5 ms, off 1.5 ms, from t = 1 ms, until 9 ms:
        // periods start at 1 and 5 ms; packets at 1, 1.5, ..., 3 ms (5), then 5 .. 7 ms.
        let ms = 1_000_000;
        let mut s = sender(
            Process::OnOff {
                on_ns: 5 * ms / 2,
                off_ns: 3 * ms / 2,
                gap_ns: (ms / 2) as f64,
            },
            Some(9 * ms),
        );
        let t = times(&mut s, ms);
        let expect: Vec<Time> = [2, 3, 4, 5, 6, 10, 11, 12, 13, 14]
            .iter()
            .map(|&h| h * ms / 2)
            .collect();
        assert_eq!(t, expect);
        assert!(s.done());
    }

    #[test]
    fn periodic_and_poisson_stop_at_the_stop_time() {
        let mut s = sender(Process::Periodic { gap_ns: 20 }, Some(100));
        assert_eq!(times(&mut s, 0), vec![0, 20, 40, 60, 80]);
        let mut s = sender(Process::Poisson { mean_gap_ns: 10.0 }, Some(100_000));
        let t = times(&mut s, 0);
        assert!(t.windows(2).all(|w| w[0] < w[1]) && t[0] > 0 && *t.last().unwrap() < 100_000);
    }
}
