//! Ideal baselines, computed rather than simulated by packets.

use crate::sim::{tx_time_ns, Time};
use crate::transport::FlowSize;

/// The FCT of a flow alone on an empty path at line rate: every data packet sent
/// back to back at time 0 (no handshake, no window), store-and-forward through
/// each hop `(rate_bps, delay_ns)`. Exact for FIFO ports with no other traffic:
/// the n-1 full packets form a train whose spacing at each hop is the largest
/// serialisation time so far; the last (possibly shorter) packet follows it.
pub fn line_rate_fct_ns(hops: &[(f64, Time)], size: FlowSize, mss_bytes: u32, header_bytes: u32) -> Time {
    let full = (mss_bytes + header_bytes) as u64;
    let last = (size.payload_of(size.pkts - 1, mss_bytes) + header_bytes) as u64;
    let n_full = size.pkts - 1;
    // Arrival time (at the current hop) of the first full packet, the spacing of
    // the full packets, and the arrival time of the last packet.
    let mut first: Time = 0;
    let mut spacing: Time = 0;
    let mut last_arr: Time = 0;
    for &(rate, delay) in hops {
        let t_full = tx_time_ns(full, rate);
        let t_last = tx_time_ns(last, rate);
        if n_full > 0 {
            let sp = spacing.max(t_full);
            let first_dep = first + t_full;
            let last_full_dep = first_dep + (n_full - 1) * sp;
            let last_dep = last_arr.max(last_full_dep) + t_last;
            first = first_dep + delay;
            spacing = sp;
            last_arr = last_dep + delay;
        } else {
            last_arr = last_arr + t_last + delay;
        }
    }
    last_arr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_packet_sums_hops() {
        // 1040 B at 8 Mb/s = 1.04 ms, at 80 Mb/s = 0.104 ms.
        let hops = [(80e6, 1_000_000), (8e6, 10_000_000)];
        let s = FlowSize { bytes: 1000, pkts: 1 };
        assert_eq!(line_rate_fct_ns(&hops, s, 1000, 40), 104_000 + 1_000_000 + 1_040_000 + 10_000_000);
    }

    #[test]
    fn train_is_paced_by_the_slowest_hop() {
        // 10 packets: the first crosses both hops, the other 9 follow 1.04 ms apart.
        let hops = [(80e6, 1_000_000), (8e6, 10_000_000)];
        let s = FlowSize { bytes: 10_000, pkts: 10 };
        assert_eq!(line_rate_fct_ns(&hops, s, 1000, 40), 104_000 + 1_000_000 + 1_040_000 + 10_000_000 + 9 * 1_040_000);
        // A short last packet (100 B payload, 140 B on the wire: 0.14 ms at 8 Mb/s).
        let s = FlowSize { bytes: 9_100, pkts: 10 };
        assert_eq!(line_rate_fct_ns(&hops, s, 1000, 40), 104_000 + 1_000_000 + 1_040_000 + 10_000_000 + 8 * 1_040_000 + 140_000);
    }
}
