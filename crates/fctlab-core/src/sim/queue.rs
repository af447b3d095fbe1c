//! A binary-heap event queue keyed by (time, insertion sequence).
//!
//! Entries are 24 bytes and carry no pointers: an event names its target by a
//! small tag and an index, and the engine dispatches on it. Ties on time are
//! broken by the insertion counter, which makes equal-time events fire in the
//! order they were scheduled.

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
}

#[derive(Clone, Copy)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
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
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// The run's future events.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
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
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Remove and return the earliest event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        assert!(e.time >= self.now, "causality violated: event at {} < now {}", e.time, self.now);
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
