//! Round-trip-time estimation and the retransmission timeout (RFC 6298, or
//! Linux's `tcp_rtt_estimator`).

use crate::sim::Time;

/// SRTT / RTTVAR / RTO per RFC 6298 section 2, in integer nanoseconds, or
/// with [`LinuxRtt`] as Linux computes them.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// Linux's estimator (`rto_estimator = "linux"`), else RFC 6298's.
    linux: Option<Box<LinuxRtt>>,
}

/// Linux's RTT state (`struct tcp_sock`: `srtt_us`, `mdev_us`,
/// `mdev_max_us`, `rttvar_us`, `rtt_seq`), in ns instead of microseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxRtt {
    /// 8 x srtt (0: no sample yet).
    pub srtt8: i64,
    /// 4 x mdev.
    pub mdev4: i64,
    /// The largest mdev4 of this round trip, at least the minimum RTO.
    pub mdev_max: i64,
    /// The variance term of the RTO, at least the minimum RTO.
    pub rttvar: i64,
    /// snd_nxt when the round trip began: an ACK beyond it ends it.
    pub rtt_seq: u64,
}

impl LinuxRtt {
    /// `tcp_rtt_estimator` (net/ipv4/tcp_input.c) for a sample `m`, with
    /// snd_una and snd_nxt after the ACK, and `rto_min` (`tcp_rto_min_us`).
    pub fn sample(&mut self, m: i64, snd_una: u64, snd_nxt: u64, rto_min: i64) {
        if self.srtt8 != 0 {
            let mut m = m - (self.srtt8 >> 3); // the error
            self.srtt8 += m; // srtt = 7/8 srtt + 1/8 sample
            if m < 0 {
                m = -m - (self.mdev4 >> 2);
                // A sample below srtt raises mdev only an eighth as much.
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev4 >> 2;
            }
            self.mdev4 += m; // mdev = 3/4 mdev + 1/4 |error|
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = rto_min;
            }
        } else {
            self.srtt8 = m << 3;
            self.mdev4 = m << 1; // rto = 3 rtt
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt8 = self.srtt8.max(1);
    }

    /// `__tcp_set_rto`: srtt + rttvar.
    pub fn rto(&self) -> i64 {
        (self.srtt8 >> 3) + self.rttvar
    }
}

impl RttEstimator {
    /// `initial_rto`: RFC 6298 (2.1) says 1 s. `min_rto`: RFC 6298 (2.4) says 1 s;
    /// Linux (`TCP_RTO_MIN`) and ns-2 (`minrto_`) use 200 ms, fctlab's default.
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rtt: Time::MAX,
            rto: initial_rto.clamp(min_rto, max_rto),
            min_rto,
            max_rto,
            linux: None,
        }
    }

    /// With Linux's estimator instead of RFC 6298's.
    pub fn linux(mut self) -> Self {
        self.linux = Some(Box::default());
        self
    }

    /// Linux's state, when it is the estimator.
    pub fn linux_state(&self) -> Option<&LinuxRtt> {
        self.linux.as_deref()
    }

    /// Take one RTT measurement `r` on an ACK that moved snd_una to
    /// `snd_una` with `snd_nxt` the highest sequence number sent (Linux's
    /// estimator reads them to end a round trip; RFC 6298's does not).
    pub fn sample_at(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        let Some(l) = self.linux.as_deref_mut() else {
            return self.sample(r);
        };
        self.min_rtt = self.min_rtt.min(r);
        let clamp = |x: Time| x.min(i64::MAX as Time) as i64;
        l.sample(clamp(r), snd_una, snd_nxt, clamp(self.min_rto));
        self.srtt = Some((l.srtt8 >> 3) as Time);
        // tcp_set_rto: at most TCP_RTO_MAX (`max_rto_ms`), no lower bound
        // beyond rttvar's.
        self.rto = (l.rto() as Time).min(self.max_rto);
    }

    /// Take one RTT measurement `r` (RFC 6298 2.2 and 2.3, alpha = 1/8, beta = 1/4;
    /// the clock granularity G is one nanosecond here).
    pub fn sample(&mut self, r: Time) {
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let s = self.srtt.unwrap_or(r);
        self.rto = (s + (4 * self.rttvar).max(1)).clamp(self.min_rto, self.max_rto);
    }

    /// The current RTO before back-off.
    pub fn rto(&self) -> Time {
        self.rto
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn min_rtt(&self) -> Option<Time> {
        (self.min_rtt != Time::MAX).then_some(self.min_rtt)
    }

    /// RTO after `backoff` doublings (RFC 6298 5.5), capped at the maximum.
    pub fn backed_off(&self, backoff: u32) -> Time {
        self.rto.saturating_mul(1u64 << backoff.min(30)).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: u64 = 1_000_000;

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        assert_eq!(e.rto(), 1000 * MS);
        e.sample(100 * MS);
        // SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 300 ms.
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rto(), 300 * MS);
        e.sample(200 * MS);
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5 ms; SRTT = 7/8*100 + 1/8*200 = 112.5 ms.
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 4 * 62_500_000);
        assert_eq!(e.backed_off(2), 4 * e.rto());
        // Repeated identical samples drive RTTVAR toward 0; the minimum RTO binds.
        for _ in 0..200 {
            e.sample(10 * MS);
        }
        assert_eq!(e.rto(), 200 * MS);
    }

    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` traced by hand on
    /// six samples (ms; rto_min 200 ms; snd_una after the ACK, snd_nxt).
    #[test]
    fn linux_estimator_by_hand() {
        let mut e = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS).linux();
        let st = |e: &RttEstimator| {
            let l = e.linux_state().unwrap();
            (l.srtt8, l.mdev4, l.mdev_max, l.rttvar, l.rtt_seq)
        };
        // First: srtt8 = 8 x 100, mdev4 = 2 x 100, rttvar = max(200, 200),
        // mdev_max = rttvar; RTO = 100 + 200 (not RFC 6298's 300 by 4 x 50).
        e.sample_at(100 * MS, 0, 10);
        assert_eq!(
            st(&e),
            (800 * MS as i64, 200 * MS as i64, 200 * MS as i64, 200 * MS as i64, 10)
        );
        assert_eq!(e.rto(), 300 * MS);
        // 100 again, snd_una 5 <= rtt_seq 10: error 0, mdev4 = 200 - 200/4
        // = 150; the round trip goes on.
        e.sample_at(100 * MS, 5, 12);
        assert_eq!(st(&e).1, 150 * MS as i64);
        assert_eq!(e.rto(), 300 * MS);
        // 60: error -40, srtt8 = 760 (srtt 95); |error| - mdev4/4 = 40 -
        // 37.5 = 2.5 > 0, an eighth of it: mdev4 = 150.3125. snd_una 11 >
        // 10 ends the round trip: rttvar is not above mdev_max (200), so it
        // stays; rtt_seq = 20, mdev_max = rto_min.
        e.sample_at(60 * MS, 11, 20);
        assert_eq!(
            st(&e),
            (760 * MS as i64, 150_312_500, 200 * MS as i64, 200 * MS as i64, 20)
        );
        assert_eq!(e.rto(), 295 * MS);
        // A spike of 400: error 305, srtt8 = 1065 (srtt 133.125); mdev4 =
        // 150.3125 + 305 - 150.3125/4 = 417.734375 > mdev_max: mdev_max and
        // rttvar follow at once.
        e.sample_at(400 * MS, 15, 25);
        assert_eq!(st(&e), (1_065 * MS as i64, 417_734_375, 417_734_375, 417_734_375, 20));
        assert_eq!(e.rto(), 133_125_000 + 417_734_375);
        // At srtt: mdev4 loses a quarter (floor 417734375/4 = 104433593);
        // the round trip ends with rttvar = mdev_max (no decay), and
        // mdev_max restarts at rto_min.
        e.sample_at(133_125_000, 21, 30);
        assert_eq!(
            st(&e),
            (1_065 * MS as i64, 313_300_782, 200 * MS as i64, 417_734_375, 30)
        );
        // At srtt again: mdev4 = 313300782 - 78325195 = 234975587 > mdev_max
        // 200; at the round trip's end rttvar falls by a quarter of its
        // excess: 417734375 - (417734375 - 234975587) / 4 = 372044678.
        e.sample_at(133_125_000, 31, 40);
        assert_eq!(
            st(&e),
            (1_065 * MS as i64, 234_975_587, 200 * MS as i64, 372_044_678, 40)
        );
        assert_eq!(e.rto(), 133_125_000 + 372_044_678);
        assert_eq!(e.srtt(), Some(133_125_000));
    }

    /// On a constant delay RFC 6298's RTO falls to SRTT (bounded by the
    /// minimum RTO only), Linux's to SRTT + rto_min.
    #[test]
    fn constant_delay_rfc_falls_to_srtt_linux_keeps_rto_min_above() {
        let mut rfc = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS);
        let mut lin = RttEstimator::new(1000 * MS, 200 * MS, 60_000 * MS).linux();
        // Each ACK ends a round trip (snd_una passes the last snd_nxt).
        for k in 1..=400u64 {
            rfc.sample_at(370 * MS, k, k);
            lin.sample_at(370 * MS, k, k);
        }
        // RTTVAR decays by 3/4 per sample: 185 ms x 0.75^400 rounds to 0, and
        // max(G, 4 RTTVAR) is the 1 ns clock.
        assert_eq!(rfc.rto(), 370 * MS + 1);
        // rttvar starts at 2 x 370 = 740 ms and loses a quarter of its excess
        // over mdev_max = 200 ms per round trip; the integer step x >> 2
        // stops at an excess of 3 ns.
        assert_eq!(lin.rto(), 570 * MS + 3);
    }
}
