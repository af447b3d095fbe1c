//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016) as Linux `net/ipv4/tcp_bbr.c` runs it, on
//! delivery-rate samples ([`rate`], Linux `tcp_rate.c`), with pacing.
//!
//! - **Model.** The bottleneck bandwidth is the windowed maximum of the
//!   delivery-rate samples over 10 packet-timed rounds (a round ends when a
//!   segment sent after its start is delivered); app-limited samples count
//!   only if they raise it. The minimum RTT is the least RTT sample over
//!   10 s.
//! - **STARTUP** paces and sizes cwnd at the high gain 2/ln 2 (Linux's
//!   739/256) until the pipe is full: three rounds in a row without the
//!   bandwidth growing by 25 %. **DRAIN** paces at its inverse (88/256)
//!   until the segments in the network at the next departure are at most
//!   one BDP. **PROBE_BW** cycles the pacing gain through 5/4, 3/4 and six
//!   phases of 1, each about one minimum RTT (5/4 until a BDP x 5/4 is in
//!   flight or a loss, 3/4 until a BDP is), starting at a random phase
//!   other than 3/4; cwnd gain 2. **PROBE_RTT**: when the minimum RTT is 10 s
//!   old, cwnd is held at 4 segments for 200 ms and a round, then the
//!   previous cwnd comes back.
//! - **cwnd** = cwnd gain x BDP (rounded up), plus Linux's allowance for
//!   segmentation offload, 3 x `tso_segs_goal` (1 ms of data at the pacing
//!   rate, 2 to 44 full segments; 1 below 1.2 Mb/s), rounded up to even, plus
//!   2 in the 5/4 phase; at least 4. Before the pipe is full it grows by what
//!   each ACK delivers up to that target; after, it is held at the target.
//!   In fast recovery: packet conservation for the first round (cwnd =
//!   in flight + delivered), losses taken off cwnd, and the cwnd before
//!   recovery restored at its end. The pacing rate is gain x bandwidth x
//!   MSS less 1 %, only raised until the pipe is full; before a bandwidth
//!   sample, 2/ln 2 x cwnd / RTT (the handshake's, else 1 ms).
//! - Runs on SACK loss recovery (RFC 6675, three blocks per ACK), which
//!   leaves it the window and, as Linux, keeps the SACKed segments across a
//!   timeout (after which only resent segments count in flight, Linux's
//!   `tcp_timeout_mark_lost`); ECE is not answered (BBR v1 ignores ECN).
//!   Without `rack` a lost retransmission is found by the retransmission
//!   timer only: with BBR v1's high loss in shallow buffers, flows then wait
//!   for the timeout; with it (the `linux` preset) RACK-TLP (RFC 8985) finds
//!   it once a later segment is delivered, as Linux does.
//!
//! Not modelled: the long-term bandwidth of a policed path (`lt_bw`), the
//! ACK-aggregation allowance (`extra_acked`: fctlab's hosts do not
//! aggregate ACKs), restarts from idle (`idle_restart`: a flow's data is all
//! there from its start), Linux's fixed-point arithmetic (rates in
//! floating point, segments per second).

mod rate;

pub use rate::{MaxFilter, RateSample, RateSampler};

use super::{CaState, CongestionControl, Delivery, TxEvent, Window};
use crate::config::{documented, err, Entry, NoParams};
use crate::sim::Time;
use crate::transport::tcp::pacing::burst_segs;
use crate::transport::{tcp, SchemeEntry};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `tcp-bbr`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-bbr",
    description: "BBR v1 (Linux tcp_bbr.c): windowed max delivery rate (10 rounds) and min RTT (10 s); startup at 2/ln2, drain, probe-bw gain cycle 5/4, 3/4, 1 x6, probe-rtt 4 packets for 200 ms; cwnd 2 BDP; paced; SACK recovery",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |t, p| {
        t.parse::<NoParams>()?;
        if p.tcp.pacing == Some(false) {
            return err(
                "transport.pacing",
                "tcp-bbr sends at its bandwidth estimate and needs pacing (Linux tcp_bbr.c sets SK_PACING_NEEDED): leave it unset or true, got false",
            );
        }
        let mss = p.mss_bytes as f64;
        let flows = Arc::new(AtomicU64::new(0));
        Ok(tcp::sack_endpoints(p, 3, true, move || {
            let n = flows.fetch_add(1, Ordering::Relaxed);
            Box::new(Bbr::new(mss, n))
        }))
    },
};

const BBR_UNIT: f64 = 256.0;
/// 2/ln 2 as Linux rounds it (`bbr_high_gain`, 739/256).
pub const HIGH_GAIN: f64 = 739.0 / BBR_UNIT;
/// Its inverse as Linux rounds it (`bbr_drain_gain`, 88/256).
pub const DRAIN_GAIN: f64 = 88.0 / BBR_UNIT;
const CWND_GAIN: f64 = 2.0;
/// The PROBE_BW pacing gains (`bbr_pacing_gain`).
pub const PACING_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The bandwidth filter's window, rounds (`bbr_bw_rtts`).
const BW_ROUNDS: u64 = 10;
/// The minimum-RTT filter's window (`bbr_min_rtt_win_sec`).
const MIN_RTT_WIN: Time = 10_000_000_000;
/// Time held at 4 segments in PROBE_RTT (`bbr_probe_rtt_mode_ms`).
const PROBE_RTT_TIME: Time = 200_000_000;
/// The least cwnd (`bbr_cwnd_min_target`).
const MIN_CWND: f64 = 4.0;
/// Growth that counts as the pipe not yet full, and the rounds without it
/// that say it is (`bbr_full_bw_thresh`, `bbr_full_bw_cnt`).
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
/// Linux's initial window (`TCP_INIT_CWND`).
const INIT_CWND: f64 = 10.0;
/// The pacing margin (`bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.99;

/// BBR's modes (numbered as Linux's `enum bbr_mode`; `model_mode` in the
/// per-flow series).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Linux's order of the congestion-control states (Open < Recovery < Loss).
fn rank(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Recovery => 1,
        CaState::Loss => 2,
    }
}

/// The BBR state of one flow.
#[derive(Clone, Debug)]
pub struct Bbr {
    mss: f64,
    /// A per-flow number that picks the starting PROBE_BW phase (Linux draws
    /// it at random; fctlab from the flow's order, for determinism).
    draw: u64,
    pub rate: RateSampler,
    pub mode: Mode,
    /// Bottleneck bandwidth, segments per second, over `BW_ROUNDS` rounds.
    bw: MaxFilter,
    /// Packet-timed rounds so far, and the delivered count that ends this one.
    pub rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// The minimum RTT (`Time::MAX`: none yet) and when it was taken.
    pub min_rtt: Time,
    min_rtt_stamp: Option<Time>,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prev_state: CaState,
    prior_cwnd: f64,
    full_bw: f64,
    full_bw_cnt: u32,
    pub full_bw_reached: bool,
    /// The round in which the pipe was found full.
    pub full_bw_round: Option<u64>,
    pub cycle_idx: usize,
    cycle_stamp: Time,
    pub pacing_gain: f64,
    cwnd_gain: f64,
    /// Payload bytes per second (`sk_pacing_rate`).
    pacing_rate: f64,
    has_seen_rtt: bool,
}

impl Bbr {
    /// `mss`: payload bytes per segment; `draw`: the flow's number.
    pub fn new(mss: f64, draw: u64) -> Self {
        Bbr {
            mss,
            draw,
            rate: RateSampler::default(),
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: Time::MAX,
            min_rtt_stamp: None,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prev_state: CaState::Open,
            prior_cwnd: 0.0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            full_bw_round: None,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0.0,
            has_seen_rtt: false,
        }
    }

    /// The bandwidth estimate, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// Payload bytes per second at bandwidth `bw` and `gain`, less the margin.
    fn rate_of(&self, bw: f64, gain: f64) -> f64 {
        bw * self.mss * gain * PACING_MARGIN
    }

    /// `bbr_init_pacing_rate_from_rtt`: high gain x cwnd / RTT.
    fn init_pacing_rate(&mut self, cwnd: f64, srtt: Option<Time>) {
        let rtt = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                r.max(1_000)
            }
            None => 1_000_000,
        };
        self.pacing_rate = self.rate_of(cwnd * 1e9 / rtt as f64, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`.
    fn set_pacing_rate(&mut self, cwnd: f64, srtt: Option<Time>) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(cwnd, srtt);
        }
        let r = self.rate_of(self.max_bw(), self.pacing_gain);
        if self.full_bw_reached || r > self.pacing_rate {
            self.pacing_rate = r;
        }
    }

    /// `bbr_tso_segs_goal`: about 1 ms of data at the pacing rate, within
    /// 64 KB less headers (Linux's `GSO_MAX_SIZE` before BIG TCP).
    pub fn tso_segs_goal(&self) -> f64 {
        burst_segs(self.pacing_rate, self.mss)
    }

    /// `bbr_bdp`: ceil(bw x min RTT x gain); the initial window before any
    /// RTT sample.
    pub fn bdp(&self, bw: f64, gain: f64) -> f64 {
        if self.min_rtt == Time::MAX {
            return INIT_CWND;
        }
        (bw * self.min_rtt as f64 / 1e9 * gain).ceil()
    }

    /// `bbr_quantization_budget`.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let cwnd = cwnd + 3.0 * self.tso_segs_goal();
        let cwnd = 2.0 * (cwnd / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd + 2.0
        } else {
            cwnd
        }
    }

    /// `bbr_inflight`: the target in flight at `gain`.
    pub fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will be in the network when the
    /// next segment leaves, given `inflight` now.
    fn in_net_at_edt(&self, d: &Delivery, inflight: u64) -> f64 {
        let interval = d.edt_ns.max(d.now) - d.now;
        let delivered = (self.max_bw() * interval as f64 / 1e9).floor();
        let mut at_edt = inflight as f64;
        if self.pacing_gain > 1.0 {
            at_edt += self.tso_segs_goal();
        }
        (at_edt - delivered).max(0.0)
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, cwnd: f64) {
        if rank(self.prev_state) < rank(CaState::Recovery) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_update_bw`: count rounds and take the sample into the filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.rate.is_none() {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.rate.delivered;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.pps();
        if !rs.app_limited || bw >= self.max_bw() {
            self.bw.update(BW_ROUNDS, self.rounds, bw);
        }
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, d: &Delivery) -> bool {
        let full_length = self.rate.delivered_at.saturating_sub(self.cycle_stamp) > self.min_rtt;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net_at_edt(d, d.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return full_length && (d.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || inflight <= self.inflight(bw, 1.0)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAINS.len();
        self.cycle_stamp = self.rate.delivered_at;
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than 3/4 first.
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = PACING_GAINS.len() - 1 - (splitmix(self.draw) % 7) as usize;
        self.advance_cycle_phase();
    }

    /// `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_ROUNDS;
        if self.full_bw_reached {
            self.full_bw_round = Some(self.rounds);
        }
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, w: &mut Window, d: &Delivery) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), 1.0);
        }
        if self.mode == Mode::Drain && self.in_net_at_edt(d, d.in_flight) <= self.inflight(self.max_bw(), 1.0) {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Time) {
        if self.probe_rtt_done.is_none_or(|t| now <= t) {
            return;
        }
        self.min_rtt_stamp = Some(now);
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_update_min_rtt`, with PROBE_RTT's entry and exit.
    fn update_min_rtt(&mut self, w: &mut Window, d: &Delivery) {
        let stamp = *self.min_rtt_stamp.get_or_insert(d.now);
        let expired = d.now > stamp + MIN_RTT_WIN;
        if d.delivered > 0 && (d.rtt_ns < self.min_rtt || expired) {
            self.min_rtt = d.rtt_ns;
            self.min_rtt_stamp = Some(d.now);
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        self.rate.set_app_limited(d.in_flight);
        if self.probe_rtt_done.is_none() && d.in_flight as f64 <= MIN_CWND {
            self.probe_rtt_done = Some(d.now + PROBE_RTT_TIME);
            self.probe_rtt_round_done = false;
            self.next_round_delivered = self.rate.delivered;
        } else if self.probe_rtt_done.is_some() {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(w, d.now);
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (PACING_GAINS[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: the window in and after loss
    /// recovery; Some when packet conservation sets it.
    fn recover_or_restore(&mut self, cwnd: f64, d: &Delivery) -> (f64, bool) {
        let mut cwnd = cwnd;
        if d.losses > 0 {
            cwnd = (cwnd - d.losses as f64).max(1.0);
        }
        let (prev, state) = (rank(self.prev_state), rank(d.state));
        if d.state == CaState::Recovery && self.prev_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = self.rate.delivered;
            cwnd = (d.in_flight + d.delivered) as f64;
        } else if prev >= rank(CaState::Recovery) && state < rank(CaState::Recovery) {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = d.state;
        if self.packet_conservation {
            return (cwnd.max((d.in_flight + d.delivered) as f64), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`.
    fn set_cwnd(&mut self, w: &mut Window, d: &Delivery) {
        let acked = d.delivered as f64;
        if acked > 0.0 {
            let (cwnd, conserving) = self.recover_or_restore(w.cwnd, d);
            w.cwnd = cwnd;
            if !conserving {
                let target = self.inflight(self.max_bw(), self.cwnd_gain);
                if self.full_bw_reached {
                    w.cwnd = (w.cwnd + acked).min(target);
                } else if w.cwnd < target || (self.rate.delivered as f64) < INIT_CWND {
                    w.cwnd += acked;
                }
                w.cwnd = w.cwnd.max(MIN_CWND);
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(MIN_CWND);
        }
    }
}

/// SplitMix64's output function: a flow's number spread over 64 bits.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl CongestionControl for Bbr {
    /// The window is set on every ACK in [`Self::on_delivery`].
    fn on_ack(&mut self, _w: &mut Window, _s: &super::AckSample) {}

    /// `bbr_ssthresh`: note the window for the end of recovery; ssthresh
    /// unchanged.
    fn ssthresh_after_loss(&mut self, w: &Window, _flight_pkts: u64) -> f64 {
        self.save_cwnd(w.cwnd);
        w.ssthresh
    }

    /// `bbr_set_state(TCP_CA_Loss)`: the timeout ends a round.
    fn on_rto(&mut self, _w: &mut Window) {
        self.prev_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
    }

    /// `bbr_init`.
    fn on_established(&mut self, w: &mut Window, rtt_ns: Option<Time>) {
        w.ssthresh = f64::MAX;
        if let Some(r) = rtt_ns {
            self.min_rtt = r;
        }
        self.init_pacing_rate(w.cwnd, rtt_ns);
    }

    fn wants_delivery(&self) -> bool {
        true
    }

    fn on_send(&mut self, e: &TxEvent) {
        self.min_rtt_stamp.get_or_insert(e.now);
        self.rate.on_send(e.now, e.packets_out);
    }

    /// `bbr_main`.
    fn on_delivery(&mut self, w: &mut Window, d: &Delivery) {
        let rs = self.rate.on_ack(d);
        self.update_bw(&rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(d) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(&rs);
        self.check_drain(w, d);
        self.update_min_rtt(w, d);
        self.update_gains();
        self.set_pacing_rate(w.cwnd, d.srtt_ns);
        self.set_cwnd(w, d);
    }

    fn needs_pacing(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn model(&self, put: &mut dyn FnMut(&'static str, f64)) {
        if self.max_bw() > 0.0 && self.min_rtt != Time::MAX {
            put("model_bw_pps", self.max_bw());
            put("model_min_rtt_ms", self.min_rtt as f64 / 1e6);
        }
        put("model_rounds", self.rounds as f64);
        put("model_mode", self.mode as u8 as f64);
    }
}

#[cfg(test)]
mod tests;
