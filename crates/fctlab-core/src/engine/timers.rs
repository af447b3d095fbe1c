//! Endpoint timers. An endpoint names its next timer after every call; the
//! engine keeps at most the earliest one scheduled per endpoint and cancels
//! lazily (an event that no longer matches the endpoint's pending time is
//! skipped), so the event list grows with flows, not with packets.

use super::Engine;
use crate::sim::{Event, EventQueue, Time};

/// Schedule `ev` at the endpoint's next timer `next` (not before `now`),
/// unless an event no later than that is already pending (`sched`).
#[inline]
pub(super) fn arm(q: &mut EventQueue, sched: &mut Option<Time>, next: Option<Time>, now: Time, ev: Event) {
    if let Some(t) = next {
        let t = t.max(now);
        if sched.is_none_or(|s| t < s) {
            *sched = Some(t);
            q.schedule(t, ev);
        }
    }
}

impl Engine {
    pub(super) fn sync_sender_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        let next = slot.snd.as_ref().and_then(|s| s.next_timer());
        arm(&mut self.q, &mut slot.snd_sched, next, now, Event::SenderTimer(f));
    }

    pub(super) fn sync_receiver_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        let next = slot.rcv.as_ref().and_then(|s| s.next_timer());
        arm(&mut self.q, &mut slot.rcv_sched, next, now, Event::ReceiverTimer(f));
    }

    pub(super) fn sender_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if slot.snd_sched != Some(now) {
            return; // superseded
        }
        slot.snd_sched = None;
        let Some(snd) = slot.snd.as_mut() else { return };
        if snd.next_timer().is_some_and(|t| t <= now) {
            snd.on_timer(now, &mut self.out);
            self.inject(f, now);
            self.after_sender(f, now);
        } else {
            self.sync_sender_timer(f, now);
        }
    }

    pub(super) fn receiver_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if slot.rcv_sched != Some(now) {
            return; // superseded
        }
        slot.rcv_sched = None;
        let Some(rcv) = slot.rcv.as_mut() else { return };
        if rcv.next_timer().is_some_and(|t| t <= now) {
            rcv.on_timer(now, &mut self.out);
            self.inject(f, now);
        }
        self.sync_receiver_timer(f, now);
    }
}
