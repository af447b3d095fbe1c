//! The 'optimal' file transfer time of the 1991 benchmark suite (Kanakia,
//! Keshav & Mishra, sec. 4 preamble): "the sources simply place the entire
//! file in the (infinitely large) bottleneck buffers at the start of
//! transmission, and the bottleneck server allocates each source its fair share".
//!
//! The suite's transfer time runs from the instant the first byte is available
//! at the sender to the instant the sender receives the acknowledgement of the
//! last byte (sec. 2). Its optimal values are reproduced exactly by
//!
//! optimal_i = (F_i − s_i) + RTT_i
//!
//! where s_i is the connection's start, F_i the instant its last byte leaves the
//! bottleneck when every file enters the bottleneck buffer whole at s_i and the
//! bottleneck serves the backlogged connections in fair shares (fluid PS on one
//! bottleneck, max-min fair sharing when connections cross several), and RTT_i
//! its round-trip propagation delay. Only payload bytes count, serialisation at
//! the fast access links and of the ACKs is ignored (the suite's sources and
//! switches are "infinitely fast"). Checks against the suite's tables, with
//! 40 Mb/s bottlenecks, 500 B packets, MB = 10⁶ B and RTT 44 ms:
//!
//! * Table 4.3 (one connection, no cross traffic): 4, 20, 200 packets give
//!   44 + 0.4, 44 + 2, 44 + 20 ms = 44.4, 46, 64 ms.
//! * Table 4.1 (2 MB at 0 plus ten 500 KB streams): the link never idles and
//!   connection 1 ends last, so 7 MB / 40 Mb/s + 44 ms = 1444 ms.
//! * Table 4.5 (migrating bottleneck): max-min on two links gives 600 + 44 = 644 ms.
//! * Table 4.6 (two-way traffic): the reverse connections' 40 B ACKs share each
//!   bottleneck (7 MB of data + 0.56 MB of ACKs), 1512 + 44 = 1556 ms; model the
//!   ACK streams as flows of their own to reproduce it.

use super::error::{bad, IdealResult};
use super::fluid::fluid_maxmin;

/// The 1991 suite's optimal transfer time (ns) of each connection, in input
/// order: its fluid fair-share completion at the bottleneck(s), minus its start,
/// plus its round-trip propagation delay `rtts_ns[i]`. `routes[i]` lists the
/// bottleneck links (indices into `links_bps`) connection i crosses; a single
/// bottleneck is `links_bps = [C]` and every route `[0]`.
pub fn optimal_transfer_ns(
    links_bps: &[f64],
    starts_ns: &[u64],
    sizes_bytes: &[f64],
    routes: &[Vec<usize>],
    rtts_ns: &[u64],
) -> IdealResult<Vec<u64>> {
    if rtts_ns.len() != starts_ns.len() {
        return bad(
            "rtts_ns",
            format!(
                "has {} entries but starts_ns has {}: give one RTT per connection",
                rtts_ns.len(),
                starts_ns.len()
            ),
        );
    }
    let finish = fluid_maxmin(links_bps, starts_ns, sizes_bytes, routes)?;
    Ok(finish
        .iter()
        .zip(starts_ns)
        .zip(rtts_ns)
        .map(|((&f, &s), &rtt)| f - s + rtt)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_connection_is_rtt_plus_size_over_capacity() {
        // Table 4.3, 4 packets of 500 B at 40 Mb/s: 0.4 ms + 44 ms.
        let t = optimal_transfer_ns(&[40e6], &[0], &[2000.0], &[vec![0]], &[44_000_000]).unwrap();
        assert_eq!(t, vec![44_400_000]);
    }

    #[test]
    fn refuses_mismatched_rtts() {
        assert_eq!(
            optimal_transfer_ns(&[40e6], &[0], &[1.0], &[vec![0]], &[])
                .unwrap_err()
                .arg,
            "rtts_ns"
        );
    }
}
