//! Ideal baselines, computed rather than simulated by packets.
//!
//! * [`line_rate_fct_ns`]: a flow alone on the empty path at line rate;
//!   [`alone_ns`]: the same until its sender holds the ACK of the last byte
//!   (the denominator of the fabric papers' FCT slowdown).
//! * [`formulas`]: M/G/1-PS and M/G/1-SRPT conditional mean sojourn times, the
//!   PS FCT curve of the RCP papers and the TCP slow-start bound (Dukkipati & McKeown 2006).
//! * [`fluid`]: flow-level simulators of the actual workload: processor sharing
//!   and SRPT on one link, max-min fair sharing on any topology.
//! * [`optimal`]: the 1991 benchmark suite's 'optimal' transfer time (Kanakia, Keshav & Mishra 1991).
//!
//! Bad arguments are refused with an [`IdealError`] naming the argument.

pub mod error;
pub mod fluid;
pub mod formulas;
pub mod optimal;
pub mod sizelaw;

pub use error::{IdealError, IdealResult};
pub use fluid::{fluid_maxmin, fluid_maxmin_general, fluid_ps, fluid_srpt, maxmin_rates};
pub use formulas::{
    ps_fct_ns, ps_slowdown, ps_sojourn_ns, slow_start_fct_ns, slow_start_rounds, srpt_sojourn_many_ns, srpt_sojourn_ns,
    Handshake,
};
pub use optimal::optimal_transfer_ns;
pub use sizelaw::SizeLaw;

use crate::sim::{tx_time_ns, Time};

/// The FCT of a flow alone on an empty path at line rate: every data packet sent
/// back to back at time 0 (no handshake, no window), store-and-forward through
/// each hop `(rate_bps, delay_ns)`. Exact for FIFO ports with no other traffic:
/// the n-1 full packets form a train whose spacing at each hop is the largest
/// serialisation time so far; the last (possibly shorter) packet follows it.
/// The flow is `bytes` of payload in `pkts >= 1` packets of at most `mss_bytes`.
pub fn line_rate_fct_ns(hops: &[(f64, Time)], bytes: u64, pkts: u64, mss_bytes: u32, header_bytes: u32) -> Time {
    let full = (mss_bytes + header_bytes) as u64;
    let last = bytes - (pkts - 1) * mss_bytes as u64 + header_bytes as u64;
    let n_full = pkts - 1;
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

/// The fabric papers' "FCT alone on the empty network", as the sender sees
/// it: from the flow's start until its sender holds the acknowledgement of the
/// last byte. It is [`line_rate_fct_ns`] on the forward hops (no handshake, no
/// window: every packet sent at line rate from the start, store-and-forward
/// at every hop) plus the return of one ACK of `header_bytes` sent the moment
/// the last packet arrives, store-and-forward through the reverse hops.
///
/// HPCC's simulator (Li et al., SIGCOMM 2019; `scratch/third.cc`, `qp_finish`)
/// approximates the same time by base RTT + bytes on the wire / bottleneck
/// rate, with one packet's serialisation at every hop in the base RTT; on a
/// path of equal rates the two differ by less than one packet's serialisation
/// per hop (see the tests).
pub fn alone_ns(
    fwd: &[(f64, Time)],
    rev: &[(f64, Time)],
    bytes: u64,
    pkts: u64,
    mss_bytes: u32,
    header_bytes: u32,
) -> Time {
    line_rate_fct_ns(fwd, bytes, pkts, mss_bytes, header_bytes) + ack_return_ns(rev, header_bytes)
}

/// The time an ACK of `header_bytes` takes back through the reverse hops
/// `(rate_bps, delay_ns)` of an empty network: [`alone_ns`] minus
/// [`line_rate_fct_ns`].
pub fn ack_return_ns(rev: &[(f64, Time)], header_bytes: u32) -> Time {
    rev.iter()
        .map(|&(rate, delay)| tx_time_ns(header_bytes as u64, rate) + delay)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_packet_sums_hops() {
        // 1040 B at 8 Mb/s = 1.04 ms, at 80 Mb/s = 0.104 ms.
        let hops = [(80e6, 1_000_000), (8e6, 10_000_000)];
        let s = (1000, 1);
        assert_eq!(
            line_rate_fct_ns(&hops, s.0, s.1, 1000, 40),
            104_000 + 1_000_000 + 1_040_000 + 10_000_000
        );
    }

    #[test]
    fn alone_adds_the_last_ack_and_stays_near_hpccs_formula() {
        // One packet over 80 Mb/s then 8 Mb/s, the 40-B ACK back over 8 then 80 Mb/s:
        // forward 0.104 + 1 + 1.04 + 10 ms, back 0.04 + 10 + 0.004 + 1 ms.
        let fwd = [(80e6, 1_000_000), (8e6, 10_000_000)];
        let rev = [(8e6, 10_000_000), (80e6, 1_000_000)];
        assert_eq!(
            alone_ns(&fwd, &rev, 1000, 1, 1000, 40),
            104_000 + 1_000_000 + 1_040_000 + 10_000_000 + 40_000 + 10_000_000 + 4_000 + 1_000_000
        );
        // A fat-tree path: 5 hops of 100 Gb/s, 1 us each. HPCC's standalone FCT is
        // 2 x 5 us + 5 x mss / rate + wire bytes / rate; the exact time differs by
        // less than one full packet's serialisation per hop, plus half a ns per
        // packet: each serialisation is rounded to the nearest ns, as the
        // engine's links round it (sim::tx_time_ns).
        let hops = [(100e9, 1_000); 5];
        let (mss, hdr) = (1000u32, 48u32);
        for bytes in [1u64, 999, 1000, 1001, 64_000, 1_000_000, 30_000_000] {
            let pkts = bytes.div_ceil(mss as u64);
            let wire = bytes + pkts * hdr as u64;
            let hpcc = 10_000.0 + 5.0 * mss as f64 * 8.0 / 100.0 + wire as f64 * 8.0 / 100.0;
            let exact = alone_ns(&hops, &hops, bytes, pkts, mss, hdr) as f64;
            let per_hop = (mss + hdr) as f64 * 8.0 / 100.0;
            assert!(
                (exact - hpcc).abs() <= 5.0 * per_hop + 0.5 * pkts as f64 + 5.0,
                "{bytes} B: {exact} vs {hpcc}"
            );
        }
    }

    #[test]
    fn train_is_paced_by_the_slowest_hop() {
        // 10 packets: the first crosses both hops, the other 9 follow 1.04 ms apart.
        let hops = [(80e6, 1_000_000), (8e6, 10_000_000)];
        let s = (10_000, 10);
        assert_eq!(
            line_rate_fct_ns(&hops, s.0, s.1, 1000, 40),
            104_000 + 1_000_000 + 1_040_000 + 10_000_000 + 9 * 1_040_000
        );
        // A short last packet (100 B payload, 140 B on the wire: 0.14 ms at 8 Mb/s).
        let s = (9_100, 10);
        assert_eq!(
            line_rate_fct_ns(&hops, s.0, s.1, 1000, 40),
            104_000 + 1_000_000 + 1_040_000 + 10_000_000 + 8 * 1_040_000 + 140_000
        );
    }
}
