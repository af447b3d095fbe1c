//! The event queue against a sorted list, under random use.

use super::*;
use rand::{Rng, SeedableRng};

/// What the queue should hold: events with their insertion sequence, to be
/// popped in (time, sequence) order, as a sorted list gives them.
#[derive(Default)]
struct Model {
    events: Vec<(Time, u64, Event)>,
    seq: u64,
}

impl Model {
    /// Schedule the event `e` makes of the next sequence number, at `t`, in both.
    fn schedule(&mut self, q: &mut EventQueue, t: Time, e: impl FnOnce(u32) -> Event) {
        let e = e(self.seq as u32);
        q.schedule(t, e);
        self.events.push((t, self.seq, e));
        self.seq += 1;
    }

    /// Pop from both, check that they agree, and return the time popped.
    fn pop(&mut self, q: &mut EventQueue) -> Time {
        self.events.sort_by_key(|m| (m.0, m.1));
        let (t, _, e) = self.events.remove(0);
        assert_eq!(q.pop(), Some((t, e)));
        t
    }

    /// Pop what is left, checking the order, until both are empty.
    fn drain(mut self, q: &mut EventQueue) {
        while !self.events.is_empty() {
            self.pop(q);
        }
        assert!(q.pop().is_none() && q.is_empty());
    }
}

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
        let mut model = Model::default();
        let mut now = 0;
        for _ in 0..r.random_range(1..400) {
            if r.random_bool(0.55) || model.events.is_empty() {
                let t = now + r.random_range(0..20);
                let arrive = r.random_bool(0.5);
                model.schedule(&mut q, t, |i| {
                    if arrive {
                        Event::Arrive(i)
                    } else {
                        Event::SenderTimer(i)
                    }
                });
            } else {
                now = model.pop(&mut q);
            }
            assert_eq!(q.len(), model.events.len());
        }
        model.drain(&mut q);
    }
}

/// Link events growing past `LinkEvents::TO_HEAP` (sorted array to
/// heap) and shrinking below `TO_SORTED` (back), several times, with
/// many equal times: still exactly the order of a sorted list.
#[test]
fn link_events_keep_their_order_across_sorted_and_heap_forms() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(14);
    let mut q = EventQueue::new();
    let mut model = Model::default();
    let mut now = 0;
    let (mut to_heap, mut to_sorted) = (0, 0);
    for phase in 0..12 {
        let p_push = if phase % 2 == 0 { 0.8 } else { 0.2 };
        for _ in 0..600 {
            if r.random_bool(p_push) || model.events.is_empty() {
                let t = now + r.random_range(0..8);
                let kind = r.random_range(0..10);
                model.schedule(&mut q, t, |i| match kind {
                    0 => Event::SenderTimer(i),
                    1..5 => Event::TxDone(i),
                    _ => Event::Arrive(i),
                });
            } else {
                let was_heap = q.net.heap;
                now = model.pop(&mut q);
                q.settle();
                to_sorted += (was_heap && !q.net.heap) as u32;
            }
            to_heap += (q.net.heap && q.net.len() == LinkEvents::TO_HEAP + 1) as u32;
            assert_eq!(q.len(), model.events.len());
        }
    }
    assert!(
        to_heap >= 3 && to_sorted >= 3,
        "the test must cross both thresholds ({to_heap}, {to_sorted})"
    );
    model.drain(&mut q);
}

/// With the timing wheel: link events near and far (in the wheel, or
/// beyond its span in the other structure) and timers, many at equal
/// times, pop in exactly the order of a sorted list.
#[test]
fn the_wheel_keeps_the_order_of_a_single_queue() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(21);
    let mut q = EventQueue::with_wheel();
    let mut model = Model::default();
    let mut now = 0;
    for _ in 0..50_000 {
        if r.random_bool(0.5) || model.events.is_empty() {
            let ahead = match r.random_range(0..10) {
                0 => r.random_range(0..3 * Wheel::SPAN),
                1 => Wheel::SPAN - 1 + r.random_range(0..2),
                _ => r.random_range(0..6),
            };
            let kind = r.random_range(0..4);
            model.schedule(&mut q, now + ahead, |i| match kind {
                0 => Event::SenderTimer(i),
                1 => Event::TxDone(i),
                _ => Event::Arrive(i),
            });
        } else {
            now = model.pop(&mut q);
        }
        assert_eq!(q.len(), model.events.len());
    }
    model.drain(&mut q);
}
