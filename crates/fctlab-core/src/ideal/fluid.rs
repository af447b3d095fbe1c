//! Flow-level (fluid) simulators: each flow is a volume of bits drained at a
//! rate set by an ideal scheduler, recomputed at every arrival and departure.
//!
//! * [`fluid_ps`]: processor sharing on one link, each of the n active flows at
//!   C / n. O(log n) per event: every active flow has received the same service
//!   V(t) since the busy period began (the link's "virtual time",
//!   dV/dt = C / n(t)), so a flow arriving at V_a with x bits leaves when
//!   V = V_a + x, and the active set is a min-heap on that number.
//! * [`fluid_srpt`]: preemptive shortest-remaining-processing-time on one link,
//!   the whole capacity to the flow with the least remaining work. O(log n).
//! * [`fluid_maxmin`]: max-min fair rates on any topology (PS generalised: the
//!   progressive filling of Bertsekas & Gallager, *Data Networks* 1992, §6.5.2),
//!   recomputed at every event; O(active flows × route length × bottleneck
//!   levels) per event. Where every route is a single link it runs
//!   [`fluid_ps`] on each link instead.
//!
//! Inputs: start times in integer ns, sizes in bytes on the wire (headers
//! included if the caller wants them counted), capacities in bits/s. Rates and
//! work are `f64`; times are kept as `f64` ns during the run and each finish time
//! is rounded to the nearest integer ns when returned (the rounding error is
//! ≤ 0.5 ns plus the float error of the run, well under 1 ns for runs of hours).
//! Propagation delays are not part of the fluid model: the caller adds them.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::error::{bad, positive, IdealResult};

/// Ordered `f64` (total order) paired with a flow index, for the heaps.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Key(f64, usize);

impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Check that `starts_ns` and `sizes_bytes` describe the same flows and every
/// size is a finite number > 0.
fn check_flows(starts_ns: &[u64], sizes_bytes: &[f64]) -> IdealResult<()> {
    if sizes_bytes.len() != starts_ns.len() {
        return bad(
            "sizes_bytes",
            format!(
                "has {} entries but starts_ns has {}: give one size per flow",
                sizes_bytes.len(),
                starts_ns.len()
            ),
        );
    }
    for (i, &s) in sizes_bytes.iter().enumerate() {
        positive(&format!("sizes_bytes[{i}]"), s)?;
    }
    Ok(())
}

/// Flow indices in order of arrival (start time, then index).
fn arrival_order(starts_ns: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..starts_ns.len()).collect();
    order.sort_by_key(|&i| (starts_ns[i], i));
    order
}

/// `f64` ns to the nearest integer ns.
fn round_ns(t: f64) -> u64 {
    t.round() as u64
}

/// Processor sharing on one link of `capacity_bps`: the finish time (ns) of each
/// flow, in input order. Flows may be given in any order; equal start times are
/// all present from that instant.
///
/// Each of the n(t) active flows is served at C / n(t) (Kleinrock 1976, §4.4).
/// Implemented with the virtual time V: dV/dt = C / n(t) while n > 0, reset to 0
/// when the link empties; flow i (x_i bits, arriving at V_i) finishes when
/// V = V_i + x_i, at t + (V_i + x_i − V) n / C.
pub fn fluid_ps(starts_ns: &[u64], sizes_bytes: &[f64], capacity_bps: f64) -> IdealResult<Vec<u64>> {
    check_flows(starts_ns, sizes_bytes)?;
    let c = positive("capacity_bps", capacity_bps)?;
    Ok(ps_unchecked(starts_ns, sizes_bytes, c))
}

/// [`fluid_ps`] on validated input.
fn ps_unchecked(starts_ns: &[u64], sizes_bytes: &[f64], capacity_bps: f64) -> Vec<u64> {
    let rate = capacity_bps / 1e9; // bits per ns
    let order = arrival_order(starts_ns);
    let mut finish = vec![0u64; starts_ns.len()];
    let mut heap: BinaryHeap<Reverse<Key>> = BinaryHeap::new();
    let (mut t, mut v) = (0.0f64, 0.0f64);
    let mut next = 0usize; // next arrival, as a position in `order`
    while next < order.len() || !heap.is_empty() {
        let n = heap.len() as f64;
        let t_arr = order.get(next).map(|&i| starts_ns[i] as f64);
        let t_dep = heap.peek().map(|Reverse(k)| (t + (k.0 - v) * n / rate).max(t));
        match (t_arr, t_dep) {
            (Some(ta), Some(td)) if ta >= td => depart(&mut heap, &mut finish, &mut t, &mut v, td),
            (None, Some(td)) => depart(&mut heap, &mut finish, &mut t, &mut v, td),
            (Some(ta), _) => {
                if heap.is_empty() {
                    v = 0.0; // a new busy period
                } else {
                    v += (ta - t) * rate / n;
                }
                t = ta;
                let i = order[next];
                next += 1;
                heap.push(Reverse(Key(v + 8.0 * sizes_bytes[i], i)));
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    finish
}

/// Advance the PS link to `td`, when the head of `heap` finishes, and remove
/// every flow finishing then.
fn depart(heap: &mut BinaryHeap<Reverse<Key>>, finish: &mut [u64], t: &mut f64, v: &mut f64, td: f64) {
    *t = td;
    *v = heap.peek().map_or(*v, |Reverse(k)| k.0);
    while let Some(&Reverse(Key(fv, i))) = heap.peek() {
        if fv > *v {
            break;
        }
        heap.pop();
        finish[i] = round_ns(td);
    }
}

/// Preemptive SRPT on one link of `capacity_bps`: the finish time (ns) of each
/// flow, in input order. At every instant the whole link serves the active flow
/// with the least remaining work (Schrage 1968, the policy that minimises the
/// mean sojourn time on one server). Ties go to the earlier arrival (start
/// time, then input index): an arrival preempts only with strictly less work.
pub fn fluid_srpt(starts_ns: &[u64], sizes_bytes: &[f64], capacity_bps: f64) -> IdealResult<Vec<u64>> {
    check_flows(starts_ns, sizes_bytes)?;
    let c = positive("capacity_bps", capacity_bps)?;
    let rate = c / 1e9;
    let order = arrival_order(starts_ns);
    let mut finish = vec![0u64; starts_ns.len()];
    // Waiting flows keyed by (remaining bits, arrival rank); `current` is served.
    let mut waiting: BinaryHeap<Reverse<(Key, usize)>> = BinaryHeap::new();
    let mut current: Option<(f64, usize, usize)> = None; // (remaining bits, rank, flow)
    let mut t = 0.0f64;
    let mut next = 0usize;
    while next < order.len() || current.is_some() {
        let t_arr = order.get(next).map(|&i| starts_ns[i] as f64);
        let t_dep = current.map(|(rem, _, _)| t + rem / rate);
        match (t_arr, t_dep) {
            (Some(ta), Some(td)) if ta < td => {}
            (None, None) => unreachable!("loop condition"),
            (_, Some(td)) => {
                // The served flow ends before (or as) the next one arrives.
                t = td;
                finish[current.map_or(0, |c| c.2)] = round_ns(t);
                current = waiting.pop().map(|Reverse((Key(r, rank), j))| (r, rank, j));
                continue;
            }
            (Some(_), None) => {}
        }
        // An arrival at `ta`, with the link busy on `current` or idle.
        let ta = t_arr.unwrap_or(t);
        let i = order[next];
        let arriving = (8.0 * sizes_bytes[i], next, i);
        next += 1;
        current = match current {
            None => Some(arriving),
            Some((rem, rank, j)) => {
                let rem = rem - (ta - t) * rate;
                if arriving.0 < rem {
                    waiting.push(Reverse((Key(rem, rank), j)));
                    Some(arriving)
                } else {
                    waiting.push(Reverse((Key(arriving.0, arriving.1), i)));
                    Some((rem, rank, j))
                }
            }
        };
        t = ta;
    }
    Ok(finish)
}

/// Validate a topology: capacities, and one route per flow naming each link at
/// most once.
fn check_topology(links_bps: &[f64], routes: &[Vec<usize>], n_flows: usize) -> IdealResult<()> {
    if links_bps.is_empty() {
        return bad("links_bps", "must hold at least one link capacity");
    }
    for (l, &c) in links_bps.iter().enumerate() {
        positive(&format!("links_bps[{l}]"), c)?;
    }
    if routes.len() != n_flows {
        return bad(
            "routes",
            format!(
                "has {} entries but there are {} flows: give one route per flow",
                routes.len(),
                n_flows
            ),
        );
    }
    for (i, r) in routes.iter().enumerate() {
        if r.is_empty() {
            return bad(
                format!("routes[{i}]"),
                "must name at least one link (a flow crossing no link has no rate limit)",
            );
        }
        for (h, &l) in r.iter().enumerate() {
            if l >= links_bps.len() {
                return bad(
                    format!("routes[{i}][{h}]"),
                    format!("link {l} does not exist: links are 0..{}", links_bps.len() - 1),
                );
            }
            if r[..h].contains(&l) {
                return bad(
                    format!("routes[{i}][{h}]"),
                    format!("link {l} appears twice in the route"),
                );
            }
        }
    }
    Ok(())
}

/// The max-min fair rates (bits/s) of flows that all want to send at once, each
/// crossing the links of its route (progressive filling: Bertsekas & Gallager,
/// *Data Networks* 1992, §6.5.2). Raise every rate together until some link is
/// full; freeze the flows crossing it; repeat with the rest.
pub fn maxmin_rates(links_bps: &[f64], routes: &[Vec<usize>]) -> IdealResult<Vec<f64>> {
    check_topology(links_bps, routes, routes.len())?;
    let active: Vec<usize> = (0..routes.len()).collect();
    let mut fill = WaterFill::new(links_bps.len());
    let mut rates = vec![0.0; routes.len()];
    fill.run(links_bps, routes, &active, &mut rates);
    Ok(rates)
}

/// Scratch space for progressive filling, reused across events.
struct WaterFill {
    cap: Vec<f64>,
    count: Vec<u32>,
    bottleneck: Vec<bool>,
    used: Vec<usize>,
    unfrozen: Vec<usize>,
}

impl WaterFill {
    fn new(n_links: usize) -> Self {
        WaterFill {
            cap: vec![0.0; n_links],
            count: vec![0; n_links],
            bottleneck: vec![false; n_links],
            used: Vec::new(),
            unfrozen: Vec::new(),
        }
    }

    /// Set `rates[f]` for every `f` in `active` to its max-min fair rate, in the
    /// units of `links`.
    fn run(&mut self, links: &[f64], routes: &[Vec<usize>], active: &[usize], rates: &mut [f64]) {
        self.used.clear();
        for &f in active {
            for &l in &routes[f] {
                if self.count[l] == 0 {
                    self.used.push(l);
                    self.cap[l] = links[l];
                }
                self.count[l] += 1;
            }
        }
        self.unfrozen.clear();
        self.unfrozen.extend_from_slice(active);
        while !self.unfrozen.is_empty() {
            // The smallest fair share C_l / n_l over links still carrying unfrozen flows.
            let share = self
                .used
                .iter()
                .filter(|&&l| self.count[l] > 0)
                .map(|&l| self.cap[l] / self.count[l] as f64)
                .fold(f64::INFINITY, f64::min);
            let level = share * (1.0 + 1e-12);
            for &l in &self.used {
                self.bottleneck[l] = self.count[l] > 0 && self.cap[l] / self.count[l] as f64 <= level;
            }
            let (cap, count, bottleneck) = (&mut self.cap, &mut self.count, &self.bottleneck);
            self.unfrozen.retain(|&f| {
                if !routes[f].iter().any(|&l| bottleneck[l]) {
                    return true;
                }
                rates[f] = share;
                for &l in &routes[f] {
                    cap[l] = (cap[l] - share).max(0.0);
                    count[l] -= 1;
                }
                false
            });
        }
        for &l in &self.used {
            self.count[l] = 0;
            self.bottleneck[l] = false;
        }
    }
}

/// Max-min fair sharing on any topology: the finish time (ns) of each flow, in
/// input order. `routes[i]` lists the links (indices into `links_bps`) flow i
/// crosses. Rates are the progressive-filling max-min allocation of the active
/// flows ([`maxmin_rates`]), recomputed at every arrival and departure. On one
/// link this is processor sharing; where every route is one link, each link is
/// an independent PS queue and [`fluid_ps`] runs on each.
pub fn fluid_maxmin(
    links_bps: &[f64],
    starts_ns: &[u64],
    sizes_bytes: &[f64],
    routes: &[Vec<usize>],
) -> IdealResult<Vec<u64>> {
    check_flows(starts_ns, sizes_bytes)?;
    check_topology(links_bps, routes, starts_ns.len())?;
    if routes.iter().all(|r| r.len() == 1) {
        return Ok(per_link_ps(links_bps, starts_ns, sizes_bytes, routes));
    }
    Ok(maxmin_unchecked(links_bps, starts_ns, sizes_bytes, routes))
}

/// [`fluid_maxmin`] always by progressive filling at every event, never by the
/// per-link PS shortcut: the reference implementation (O(active × route) per event).
pub fn fluid_maxmin_general(
    links_bps: &[f64],
    starts_ns: &[u64],
    sizes_bytes: &[f64],
    routes: &[Vec<usize>],
) -> IdealResult<Vec<u64>> {
    check_flows(starts_ns, sizes_bytes)?;
    check_topology(links_bps, routes, starts_ns.len())?;
    Ok(maxmin_unchecked(links_bps, starts_ns, sizes_bytes, routes))
}

/// Independent PS on each link, for routes of one link each.
fn per_link_ps(links_bps: &[f64], starts_ns: &[u64], sizes_bytes: &[f64], routes: &[Vec<usize>]) -> Vec<u64> {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); links_bps.len()];
    for (i, r) in routes.iter().enumerate() {
        members[r[0]].push(i);
    }
    let mut finish = vec![0u64; starts_ns.len()];
    for (l, m) in members.iter().enumerate() {
        let s: Vec<u64> = m.iter().map(|&i| starts_ns[i]).collect();
        let x: Vec<f64> = m.iter().map(|&i| sizes_bytes[i]).collect();
        for (k, f) in ps_unchecked(&s, &x, links_bps[l]).into_iter().enumerate() {
            finish[m[k]] = f;
        }
    }
    finish
}

/// Event loop of the general max-min fluid model, on validated input.
fn maxmin_unchecked(links_bps: &[f64], starts_ns: &[u64], sizes_bytes: &[f64], routes: &[Vec<usize>]) -> Vec<u64> {
    let links_bpns: Vec<f64> = links_bps.iter().map(|c| c / 1e9).collect();
    let order = arrival_order(starts_ns);
    let mut remaining: Vec<f64> = sizes_bytes.iter().map(|x| 8.0 * x).collect();
    let mut rates = vec![0.0; starts_ns.len()];
    let mut finish = vec![0u64; starts_ns.len()];
    let mut fill = WaterFill::new(links_bps.len());
    let mut active: Vec<usize> = Vec::new();
    let (mut t, mut next) = (0.0f64, 0usize);
    while next < order.len() || !active.is_empty() {
        if active.is_empty() {
            t = starts_ns[order[next]] as f64;
        }
        // Admit everything arriving now, then share the links.
        while next < order.len() && starts_ns[order[next]] as f64 <= t {
            active.push(order[next]);
            next += 1;
        }
        fill.run(&links_bpns, routes, &active, &mut rates);
        let dt_dep = active
            .iter()
            .map(|&f| remaining[f] / rates[f])
            .fold(f64::INFINITY, f64::min);
        let t_arr = order.get(next).map(|&i| starts_ns[i] as f64);
        if let Some(ta) = t_arr.filter(|&ta| ta < t + dt_dep) {
            for &f in &active {
                remaining[f] -= rates[f] * (ta - t);
            }
            t = ta;
            continue;
        }
        // Departures: every flow within 1e-3 ns of the earliest finish leaves now.
        let t_dep = t + dt_dep;
        active.retain(|&f| {
            let ttf = remaining[f] / rates[f];
            if ttf <= dt_dep + 1e-3 {
                remaining[f] = 0.0;
                finish[f] = round_ns(t_dep);
                false
            } else {
                remaining[f] -= rates[f] * dt_dep;
                true
            }
        });
        t = t_dep;
    }
    finish
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_flow_is_served_at_line_rate() {
        // 1250 B = 10 000 bits at 10 Mb/s: 1 ms.
        assert_eq!(fluid_ps(&[5], &[1250.0], 10e6).unwrap(), vec![1_000_005]);
        assert_eq!(fluid_srpt(&[5], &[1250.0], 10e6).unwrap(), vec![1_000_005]);
        assert_eq!(
            fluid_maxmin_general(&[10e6], &[5], &[1250.0], &[vec![0]]).unwrap(),
            vec![1_000_005]
        );
    }

    #[test]
    fn equal_flows_at_once() {
        // Two 1000 B flows at 8 Mb/s (1 B per µs): PS ends both at 2 ms, SRPT
        // serves input order: 1 ms then 2 ms.
        assert_eq!(
            fluid_ps(&[0, 0], &[1000.0, 1000.0], 8e6).unwrap(),
            vec![2_000_000, 2_000_000]
        );
        assert_eq!(
            fluid_srpt(&[0, 0], &[1000.0, 1000.0], 8e6).unwrap(),
            vec![1_000_000, 2_000_000]
        );
        assert_eq!(
            fluid_maxmin_general(&[8e6], &[0, 0], &[1000.0, 1000.0], &[vec![0], vec![0]]).unwrap(),
            vec![2_000_000, 2_000_000]
        );
    }

    #[test]
    fn idle_gap_restarts_the_busy_period() {
        // 1000 B at 8 Mb/s takes 1 ms; the second flow arrives after the first left.
        assert_eq!(
            fluid_ps(&[0, 5_000_000], &[1000.0, 1000.0], 8e6).unwrap(),
            vec![1_000_000, 6_000_000]
        );
        assert_eq!(
            fluid_srpt(&[5_000_000, 0], &[1000.0, 1000.0], 8e6).unwrap(),
            vec![6_000_000, 1_000_000]
        );
    }

    #[test]
    fn refuses_bad_input_by_name() {
        assert_eq!(fluid_ps(&[0, 1], &[1.0], 1e6).unwrap_err().arg, "sizes_bytes");
        assert_eq!(fluid_ps(&[0], &[0.0], 1e6).unwrap_err().arg, "sizes_bytes[0]");
        assert_eq!(fluid_srpt(&[0], &[1.0], -1.0).unwrap_err().arg, "capacity_bps");
        let e = fluid_maxmin(&[1e6], &[0], &[1.0], &[vec![1]]).unwrap_err();
        assert_eq!(e.arg, "routes[0][0]");
        assert_eq!(
            fluid_maxmin(&[1e6], &[0], &[1.0], &[vec![]]).unwrap_err().arg,
            "routes[0]"
        );
        assert_eq!(
            fluid_maxmin(&[1e6, 1e6], &[0], &[1.0], &[vec![1, 1]]).unwrap_err().arg,
            "routes[0][1]"
        );
        assert_eq!(
            fluid_maxmin(&[1e6, f64::NAN], &[0], &[1.0], &[vec![0]])
                .unwrap_err()
                .arg,
            "links_bps[1]"
        );
        assert_eq!(fluid_maxmin(&[1e6], &[0], &[1.0], &[]).unwrap_err().arg, "routes");
        assert_eq!(maxmin_rates(&[], &[]).unwrap_err().arg, "links_bps");
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert!(fluid_ps(&[], &[], 1e6).unwrap().is_empty());
        assert!(fluid_srpt(&[], &[], 1e6).unwrap().is_empty());
        assert!(fluid_maxmin(&[1e6], &[], &[], &[]).unwrap().is_empty());
    }
}
