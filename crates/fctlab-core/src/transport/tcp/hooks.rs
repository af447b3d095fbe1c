//! What the sender does for a controller beyond the ACK sample: the hooks
//! it asked for once per flow ([`Asks`]), pacing ([`super::pacing`]) and the
//! delivery picture of a controller that owns the window (BBR).

use super::core::{Ack, Core};
use crate::sim::Time;
use crate::transport::cc::{CaState, CongestionControl, Delivery};

/// What the controller asked for, once per flow: one bit each, so that the
/// sender's state does not grow with the hooks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asks(u8);

impl Asks {
    const ACK_SEQ: u8 = 1;
    const PATH_DELAY: u8 = 2;
    const DELIVERY: u8 = 4;

    pub fn of(cc: &dyn CongestionControl) -> Self {
        let bit = |b: bool, v: u8| if b { v } else { 0 };
        Asks(
            bit(cc.wants_ack_seq(), Self::ACK_SEQ)
                | bit(cc.wants_path_delay(), Self::PATH_DELAY)
                | bit(cc.wants_delivery(), Self::DELIVERY),
        )
    }

    /// `wants_ack_seq`.
    #[inline]
    pub fn ack_seq(self) -> bool {
        self.0 & Self::ACK_SEQ != 0
    }

    /// `wants_path_delay` (and a header with room for the delay).
    #[inline]
    pub fn path_delay(self) -> bool {
        self.0 & Self::PATH_DELAY != 0
    }

    /// `wants_delivery`: the controller owns the window.
    #[inline]
    pub fn delivery(self) -> bool {
        self.0 & Self::DELIVERY != 0
    }

    /// No path delay (the ACK's header words hold SACK blocks).
    pub fn without_path_delay(self) -> Self {
        Asks(self.0 & !Self::PATH_DELAY)
    }
}

impl Core {
    // ---- pacing ----

    /// Whether pacing lets a segment leave at `now` (always, unpaced); the
    /// last test of a send loop, so that a held sender is one that had
    /// something to send.
    #[inline]
    pub fn pace_ok(&mut self, now: Time) -> bool {
        match self.pacer.as_deref_mut() {
            None => true,
            Some(p) => p.allows(now),
        }
    }

    /// The pacing rate, payload bytes per second: the controller's, else
    /// Linux's `tcp_update_pacing_rate` (infinite before an RTT sample).
    pub fn pacing_rate(&self) -> f64 {
        if let Some(r) = self.cc.pacing_rate() {
            return r;
        }
        let Some(srtt) = self.rtt.srtt().filter(|&s| s > 0) else {
            return f64::INFINITY;
        };
        let o = self.opts();
        let ratio = if self.w.cwnd < self.w.ssthresh / 2.0 {
            o.pacing_ss_ratio
        } else {
            o.pacing_ca_ratio
        };
        let pkts = self.w.cwnd.max((self.high_data - self.snd_una) as f64);
        ratio / 100.0 * pkts * self.p.mss_bytes as f64 * 1e9 / srtt as f64
    }

    // ---- a controller that owns the window ----

    /// The congestion-control state as Linux names it.
    pub fn ca_state(&self) -> CaState {
        if self.phase.in_recovery() {
            CaState::Recovery
        } else if self.snd_una < self.recover {
            CaState::Loss
        } else {
            CaState::Open
        }
    }

    /// Tell a controller that owns the window what ACK `a` delivered
    /// (`delivered` segments, `losses` newly taken for lost; `prior_in_flight`
    /// and `in_flight`: the pipe before and after); no-op for the others.
    pub fn deliver(&mut self, a: &Ack, delivered: u64, losses: u64, prior_in_flight: u64, in_flight: u64) {
        if !self.asks.delivery() {
            return;
        }
        let rtt = a.now.saturating_sub(a.pkt.ts);
        let d = Delivery {
            now: a.now,
            echoed_ts: a.pkt.ts,
            delivered,
            losses,
            prior_in_flight,
            in_flight,
            rtt_ns: rtt,
            min_rtt_ns: self.rtt.min_rtt().unwrap_or(rtt),
            srtt_ns: self.rtt.srtt(),
            state: self.ca_state(),
            edt_ns: self.pacer.as_deref().map_or(a.now, |p| p.next_at.max(a.now)),
        };
        self.cc.on_delivery(&mut self.w, &d);
    }
}
