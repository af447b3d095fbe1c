//! The keys of flows between hosts and of routing over equal-cost paths:
//! `network.routing` and its companions, and the hosts named by `[[flows]]`.

use super::{FlowCfg, NetworkCfg};
use crate::config::{duration_us, err, ConfigError};
use crate::net::routing::{AckPath, Hash, Mode, Routing, Spray};
use crate::net::topology::Topology;
use crate::sim::us_to_ns;
use crate::workload::matrix::Hosts;

/// `network.routing`, `ecmp_hash`, `ack_path`, `spray` and `flowlet_gap_us`.
pub(super) fn routing(n: &NetworkCfg, topo: &Topology) -> Result<Routing, ConfigError> {
    let pick = |field: &str, v: &Option<String>, allowed: &[&str]| -> Result<usize, ConfigError> {
        let Some(v) = v else { return Ok(0) };
        allowed.iter().position(|a| a == v).ok_or_else(|| {
            let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
            ConfigError::new(field, format!("unknown value {v:?}; allowed: {}", list.join(", ")))
        })
    };
    let mode = pick("network.routing", &n.routing, &["single", "ecmp", "spray"])?;
    let hash = pick("network.ecmp_hash", &n.ecmp_hash, &["seeded", "flow-index"])?;
    let ack = pick("network.ack_path", &n.ack_path, &["hash", "mirror"])?;
    let spray = pick("network.spray", &n.spray, &["random", "round-robin"])?;
    let mode = match mode {
        0 => Mode::Single,
        1 => Mode::Ecmp,
        _ => Mode::Spray(if spray == 1 { Spray::RoundRobin } else { Spray::Random }),
    };
    let r = Routing {
        mode,
        hash: if hash == 1 { Hash::FlowIndex } else { Hash::Seeded },
        ack: if ack == 1 { AckPath::Mirror } else { AckPath::Hash },
        flowlet_gap_ns: match n.flowlet_gap_us {
            Some(us) => Some(us_to_ns(duration_us("network.flowlet_gap_us", us, true)?).max(1)),
            None => None,
        },
    };
    let any = "routing = \"ecmp\" or \"spray\"";
    for (given, key, applies, needs) in [
        (n.ecmp_hash.is_some(), "ecmp_hash", mode != Mode::Single, any),
        (n.ack_path.is_some(), "ack_path", mode != Mode::Single, any),
        (
            n.spray.is_some(),
            "spray",
            matches!(mode, Mode::Spray(_)),
            "routing = \"spray\"",
        ),
        (
            n.flowlet_gap_us.is_some(),
            "flowlet_gap_us",
            mode == Mode::Ecmp,
            "routing = \"ecmp\"",
        ),
    ] {
        if given && !applies {
            return err(format!("network.{key}"), format!("only applies with {needs}"));
        }
    }
    if r.flowlet_gap_ns.is_some() && r.hash == Hash::FlowIndex {
        return err(
            "network.flowlet_gap_us",
            "flowlets re-hash with the seeded hash; ecmp_hash = \"flow-index\" keeps one path per flow",
        );
    }
    if r.ack == AckPath::Mirror {
        mirrored_links(topo)?;
    }
    Ok(r)
}

/// Mirrored ACKs need each link's reverse next to it (ids 2i and 2i + 1, as
/// every built-in topology pairs them).
fn mirrored_links(topo: &Topology) -> Result<(), ConfigError> {
    for (i, l) in topo.links.iter().enumerate() {
        match topo.links.get(i ^ 1) {
            Some(r) if r.from == l.to && r.to == l.from => {}
            _ => {
                return err(
                    "network.ack_path",
                    format!(
                        "\"mirror\" needs every link paired with its reverse; link {:?} is not",
                        l.name
                    ),
                )
            }
        }
    }
    Ok(())
}

/// The hosts of an explicit flow: None for a sender's flow, or (src, dst,
/// pinned path), each checked against the topology.
pub(super) fn flow_hosts(
    f: &FlowCfg,
    field: &str,
    topo: &Topology,
) -> Result<Option<(u32, u32, Option<u32>)>, ConfigError> {
    let (src, dst) = match (f.src, f.dst) {
        (None, None) => {
            if f.path.is_some() && topo.senders.is_empty() {
                return err(format!("{field}.src"), "a pinned path needs src and dst");
            }
            if topo.senders.is_empty() {
                return err(
                    format!("{field}.src"),
                    format!(
                        "this topology has no senders: name the flow's src and dst hosts (0..{})",
                        topo.hosts.len().saturating_sub(1)
                    ),
                );
            }
            return Ok(None);
        }
        (Some(s), Some(d)) => (s, d),
        (Some(_), None) => return err(format!("{field}.dst"), "required with src"),
        (None, Some(_)) => return err(format!("{field}.src"), "required with dst"),
    };
    if f.sender != 0 {
        return err(format!("{field}.sender"), "give sender, or src and dst, not both");
    }
    host(&format!("{field}.src"), src, topo)?;
    host(&format!("{field}.dst"), dst, topo)?;
    if src == dst {
        return err(
            format!("{field}.dst"),
            format!("must differ from src (both are host {src})"),
        );
    }
    if let Some(p) = f.path {
        let n = paths_between(topo, src, dst);
        if p >= n {
            return err(
                format!("{field}.path"),
                format!(
                    "is {p} but hosts {src} and {dst} have {n} equal-cost paths (0..{})",
                    n - 1
                ),
            );
        }
    }
    Ok(Some((src, dst, f.path)))
}

/// Each host's rack and link rate, for the traffic matrices.
pub(super) fn host_info(topo: &Topology) -> Hosts {
    let mut rate = vec![0.0; topo.nodes as usize];
    for l in topo.links.iter().rev() {
        rate[l.from as usize] = l.rate_bps;
    }
    Hosts {
        racks: topo.racks.as_slice().into(),
        rates: topo
            .hosts
            .iter()
            .map(|&h| rate[h as usize])
            .collect::<Vec<f64>>()
            .into(),
    }
}

/// Host index `h` exists.
pub(super) fn host(field: &str, h: u32, topo: &Topology) -> Result<(), ConfigError> {
    let n = topo.hosts.len();
    if n == 0 {
        return err(
            field,
            "this topology has no hosts (every node is a router): use senders",
        );
    }
    if h as usize >= n {
        return err(field, format!("host {h} does not exist: hosts are 0..{}", n - 1));
    }
    Ok(())
}

/// The equal-cost paths from host `a` to host `b` (at least 1).
fn paths_between(topo: &Topology, a: u32, b: u32) -> u32 {
    let (na, nb) = (topo.hosts[a as usize], topo.hosts[b as usize]);
    match &topo.fabric {
        Some(f) => f.n_paths(na, nb),
        None => topo.equal_cost_paths(&topo.out_links(), na, nb).len().max(1) as u32,
    }
}

/// Every host reaches every other (a graph's links go both ways, so one
/// search from the first host tells).
pub(super) fn hosts_connected(topo: &Topology) -> Result<(), ConfigError> {
    if topo.fabric.is_some() || topo.hosts.len() < 2 {
        return Ok(());
    }
    let out = topo.out_links();
    let mut seen = vec![false; topo.nodes as usize];
    let mut stack = vec![topo.hosts[0]];
    seen[topo.hosts[0] as usize] = true;
    while let Some(u) = stack.pop() {
        for &l in &out[u as usize] {
            let v = topo.links[l as usize].to;
            if !seen[v as usize] {
                seen[v as usize] = true;
                stack.push(v);
            }
        }
    }
    match topo.hosts.iter().position(|&h| !seen[h as usize]) {
        None => Ok(()),
        Some(i) => err(
            "network.graph",
            format!("host {i} cannot be reached from host 0: flows between hosts need a connected network"),
        ),
    }
}
