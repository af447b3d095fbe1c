//! Traffic matrices: which host each generated flow goes from and to.
//!
//! - `permutation`: source host s always sends to host perm(s), a random
//!   permutation of the sources with no fixed point, drawn once per entry;
//! - `all-to-all`: each flow to a host drawn uniformly, outside the source's
//!   rack unless `same_rack = true` (drawn again until one is);
//! - `incast`: a query picks a receiver (`receiver`, or a source uniformly)
//!   and `fan_in` distinct senders uniformly among the other sources, which
//!   all answer at the same instant, each with a response drawn from `sizes`;
//! - `file`: `matrix_file` lists `src dst [weight]`; each flow is one of its
//!   pairs, with probability weight / total.
//!
//! With a matrix, `load` is the offered load of the busiest host link
//! (sending or receiving, bytes on the wire over the link's rate): with equal
//! host links and a permutation or all-to-all matrix, every host sends and
//! receives at `load`, the convention of fabric papers. `load_of = "<link>"`
//! instead sets the whole entry's offered bits to `load` x that link's rate.

use super::arrivals::{Context, TrafficCfg};
use crate::config::{err, ConfigError};
use crate::sim::{stream_rng, Rng};
use rand::Rng as _;
use std::sync::Arc;

/// The random stream of entry g's permutation: 2^44 + g.
const PERMUTATION_STREAM: u64 = 1 << 44;

/// A traffic matrix, resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Matrix {
    /// Destination of each source (by position in `HostTraffic::sources`).
    Permutation(Arc<[u32]>),
    AllToAll {
        same_rack: bool,
    },
    Incast {
        fan_in: u32,
        receiver: Option<u32>,
    },
    /// Pairs and their cumulative weights (the last is 1).
    File {
        pairs: Arc<[(u32, u32)]>,
        cum: Arc<[f64]>,
    },
}

/// What the hosts of the topology are, for the matrices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hosts {
    /// Each host's rack (any id shared by the hosts of one rack).
    pub racks: Arc<[u32]>,
    /// Each host's link rate, bits/s.
    pub rates: Arc<[f64]>,
}

/// A generator's traffic between hosts.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTraffic {
    pub matrix: Matrix,
    /// The source hosts (`senders`; all by default).
    pub sources: Arc<[u32]>,
    /// Each host's position in `sources` (u32::MAX: not a source).
    pos: Arc<[u32]>,
    /// Cumulative chance that a flow (or a query's senders) comes from each
    /// source: by its link rate (None: uniform).
    pub source_cum: Option<Arc<[f64]>>,
    pub hosts: Hosts,
}

impl Hosts {
    pub fn len(&self) -> usize {
        self.racks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.racks.is_empty()
    }
}

impl HostTraffic {
    /// Resolve `matrix` (already read: a file matrix's pairs) for these
    /// sources; `field` is the traffic entry's key, `g` its index.
    pub fn new(
        matrix: Matrix,
        sources: Vec<u32>,
        hosts: Hosts,
        (seed, g): (u64, usize),
        field: &str,
    ) -> Result<Self, ConfigError> {
        let rates: Vec<f64> = sources.iter().map(|&s| hosts.rates[s as usize]).collect();
        let source_cum = if rates.iter().all(|&r| r == rates[0]) {
            None
        } else {
            Some(cumulative(&rates).into())
        };
        let matrix = match matrix {
            Matrix::Permutation(_) => {
                if sources.len() < 2 {
                    return err(
                        format!("{field}.senders"),
                        "a permutation needs at least 2 source hosts",
                    );
                }
                Matrix::Permutation(
                    derangement(sources.len(), &mut stream_rng(seed, PERMUTATION_STREAM + g as u64)).into(),
                )
            }
            m => m,
        };
        let mut pos = vec![u32::MAX; hosts.len()];
        for (i, &s) in sources.iter().enumerate() {
            pos[s as usize] = i as u32;
        }
        let t = HostTraffic {
            matrix,
            pos: pos.into(),
            sources: sources.into(),
            source_cum,
            hosts,
        };
        t.check(field)?;
        Ok(t)
    }

    fn check(&self, field: &str) -> Result<(), ConfigError> {
        match &self.matrix {
            Matrix::AllToAll { same_rack: false } => {
                for &s in self.sources.iter() {
                    let rack = self.hosts.racks[s as usize];
                    if self.hosts.racks.iter().all(|&r| r == rack) {
                        return err(
                            format!("{field}.same_rack"),
                            format!("host {s}'s rack holds every host: set same_rack = true to send within it"),
                        );
                    }
                }
            }
            Matrix::Incast { fan_in, receiver } => {
                let most = self.sources.len() - receiver.map_or(1, |r| self.sources.contains(&r) as usize);
                if *fan_in == 0 || *fan_in as usize > most {
                    return err(
                        format!("{field}.fan_in"),
                        format!("must be 1 to {most} (the senders other than the receiver), got {fan_in}"),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Flows per query (incast: `fan_in`; otherwise 1).
    pub fn flows_per_arrival(&self) -> u32 {
        match self.matrix {
            Matrix::Incast { fan_in, .. } => fan_in,
            _ => 1,
        }
    }

    /// A source, by position in `sources`.
    fn source(&self, rng: &mut Rng) -> usize {
        match &self.source_cum {
            None => rng.random_range(0..self.sources.len()),
            Some(cum) => pick(cum, rng.random::<f64>()),
        }
    }

    /// The destination of a flow from source host `s` (permutation and
    /// all-to-all).
    pub fn destination_of(&self, s: u32, rng: &mut Rng) -> u32 {
        self.destination(self.pos[s as usize] as usize, rng)
    }

    /// The destination of a flow from source position `i` (not incast).
    fn destination(&self, i: usize, rng: &mut Rng) -> u32 {
        let s = self.sources[i];
        match &self.matrix {
            Matrix::Permutation(p) => self.sources[p[i] as usize],
            Matrix::AllToAll { same_rack } => loop {
                let d = rng.random_range(0..self.hosts.len() as u32);
                if d != s && (*same_rack || self.hosts.racks[d as usize] != self.hosts.racks[s as usize]) {
                    return d;
                }
            },
            Matrix::Incast { .. } | Matrix::File { .. } => unreachable!("drawn as pairs"),
        }
    }

    /// The (source, destination) pairs of one arrival, into `out`.
    pub fn draw(&self, rng: &mut Rng, out: &mut Vec<(u32, u32)>) {
        out.clear();
        match &self.matrix {
            Matrix::File { pairs, cum } => out.push(pairs[pick(cum, rng.random::<f64>())]),
            Matrix::Incast { fan_in, receiver } => {
                let k = self.sources.len();
                let r = receiver.unwrap_or_else(|| self.sources[rng.random_range(0..k)]);
                while out.len() < *fan_in as usize {
                    let s = self.sources[rng.random_range(0..k)];
                    if s != r && !out.iter().any(|&(x, _)| x == s) {
                        out.push((s, r));
                    }
                }
            }
            _ => {
                let i = self.source(rng);
                out.push((self.sources[i], self.destination(i, rng)));
            }
        }
    }

    /// The largest offered load of any host link per bit per second of the
    /// entry's flows (bits of all its flows together): what `load` divides.
    pub fn busiest_share(&self) -> f64 {
        let n = self.hosts.len();
        let (send, recv) = self.fractions(n);
        (0..n)
            .map(|x| send[x].max(recv[x]) / self.hosts.rates[x])
            .fold(0.0, f64::max)
    }

    /// The expected fraction of the entry's flows that each host sends and
    /// receives.
    fn fractions(&self, n: usize) -> (Vec<f64>, Vec<f64>) {
        let (mut send, mut recv) = (vec![0.0; n], vec![0.0; n]);
        let w: Vec<f64> = match &self.source_cum {
            None => vec![1.0 / self.sources.len() as f64; self.sources.len()],
            Some(c) => c
                .iter()
                .scan(0.0, |prev, &x| Some(x - std::mem::replace(prev, x)))
                .collect(),
        };
        let racks = &self.hosts.racks;
        match &self.matrix {
            Matrix::Permutation(p) => {
                for (i, &s) in self.sources.iter().enumerate() {
                    send[s as usize] += w[i];
                    recv[self.sources[p[i] as usize] as usize] += w[i];
                }
            }
            Matrix::AllToAll { same_rack } => {
                let mut rack_size = std::collections::HashMap::new();
                for &r in racks.iter() {
                    *rack_size.entry(r).or_insert(0usize) += 1;
                }
                // Each source spreads its share evenly over its eligible hosts.
                let mut total = 0.0;
                let mut per_rack = std::collections::HashMap::new();
                let mut own = vec![0.0; n];
                for (i, &s) in self.sources.iter().enumerate() {
                    let elig = if *same_rack {
                        n - 1
                    } else {
                        n - rack_size[&racks[s as usize]]
                    };
                    let x = w[i] / elig as f64;
                    send[s as usize] += w[i];
                    total += x;
                    *per_rack.entry(racks[s as usize]).or_insert(0.0) += x;
                    own[s as usize] += x;
                }
                for d in 0..n {
                    recv[d] = total
                        - if *same_rack {
                            own[d]
                        } else {
                            per_rack.get(&racks[d]).copied().unwrap_or(0.0)
                        };
                }
            }
            Matrix::Incast { receiver, .. } => self.incast_fractions(*receiver, &mut send, &mut recv),
            Matrix::File { pairs, cum } => {
                let mut prev = 0.0;
                for (&(s, d), &c) in pairs.iter().zip(cum.iter()) {
                    send[s as usize] += c - prev;
                    recv[d as usize] += c - prev;
                    prev = c;
                }
            }
        }
        (send, recv)
    }

    /// Incast: every flow of a query goes to its receiver; receivers and
    /// senders are drawn uniformly (whatever the link rates), the senders
    /// without replacement among the sources but the receiver.
    fn incast_fractions(&self, receiver: Option<u32>, send: &mut [f64], recv: &mut [f64]) {
        let k = self.sources.len() as f64;
        match receiver {
            Some(r) => {
                recv[r as usize] = 1.0;
                let others = k - self.sources.contains(&r) as u32 as f64;
                for &s in self.sources.iter().filter(|&&s| s != r) {
                    send[s as usize] = 1.0 / others;
                }
            }
            None => {
                for &s in self.sources.iter() {
                    send[s as usize] = 1.0 / k;
                    recv[s as usize] = 1.0 / k;
                }
            }
        }
    }
}

/// A random permutation of 0..n without fixed points (n >= 2): Fisher-Yates,
/// drawn again until no element is left in place (about e tries).
fn derangement(n: usize, rng: &mut Rng) -> Vec<u32> {
    loop {
        let mut p: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &x)| i as u32 != x) {
            return p;
        }
    }
}

/// Cumulative fractions of `w` (the last is exactly 1).
pub fn cumulative(w: &[f64]) -> Vec<f64> {
    let total: f64 = w.iter().sum();
    let mut acc = 0.0;
    let mut out: Vec<f64> = w
        .iter()
        .map(|&x| {
            acc += x;
            acc / total
        })
        .collect();
    if let Some(last) = out.last_mut() {
        *last = 1.0;
    }
    out
}

/// The first index whose cumulative fraction is above `u` in [0, 1).
fn pick(cum: &[f64], u: f64) -> usize {
    cum.partition_point(|&c| c <= u).min(cum.len() - 1)
}

/// What `load` is relative to.
pub enum LoadOf {
    /// A rate in bits/s: the entry's bits per second over it.
    Rate(f64),
    /// The busiest host link ([`HostTraffic::busiest_share`]).
    Hosts(f64),
}

/// The keys that only a traffic matrix takes, refused without one; and a
/// topology without senders needs a matrix.
pub fn no_matrix_keys(g: &TrafficCfg, cx: &Context) -> Result<(), ConfigError> {
    if g.matrix.is_some() {
        return err(
            cx.key("matrix"),
            format!("arrivals = {:?} take no traffic matrix", g.arrivals),
        );
    }
    if g.flows_file.is_some() {
        return err(cx.key("flows_file"), "only applies with arrivals = \"file\"");
    }
    for (given, key) in [
        (g.matrix_file.is_some(), "matrix_file"),
        (g.same_rack.is_some(), "same_rack"),
        (g.fan_in.is_some(), "fan_in"),
        (g.receiver.is_some(), "receiver"),
        (g.load_of.as_deref() == Some("host"), "load_of"),
    ] {
        if given {
            return err(cx.key(key), "only applies with a traffic matrix (matrix = ...)");
        }
    }
    if cx.senders == 0 {
        return err(
            cx.key("matrix"),
            "this topology has no senders: flows between its hosts need a traffic matrix (permutation, all-to-all, incast, file) or arrivals = \"file\"",
        );
    }
    Ok(())
}

/// The entry's flows between hosts, if it names a matrix: its source hosts,
/// start and stop, and the matrix resolved. `process` is the arrival
/// process's name (incast and file matrices need Poisson arrivals).
pub fn resolve(g: &TrafficCfg, cx: &Context, process: &str) -> Result<Option<(Common, HostTraffic)>, ConfigError> {
    let Some(name) = g.matrix.as_deref() else {
        return Ok(None);
    };
    let n = cx.hosts.len();
    if n < 2 {
        return err(
            cx.key("matrix"),
            format!("a traffic matrix needs at least 2 hosts; this topology has {n}"),
        );
    }
    let only = |key: &str, given: bool, m: &str| -> Result<(), ConfigError> {
        if given && name != m {
            return err(cx.key(key), format!("only applies with matrix = {m:?}"));
        }
        Ok(())
    };
    only("same_rack", g.same_rack.is_some(), "all-to-all")?;
    only("fan_in", g.fan_in.is_some(), "incast")?;
    only("receiver", g.receiver.is_some(), "incast")?;
    only("matrix_file", g.matrix_file.is_some(), "file")?;
    let matrix = match name {
        "permutation" => Matrix::Permutation(Arc::from([])),
        "all-to-all" => Matrix::AllToAll {
            same_rack: g.same_rack.unwrap_or(false),
        },
        "incast" => {
            let Some(fan_in) = g.fan_in else {
                return err(
                    cx.key("fan_in"),
                    "required with matrix = \"incast\" (senders per query)",
                );
            };
            if let Some(r) = g.receiver {
                if r as usize >= n {
                    return err(
                        cx.key("receiver"),
                        format!("host {r} does not exist: hosts are 0..{}", n - 1),
                    );
                }
            }
            Matrix::Incast {
                fan_in,
                receiver: g.receiver,
            }
        }
        "file" => {
            let Some(path) = &g.matrix_file else {
                return err(
                    cx.key("matrix_file"),
                    "required with matrix = \"file\" (lines: src dst [weight])",
                );
            };
            let (pairs, weights) = super::flows_file::read_matrix(path, &cx.key("matrix_file"), n)?;
            Matrix::File {
                pairs: pairs.into(),
                cum: cumulative(&weights).into(),
            }
        }
        other => {
            return err(
                cx.key("matrix"),
                format!("unknown value {other:?}; allowed: \"permutation\", \"all-to-all\", \"incast\", \"file\""),
            )
        }
    };
    if matches!(matrix, Matrix::Incast { .. } | Matrix::File { .. }) && process != "poisson" {
        return err(
            cx.key("matrix"),
            format!("{name:?} needs poisson arrivals (queries or pairs drawn per arrival)"),
        );
    }
    let common = cx.common_of(g, n as u32, true)?;
    let t = HostTraffic::new(
        matrix,
        common.0.clone(),
        cx.hosts.clone(),
        (cx.seed, cx.index),
        cx.field,
    )?;
    Ok(Some((common, t)))
}

/// What `load` is of (`load_of`), for an entry with or without a matrix.
pub fn load_of(g: &TrafficCfg, cx: &Context, hosts: Option<&HostTraffic>) -> Result<LoadOf, ConfigError> {
    match (g.load_of.as_deref(), hosts) {
        (None | Some("host"), Some(h)) => Ok(LoadOf::Hosts(h.busiest_share())),
        (None, None) => Ok(LoadOf::Rate(cx.bottleneck_bps)),
        (Some(name), _) => match (cx.link_rate)(name) {
            Some(c) => Ok(LoadOf::Rate(c)),
            None => err(
                cx.key("load_of"),
                format!("no link named {name:?} (or \"host\" with a traffic matrix)"),
            ),
        },
    }
}

/// The senders (or source hosts), start and stop of an entry.
pub type Common = (Vec<u32>, crate::sim::Time, Option<crate::sim::Time>);

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(racks: &[u32]) -> Hosts {
        Hosts {
            racks: racks.into(),
            rates: vec![1.0; racks.len()].into(),
        }
    }

    #[test]
    fn a_permutation_has_no_fixed_point_and_loads_every_host_once() {
        let t = HostTraffic::new(
            Matrix::Permutation(Arc::from([])),
            (0..10).collect(),
            hosts(&[0; 10]),
            (3, 0),
            "t",
        )
        .unwrap();
        let Matrix::Permutation(p) = &t.matrix else { panic!() };
        let mut seen = p.to_vec();
        assert!(seen.iter().enumerate().all(|(i, &x)| i as u32 != x));
        seen.sort();
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
        // Each host sends and receives a tenth of the flows.
        assert!((t.busiest_share() - 0.1).abs() < 1e-12);
    }

    /// All-to-all over 3 racks of 2: a source's flows spread over the 4
    /// hosts outside its rack, so every host receives 6 x (1/6) / 4 x 2 = 1/6.
    #[test]
    fn all_to_all_outside_the_rack_is_even() {
        let t = HostTraffic::new(
            Matrix::AllToAll { same_rack: false },
            (0..6).collect(),
            hosts(&[0, 0, 1, 1, 2, 2]),
            (1, 0),
            "t",
        )
        .unwrap();
        let (send, recv) = t.fractions(6);
        for x in 0..6 {
            assert!((send[x] - 1.0 / 6.0).abs() < 1e-12);
            assert!((recv[x] - 1.0 / 6.0).abs() < 1e-12);
        }
        let mut rng = stream_rng(1, 1);
        let mut out = Vec::new();
        for _ in 0..1000 {
            t.draw(&mut rng, &mut out);
            let (s, d) = out[0];
            assert_ne!(s / 2, d / 2, "same rack");
        }
    }
}
