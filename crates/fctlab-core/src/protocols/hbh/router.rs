//! The router half of hbh (see [`super`]): a round-robin port with one queue
//! per conversation and a shared buffer (overflow drops the tail of the
//! longest queue, as `fq`), which sends each hbh conversation no faster than
//! the rate set from the downstream switch's reports, and reports its own
//! service rate and queue of each conversation upstream.
//!
//! Reports travel between the ports of one run through a table they share:
//! a port files a report for the port a packet last left (the packet carries
//! its id), and that port reads it one propagation delay of its own link
//! later, as if it had come back over the reverse line.

use super::{HbhData, HbhEcho};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::queue::{PortParams, Queue, QueueBuilder, QueueEntry};
use crate::net::{Packet, PacketKind};
use crate::protocols::e2e_ef::EfHeader;
use crate::sim::{tx_time_ns, Time, NS_PER_S};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// `[network.hbh]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HbhParams {
    /// B: packets of each conversation a switch aims to keep queued at the next switch.
    pub setpoint_pkts: f64,
    /// Fraction of the queue error corrected per hop round trip.
    pub gain: f64,
    /// The lowest rate a switch sets, as a fraction of the downstream rate.
    pub min_rate_frac: f64,
    /// Time constant of each conversation's arrival-rate estimate (ms).
    pub rate_window_ms: f64,
}

impl Default for HbhParams {
    fn default() -> Self {
        HbhParams {
            setpoint_pkts: 5.0,
            gain: 0.25,
            min_rate_frac: 1.0 / 16.0,
            rate_window_ms: 10.0,
        }
    }
}

impl Params for HbhParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("setpoint_pkts", "Mishra & Kanakia 1992 per-hop target queue B (value chosen, as packet-pair's set point)"),
        ParamDoc::new("gain", "g in lambda = mu_D + g (B - n_D)/d (chosen): with the report half a hop round trip old, n_D follows n' = n + g (B - n_prev) per hop round trip, which oscillates undamped at g = 1 and is critically damped at 1/4"),
        ParamDoc::new("rate_window_ms", "time constant of the per-conversation arrival rates from which a port computes a conversation's round-robin (max-min) share (chosen: a few hop round trips, long enough to average on-off and Poisson streams)"),
        ParamDoc::new("min_rate_frac", "floor of a switch's rate as a fraction of the downstream service rate, so a conversation never stops while reports are in flight (chosen)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.setpoint_pkts.is_finite() && self.setpoint_pkts >= 0.0) {
            return err(
                format!("{field}.setpoint_pkts"),
                format!("must be a number of packets >= 0, got {}", self.setpoint_pkts),
            );
        }
        if !(self.gain > 0.0 && self.gain <= 1.0) {
            return err(format!("{field}.gain"), format!("must be in (0, 1], got {}", self.gain));
        }
        crate::config::duration_ms(&format!("{field}.rate_window_ms"), self.rate_window_ms, true)?;
        if !(self.min_rate_frac > 0.0 && self.min_rate_frac <= 1.0) {
            return err(
                format!("{field}.min_rate_frac"),
                format!("must be in (0, 1], got {}", self.min_rate_frac),
            );
        }
        Ok(())
    }
}

/// `hbh` (the queue discipline).
pub const ENTRY: QueueEntry = Entry {
    name: "hbh",
    description: "hop-by-hop rate control's switch port (Mishra & Kanakia 1992, our reading): per-conversation round robin, each hbh conversation shaped to the next switch's reported rate plus (B - its queue there)/hop RTT; reports its own rate and queue upstream",
    table: Some("hbh"),
    params: documented::<HbhParams>,
    requires: None,
    factory,
};

/// One entry of a port's history of a conversation: (time, its round-robin
/// share, its queue).
type Report = (Time, f64, f64);

/// What the ports of one run know of each other: each port's propagation
/// delay, each port's history of each conversation (time, its round-robin
/// share, its queue), and which port is next downstream of which for each
/// conversation (learnt from the packets).
#[derive(Default)]
struct Board {
    delay: Vec<Time>,
    hist: HashMap<(u32, u32), VecDeque<Report>>,
    down: HashMap<(u32, u32), u32>,
}

/// History kept per port and conversation beyond the newest entry (reads
/// look back by the propagation delays of the path, far less than this).
const HISTORY_NS: Time = 2 * NS_PER_S;

impl Board {
    /// `port`'s report on `f` as it left `port` at `t`: its share, lowered to
    /// the rate its own next port reported (the same read one delay earlier),
    /// and its queue.
    fn state(&self, port: u32, f: u32, t: Time, depth: u32) -> Option<(f64, f64)> {
        let h = self.hist.get(&(port, f))?;
        let i = h.partition_point(|e| e.0 <= t);
        let &(_, share, n) = h.get(i.checked_sub(1)?)?;
        let mut mu = share;
        if depth < 64 {
            if let Some(&d) = self.down.get(&(port, f)) {
                let delay = self.delay[port as usize - 1];
                if let Some((m, _)) = t.checked_sub(delay).and_then(|t2| self.state(d, f, t2, depth + 1)) {
                    mu = mu.min(m);
                }
            }
        }
        Some((mu, n))
    }

    fn record(&mut self, port: u32, f: u32, e: (Time, f64, f64)) {
        let h = self.hist.entry((port, f)).or_default();
        h.push_back(e);
        while h.len() > 2 && h[1].0 + HISTORY_NS < e.0 {
            h.pop_front();
        }
    }
}

type Shared = Arc<Mutex<Board>>;

fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: HbhParams = t.parse()?;
    let board: Shared = Arc::new(Mutex::new(Board::default()));
    Ok(Arc::new(move |p: PortParams| {
        Box::new(HbhPort::new(c.clone(), p, board.clone())) as Box<dyn Queue>
    }))
}

/// A conversation's state at a port.
#[derive(Default)]
struct Conv {
    q: VecDeque<Packet>,
    /// Allowed rate toward the next switch, packets/s (None: not shaped).
    rate: Option<f64>,
    /// The earliest time its next packet may leave.
    next_ok: Time,
    last_sent: Option<Time>,
    next_update: Time,
    /// The service rate the next switch reported last (packets/s).
    mu_down: Option<f64>,
    /// Whether its packets are hbh's (shaped and reported).
    hbh: bool,
    /// Arrival rate estimate (bits/s) as of `rate_at`.
    rate_bps: f64,
    rate_at: Time,
}

impl Conv {
    /// The arrival rate at `now`: bits that arrived, each weighted by
    /// exp(-age / tau), over tau.
    fn arrival_bps(&self, now: Time, tau_ns: f64) -> f64 {
        self.rate_bps * (-(now.saturating_sub(self.rate_at) as f64) / tau_ns).exp()
    }
}

/// The share of a line of `capacity_bps` a backlogged conversation gets
/// under round robin beside others arriving at `others_bps`: max-min water
/// filling (the others below the level get what they bring, the rest share
/// what is left equally).
pub fn maxmin_share_bps(capacity_bps: f64, others_bps: &mut [f64]) -> f64 {
    others_bps.sort_by(|a, b| a.total_cmp(b));
    let (mut left, mut n) = (capacity_bps, others_bps.len() + 1);
    for &r in others_bps.iter() {
        if r >= left / n as f64 {
            break;
        }
        left -= r;
        n -= 1;
    }
    left / n as f64
}

/// An hbh switch port.
pub struct HbhPort {
    c: HbhParams,
    id: u32,
    rate_bps: f64,
    delay_ns: Time,
    limit: usize,
    len: usize,
    bytes: u64,
    convs: BTreeMap<u32, Conv>,
    /// Conversations holding packets, in round-robin order (front: next).
    active: VecDeque<u32>,
    board: Shared,
}

impl HbhPort {
    fn new(c: HbhParams, p: PortParams, board: Shared) -> Self {
        let id = {
            let mut b = board.lock().expect("hbh board");
            b.delay.push(p.delay_ns);
            b.delay.len() as u32
        };
        HbhPort {
            c,
            id,
            rate_bps: p.rate_bps,
            delay_ns: p.delay_ns,
            limit: p.limit_pkts,
            len: 0,
            bytes: 0,
            convs: BTreeMap::new(),
            active: VecDeque::new(),
            board,
        }
    }

    /// The hop round trip: twice the propagation delay plus one packet's serialisation.
    fn hop_rtt_ns(&self, bytes: u32) -> Time {
        2 * self.delay_ns + tx_time_ns(bytes as u64, self.rate_bps)
    }

    /// This port's round-robin share for `f` (packets/s of `bytes`-byte
    /// packets) were it backlogged: max-min water filling of the line over
    /// the other conversations' arrival rates ([`maxmin_share_bps`]).
    fn share(&self, now: Time, f: u32, bytes: u32) -> f64 {
        let tau = self.c.rate_window_ms * 1e6;
        let mut others: Vec<f64> = self
            .convs
            .iter()
            .filter(|(&g, _)| g != f)
            .map(|(_, c)| c.arrival_bps(now, tau))
            .filter(|&r| r > 0.0)
            .collect();
        maxmin_share_bps(self.rate_bps, &mut others) / (8.0 * bytes as f64)
    }

    /// Note `f`'s share and queue here after an arrival or a departure.
    fn record(&self, now: Time, f: u32, bytes: u32) {
        let n = self.convs.get(&f).map_or(0, |c| c.q.len()) as f64;
        self.board
            .lock()
            .expect("hbh board")
            .record(self.id, f, (now, self.share(now, f, bytes), n));
    }

    /// Once per hop round trip: read the next switch's report on `f` (what
    /// it was one propagation delay ago) and set `f`'s rate from it.
    fn update(&mut self, now: Time, f: u32, bytes: u32) {
        if self.convs.get(&f).is_none_or(|c| now < c.next_update) {
            return;
        }
        let report = {
            let b = self.board.lock().expect("hbh board");
            let down = b.down.get(&(self.id, f)).copied();
            down.zip(now.checked_sub(self.delay_ns))
                .and_then(|(d, t)| b.state(d, f, t, 0))
        };
        let d = self.hop_rtt_ns(bytes);
        let (b, g, frac) = (self.c.setpoint_pkts, self.c.gain, self.c.min_rate_frac);
        let c = self.convs.get_mut(&f).expect("checked above");
        if let Some((mu, n)) = report {
            let rate = rate_law(mu, n, b, g, d, frac);
            c.mu_down = Some(mu);
            c.rate = Some(rate);
            c.next_update = now + d;
            // A new rate applies from the last departure.
            c.next_ok = c.last_sent.map_or(0, |t| t + gap_ns(rate));
        }
    }

    fn drop_from_longest(&mut self) -> Option<Packet> {
        let (&f, _) = self
            .convs
            .iter()
            .filter(|(_, c)| !c.q.is_empty())
            .max_by_key(|(g, c)| (c.q.len(), std::cmp::Reverse(**g)))?;
        let c = self.convs.get_mut(&f)?;
        let p = c.q.pop_back()?;
        if c.q.is_empty() {
            self.active.retain(|&g| g != f);
        }
        self.len -= 1;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }
}

/// `lambda = max(mu_D + g (B - n_D) / d, frac x mu_D)` in packets/s, `d` in ns.
pub fn rate_law(mu_d: f64, n_d: f64, setpoint: f64, gain: f64, hop_rtt_ns: Time, frac: f64) -> f64 {
    let d = hop_rtt_ns.max(1) as f64 / NS_PER_S as f64;
    (mu_d + gain * (setpoint - n_d) / d).max(frac * mu_d)
}

fn gap_ns(rate_pps: f64) -> Time {
    ((NS_PER_S as f64 / rate_pps).round() as Time).max(1)
}

/// The packet's header, if it is an hbh data packet.
fn hbh_data(p: &Packet) -> Option<HbhData> {
    let h: HbhData = p.hdr.get();
    (p.kind == PacketKind::Data && h.rate_pps > 0.0).then_some(h)
}

impl HbhPort {
    /// An hbh ACK on its way to the source takes the report of the
    /// conversation's first switch as it is now (the last port to write it
    /// is the first switch's own port toward the source).
    fn report(&self, now: Time, p: &mut Packet) {
        let e: HbhEcho = p.hdr.get();
        if e.rate_pps > 0.0 && e.first_port >= 1.0 {
            let b = self.board.lock().expect("hbh board");
            if let Some((mu, n)) = b.state(e.first_port as u32, p.flow, now, 0) {
                p.hdr.set(EfHeader {
                    rate_pps: mu,
                    queue_pkts: n,
                });
            }
        }
    }
}

impl Queue for HbhPort {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        let f = pkt.flow;
        let (data, bytes) = (hbh_data(&pkt), pkt.size_bytes);
        let hbh = data.is_some();
        let tau = self.c.rate_window_ms * 1e6;
        if self.convs.len() > 256 && !self.convs.contains_key(&f) {
            // Forget conversations long idle (their estimate has decayed away).
            self.convs.retain(|_, c| {
                !c.q.is_empty()
                    || c.rate.is_some() && now < c.next_update + (20.0 * tau) as Time
                    || c.arrival_bps(now, tau) > 1.0
            });
        }
        let c = self.convs.entry(f).or_default();
        c.hbh |= hbh;
        c.rate_bps = c.arrival_bps(now, tau) + 8.0 * bytes as f64 / (tau / NS_PER_S as f64);
        c.rate_at = now;
        if c.q.is_empty() {
            self.active.push_back(f);
        }
        c.q.push_back(pkt);
        self.len += 1;
        self.bytes += bytes as u64;
        let dropped = if self.len > self.limit {
            self.drop_from_longest()
        } else {
            None
        };
        if let Some(h) = data {
            let up = h.last_port as u32;
            if up != 0 {
                self.board.lock().expect("hbh board").down.insert((up, f), self.id);
            }
            self.record(now, f, bytes);
        }
        dropped
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        // The first conversation in round-robin order whose head may leave.
        for i in 0..self.active.len() {
            let f = self.active[i];
            let (hbh, bytes) = {
                let c = &self.convs[&f];
                (c.hbh, c.q.front().map_or(0, |p| p.size_bytes))
            };
            if hbh {
                self.update(now, f, bytes);
                if self.convs[&f].next_ok > now {
                    continue;
                }
            }
            let c = self.convs.get_mut(&f).expect("active conversation");
            let mut p = c.q.pop_front().expect("active conversation holds packets");
            c.last_sent = Some(now);
            if let Some(r) = c.rate {
                c.next_ok = now + gap_ns(r);
            }
            let left = c.q.len();
            self.active.remove(i);
            if left > 0 {
                self.active.push_back(f);
            }
            self.len -= 1;
            self.bytes -= p.size_bytes as u64;
            if let Some(mut h) = hbh_data(&p) {
                if h.last_port == 0.0 {
                    // The first switch: the ACK will bring its id back to it.
                    h.first_port = self.id as f64;
                }
                self.record(now, f, bytes);
                h.last_port = self.id as f64;
                p.hdr.set(h);
            } else if p.kind == PacketKind::Ack {
                self.report(now, &mut p);
            }
            return Some(p);
        }
        None
    }

    fn len_pkts(&self) -> usize {
        self.len
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit_pkts(&self) -> Option<usize> {
        Some(self.limit)
    }

    fn shapes(&self) -> bool {
        true
    }

    fn next_ready(&self, now: Time) -> Option<Time> {
        self.active.iter().map(|f| self.convs[f].next_ok.max(now)).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(board: &Shared, rate_bps: f64, delay_ns: Time, limit: usize) -> HbhPort {
        let p = PortParams {
            limit_pkts: limit,
            rate_bps,
            delay_ns,
            seed: 1,
            stream: 0,
        };
        HbhPort::new(HbhParams::default(), p, board.clone())
    }

    fn data(flow: u32) -> Packet {
        let mut p = Packet::new(flow, PacketKind::Data, 500, 0, 0);
        p.hdr.set(HbhData {
            rate_pps: f64::MAX,
            ..HbhData::default()
        });
        p
    }

    #[test]
    fn rate_law_by_hand() {
        // mu_D 2 500 packets/s, 3 queued there, B = 5, hop RTT 2 ms, gain 1/4:
        // 2 500 + (5 - 3) / 4 / 0.002 = 2 750 packets/s.
        assert!((rate_law(2_500.0, 3.0, 5.0, 0.25, 2_000_000, 1.0 / 16.0) - 2_750.0).abs() < 1e-9);
        // Gain 1: 2 500 + 2 / 0.002 = 3 500.
        assert!((rate_law(2_500.0, 3.0, 5.0, 1.0, 2_000_000, 1.0 / 16.0) - 3_500.0).abs() < 1e-9);
        // 25 queued: 2 500 - 20 / 4 / 0.002 < 0: the floor, 2 500 / 16.
        assert!((rate_law(2_500.0, 25.0, 5.0, 0.25, 2_000_000, 1.0 / 16.0) - 156.25).abs() < 1e-9);
    }

    #[test]
    fn a_port_shapes_to_the_downstream_report_after_its_delay() {
        let board: Shared = Arc::new(Mutex::new(Board::default()));
        // Upstream port U: 100 Mb/s, 1 ms (hop RTT 2 ms + 40 us); downstream D:
        // 40 Mb/s, 20 ms; D's next port E: 10 Mb/s.
        let mut u = port(&board, 100e6, 1_000_000, 100);
        let mut d = port(&board, 40e6, 20_000_000, 100);
        let mut e = port(&board, 10e6, 1_000_000, 100);
        // U alone: not shaped; its first packet leaves at once, marked with U's id as the first switch.
        u.enqueue(0, data(7));
        let p = u.dequeue(0).unwrap();
        let h: HbhData = p.hdr.get();
        assert_eq!(h.last_port, u.id as f64);
        assert_eq!((h.rate_pps, h.first_port), (f64::MAX, u.id as f64));
        // It reaches D at 1.04 ms, alone: D's share for 7 is the line,
        // 40e6 / 4000 = 10 000/s, and 7 has 1 packet there.
        let t_arr = 1_040_000;
        d.enqueue(t_arr, p);
        // Before U's propagation delay has passed, U does not know it.
        for _ in 0..3 {
            u.enqueue(t_arr, data(7));
        }
        u.update(t_arr + 999_999, 7, 500);
        assert_eq!(u.convs[&7].rate, None);
        // After it: rate = 10 000 + (5 - 1) / 4 / 0.00204 packets/s.
        let now = t_arr + 1_000_000;
        u.update(now, 7, 500);
        let want = 10_000.0 + 1.0 / 0.00204;
        assert!((u.convs[&7].rate.unwrap() - want).abs() < 1e-6);
        // Packets now leave one rate gap apart; between gaps the port holds them.
        let a = u.dequeue(now).unwrap();
        assert_eq!(a.flow, 7);
        assert_eq!(a.hdr.get::<HbhData>().first_port, u.id as f64, "U is the first switch");
        assert!(u.dequeue(now + 1).is_none(), "held by the shaper");
        let gap = gap_ns(want);
        assert_eq!(u.next_ready(now + 1), Some(now + gap));
        assert!(u.dequeue(now + gap).is_some());
        assert_eq!(u.len_pkts(), 1);
        // D forwards 7's packet to E (10 Mb/s: 2 500/s alone) at 2 ms; it
        // arrives at 2.4 ms. D then holds nothing and is alone: share 10 000/s.
        // What U reads at t is D's state at t - 1 ms, with E's as of 20 ms
        // before that: from 2.4 + 20 + 1 ms on, U learns E's 2 500/s.
        let q = d.dequeue(2_000_000).unwrap();
        e.enqueue(2_400_000, q);
        let t = 2_400_000 + 20_000_000 + 1_000_000;
        u.convs.get_mut(&7).unwrap().next_update = 0;
        u.update(t - 1, 7, 500);
        assert_eq!(u.convs[&7].mu_down, Some(10_000.0));
        u.convs.get_mut(&7).unwrap().next_update = 0;
        u.update(t, 7, 500);
        assert_eq!(u.convs[&7].mu_down, Some(2_500.0));
        assert!((u.convs[&7].rate.unwrap() - (2_500.0 + 0.25 * 5.0 / 0.00204)).abs() < 1e-6);
        // An ACK of 7 passing any hbh port toward the source takes U's report
        // as it is then: the path's rate 2 500/s and the 1 packet U holds.
        let mut r = port(&board, 100e6, 1_000_000, 100);
        let mut ack = Packet::new(7, PacketKind::Ack, 40, 0, 0);
        ack.hdr.set(HbhEcho {
            rate_pps: f64::MAX,
            first_port: u.id as f64,
        });
        r.enqueue(t, ack);
        let report: EfHeader = r.dequeue(t).unwrap().hdr.get();
        assert_eq!((report.rate_pps, report.queue_pkts), (2_500.0, 1.0));
    }

    #[test]
    fn maxmin_share_by_hand() {
        // 40 Mb/s beside conversations at 4, 8 and 30 Mb/s: level 10 takes
        // 4 (36 left for 3), level 12 takes 8 (28 left for 2), 30 is above 14:
        // 14 Mb/s.
        assert_eq!(maxmin_share_bps(40e6, &mut [30e6, 4e6, 8e6]), 14e6);
        assert_eq!(maxmin_share_bps(40e6, &mut []), 40e6);
        // Ten Poisson streams of 0.8 Mb/s (20% in all) leave 32 Mb/s.
        assert!((maxmin_share_bps(40e6, &mut [0.8e6; 10]) - 32e6).abs() < 1e-6);
    }

    #[test]
    fn the_share_follows_the_others_arrival_rates() {
        let board: Shared = Arc::new(Mutex::new(Board::default()));
        let mut d = port(&board, 40e6, 1_000_000, 1000);
        // Flow 8 sends a 500 B packet every 0.4 ms (10 Mb/s) for 200 ms: its
        // estimate is 4000 bits / 0.4 ms = 10 Mb/s within a fraction
        // 0.4 / 10 / 2 (the sawtooth) plus exp(-20) of the start: flow 7's
        // share is then 30 Mb/s, 7 500 packets/s.
        let mut t = 0;
        while t <= 200_000_000 {
            d.enqueue(t, Packet::new(8, PacketKind::Data, 500, 0, 0));
            d.dequeue(t);
            t += 400_000;
        }
        let s = d.share(t - 400_000, 7, 500);
        assert!((s - 7_500.0).abs() < 7_500.0 * 0.03, "{s}");
    }

    #[test]
    fn other_packets_are_served_round_robin_unshaped() {
        let board: Shared = Arc::new(Mutex::new(Board::default()));
        let mut u = port(&board, 100e6, 1_000_000, 3);
        for f in [1, 1, 2] {
            u.enqueue(0, Packet::new(f, PacketKind::Ack, 40, 0, 0));
        }
        // Over the limit: the tail of the longest queue (flow 1) goes.
        let d = u.enqueue(0, Packet::new(2, PacketKind::Ack, 40, 0, 0)).unwrap();
        assert_eq!(d.flow, 1);
        let order: Vec<u32> = std::iter::from_fn(|| u.dequeue(0)).map(|p| p.flow).collect();
        assert_eq!(order, vec![1, 2, 2]);
    }
}
