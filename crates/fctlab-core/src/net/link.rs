//! A unidirectional link with the port that feeds it: the port's queue, the
//! wire (rate and propagation delay) and the packets on it.
//!
//! Cost model (after htsim): the wire keeps its packets in a ring buffer and
//! the engine schedules only the head's arrival; the port needs a
//! transmission-complete event only while packets wait behind the one on the
//! wire.

use super::packet::flags;
use super::queue::Queue;
use super::Packet;
use crate::sim::{tx_time_ns, Time};
use std::collections::VecDeque;

/// The fields every packet touches come first, in one 128-byte block (two
/// cache lines, fetched together by the adjacent-line prefetcher of x86
/// processors), and the link is aligned to it: on a fabric with thousands of
/// links busy at once a link is rarely in the cache when its event comes, and
/// one block to fetch instead of four is much of the cost of an event
/// (`fctlab bench --scaling`). `repr(C)` keeps the order as written.
#[repr(C, align(128))]
pub struct Link {
    // First cache line: what deciding and starting a transmission reads.
    /// The wire is busy until this time.
    pub busy_until: Time,
    pub delay_ns: Time,
    /// Packets on the wire with their arrival times, oldest first.
    pub in_flight: VecDeque<(Time, Packet)>,
    /// Serialisation time of the last packet size seen (most packets are one
    /// of two sizes), to skip the division: the size, then the time.
    tx_size: u32,
    /// Whether the port's discipline may hold packets while the wire is idle.
    pub shaping: bool,
    /// A transmission-complete event is pending.
    pub txdone_pending: bool,
    /// The discipline's `pass_through` is the identity (`Queue::passes_idle`).
    pub passes_idle: bool,
    /// Whether the port has a packet limit (router ports).
    pub limited: bool,
    /// The packet on the wire (or the last one) is a retransmission.
    last_retx: bool,
    // Second cache line: the discipline and the per-packet counters.
    tx_ns: Time,
    pub queue: Box<dyn Queue>,
    /// Total serialisation time of packets that started on the wire; minus
    /// the part still to come, it is the time the link has been busy.
    busy_ns: u64,
    /// Packets that started on the wire, and those of them the sender marked
    /// as retransmissions (`flags::RETX`), with the serialisation time of
    /// the latter: the retransmitted share of the link's busy time.
    pub pkts_sent: u64,
    /// Data packets that reached the far end (counted by the engine).
    pub data_arrived: u64,
    pub retx_pkts_sent: u64,
    retx_busy_ns: u64,
    // Cold: set up, shaping ports and sampling.
    pub name: String,
    pub rate_bps: f64,
    /// The time of the pending wake-up of a shaping port, if any.
    pub wake_at: Option<Time>,
    busy_at_sample: u64,
    data_at_sample: u64,
    retx_at_sample: u64,
}

/// A link's totals over a run (`RunOutput::links`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkTotals {
    pub name: String,
    /// Serialisation time of every packet that started on the wire.
    pub busy_ns: u64,
    /// Of which retransmissions (packets a sender flagged `RETX`).
    pub retx_busy_ns: u64,
    pub pkts_sent: u64,
    pub retx_pkts_sent: u64,
}

impl Link {
    pub fn new(name: String, rate_bps: f64, delay_ns: Time, queue: Box<dyn Queue>) -> Self {
        let limited = queue.limit_pkts().is_some();
        let shaping = queue.shapes();
        let passes_idle = queue.passes_idle();
        Link {
            name,
            rate_bps,
            delay_ns,
            queue,
            limited,
            shaping,
            passes_idle,
            wake_at: None,
            busy_until: 0,
            txdone_pending: false,
            in_flight: VecDeque::new(),
            tx_size: u32::MAX,
            tx_ns: 0,
            busy_ns: 0,
            busy_at_sample: 0,
            data_arrived: 0,
            data_at_sample: 0,
            pkts_sent: 0,
            retx_pkts_sent: 0,
            retx_busy_ns: 0,
            retx_at_sample: 0,
            last_retx: false,
        }
    }

    /// Put `pkt` on the wire at `now`. Returns its arrival time at the far end
    /// and whether it is the only packet on the wire (so its arrival must be
    /// scheduled).
    #[inline(always)]
    pub fn start_tx(&mut self, pkt: Packet, now: Time) -> (Time, bool) {
        let tx = if self.tx_size == pkt.size_bytes {
            self.tx_ns
        } else {
            let t = tx_time_ns(pkt.size_bytes as u64, self.rate_bps);
            (self.tx_size, self.tx_ns) = (pkt.size_bytes, t);
            t
        };
        self.busy_until = now + tx;
        self.busy_ns += tx;
        self.pkts_sent += 1;
        self.last_retx = pkt.flags & flags::RETX != 0;
        if self.last_retx {
            self.retx_pkts_sent += 1;
            self.retx_busy_ns += tx;
        }
        let arrive = now + tx + self.delay_ns;
        self.in_flight.push_back((arrive, pkt));
        (arrive, self.in_flight.len() == 1)
    }

    /// Whether a packet reaching the port at `now` can go straight to the wire.
    ///
    /// The queue's length need not be asked: a port that does not shape has
    /// a transmission end pending whenever packets wait (the engine schedules
    /// one as soon as a packet stays in the queue, and again after each
    /// dequeue that leaves some), so an idle wire without one has none waiting.
    #[inline(always)]
    pub fn idle(&self, now: Time) -> bool {
        let idle = !self.shaping && !self.txdone_pending && self.busy_until <= now;
        debug_assert!(
            !idle || self.queue.len_pkts() == 0,
            "packets wait at an idle port without a transmission end pending"
        );
        idle
    }

    /// The fraction of the time since the last call that the wire was busy,
    /// the packet on the wire counting only its part sent by `now`.
    pub fn utilisation_since_last(&mut self, now: Time, interval_ns: Time) -> f64 {
        let busy = self.busy_ns - self.busy_until.saturating_sub(now);
        let util = (busy - self.busy_at_sample) as f64 / interval_ns as f64;
        self.busy_at_sample = busy;
        util
    }

    /// The fraction of the time since the last call that the wire was busy
    /// with retransmitted packets, counted as [`Link::utilisation_since_last`]
    /// counts the whole.
    pub fn retx_utilisation_since_last(&mut self, now: Time, interval_ns: Time) -> f64 {
        let pending = if self.last_retx {
            self.busy_until.saturating_sub(now)
        } else {
            0
        };
        let busy = self.retx_busy_ns - pending;
        let util = (busy - self.retx_at_sample) as f64 / interval_ns as f64;
        self.retx_at_sample = busy;
        util
    }

    /// The link's totals so far.
    pub fn totals(&self) -> LinkTotals {
        LinkTotals {
            name: self.name.clone(),
            busy_ns: self.busy_ns,
            retx_busy_ns: self.retx_busy_ns,
            pkts_sent: self.pkts_sent,
            retx_pkts_sent: self.retx_pkts_sent,
        }
    }

    /// Data packets that reached the far end since the last call.
    pub fn data_arrived_since_last(&mut self) -> u64 {
        let n = self.data_arrived - self.data_at_sample;
        self.data_at_sample = self.data_arrived;
        n
    }

    /// Packets in the queue or on the wire.
    pub fn in_network(&self) -> u64 {
        (self.queue.len_pkts() + self.in_flight.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of};

    /// The fields of the per-packet path lie in the link's first 128 bytes,
    /// and a link starts on a 128-byte boundary.
    #[test]
    fn hot_fields_share_the_first_block() {
        assert_eq!(align_of::<Link>(), 128);
        let line = |o: usize| o / 64;
        for o in [
            offset_of!(Link, busy_until),
            offset_of!(Link, delay_ns),
            offset_of!(Link, in_flight),
            offset_of!(Link, tx_size),
            offset_of!(Link, shaping),
            offset_of!(Link, txdone_pending),
            offset_of!(Link, passes_idle),
            offset_of!(Link, limited),
            offset_of!(Link, last_retx),
        ] {
            assert_eq!(line(o), 0, "field at offset {o} is not in the first cache line");
        }
        for o in [
            offset_of!(Link, tx_ns),
            offset_of!(Link, queue),
            offset_of!(Link, busy_ns),
            offset_of!(Link, pkts_sent),
            offset_of!(Link, data_arrived),
            offset_of!(Link, retx_busy_ns) + 7,
        ] {
            assert!(line(o) <= 1, "field at offset {o} is beyond the first 128 bytes");
        }
    }
}
