//! The generators at run time: each draws from its own random stream
//! (stream g + 1 of the run seed), so adding a generator never changes
//! another's flows. The engine asks for flows; it never draws itself.
//! Choosing measuring flows by `measure_fraction` draws from a further stream
//! per generator (2^32 + g + 1), so it never changes the flows themselves.

use super::arrivals::{Arrivals, Generator, Measure};
use super::exponential;
use crate::sim::{stream_rng, Rng, Time};
use rand::Rng as _;

struct State {
    rng: Rng,
    /// The next flow of a flows file.
    next_file: usize,
    /// Pairs drawn for the arrival at hand (a matrix).
    pairs: Vec<(u32, u32)>,
    created: u64,
    /// Flows created per sender (closed-loop counts are per sender).
    per_sender: Vec<u64>,
    /// Flows of any kind created so far, for `measure_every`.
    numbered: u64,
    /// The stream `measure_fraction` draws from.
    measure_rng: Option<Rng>,
}

/// The random stream of generator `g`'s `measure_fraction` draws.
const MEASURE_STREAM: u64 = 1 << 32;

/// Every generator of a run with its state.
pub struct Sources {
    gens: Vec<Generator>,
    state: Vec<State>,
}

/// A flow between two hosts that a generator creates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostFlow {
    pub src: u32,
    pub dst: u32,
    pub pkts: u64,
    pub measure: bool,
}

/// One Poisson arrival: the flow it creates and when the next one comes.
pub struct PoissonArrival {
    pub sender: u32,
    pub pkts: u64,
    /// Whether the flow is a measuring flow.
    pub measure: bool,
    /// None: the generator is done (count reached or past a stop time).
    pub next_ns: Option<Time>,
}

impl Sources {
    pub fn new(gens: Vec<Generator>, seed: u64, senders: usize) -> Self {
        let state = (0..gens.len())
            .map(|g| State {
                rng: stream_rng(seed, g as u64 + 1),
                next_file: 0,
                pairs: Vec::new(),
                created: 0,
                per_sender: vec![0; senders],
                numbered: 0,
                measure_rng: matches!(gens[g].measure, Measure::Fraction(_))
                    .then(|| stream_rng(seed, MEASURE_STREAM + g as u64 + 1)),
            })
            .collect();
        Sources { gens, state }
    }

    /// Whether the next flow generator `g` creates is a measuring flow (call
    /// once per flow it creates, in creation order).
    pub fn next_is_measured(&mut self, g: u32) -> bool {
        let st = &mut self.state[g as usize];
        st.numbered += 1;
        match self.gens[g as usize].measure {
            Measure::Never => false,
            Measure::Every(n) => st.numbered.is_multiple_of(n),
            Measure::Fraction(p) => st.measure_rng.as_mut().is_some_and(|r| r.random::<f64>() < p),
        }
    }

    pub fn generators(&self) -> &[Generator] {
        &self.gens
    }

    /// The Poisson arrival of generator `g` at `now` (`run_stop_ns`: the run's
    /// stop time). Draws the sender, the size and the next gap, in that order.
    pub fn poisson(&mut self, g: u32, now: Time, run_stop_ns: Option<Time>) -> Option<PoissonArrival> {
        let gen = &self.gens[g as usize];
        let Arrivals::Poisson { mean_gap_ns } = gen.arrivals else {
            return None;
        };
        let sizes = gen.sizes.as_ref()?;
        let st = &mut self.state[g as usize];
        let sender = gen.senders[st.rng.random_range(0..gen.senders.len())];
        let pkts = sizes.sample(&mut st.rng);
        st.created += 1;
        let gap = exponential(&mut st.rng, mean_gap_ns).round() as Time;
        // Past the end of time (only ever after ~10^4 gaps of 10^6 s): done.
        let next = now.checked_add(gap).unwrap_or(Time::MAX);
        let more = next < Time::MAX
            && gen.count.is_none_or(|c| st.created < c)
            && gen.stop_ns.is_none_or(|s| next < s)
            && run_stop_ns.is_none_or(|s| next <= s);
        let measure = self.next_is_measured(g);
        Some(PoissonArrival {
            sender,
            pkts,
            measure,
            next_ns: more.then_some(next),
        })
    }

    /// A Poisson arrival of generator `g` (with a traffic matrix) at `now`:
    /// its flows into `out` (an incast's all at once); the time of the next
    /// arrival, None when the generator is done. Draws the pairs, the sizes
    /// and the next gap, in that order.
    pub fn poisson_hosts(
        &mut self,
        g: u32,
        now: Time,
        run_stop_ns: Option<Time>,
        out: &mut Vec<HostFlow>,
    ) -> Option<Time> {
        out.clear();
        let gen = &self.gens[g as usize];
        let (Arrivals::Poisson { mean_gap_ns }, Some(sizes), Some(hosts)) = (&gen.arrivals, &gen.sizes, &gen.hosts)
        else {
            return None;
        };
        let st = &mut self.state[g as usize];
        hosts.draw(&mut st.rng, &mut st.pairs);
        for &(src, dst) in &st.pairs {
            let pkts = sizes.sample(&mut st.rng);
            out.push(HostFlow {
                src,
                dst,
                pkts,
                measure: false,
            });
        }
        st.created += 1;
        let gap = exponential(&mut st.rng, *mean_gap_ns).round() as Time;
        let next = now.checked_add(gap).unwrap_or(Time::MAX);
        let more = next < Time::MAX
            && gen.count.is_none_or(|c| st.created < c)
            && gen.stop_ns.is_none_or(|s| next < s)
            && run_stop_ns.is_none_or(|s| next <= s);
        for f in out.iter_mut() {
            f.measure = self.next_is_measured(g);
        }
        more.then_some(next)
    }

    /// The next flow of flows-file generator `g` into `out`; the start of the
    /// one after it, None after the last.
    pub fn file_next(&mut self, g: u32, out: &mut Vec<HostFlow>) -> Option<Time> {
        out.clear();
        let Arrivals::File(flows) = &self.gens[g as usize].arrivals else {
            return None;
        };
        let st = &mut self.state[g as usize];
        let f = *flows.get(st.next_file)?;
        st.next_file += 1;
        let next = flows.get(st.next_file).map(|n| n.start_ns);
        let measure = self.next_is_measured(g);
        out.push(HostFlow {
            src: f.src,
            dst: f.dst,
            pkts: f.pkts,
            measure,
        });
        next
    }

    /// The start of flows-file generator `g`'s first flow.
    pub fn file_start(&self, g: u32) -> Option<Time> {
        match &self.gens[g as usize].arrivals {
            Arrivals::File(flows) => flows.first().map(|f| f.start_ns),
            _ => None,
        }
    }

    /// The destination of the next flow from source host `s` of generator
    /// `g` (a permutation or all-to-all matrix), drawn from its stream.
    pub fn destination(&mut self, g: u32, s: u32) -> Option<u32> {
        let hosts = self.gens[g as usize].hosts.as_ref()?;
        Some(hosts.destination_of(s, &mut self.state[g as usize].rng))
    }

    /// The size of the next flow of closed-loop generator `g` on sender `s`,
    /// starting at `t`, if its count and stop time allow one, and whether it
    /// is a measuring flow.
    pub fn closed_loop(&mut self, g: u32, s: u32, t: Time) -> Option<(u64, bool)> {
        let gen = &self.gens[g as usize];
        if gen.stop_ns.is_some_and(|stop| t >= stop) {
            return None;
        }
        let st = &mut self.state[g as usize];
        if gen.count.is_some_and(|c| st.per_sender[s as usize] >= c) {
            return None;
        }
        let pkts = gen.sizes.as_ref()?.sample(&mut st.rng);
        st.created += 1;
        st.per_sender[s as usize] += 1;
        Some((pkts, self.next_is_measured(g)))
    }

    /// The think time of closed-loop generator `g`.
    pub fn think_ns(&self, g: u32) -> Option<Time> {
        match self.gens[g as usize].arrivals {
            Arrivals::ClosedLoop { think_ns } => Some(think_ns),
            _ => None,
        }
    }
}
