//! The source half of DECbit (Ramakrishnan & Jain, "A binary feedback scheme
//! for congestion avoidance in computer networks", ACM TOCS 8(2), 1990,
//! sections 5 and 6; the router half is [`crate::net::queue::decbit`]).
//!
//! The window changes once every two round trips. After a change the source
//! waits for the packets of the window then in flight (those the new window
//! let out) to be acknowledged, then examines the congestion bits of the next
//! window's worth of packets. When their ACKs are in: if at least half of the
//! bits were set, `W = 0.875 W`; otherwise `W = W + 1`; and the cycle starts
//! again. Starting from one packet this gives windows 1, 1, 2, 2, 3, 3, ...
//! per round trip, which is what the 1991 benchmark's short-file DECbit row
//! implies (20 packets in eight round trips). There is no slow start.
//!
//! In sequence numbers (what the source can see): a change made on the ACK
//! `a` with new window `W` lets packets up to `a + floor(W)` out; the bits
//! examined are those echoed by the ACKs of packets
//! `[a + floor(W), a + 2 floor(W))`; the decision is taken on the ACK that
//! covers the last of them. An ACK of packet `s` (cumulative ACK `s + 1`)
//! carries the bit of packet `s`; with delayed ACKs one ACK stands for two
//! packets and counts once.
//!
//! Losses (my reading; the paper's transport was DECnet's, with a timeout
//! that sends the window to one): the sender runs Tahoe's recovery (window 1,
//! go back N, on three duplicate ACKs or a timeout), after which the cycle
//! restarts from the next ACK.

use super::{AckSample, AckSeq, CongestionControl, Recovery, Window};
use crate::config::documented;
use crate::config::{err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.decbit]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DecbitParams {
    /// Additive increase per decision, packets.
    pub increase_pkts: f64,
    /// Multiplicative decrease factor.
    pub decrease_factor: f64,
    /// Decrease when at least this fraction of the examined bits is set.
    pub bit_fraction: f64,
}

impl Default for DecbitParams {
    fn default() -> Self {
        DecbitParams {
            increase_pkts: 1.0,
            decrease_factor: 0.875,
            bit_fraction: 0.5,
        }
    }
}

impl Params for DecbitParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("increase_pkts", "Ramakrishnan & Jain 1990 sec. 6: W + 1"),
        ParamDoc::new("decrease_factor", "Ramakrishnan & Jain 1990 sec. 6: W x 0.875"),
        ParamDoc::new(
            "bit_fraction",
            "Ramakrishnan & Jain 1990 sec. 5: decrease if at least 50% of the last window's bits are set",
        ),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.increase_pkts.is_finite() && self.increase_pkts > 0.0) {
            return err(
                format!("{field}.increase_pkts"),
                format!("must be a positive number of packets, got {}", self.increase_pkts),
            );
        }
        if !(self.decrease_factor > 0.0 && self.decrease_factor < 1.0) {
            return err(
                format!("{field}.decrease_factor"),
                format!("must be in (0, 1), got {}", self.decrease_factor),
            );
        }
        if !(self.bit_fraction > 0.0 && self.bit_fraction <= 1.0) {
            return err(
                format!("{field}.bit_fraction"),
                format!("must be in (0, 1], got {}", self.bit_fraction),
            );
        }
        Ok(())
    }
}

/// `decbit`.
pub const ENTRY: SchemeEntry = Entry {
    name: "decbit",
    description: "DECbit source (Ramakrishnan & Jain 1990): every two round trips W + 1, or W x 0.875 if at least half the last window's congestion bits were set; no slow start; Tahoe loss recovery",
    table: Some("decbit"),
    params: documented::<DecbitParams>,
    requires: Some("decbit"),
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: DecbitParams = t.parse()?;
    // The bit is DECbit's own (the router marks every data packet, the
    // source reacts as above): ECN's reaction to the same echo is off.
    let p = TransportParams {
        ecn: false,
        ..p.clone()
    };
    Ok(tcp::endpoints(&p, move || Box::new(Decbit::new(c.clone()))))
}

/// Every-other-window decision points in sequence space, shared by the
/// schemes that act once per two round trips (DECbit; DUAL).
#[derive(Clone, Debug, Default)]
pub struct TwoWindows {
    /// The ACKs of packets below this belong to the window in flight at the
    /// last change.
    wait_until: u64,
    /// The examined window ends here.
    end: u64,
    /// Start a new cycle on the next ACK (at the start and after a loss).
    restart: bool,
    /// ACKs counted in the examined window and those that carried the bit.
    pub acks: u64,
    pub bits: u64,
}

impl TwoWindows {
    pub fn new() -> Self {
        TwoWindows {
            restart: true,
            ..Default::default()
        }
    }

    /// A cycle begins: the window `w` changed (or was set) on cumulative ACK `ack`.
    pub fn begin(&mut self, ack: u64, w: f64) {
        let n = w.floor().max(1.0) as u64;
        self.wait_until = ack + n;
        self.end = self.wait_until + n;
        self.acks = 0;
        self.bits = 0;
        self.restart = false;
    }

    /// Start again from the next ACK (after a loss).
    pub fn restart(&mut self) {
        self.restart = true;
    }

    /// Take one ACK. Returns true when it closes the examined window: the
    /// caller decides, then calls [`Self::begin`]. A fresh cycle's first ACK
    /// (`ack` 0 being the flow's start) begins the cycle as if the window
    /// had been set when the first packet left.
    pub fn on_ack(&mut self, s: &AckSeq, w: f64) -> bool {
        if self.restart {
            let from = if self.end == 0 { 0 } else { s.ack };
            self.begin(from, w);
            if from == s.ack {
                return false;
            }
        }
        if s.ack > self.wait_until {
            self.acks += 1;
            self.bits += s.congestion_bit as u64;
        }
        s.ack >= self.end
    }
}

/// The DECbit window policy.
pub struct Decbit {
    p: DecbitParams,
    clock: TwoWindows,
}

impl Decbit {
    pub fn new(p: DecbitParams) -> Self {
        Decbit {
            p,
            clock: TwoWindows::new(),
        }
    }
}

impl CongestionControl for Decbit {
    /// No per-ACK growth: the window moves only at decisions.
    fn on_ack(&mut self, _w: &mut Window, _s: &AckSample) {}

    /// Tahoe's threshold (the sender sends the window to one); the cycle
    /// restarts after the loss.
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        self.clock.restart();
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn on_rto(&mut self, _w: &mut Window) {
        self.clock.restart();
    }

    fn recovery(&self) -> Recovery {
        Recovery::Tahoe
    }

    fn wants_ack_seq(&self) -> bool {
        true
    }

    fn on_ack_seq(&mut self, w: &mut Window, s: &AckSeq) {
        if !self.clock.on_ack(s, w.cwnd) {
            return;
        }
        let c = &self.clock;
        if c.acks > 0 && c.bits as f64 >= self.p.bit_fraction * c.acks as f64 {
            w.cwnd = (w.cwnd * self.p.decrease_factor).max(1.0);
        } else {
            w.cwnd += self.p.increase_pkts;
        }
        self.clock.begin(s.ack, w.cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(a: u64, bit: bool) -> AckSeq {
        AckSeq {
            now: 0,
            ack: a,
            acked_pkts: 1,
            snd_nxt: 0,
            congestion_bit: bit,
            rtt_ns: 1,
            in_recovery: false,
            rtt_sampled: true,
        }
    }

    /// Feed ACKs 1, 2, ... (one per packet, as a receiver without delayed
    /// ACKs sends them), the bit of ACK `a` given by `bit(a)`; returns the
    /// window after each ACK.
    fn run(n: u64, bit: impl Fn(u64) -> bool) -> Vec<f64> {
        let mut cc = Decbit::new(DecbitParams::default());
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: f64::MAX,
        };
        (1..=n)
            .map(|a| {
                cc.on_ack_seq(&mut w, &ack(a, bit(a)));
                w.cwnd
            })
            .collect()
    }

    #[test]
    fn no_bits_gives_windows_1_1_2_2_3_3() {
        // Hand trace: W=1 from packet 0: packet 0 is the window in flight,
        // packet 1 the examined one; ACK 2 decides W=2 (packets 2, 3 out),
        // examined 4, 5; ACK 6 decides W=3; examined 9..11; ACK 12 decides W=4.
        let w = run(12, |_| false);
        let expect = [1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 4.0];
        assert_eq!(w, expect);
    }

    #[test]
    fn half_the_bits_set_decreases() {
        // Bits on the ACKs of packets 4 and 9 (ACKs 5 and 10) only.
        // ACK 2: examined {1}, no bit: W 2. Examined packets 4, 5 (ACKs 5, 6):
        // one of two set, at least half: W = 2 x 0.875 = 1.75 on ACK 6. Then
        // floor(1.75) = 1: wait for packet 6, examine packet 7 (ACK 8): no
        // bit: W 2.75 on ACK 8. floor 2: wait 8, 9; examine 10, 11 (ACKs 11,
        // 12): no bit (ACK 10's bit belongs to the waited window): W 3.75.
        let w = run(12, |a| a == 5 || a == 10);
        assert_eq!(w[1], 2.0);
        assert_eq!(w[5], 1.75);
        assert_eq!(w[7], 2.75);
        assert_eq!(w[11], 3.75);
        // Every bit set: 1 -> 0.875 floors at 1, every decision.
        let w = run(12, |_| true);
        assert!(w.iter().all(|&x| x == 1.0));
    }

    #[test]
    fn fewer_than_half_increases_and_a_loss_restarts_the_cycle() {
        // W=3 examined packets 9, 10, 11 (ACKs 10..12) with one bit: 1/3 < 1/2: W 4.
        let w = run(12, |a| a == 11);
        assert_eq!(w[11], 4.0);
        let mut cc = Decbit::new(DecbitParams::default());
        let mut w = Window {
            cwnd: 4.0,
            ssthresh: f64::MAX,
        };
        cc.on_ack_seq(&mut w, &ack(1, false));
        // A loss: the sender sets W = 1; the cycle begins again on ACK 30.
        cc.ssthresh_after_loss(&w, 4);
        w.cwnd = 1.0;
        cc.on_ack_seq(&mut w, &ack(30, true));
        assert_eq!(w.cwnd, 1.0);
        // Packet 30 is the window in flight, 31 the examined one (ACK 32, no bit): W 2.
        cc.on_ack_seq(&mut w, &ack(31, false));
        cc.on_ack_seq(&mut w, &ack(32, false));
        assert_eq!(w.cwnd, 2.0);
    }
}
