//! The event queue: events ordered by (time, insertion sequence).
//!
//! Entries are 24 bytes and carry no pointers: an event names its target by a
//! small tag and an index, and the engine dispatches on it. Ties on time are
//! broken by the insertion counter, which makes equal-time events fire in the
//! order they were scheduled.
//!
//! Link events and everything else are kept apart, with one sequence counter:
//!
//! - Link events ([`LinkEvents`]): a link has at most one pending arrival (the
//!   head of its wire) and one pending transmission end, so there are only as
//!   many as links are busy: on the reference dumbbell two to five at a time,
//!   though they are nine events in ten. While few, they are kept in a sorted
//!   array, latest first: the next event is popped off the end, and a new one
//!   is placed by a short scan from the end (a packet on a short hop lands
//!   near the end, one on a long wire near the front). Past
//!   [`LinkEvents::TO_HEAP`] entries the array becomes a 4-ary heap (an
//!   ascending array already is one), and below [`LinkEvents::TO_SORTED`] it
//!   is sorted again, so a network with many busy links pays a heap's
//!   logarithmic cost instead of a linear one.
//!   On networks with four routers or more the link events less than
//!   [`Wheel::SPAN`] ahead go to a timing wheel instead ([`super::wheel`]),
//!   where hundreds to thousands of busy links cost no more per event than
//!   a few.
//! - Everything else (timers, flow starts, samples) grows with the number of
//!   flows and lives in a 4-ary heap.
//!
//! Popping takes the earliest head of the structures; each is an exact
//! priority queue on (time, sequence), so the order is exactly that of a
//! single heap.

use super::wheel::Wheel;
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
pub(super) struct Entry {
    pub time: Time,
    pub seq: u64,
    pub event: Event,
}

impl Entry {
    /// The sort key: time, then insertion sequence, as one 128-bit number
    /// (one compare-and-borrow pair instead of a branch per field).
    #[inline(always)]
    pub fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

/// A 4-ary min-heap of entries: half the depth of a binary heap, and the four
/// children of a node share a cache line or two.
#[derive(Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    #[inline(always)]
    fn len(&self) -> usize {
        self.v.len()
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        let v = &mut self.v[..];
        let k = e.key();
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = v[parent];
            if k >= p.key() {
                break;
            }
            v[i] = p;
            i = parent;
        }
        v[i] = e;
    }

    /// Put `e` at position `i` and move it down to its place.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, e: Entry) {
        let v = &mut self.v[..];
        let n = v.len();
        let k = e.key();
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let kids = &v[first..(first + 4).min(n)];
            let (mut best, mut bk) = (0, kids[0].key());
            for (c, kid) in kids.iter().enumerate().skip(1) {
                let ck = kid.key();
                if ck < bk {
                    best = c;
                    bk = ck;
                }
            }
            if bk >= k {
                break;
            }
            v[i] = v[first + best];
            i = first + best;
        }
        v[i] = e;
    }

    /// Replace the top with `e` (the heap must not be empty).
    #[inline(always)]
    fn replace_top(&mut self, e: Entry) {
        self.sift_down(0, e);
    }

    /// Remove the top (the heap must not be empty).
    #[inline(always)]
    fn remove_top(&mut self) {
        if let Some(last) = self.v.pop() {
            if !self.v.is_empty() {
                self.sift_down(0, last);
            }
        }
    }

    #[inline(always)]
    fn top(&self) -> Option<&Entry> {
        self.v.first()
    }
}

/// Link events: a sorted array (latest first) while few, a 4-ary heap while
/// many (see the module documentation). In heap form a popped event stays at
/// the top as a hole until the next schedule overwrites it (one sift-down
/// instead of a pop's sift-down plus a push's sift-up) or the next pop
/// removes it.
#[derive(Default)]
struct LinkEvents {
    v: Heap,
    heap: bool,
    hole: bool,
}

impl LinkEvents {
    /// Entries beyond which the sorted array becomes a heap.
    const TO_HEAP: usize = 48;
    /// Entries below which the heap is sorted again (well below `TO_HEAP`, so
    /// that a size near one threshold does not convert back and forth).
    const TO_SORTED: usize = 12;

    #[inline(always)]
    fn len(&self) -> usize {
        self.v.len() - self.hole as usize
    }

    /// The earliest entry (after `settle`).
    #[inline(always)]
    fn first(&self) -> Option<&Entry> {
        if self.heap {
            self.v.v.first()
        } else {
            self.v.v.last()
        }
    }

    /// Remove a hole left by `take_first`.
    #[inline(always)]
    fn settle(&mut self) {
        if self.hole {
            self.hole = false;
            self.v.remove_top();
            if self.v.len() < Self::TO_SORTED {
                // Latest first; keys are unique, so the order is total.
                self.v.v.sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
                self.heap = false;
            }
        }
    }

    /// The earliest entry has been popped.
    #[inline(always)]
    fn take_first(&mut self) {
        if self.heap {
            self.hole = true;
        } else {
            self.v.v.pop();
        }
    }

    #[inline(always)]
    fn insert(&mut self, e: Entry) {
        if self.heap {
            if self.hole {
                self.v.replace_top(e);
                self.hole = false;
            } else {
                self.v.push(e);
            }
            return;
        }
        // Insertion sort's inner step: move the earlier entries up by one.
        let k = e.key();
        let v = &mut self.v.v;
        let mut i = v.len();
        v.push(e);
        let w = &mut v[..];
        while i > 0 {
            let prev = w[i - 1];
            if prev.key() > k {
                break;
            }
            w[i] = prev;
            i -= 1;
        }
        w[i] = e;
        if v.len() > Self::TO_HEAP {
            // Earliest first: an ascending array is a heap.
            v.reverse();
            self.heap = true;
        }
    }
}

/// The run's future events.
///
/// The heap of other events leaves a popped event at its top as a hole, as
/// [`LinkEvents`] does in heap form. The order of events is that of an exact
/// priority queue on (time, insertion sequence) either way.
#[derive(Default)]
pub struct EventQueue {
    net: LinkEvents,
    /// Link events less than [`Wheel::SPAN`] ahead, on networks with many
    /// links (`EventQueue::with_wheel`); later ones go to `net`.
    wheel: Option<Box<Wheel>>,
    ctl: Heap,
    /// The top of `ctl` is an event already popped.
    ctl_hole: bool,
    seq: u64,
    now: Time,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// A queue that keeps near link events in a timing wheel
    /// ([`super::wheel`]): for networks with many links busy at once.
    pub fn with_wheel() -> Self {
        EventQueue {
            wheel: Some(Box::new(Wheel::new())),
            ..Self::default()
        }
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
        let wheel = self.wheel.as_ref().map_or(0, |w| w.len());
        self.net.len() + wheel + self.ctl.len() - self.ctl_hole as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Remove the holes left by `pop`.
    #[inline(always)]
    fn settle(&mut self) {
        self.net.settle();
        if self.ctl_hole {
            self.ctl.remove_top();
            self.ctl_hole = false;
        }
    }

    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        let e = Entry { time, seq, event };
        match event {
            Event::TxDone(_) | Event::Arrive(_) => match self.wheel.as_deref_mut() {
                Some(w) if Wheel::covers(time, self.now) => w.insert(e),
                _ => self.net.insert(e),
            },
            _ => {
                if self.ctl_hole {
                    // Overwrite the popped event at the top and sift down.
                    self.ctl.replace_top(e);
                    self.ctl_hole = false;
                } else {
                    self.ctl.push(e);
                }
            }
        }
    }

    /// The earliest event outside the wheel and whether it is a link event
    /// (after `settle`). A reference, not a copy: the fields are read one by
    /// one, so that no load has to wait for a wider store of the whole entry.
    #[inline(always)]
    fn first(&self) -> Option<(&Entry, bool)> {
        match (self.net.first(), self.ctl.top()) {
            (Some(a), Some(b)) => Some(if a.key() < b.key() { (a, true) } else { (b, false) }),
            (Some(a), None) => Some((a, true)),
            (None, Some(b)) => Some((b, false)),
            (None, None) => None,
        }
    }

    /// Whether near link events are kept in a wheel (`EventQueue::with_wheel`).
    pub fn has_wheel(&self) -> bool {
        self.wheel.is_some()
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        let other = self.first().map(|(e, _)| e.time);
        let wheel = self.wheel.as_deref().and_then(|w| w.first()).map(|e| e.time);
        match (wheel, other) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Remove and return the earliest event if it is due by `until`
    /// (otherwise `Err` with its time, or `Ok(None)` when there is none).
    #[inline(always)]
    pub fn pop_until(&mut self, until: Time) -> Result<Option<(Time, Event)>, Time> {
        self.settle();
        if self.wheel.is_some() {
            return self.pop_until_with_wheel(until);
        }
        let Some((e, net)) = self.first() else {
            return Ok(None);
        };
        let (time, event) = (e.time, e.event);
        if time > until {
            return Err(time);
        }
        if net {
            self.net.take_first();
        } else {
            self.ctl_hole = true;
        }
        Ok(Some(self.advance(time, event)))
    }

    /// `pop_until` (after `settle`) for a queue with a wheel.
    #[inline(always)]
    fn pop_until_with_wheel(&mut self, until: Time) -> Result<Option<(Time, Event)>, Time> {
        let w = self.wheel.as_deref().expect("a wheel");
        let (e, source) = match (w.first(), self.first()) {
            (Some(a), Some((b, net))) if b.key() < a.key() => (b, Some(net)),
            (Some(a), _) => (a, None),
            (None, Some((b, net))) => (b, Some(net)),
            (None, None) => return Ok(None),
        };
        let (time, event) = (e.time, e.event);
        if time > until {
            return Err(time);
        }
        match source {
            Some(true) => self.net.take_first(),
            Some(false) => self.ctl_hole = true,
            None => self.wheel.as_deref_mut().expect("a wheel").remove_first(time),
        }
        Ok(Some(self.advance(time, event)))
    }

    /// The present moves to the popped event's time.
    #[inline(always)]
    fn advance(&mut self, time: Time, event: Event) -> (Time, Event) {
        assert!(
            time >= self.now,
            "causality violated: event at {} < now {}",
            time,
            self.now
        );
        self.now = time;
        self.processed += 1;
        (time, event)
    }

    /// The earliest event of the timing wheel, if the queue has one: most
    /// often the next event, for the engine to prefetch what it touches.
    #[inline(always)]
    pub fn next_in_wheel(&self) -> Option<Event> {
        self.wheel.as_deref()?.first().map(|e| e.event)
    }

    /// Remove and return the earliest event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::MAX).ok().flatten()
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
        assert_eq!(
            order,
            vec![
                Event::SenderTimer(2),
                Event::Arrive(0),
                Event::SenderTimer(1),
                Event::TxDone(3),
                Event::Arrive(4)
            ]
        );
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
#[path = "queue_tests.rs"]
mod heap_tests;
