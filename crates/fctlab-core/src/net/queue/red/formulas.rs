//! RED's formulas: the packet time constant, the automatic thresholds and
//! queue weight (Floyd, Gummadi & Shenker 2001; ns-2 `initialize_params`),
//! and the drop probabilities p_b and p_a (ns-2 `calculate_p_new`,
//! `modify_p`).

/// Packet time constant: packets of `mean_pktsize` bytes the link sends per second.
pub fn ptc(rate_bps: f64, mean_pktsize: u32) -> f64 {
    rate_bps / (8.0 * mean_pktsize as f64)
}

/// Automatic thresholds (ns-2 `initialize_params`): min = max(5, target·ptc/2), max = 3·min.
pub fn auto_thresholds(ptc: f64, target_delay_s: f64) -> (f64, f64) {
    let min = f64::max(5.0, target_delay_s * ptc / 2.0);
    (min, 3.0 * min)
}

/// Automatic queue weight (ns-2 `q_weight_` = -1).
pub fn auto_weight(ptc: f64, link_delay_s: f64) -> f64 {
    let rtt = f64::max(0.1, 3.0 * (link_delay_s + 1.0 / ptc));
    1.0 - libm::exp(-1.0 / (10.0 * rtt * ptc))
}

/// The drop probability p_b for an average queue `avg` (ns-2 `calculate_p_new`).
pub fn p_b(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> f64 {
    let p = if avg < min_th {
        0.0
    } else if avg < max_th {
        max_p * (avg - min_th) / (max_th - min_th)
    } else if gentle {
        max_p + (1.0 - max_p) * (avg - max_th) / max_th
    } else {
        1.0
    };
    p.min(1.0)
}

/// The probability p_a of dropping this arrival, given p_b and `count` packets
/// since the last drop (ns-2 `modify_p`; in byte mode `count` is count_bytes /
/// mean_pktsize and `size_ratio` is size / mean_pktsize, else 1).
pub fn p_a(p_b: f64, count: f64, wait: bool, size_ratio: f64) -> f64 {
    let mut p = if wait {
        if count * p_b < 1.0 {
            0.0
        } else if count * p_b < 2.0 {
            p_b / (2.0 - count * p_b)
        } else {
            1.0
        }
    } else if count * p_b < 1.0 {
        p_b / (1.0 - count * p_b)
    } else {
        1.0
    };
    if p < 1.0 {
        p *= size_ratio;
    }
    p.min(1.0)
}
