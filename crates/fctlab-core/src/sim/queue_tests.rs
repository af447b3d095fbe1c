//! The event queue against a sorted list, under random use.

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
                let e = if r.random_bool(0.5) {
                    Event::Arrive(seq as u32)
                } else {
                    Event::SenderTimer(seq as u32)
                };
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

/// Link events growing past `LinkEvents::TO_HEAP` (sorted array to
/// heap) and shrinking below `TO_SORTED` (back), several times, with
/// many equal times: still exactly the order of a sorted list.
#[test]
fn link_events_keep_their_order_across_sorted_and_heap_forms() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(14);
    let mut q = EventQueue::new();
    let mut model: Vec<(Time, u64, Event)> = Vec::new();
    let (mut seq, mut now) = (0u64, 0);
    let (mut to_heap, mut to_sorted) = (0, 0);
    for phase in 0..12 {
        let p_push = if phase % 2 == 0 { 0.8 } else { 0.2 };
        for _ in 0..600 {
            if r.random_bool(p_push) || model.is_empty() {
                let t = now + r.random_range(0..8);
                let e = match r.random_range(0..10) {
                    0 => Event::SenderTimer(seq as u32),
                    1..5 => Event::TxDone(seq as u32),
                    _ => Event::Arrive(seq as u32),
                };
                q.schedule(t, e);
                model.push((t, seq, e));
                seq += 1;
            } else {
                model.sort_by_key(|m| (m.0, m.1));
                let (t, _, e) = model.remove(0);
                let was_heap = q.net.heap;
                assert_eq!(q.pop(), Some((t, e)));
                q.settle();
                to_sorted += (was_heap && !q.net.heap) as u32;
                now = t;
            }
            to_heap += (q.net.heap && q.net.len() == LinkEvents::TO_HEAP + 1) as u32;
            assert_eq!(q.len(), model.len());
        }
    }
    assert!(
        to_heap >= 3 && to_sorted >= 3,
        "the test must cross both thresholds ({to_heap}, {to_sorted})"
    );
    model.sort_by_key(|m| (m.0, m.1));
    for (t, _, e) in model {
        assert_eq!(q.pop(), Some((t, e)));
    }
    assert!(q.pop().is_none() && q.is_empty());
}

/// With the timing wheel: link events near and far (in the wheel, or
/// beyond its span in the other structure) and timers, many at equal
/// times, pop in exactly the order of a sorted list.
#[test]
fn the_wheel_keeps_the_order_of_a_single_queue() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(21);
    let mut q = EventQueue::with_wheel();
    let mut model: Vec<(Time, u64, Event)> = Vec::new();
    let (mut seq, mut now) = (0u64, 0);
    for _ in 0..50_000 {
        if r.random_bool(0.5) || model.is_empty() {
            let ahead = match r.random_range(0..10) {
                0 => r.random_range(0..3 * Wheel::SPAN),
                1 => Wheel::SPAN - 1 + r.random_range(0..2),
                _ => r.random_range(0..6),
            };
            let e = match r.random_range(0..4) {
                0 => Event::SenderTimer(seq as u32),
                1 => Event::TxDone(seq as u32),
                _ => Event::Arrive(seq as u32),
            };
            q.schedule(now + ahead, e);
            model.push((now + ahead, seq, e));
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
    assert!(q.pop().is_none() && q.is_empty());
}
