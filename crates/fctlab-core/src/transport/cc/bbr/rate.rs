//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation,
//! as Linux `net/ipv4/tcp_rate.c` runs it) and the windowed max filter of
//! Linux `lib/win_minmax.c` (Kathleen Nichols' algorithm), for BBR.
//!
//! Each segment leaving records the connection's delivery state
//! (`tcp_rate_skb_sent`); when an ACK delivers data, the record of the
//! segment it echoes (the most recently sent of those it delivers) gives the
//! sample (`tcp_rate_skb_delivered`, `tcp_rate_gen`): the segments delivered
//! since that segment left, over the longer of its send phase (from the
//! first segment of its flight to it) and its ACK phase (from the delivery
//! before it left to now). A sample shorter than the least RTT is dropped.
//! Records are kept in send order, one per send time (segments that leave
//! at the same instant share one), and dropped once an ACK echoes a later
//! send.

use crate::sim::Time;
use crate::transport::cc::Delivery;
use std::collections::VecDeque;

/// The delivery state when a segment left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxRecord {
    sent: Time,
    /// `tp->delivered` then.
    delivered: u64,
    /// `tp->delivered_mstamp` then.
    delivered_at: Time,
    /// `tp->first_tx_mstamp` then: when the first segment of its flight left.
    first_tx: Time,
    app_limited: bool,
}

/// One ACK's delivery-rate sample (Linux's `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over the interval, and the interval (ns); None
    /// when the ACK gives no valid sample.
    pub rate: Option<(u64, Time)>,
    /// `tp->delivered` when the echoed segment left.
    pub prior_delivered: u64,
    /// The sample was taken while the sender was application-limited.
    pub app_limited: bool,
}

impl RateSample {
    /// The delivery rate, segments per second (0 without a valid sample).
    pub fn pps(&self) -> f64 {
        match self.rate {
            Some((n, t)) if t > 0 => n as f64 * 1e9 / t as f64,
            _ => 0.0,
        }
    }
}

/// A connection's delivery state and its segments' records.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered (acknowledged or SACKed) so far (`tp->delivered`).
    pub delivered: u64,
    /// When the last delivery happened (`tp->delivered_mstamp`).
    pub delivered_at: Time,
    /// The send time of the most recently delivered segment, or of the
    /// first segment sent into an empty pipe (`tp->first_tx_mstamp`).
    first_tx: Time,
    /// Nonzero while application-limited: the `delivered` count that ends
    /// it (`tp->app_limited`).
    pub app_limited: u64,
    records: VecDeque<TxRecord>,
}

impl RateSampler {
    /// A segment leaves at `now` with `packets_out` others unacknowledged
    /// (`tcp_rate_skb_sent`).
    pub fn on_send(&mut self, now: Time, packets_out: u64) {
        if packets_out == 0 {
            self.first_tx = now;
            self.delivered_at = now;
        }
        let r = TxRecord {
            sent: now,
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_tx: self.first_tx,
            app_limited: self.app_limited != 0,
        };
        match self.records.back_mut() {
            Some(last) if last.sent == now => *last = r,
            _ => self.records.push_back(r),
        }
    }

    /// The sample of ACK `d` (`tcp_rate_skb_delivered` for the segment it
    /// echoes, then `tcp_rate_gen`).
    pub fn on_ack(&mut self, d: &Delivery) -> RateSample {
        let mut rs = RateSample::default();
        let mut snd_interval = 0;
        let mut prior_at = None;
        if d.delivered > 0 {
            while self.records.front().is_some_and(|r| r.sent < d.echoed_ts) {
                self.records.pop_front();
            }
            if let Some(r) = self.records.front().filter(|r| r.sent == d.echoed_ts).copied() {
                rs.prior_delivered = r.delivered;
                rs.app_limited = r.app_limited;
                prior_at = Some(r.delivered_at);
                self.first_tx = r.sent;
                snd_interval = r.sent - r.first_tx;
            }
        }
        self.delivered += d.delivered;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if d.delivered > 0 {
            self.delivered_at = d.now;
        }
        let Some(prior_at) = prior_at else {
            return rs;
        };
        let interval = snd_interval.max(d.now.saturating_sub(prior_at));
        if interval >= d.min_rtt_ns && interval > 0 {
            rs.rate = Some((self.delivered - rs.prior_delivered, interval));
        }
        rs
    }

    /// Mark the connection application-limited until what is in flight now
    /// is delivered (BBR's PROBE_RTT sets Linux's `tp->app_limited` so).
    pub fn set_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Segment records held (one per send time).
    pub fn records(&self) -> usize {
        self.records.len()
    }
}

/// A windowed running maximum over a window of `win` time units (BBR's
/// rounds), kept as the best three samples of its sub-windows (Linux
/// `struct minmax`, `minmax_running_max`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    /// The windowed maximum.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [(t, v); 3];
        v
    }

    /// Take sample `v` at time `t`; returns the maximum.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        self.subwin_update(win, t, v)
    }

    /// `minmax_subwin_update`: age the samples as the window passes.
    fn subwin_update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::CaState;

    fn ack(now: Time, echoed: Time, delivered: u64, min_rtt: Time) -> Delivery {
        Delivery {
            now,
            echoed_ts: echoed,
            delivered,
            losses: 0,
            prior_in_flight: 0,
            in_flight: 0,
            rtt_ns: now - echoed,
            min_rtt_ns: min_rtt,
            srtt_ns: None,
            state: CaState::Open,
            edt_ns: now,
        }
    }

    #[test]
    fn a_paced_flight_samples_the_pacing_rate() {
        // One segment per 1 ms from t = 0, each acknowledged 10 ms after it
        // left. Once the pipe is full, the segment sent at k ms left when
        // k - 9 were delivered, the last at k ms, and the first of its
        // flight had left at k - 10 ms; its ACK at k + 10 ms makes k + 1
        // delivered: 10 segments over max(10, 10) ms, 1000 segments/s.
        let ms = 1_000_000;
        let mut r = RateSampler::default();
        let mut samples = vec![];
        for t in 0..40u64 {
            if t >= 10 {
                samples.push(r.on_ack(&ack(t * ms, (t - 10) * ms, 1, 10 * ms)));
            }
            let out = if t >= 10 { 10 } else { t };
            r.on_send(t * ms, out);
        }
        assert_eq!(r.delivered, 30);
        // The first ACK's record was taken at an empty pipe: delivered 0 at
        // t = 0, one segment over 10 ms.
        assert_eq!(samples[0].rate, Some((1, 10 * ms)));
        for s in &samples[10..] {
            assert_eq!(s.rate, Some((10, 10 * ms)));
            assert!((s.pps() - 1000.0).abs() < 1e-9);
        }
        // Records are dropped as the ACKs pass them: the one the last ACK
        // echoed (29 ms) and the ten sent since.
        assert_eq!(r.records(), 11);
    }

    #[test]
    fn a_sample_shorter_than_the_least_rtt_or_with_nothing_delivered_is_invalid() {
        let mut r = RateSampler::default();
        r.on_send(0, 0);
        r.on_send(0, 1);
        assert_eq!(r.records(), 1, "one record per send time");
        assert_eq!(r.on_ack(&ack(5, 0, 2, 10)).rate, None);
        assert_eq!(r.delivered, 2);
        r.on_send(5, 0);
        assert_eq!(r.on_ack(&ack(20, 5, 0, 10)).rate, None);
        assert_eq!(r.on_ack(&ack(20, 5, 1, 10)).rate, Some((1, 15)));
    }

    #[test]
    fn app_limited_lasts_until_what_was_in_flight_is_delivered() {
        let mut r = RateSampler::default();
        r.set_app_limited(3);
        r.on_send(0, 0);
        assert!(r.on_ack(&ack(10, 0, 1, 1)).app_limited);
        r.on_ack(&ack(11, 0, 2, 1));
        assert_eq!(r.app_limited, 3, "delivered 3: not beyond yet");
        r.on_ack(&ack(12, 0, 1, 1));
        assert_eq!(r.app_limited, 0);
    }

    #[test]
    fn the_max_filter_keeps_the_best_of_the_window_and_forgets_it_after() {
        let mut f = MaxFilter::default();
        assert_eq!(f.update(10, 0, 5.0), 5.0);
        assert_eq!(f.update(10, 1, 3.0), 5.0);
        assert_eq!(f.update(10, 4, 4.0), 5.0);
        assert_eq!(f.update(10, 10, 2.0), 5.0);
        // Round 11: the 5 of round 0 is more than 10 rounds old; the next
        // best of the window (4, round 4) takes over.
        assert_eq!(f.update(10, 11, 1.0), 4.0);
        assert_eq!(f.update(10, 11, 6.0), 6.0);
        // A window with no sample newer than win: reset to the new one.
        assert_eq!(f.update(10, 40, 1.0), 1.0);
    }
}
