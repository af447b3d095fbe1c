//! A timing wheel for the link events of networks with many links.
//!
//! On a fabric, hundreds to thousands of links are busy at once, and every
//! link event lies less than one transmission time plus one propagation delay
//! ahead of the present: a microsecond or two. A heap of them pays a
//! logarithmic number of 128-bit comparisons per event, on entries scattered
//! over memory. The wheel has one slot per nanosecond over [`Wheel::SPAN`] ns
//! from the present, each slot a first-in first-out list of the events at
//! that very time (so equal-time events keep their insertion order), and a
//! two-level bitmap of the slots in use: scheduling is an append, finding the
//! next event a scan of a few words. This is the calendar queue of Brown
//! (CACM 31(10), 1988) with buckets one time unit wide, and the hashed timing
//! wheel of Varghese and Lauck (SOSP 1987).
//!
//! Only events less than `SPAN` ns ahead enter the wheel; the event queue
//! keeps later ones in its other structures and pops the earliest of all by
//! (time, insertion sequence), so the order is exactly that of a single
//! priority queue.

use super::queue::Entry;
#[cfg(test)]
use super::queue::Event;
use super::Time;

/// No node (the end of a slot's list, or an empty free list).
const NIL: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    entry: Entry,
    next: u32,
}

pub(super) struct Wheel {
    /// Each slot's first and last node.
    slots: Vec<[u32; 2]>,
    nodes: Vec<Node>,
    free: u32,
    /// One bit per slot in use, and one bit per non-zero word of `bits`.
    bits: Vec<u64>,
    summary: [u64; Wheel::WORDS / 64],
    len: usize,
    /// The earliest node, kept after every change (`NIL` when empty).
    first: u32,
}

impl Wheel {
    /// Nanoseconds ahead of the present that the wheel covers.
    pub const SPAN: Time = 1 << 14;
    const MASK: Time = Self::SPAN - 1;
    const WORDS: usize = (Self::SPAN / 64) as usize;

    pub fn new() -> Self {
        Wheel {
            slots: vec![[NIL; 2]; Self::SPAN as usize],
            nodes: Vec::new(),
            free: NIL,
            bits: vec![0; Self::WORDS],
            summary: [0; Self::WORDS / 64],
            len: 0,
            first: NIL,
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether an event at `time` belongs in the wheel when the present is `now`.
    #[inline(always)]
    pub fn covers(time: Time, now: Time) -> bool {
        time - now < Self::SPAN
    }

    /// The earliest entry.
    #[inline(always)]
    pub fn first(&self) -> Option<&Entry> {
        self.nodes.get(self.first as usize).map(|n| &n.entry)
    }

    /// Add `e` (its time within `SPAN` of the present; its sequence larger
    /// than that of every entry already in).
    #[inline(always)]
    pub fn insert(&mut self, e: Entry) {
        let i = match self.free {
            NIL => {
                self.nodes.push(Node { entry: e, next: NIL });
                (self.nodes.len() - 1) as u32
            }
            f => {
                self.free = self.nodes[f as usize].next;
                self.nodes[f as usize] = Node { entry: e, next: NIL };
                f
            }
        };
        let s = (e.time & Self::MASK) as usize;
        let slot = &mut self.slots[s];
        if slot[0] == NIL {
            slot[0] = i;
            self.bits[s >> 6] |= 1 << (s & 63);
            self.summary[s >> 12] |= 1 << ((s >> 6) & 63);
        } else {
            self.nodes[slot[1] as usize].next = i;
        }
        slot[1] = i;
        self.len += 1;
        // Equal times keep insertion order: only an earlier time goes first.
        if self.first == NIL || e.time < self.nodes[self.first as usize].entry.time {
            self.first = i;
        }
    }

    /// Remove the earliest entry (there must be one); `now` is its time.
    #[inline(always)]
    pub fn remove_first(&mut self, now: Time) {
        let i = self.first;
        let s = (now & Self::MASK) as usize;
        let next = self.nodes[i as usize].next;
        self.nodes[i as usize].next = self.free;
        self.free = i;
        self.len -= 1;
        if next != NIL {
            self.slots[s][0] = next;
            self.first = next;
            return;
        }
        self.slots[s] = [NIL; 2];
        self.bits[s >> 6] &= !(1 << (s & 63));
        if self.bits[s >> 6] == 0 {
            self.summary[s >> 12] &= !(1 << ((s >> 6) & 63));
        }
        self.first = match self.next_slot(s) {
            Some(t) => self.slots[t][0],
            None => NIL,
        };
    }

    /// The first slot in use at or after `s`, going round once.
    #[inline(always)]
    fn next_slot(&self, s: usize) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let w = s >> 6;
        let here = self.bits[w] & (!0u64 << (s & 63));
        if here != 0 {
            return Some((w << 6) | here.trailing_zeros() as usize);
        }
        let word = self.next_word(w + 1).or_else(|| self.next_word(0))?;
        Some((word << 6) | self.bits[word].trailing_zeros() as usize)
    }

    /// The first non-zero word of `bits` at or after `w` (no wrapping).
    #[inline(always)]
    fn next_word(&self, w: usize) -> Option<usize> {
        if w >= Self::WORDS {
            return None;
        }
        let mut g = w >> 6;
        let mut m = self.summary[g] & (!0u64 << (w & 63));
        loop {
            if m != 0 {
                return Some((g << 6) | m.trailing_zeros() as usize);
            }
            g += 1;
            if g == self.summary.len() {
                return None;
            }
            m = self.summary[g];
        }
    }
}

/// The event of the wheel's earliest entry, for tests.
#[cfg(test)]
impl Wheel {
    fn pop(&mut self) -> Option<(Time, Event)> {
        let e = *self.first()?;
        self.remove_first(e.time);
        Some((e.time, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random use within the span, wrapping round the wheel many times and
    /// with many equal times: exactly the order of a sorted list.
    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut w = Wheel::new();
        let mut model: Vec<(Time, u64, Event)> = Vec::new();
        let (mut seq, mut now) = (0u64, 0);
        for step in 0..200_000u32 {
            let far = step % 7 == 0;
            if r.random_bool(0.5) || model.is_empty() {
                let ahead = if far {
                    r.random_range(0..Wheel::SPAN)
                } else {
                    r.random_range(0..4)
                };
                let t = now + ahead;
                let e = Event::Arrive(seq as u32);
                assert!(Wheel::covers(t, now));
                w.insert(Entry { time: t, seq, event: e });
                model.push((t, seq, e));
                seq += 1;
            } else {
                let m = (0..model.len()).min_by_key(|&i| (model[i].0, model[i].1)).unwrap();
                let (t, _, e) = model.swap_remove(m);
                assert_eq!(w.pop(), Some((t, e)));
                now = t;
            }
            assert_eq!(w.len(), model.len());
        }
        assert!(now > 20 * Wheel::SPAN, "the test must wrap round the wheel");
        model.sort_by_key(|m| (m.0, m.1));
        for (t, _, e) in model {
            assert_eq!(w.pop(), Some((t, e)));
        }
        assert!(w.pop().is_none());
    }
}
