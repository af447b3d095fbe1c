//! The event queue: events ordered by (time, insertion sequence).
//!
//! Entries are 24 bytes and carry no pointers: an event names its target by a
//! small tag and an index, and the engine dispatches on it. Ties on time are
//! broken by the insertion counter, which makes equal-time events fire in the
//! order they were scheduled.
//!
//! Two 4-ary heaps share one sequence counter: link events (a link has at most
//! one pending arrival and one pending transmission end, so this heap stays as
//! small as the network and lives in L1 cache) and everything else (timers, flow
//! starts, samples), which grows with the number of flows. Popping takes the
//! smaller head of the two, so the order is exactly that of a single heap.

use super::Time;

/// What an event does; the engine interprets the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet being serialised on link `i` has left the port.
    TxDone(u32),
    /// The head of link `i`'s in-flight packets reaches the far end.
    Arrive(u32),
    /// A timer of flow `i`'s sender may be due.
    SenderTimer(u32),
    /// A timer of flow `i`'s receiver may be due.
    ReceiverTimer(u32),
    /// Flow `i` starts.
    FlowStart(u32),
    /// Traffic generator `i` creates its next flow.
    Generate(u32),
    /// Sample the time series.
    Sample,
    /// Link `i`'s port holds packets it may not send yet (a shaping
    /// discipline, [`crate::net::queue::Queue::next_ready`]); one may be due.
    Wake(u32),
}

#[derive(Clone, Copy)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl Entry {
    /// Earlier time first; equal times in insertion order.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A 4-ary min-heap of entries: half the depth of a binary heap, and the four
/// children of a node share a cache line or two.
#[derive(Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            if !e.before(&self.v[parent]) {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = e;
    }

    /// Put `e` at position `i` and move it down to its place.
    #[inline]
    fn sift_down(&mut self, mut i: usize, e: Entry) {
        let n = self.v.len();
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let last = (first + 4).min(n);
            let mut best = first;
            for c in first + 1..last {
                if self.v[c].before(&self.v[best]) {
                    best = c;
                }
            }
            if !self.v[best].before(&e) {
                break;
            }
            self.v[i] = self.v[best];
            i = best;
        }
        self.v[i] = e;
    }

    /// Replace the top with `e` (the heap must not be empty).
    #[inline]
    fn replace_top(&mut self, e: Entry) {
        self.sift_down(0, e);
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.sift_down(0, last);
        Some(top)
    }
}

/// The run's future events.
///
/// A popped event stays at the top of its heap as a hole until the next
/// schedule into that heap overwrites it (one sift-down instead of a pop's
/// sift-down plus a push's sift-up: most events schedule a successor on the
/// same heap) or the next pop removes it. The order of events is that of an
/// exact priority queue on (time, insertion sequence) either way.
#[derive(Default)]
pub struct EventQueue {
    net: Heap,
    ctl: Heap,
    /// The top of `net` (of `ctl`) is an event already popped.
    net_hole: bool,
    ctl_hole: bool,
    seq: u64,
    now: Time,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the event being processed (or last processed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.net.len() + self.ctl.len() - self.net_hole as usize - self.ctl_hole as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Remove the holes left by `pop`.
    #[inline]
    fn settle(&mut self) {
        if self.net_hole {
            self.net.pop();
            self.net_hole = false;
        }
        if self.ctl_hole {
            self.ctl.pop();
            self.ctl_hole = false;
        }
    }

    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        let e = Entry { time, seq, event };
        let (heap, hole) = match event {
            Event::TxDone(_) | Event::Arrive(_) => (&mut self.net, &mut self.net_hole),
            _ => (&mut self.ctl, &mut self.ctl_hole),
        };
        if *hole {
            // Overwrite the popped event at the top and sift down.
            heap.replace_top(e);
            *hole = false;
        } else {
            heap.push(e);
        }
    }

    /// Which heap holds the earliest event (`true`: the link heap).
    #[inline]
    fn net_first(&self) -> Option<bool> {
        match (self.net.peek(), self.ctl.peek()) {
            (Some(a), Some(b)) => Some(a.before(b)),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        match self.net_first()? {
            true => self.net.peek().map(|e| e.time),
            false => self.ctl.peek().map(|e| e.time),
        }
    }

    /// Remove and return the earliest event if it is due by `until`
    /// (otherwise `Err` with its time, or `Ok(None)` when there is none).
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Result<Option<(Time, Event)>, Time> {
        self.settle();
        let net = match self.net_first() {
            Some(n) => n,
            None => return Ok(None),
        };
        let e = if net { self.net.v[0] } else { self.ctl.v[0] };
        if e.time > until {
            return Err(e.time);
        }
        if net {
            self.net_hole = true;
        } else {
            self.ctl_hole = true;
        }
        assert!(e.time >= self.now, "causality violated: event at {} < now {}", e.time, self.now);
        self.now = e.time;
        self.processed += 1;
        Ok(Some((e.time, e.event)))
    }

    /// Remove and return the earliest event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.settle();
        let e = if self.net_first()? {
            self.net_hole = true;
            *self.net.peek()?
        } else {
            self.ctl_hole = true;
            *self.ctl.peek()?
        };
        let time = e.time;
        assert!(time >= self.now, "causality violated: event at {} < now {}", time, self.now);
        self.now = time;
        self.processed += 1;
        Some((time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_across_link_and_timer_events() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::Arrive(0));
        q.schedule(5, Event::SenderTimer(1));
        q.schedule(4, Event::SenderTimer(2));
        q.schedule(5, Event::TxDone(3));
        q.schedule(6, Event::Arrive(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::SenderTimer(2), Event::Arrive(0), Event::SenderTimer(1), Event::TxDone(3), Event::Arrive(4)]);
    }

    #[test]
    fn equal_times_fire_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::FlowStart(0));
        q.schedule(3, Event::FlowStart(1));
        q.schedule(5, Event::FlowStart(2));
        q.schedule(5, Event::FlowStart(3));
        q.schedule(3, Event::FlowStart(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::FlowStart(1)),
                (3, Event::FlowStart(4)),
                (5, Event::FlowStart(0)),
                (5, Event::FlowStart(2)),
                (5, Event::FlowStart(3)),
            ]
        );
        assert_eq!(q.processed(), 5);
    }
}

#[cfg(test)]
mod heap_tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pop_until_leaves_later_events_in_place() {
        let mut q = EventQueue::new();
        q.schedule(7, Event::Arrive(0));
        q.schedule(3, Event::SenderTimer(1));
        assert_eq!(q.pop_until(5), Ok(Some((3, Event::SenderTimer(1)))));
        assert_eq!(q.pop_until(5), Err(7));
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop_until(7), Ok(Some((7, Event::Arrive(0)))));
        assert_eq!(q.pop_until(100), Ok(None));
        assert_eq!(q.processed(), 2);
    }

    /// Random interleavings of schedule and pop, holes included, pop events
    /// in exactly the order of a sorted list of (time, sequence).
    #[test]
    fn pops_in_time_then_insertion_order_under_random_use() {
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        for _ in 0..200 {
            let mut q = EventQueue::new();
            let mut model: Vec<(Time, u64, Event)> = Vec::new();
            let mut seq = 0u64;
            let mut now = 0;
            for _ in 0..r.random_range(1..400) {
                if r.random_bool(0.55) || model.is_empty() {
                    let t = now + r.random_range(0..20);
                    let e = if r.random_bool(0.5) { Event::Arrive(seq as u32) } else { Event::SenderTimer(seq as u32) };
                    q.schedule(t, e);
                    model.push((t, seq, e));
                    seq += 1;
                } else {
                    model.sort_by_key(|m| (m.0, m.1));
                    let (t, _, e) = model.remove(0);
                    assert_eq!(q.pop(), Some((t, e)));
                    now = t;
                }
                assert_eq!(q.len(), model.len());
            }
            model.sort_by_key(|m| (m.0, m.1));
            for (t, _, e) in model {
                assert_eq!(q.pop(), Some((t, e)));
            }
            assert_eq!(q.pop(), None);
            assert!(q.is_empty());
        }
    }
}
