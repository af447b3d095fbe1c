//! Round-trip-time estimation and the retransmission timeout (RFC 6298).

use crate::sim::Time;

/// SRTT / RTTVAR / RTO per RFC 6298 section 2, in integer nanoseconds.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    rto: Time,
    min_rto: Time,
    max_rto: Time,
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
        }
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
}
