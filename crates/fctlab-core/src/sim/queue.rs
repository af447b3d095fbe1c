//! The event queue: events ordered by (time, insertion sequence).
//!
//! Entries are 24 bytes and carry no pointers: an event names its target by a
//! small tag and an index, and the engine dispatches on it. Ties on time are
//! broken by the insertion counter, which makes equal-time events fire in the
//! order they were scheduled.
//!
//! Two binary heaps share one sequence counter: link events (a link has at most
//! one pending arrival and one pending transmission end, so this heap stays as
//! small as the network and lives in L1 cache) and everything else (timers, flow
//! starts, samples), which grows with the number of flows. Popping takes the
//! smaller head of the two, so the order is exactly that of a single heap.

use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    #[inline]
    fn time(&self) -> Time {
        self.time
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// The run's future events.
#[derive(Default)]
pub struct EventQueue {
    net: BinaryHeap<Entry>,
    ctl: BinaryHeap<Entry>,
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
        self.net.len() + self.ctl.len()
    }

    pub fn is_empty(&self) -> bool {
        self.net.is_empty() && self.ctl.is_empty()
    }

    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        let e = Entry { time, seq, event };
        match event {
            Event::TxDone(_) | Event::Arrive(_) => self.net.push(e),
            _ => self.ctl.push(e),
        }
    }

    /// Which heap holds the earliest event (`true`: the link heap).
    #[inline]
    fn net_first(&self) -> Option<bool> {
        match (self.net.peek(), self.ctl.peek()) {
            (Some(a), Some(b)) => Some(a > b), // reversed order: greater = earlier
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        match self.net_first()? {
            true => self.net.peek().map(|e| e.time()),
            false => self.ctl.peek().map(|e| e.time()),
        }
    }

    /// Remove and return the earliest event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = if self.net_first()? { self.net.pop()? } else { self.ctl.pop()? };
        let time = e.time();
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
