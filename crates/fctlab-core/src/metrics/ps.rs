//! The `ps_fct_ns` column: each flow's FCT under ideal processor sharing of
//! the same workload on the same network.

use super::FlowRecord;
use crate::ideal::fluid_maxmin;
use crate::sim::Time;

/// What the column needs of the network, per sender.
pub struct PsInputs<'a> {
    /// Capacity of every link, bits/s.
    pub caps: &'a [f64],
    /// The links of each sender's forward route.
    pub sender_links: &'a [Vec<u32>],
    /// One-way propagation delay of each sender's forward route.
    pub one_way_ns: &'a [Time],
    /// Base RTT of each sender's path.
    pub rtt_ns: &'a [Time],
    /// Header bytes per packet (counted as bytes on the wire).
    pub header_bytes: u32,
    /// Whether flows begin with a SYN / SYN-ACK round trip.
    pub handshake: bool,
    /// The route of each record, an index into `sender_links`, `one_way_ns`
    /// and `rtt_ns` (None: each record's sender's).
    pub route_of: Option<&'a [u32]>,
}

/// Fill `ps_fct_ns`: the fluid max-min transfer time of each flow's bytes on
/// the wire (payload plus headers), plus the one-way propagation of its path,
/// plus one base RTT for the handshake when there is one. On one bottleneck
/// with load rho this is, on average, the RCP papers' PS FCT
/// 1.5 RTT + L / (C (1 - rho)). Long-lived flows take their share until
/// `end_ns` and get none.
pub fn fill_ps_fct(records: &mut [FlowRecord], inp: &PsInputs, end_ns: Time) {
    if records.is_empty() {
        return;
    }
    let route = |i: usize, r: &FlowRecord| inp.route_of.map_or(r.sender as usize, |v| v[i] as usize);
    // The reduction costs links x routes; past 10^8 the routes go in whole
    // (the allocation is the same).
    let routes = if inp.caps.len().saturating_mul(inp.sender_links.len()) <= 100_000_000 {
        bottleneck_routes(inp.caps, inp.sender_links)
    } else {
        inp.sender_links
            .iter()
            .map(|r| r.iter().map(|&l| l as usize).collect())
            .collect()
    };
    let hdr = inp.header_bytes as f64;
    let horizon = end_ns.max(1) as f64 * 1e-9;
    let endless = 2.0 * horizon * inp.caps.iter().cloned().fold(0.0, f64::max) / 8.0 + 1.0;
    let sizes: Vec<f64> = records
        .iter()
        .map(|r| {
            if r.long_lived {
                endless
            } else {
                r.size_bytes as f64 + hdr * r.size_pkts as f64
            }
        })
        .collect();
    let starts: Vec<u64> = records.iter().map(|r| r.start_ns).collect();
    let flow_routes: Vec<Vec<usize>> = records
        .iter()
        .enumerate()
        .map(|(i, r)| routes[route(i, r)].clone())
        .collect();
    let Ok(finish) = fluid_maxmin(inp.caps, &starts, &sizes, &flow_routes) else {
        return;
    };
    for (i, (r, f)) in records.iter_mut().zip(finish).enumerate() {
        if r.long_lived {
            continue;
        }
        let s = inp.route_of.map_or(r.sender as usize, |v| v[i] as usize);
        let hs = if inp.handshake { inp.rtt_ns[s] } else { 0 };
        r.ps_fct_ns = Some(f - r.start_ns + inp.one_way_ns[s] + hs);
    }
}

/// Each sender's route reduced to the links that can limit a max-min share: a
/// link is dropped when another kept link carries every route it carries and
/// has no more capacity (its flows' rates are bounded there first, so it never
/// saturates alone). The fluid model's allocation is unchanged, and on a
/// dumbbell every route reduces to the bottleneck, where max-min is plain PS.
fn bottleneck_routes(caps: &[f64], routes: &[Vec<u32>]) -> Vec<Vec<usize>> {
    let n = caps.len();
    let mut users: Vec<Vec<bool>> = vec![vec![false; routes.len()]; n];
    for (s, r) in routes.iter().enumerate() {
        for &l in r {
            users[l as usize][s] = true;
        }
    }
    let used: Vec<usize> = (0..n).filter(|&l| users[l].iter().any(|&u| u)).collect();
    let mut kept = vec![true; n];
    for &l in &used {
        let dominated = used.iter().any(|&b| {
            b != l && kept[b] && caps[b] <= caps[l] && users[l].iter().zip(&users[b]).all(|(&x, &y)| !x || y)
        });
        if dominated {
            kept[l] = false;
        }
    }
    routes
        .iter()
        .map(|r| r.iter().map(|&l| l as usize).filter(|&l| kept[l]).collect())
        .collect()
}
