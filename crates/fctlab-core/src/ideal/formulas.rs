//! Closed-form and numerically integrated FCT baselines: M/G/1-PS, M/G/1-SRPT
//! (Schrage–Miller), the PS FCT curve of the RCP papers and the TCP slow-start
//! bound of Dukkipati & McKeown (2006).
//!
//! Units: sizes in bytes, capacities in bits/s, loads dimensionless, times
//! returned as `f64` nanoseconds (these are means of continuous quantities, so
//! they are not rounded).

use super::error::{bad, load, non_negative, positive, IdealResult};
use super::sizelaw::SizeLaw;

const NS_PER_S: f64 = 1e9;

/// Seconds of service per byte on a link of `capacity_bps`: b = 8 / C.
fn secs_per_byte(capacity_bps: f64) -> f64 {
    8.0 / capacity_bps
}

/// Whether a connection opens with a SYN / SYN-ACK exchange (one extra RTT
/// before the first data packet), as the scenario's `transport.handshake`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// One RTT of SYN / SYN-ACK before data (TCP; the 2006 paper's FCT counts it).
    On,
    /// Data leaves at once (e.g. TCP Fast Open, or a rate-based scheme that
    /// carries data in its first packet).
    Off,
}

impl Handshake {
    /// 1.0 with a handshake, 0.0 without: the number of RTTs it costs.
    pub fn rtts(self) -> f64 {
        match self {
            Handshake::On => 1.0,
            Handshake::Off => 0.0,
        }
    }
}

/// M/G/1 processor sharing, conditional mean sojourn time of a job of
/// `size_bytes` on a link of `capacity_bps` at offered load `load` = ρ:
///
/// E[T | x] = x / (C (1 − ρ))                       (Kleinrock 1976; Wolff 1989, §4)
///
/// It is insensitive to the size distribution beyond its mean. This is the PS
/// curve of Figs 1, 2 and 12 of Dukkipati & McKeown 2006 without the
/// propagation terms (see [`ps_fct_ns`]).
pub fn ps_sojourn_ns(size_bytes: f64, capacity_bps: f64, load_: f64) -> IdealResult<f64> {
    let x = non_negative("size_bytes", size_bytes)?;
    let c = positive("capacity_bps", capacity_bps)?;
    let rho = load("load", load_)?;
    Ok(x * secs_per_byte(c) / (1.0 - rho) * NS_PER_S)
}

/// The mean slowdown E[T | x] / (x / C) of M/G/1-PS: 1 / (1 − ρ), the same for
/// every size (Kleinrock 1976, vol. 2, sec. 4.4).
pub fn ps_slowdown(load_: f64) -> IdealResult<f64> {
    let rho = load("load", load_)?;
    Ok(1.0 / (1.0 - rho))
}

/// The PS flow-completion time as the RCP papers draw it:
///
/// FCT_PS(L) = 1.5 · RTT + L / (C (1 − ρ))   with `Handshake::On`
///
/// (Dukkipati, Kobayashi, Zhang-Shen & McKeown, "Processor Sharing Flows in the
/// Internet", IWQoS 2005, and TR04-HPNG-061604, cited as [12], [13] by Dukkipati & McKeown 2006;
/// Dukkipati & McKeown 2006, sec. 2). The 1.5 RTT is the SYN / SYN-ACK round trip (the 2006 paper measures
/// FCT from the SYN, footnote 1) plus the half RTT that the last byte needs to
/// reach the receiver; L / (C(1 − ρ)) is the M/G/1-PS sojourn of [`ps_sojourn_ns`].
/// Generalised here: (h + ½) · RTT + L / (C (1 − ρ)) with h = 1 for
/// `Handshake::On` and h = 0 for `Handshake::Off`.
pub fn ps_fct_ns(
    size_bytes: f64,
    capacity_bps: f64,
    load_: f64,
    rtt_ns: f64,
    handshake: Handshake,
) -> IdealResult<f64> {
    let rtt = non_negative("rtt_ns", rtt_ns)?;
    let sojourn = ps_sojourn_ns(size_bytes, capacity_bps, load_)?;
    Ok((handshake.rtts() + 0.5) * rtt + sojourn)
}

/// Slow-start rounds needed to send `size_pkts` packets when the window starts at
/// `init_cwnd_pkts` and doubles every RTT (one ACK per packet, no loss, no
/// receiver-window limit): the smallest k ≥ 1 with w (2^k − 1) ≥ L, i.e.
/// k = ⌈log2(L / w + 1)⌉. With w = 1 this is the ⌈log2(L + 1)⌉ of Dukkipati & McKeown 2006, sec. II-A.
pub fn slow_start_rounds(size_pkts: u64, init_cwnd_pkts: u64) -> IdealResult<u32> {
    if size_pkts == 0 {
        return bad("size_pkts", "must be >= 1 packet, got 0");
    }
    if init_cwnd_pkts == 0 {
        return bad("init_cwnd_pkts", "must be >= 1 packet, got 0");
    }
    let (l, w) = (size_pkts as u128, init_cwnd_pkts as u128);
    let mut k = 1u32;
    // w (2^k - 1) >= l; k <= 64 since l < 2^64 and w >= 1.
    while w * ((1u128 << k) - 1) < l {
        k += 1;
    }
    Ok(k)
}

/// The TCP slow-start FCT bound of Dukkipati & McKeown 2006 (sec. II-A),
/// FCT = (⌈log2(L + 1)⌉ + ½) · RTT + L / C, generalised to an initial window w and
/// an optional handshake:
///
/// FCT_SS(L) = (h + k − 1 + ½) · RTT + L_bits / C,   k = [`slow_start_rounds`](L, w)
///
/// The handshake (h = 1) takes one RTT; data round j (j = 1..k) leaves (h + j − 1)
/// RTTs after the start; the last round reaches the receiver half an RTT after it
/// leaves, and L / C is the serialisation of the whole flow at the bottleneck
/// (`size_pkts · pkt_bytes` bytes on the wire). With h = 1 and w = 1 this is the
/// paper's formula exactly; queueing is excluded. Seed 004 (§3) states the same
/// bound as (1 + log(size / initial window)) · RTT: a 12-packet flow with w = 2
/// needs k = 3 rounds.
pub fn slow_start_fct_ns(
    size_pkts: u64,
    pkt_bytes: f64,
    capacity_bps: f64,
    rtt_ns: f64,
    init_cwnd_pkts: u64,
    handshake: Handshake,
) -> IdealResult<f64> {
    let k = slow_start_rounds(size_pkts, init_cwnd_pkts)?;
    let pkt = positive("pkt_bytes", pkt_bytes)?;
    let c = positive("capacity_bps", capacity_bps)?;
    let rtt = non_negative("rtt_ns", rtt_ns)?;
    let rounds = handshake.rtts() + k as f64 - 1.0 + 0.5;
    Ok(rounds * rtt + size_pkts as f64 * pkt * secs_per_byte(c) * NS_PER_S)
}

/// M/G/1 shortest-remaining-processing-time, conditional mean sojourn time of a
/// job of `size_bytes` when sizes follow `law`, on a link of `capacity_bps` at
/// offered load ρ = λ E[S]. Schrage & Miller (1966), with
/// service times t = 8 · bytes / C:
///
/// E[T(x)] = λ m₂(x) / (2 (1 − ρ(x⁻)) (1 − ρ(x)))  +  ∫₀ˣ dt / (1 − ρ(t))
///
/// m₂(x) = ∫_[0,x] t² dF(t) + x² (1 − F(x)),   ρ(x) = λ ∫_[0,x] t dF(t).
///
/// The first term is the waiting time before the job is first served, the second
/// its residence time once started. For a continuous law ρ(x⁻) = ρ(x) and the
/// denominator is the familiar 2 (1 − ρ(x))². Where the law has an atom at x
/// (fixed, empirical) jobs of equal size are served first-come first-served, as
/// in the preemptive-priority formula whose class-k waiting time has the
/// denominator (1 − σ_{k−1})(1 − σ_k) (Kleinrock 1976, vol. 2 §3.7); for a fixed
/// size s this gives the M/D/1 result s + λ s² / (2 (1 − ρ)).
pub fn srpt_sojourn_ns(size_bytes: f64, law: &SizeLaw, capacity_bps: f64, load_: f64) -> IdealResult<f64> {
    non_negative("size_bytes", size_bytes)?;
    Ok(srpt_sojourn_many_ns(&[size_bytes], law, capacity_bps, load_)?[0])
}

/// [`srpt_sojourn_ns`] for many sizes at once (one pass: the residence integral
/// is accumulated over the sorted sizes). Results are in the order given.
pub fn srpt_sojourn_many_ns(
    sizes_bytes: &[f64],
    law: &SizeLaw,
    capacity_bps: f64,
    load_: f64,
) -> IdealResult<Vec<f64>> {
    for (i, &x) in sizes_bytes.iter().enumerate() {
        non_negative(&format!("sizes_bytes[{i}]"), x)?;
    }
    let b = secs_per_byte(positive("capacity_bps", capacity_bps)?);
    let rho = load("load", load_)?;
    // λ b = ρ / E[X]: arrivals per second times seconds per byte.
    let lam_b = rho / law.mean_bytes();
    let mut order: Vec<usize> = (0..sizes_bytes.len()).collect();
    order.sort_by(|&i, &j| sizes_bytes[i].total_cmp(&sizes_bytes[j]));
    let xs: Vec<f64> = order.iter().map(|&i| sizes_bytes[i]).collect();
    let residence = law.residence_integrals(&xs, lam_b);
    let mut out = vec![0.0; xs.len()];
    for (k, &i) in order.iter().enumerate() {
        out[i] = (srpt_waiting_s(xs[k], law, b, lam_b) + b * residence[k]) * NS_PER_S;
    }
    Ok(out)
}

/// The Schrage–Miller waiting term λ m₂(x) / (2 (1 − ρ(x⁻)) (1 − ρ(x))), seconds;
/// `b` = seconds per byte, `lam_b` = λ b.
fn srpt_waiting_s(x: f64, law: &SizeLaw, b: f64, lam_b: f64) -> f64 {
    let rho_x = lam_b * law.partial_mean(x);
    let rho_left = lam_b * law.partial_mean_left(x);
    // λ m₂ in s: λ b² (∫ y² dF + x² (1 − F(x))), y in bytes.
    let lam_m2 = lam_b * b * (law.partial_second(x) + x * x * (1.0 - law.cdf(x)));
    lam_m2 / (2.0 * (1.0 - rho_left) * (1.0 - rho_x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_is_size_over_capacity_times_slowdown() {
        // 1000 B at 8 Mb/s is 1 ms; at load 0.5 PS doubles it.
        assert!((ps_sojourn_ns(1000.0, 8e6, 0.5).unwrap() - 2e6).abs() < 1e-6);
        assert!((ps_slowdown(0.75).unwrap() - 4.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_bad_arguments_by_name() {
        assert_eq!(ps_sojourn_ns(1.0, 8e6, 1.0).unwrap_err().arg, "load");
        assert_eq!(ps_sojourn_ns(-1.0, 8e6, 0.1).unwrap_err().arg, "size_bytes");
        assert_eq!(ps_sojourn_ns(1.0, 0.0, 0.1).unwrap_err().arg, "capacity_bps");
        assert_eq!(slow_start_rounds(0, 1).unwrap_err().arg, "size_pkts");
        assert_eq!(slow_start_rounds(1, 0).unwrap_err().arg, "init_cwnd_pkts");
        assert_eq!(
            ps_fct_ns(1.0, 1.0, 0.1, f64::NAN, Handshake::On).unwrap_err().arg,
            "rtt_ns"
        );
    }

    #[test]
    fn slow_start_rounds_by_hand() {
        // w = 1: rounds send 1, 2, 4, ... so 1 pkt needs 1 round, 2-3 need 2, 4-7 need 3.
        let k: Vec<u32> = (1..=8).map(|l| slow_start_rounds(l, 1).unwrap()).collect();
        assert_eq!(k, vec![1, 2, 2, 3, 3, 3, 3, 4]);
        // w = 2: rounds send 2, 4, 8: 12 packets need 3 rounds (Mussmann 2012, sec. 3).
        assert_eq!(slow_start_rounds(12, 2).unwrap(), 3);
        assert_eq!(slow_start_rounds(14, 2).unwrap(), 3);
        assert_eq!(slow_start_rounds(15, 2).unwrap(), 4);
        assert_eq!(slow_start_rounds(u64::MAX, 1).unwrap(), 64);
    }
}
