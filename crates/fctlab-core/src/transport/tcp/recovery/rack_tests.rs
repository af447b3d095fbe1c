//! RACK's detection and TLP's timeout against RFC 8985's pseudo-code
//! (sections 6.2 and 7.2), traced by hand on a scoreboard fed crafted ACKs.

use super::*;

const MS: Time = 1_000_000;

/// An ACK as the SACK recovery hands it on: RACK first (with the
/// scoreboard as it was), then the scoreboard.
fn ack(r: &mut Rack, sb: &mut Scoreboard, now: Time, cum: u64, blocks: &[(u64, u64)], echo: Time, high: u64) {
    r.on_ack(now, cum, echo, blocks, sb, None);
    sb.update(cum, blocks.iter().copied(), high);
}

/// Segments 0..n sent one per ms from time 0.
fn sent(n: u64) -> Rack {
    let mut r = Rack::default();
    for s in 0..n {
        r.sent(s, s * MS);
    }
    r
}

#[test]
fn pto_is_two_srtt_plus_the_delayed_ack_for_one_segment_capped_by_the_rto() {
    // TLP_calc_PTO: SRTT 100 ms, 5 outstanding: 2 SRTT.
    assert_eq!(pto(Some(100 * MS), 5, 1000 * MS), 200 * MS);
    // FlightSize one segment: + WCDelAckT (200 ms).
    assert_eq!(pto(Some(100 * MS), 1, 1000 * MS), 400 * MS);
    // No SRTT: 1 s.
    assert_eq!(pto(None, 5, 3000 * MS), 1000 * MS);
    // Now + PTO beyond the RTO's expiry: the RTO's expiry.
    assert_eq!(pto(Some(100 * MS), 5, 150 * MS), 150 * MS);
    assert_eq!(pto(None, 1, 700 * MS), 700 * MS);
}

#[test]
fn reo_wnd_is_a_quarter_min_rtt_unless_recovery_or_dupthresh_without_reordering() {
    // RACK_update_reo_wnd with reo_wnd_mult 1: min(min_RTT / 4, SRTT).
    assert_eq!(reo_wnd(false, false, 1, 3, Some(40 * MS), Some(100 * MS)), 10 * MS);
    // No reordering seen: 0 in recovery, and 0 with DupThresh segments SACKed.
    assert_eq!(reo_wnd(false, true, 1, 3, Some(40 * MS), Some(100 * MS)), 0);
    assert_eq!(reo_wnd(false, false, 3, 3, Some(40 * MS), Some(100 * MS)), 0);
    // Reordering seen: the window stays in both.
    assert_eq!(reo_wnd(true, true, 5, 3, Some(40 * MS), Some(100 * MS)), 10 * MS);
    // Capped by SRTT; none without a minimum RTT.
    assert_eq!(reo_wnd(true, false, 0, 3, Some(400 * MS), Some(50 * MS)), 50 * MS);
    assert_eq!(reo_wnd(false, false, 0, 3, None, Some(50 * MS)), 0);
    assert_eq!(reo_wnd(false, false, 0, 3, Some(40 * MS), None), 10 * MS);
}

#[test]
fn sent_after_breaks_time_ties_by_sequence() {
    assert!(sent_after(2, 1, 1, 9));
    assert!(!sent_after(1, 9, 2, 1));
    // Sent in one burst (same time): the higher end was sent later.
    assert!(sent_after(5, 3, 5, 2));
    assert!(!sent_after(5, 2, 5, 2));
}

#[test]
fn a_sacked_later_segment_marks_the_earlier_ones_lost_after_rtt_plus_reo_wnd() {
    // 0..5 sent at 0, 1, .., 4 ms. At 100 ms an ACK of 0 SACKs segment 2
    // (sent at 2 ms): step 2, RACK.xmit_ts = 2 ms, end_seq 3, RACK.rtt =
    // 98 ms = min_RTT (its sample). Step 4: nothing reordered, 1 SACKed <
    // DupThresh: reo_wnd = 98 / 4 = 24.5 ms. Step 5: 0 and 1 were sent
    // before it; 0 is due at 0 + 98 + 24.5 = 122.5 ms, 1 at 123.5 ms: not
    // yet, and the timer takes the later, 123.5 ms. 3 and 4 were sent after.
    let (mut r, mut sb) = (sent(5), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 100 * MS, 0, &[(2, 3)], 2 * MS, 5);
    assert_eq!(
        (r.xmit_ts, r.end_seq, r.rtt, r.min_rtt()),
        (2 * MS, 3, 98 * MS, Some(98 * MS))
    );
    let reo = reo_wnd(r.reordering_seen, false, sb.sacked(), 3, r.min_rtt(), None);
    assert_eq!(reo, 24_500_000);
    assert_eq!(r.detect(100 * MS, reo), Some(123_500_000));
    assert_eq!((r.lost_out, r.next_lost()), (0, None));
    // The timer fires at 123.5 ms: both are lost, 0 first.
    assert_eq!(r.detect(123_500_000, reo), None);
    assert_eq!((r.lost_out, r.marked, r.next_lost()), (2, 2, Some(0)));
    assert!(r.is_lost(0) && r.is_lost(1) && !r.is_lost(3));
    // Linux's in flight: 5 outstanding - 1 SACKed - 2 lost = 2.
    assert_eq!(r.pipe(0, 5, sb.sacked()), 2);
    // Resending 0: off the list, back in flight.
    r.sent(0, 124 * MS);
    assert_eq!(
        (r.next_lost(), r.retrans_out, r.pipe(0, 5, sb.sacked())),
        (Some(1), 1, 3)
    );
}

#[test]
fn at_the_deadline_exactly_the_segment_is_lost() {
    // remaining = xmit_ts + RACK.rtt + reo_wnd - now <= 0 marks it.
    let (mut r, mut sb) = (sent(3), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 50 * MS, 0, &[(1, 2)], MS, 3);
    // RACK.rtt = 49 ms; reo_wnd 0 (say, in recovery): 0 is due at 49 ms.
    assert_eq!(r.detect(48 * MS, 0), Some(49 * MS));
    assert_eq!(r.detect(49 * MS, 0), None);
    assert_eq!(r.next_lost(), Some(0));
}

#[test]
fn reordering_within_reo_wnd_is_not_a_loss_and_is_remembered() {
    // Segment 0 is late: 1 and 2 arrive first (SACKed at 100 and 101 ms,
    // RACK.rtt 99 ms, min_RTT 99 ms, reo_wnd 24.75 ms: 0 due at 123.75 ms),
    // then 0 at 110 ms, inside the window: no loss, and, delivered below
    // RACK.fack (3) without a retransmission, it is reordering (step 3).
    let (mut r, mut sb) = (sent(4), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 100 * MS, 0, &[(1, 2)], MS, 4);
    ack(&mut r, &mut sb, 101 * MS, 0, &[(1, 3)], 2 * MS, 4);
    let reo = reo_wnd(r.reordering_seen, false, sb.sacked(), 3, r.min_rtt(), None);
    assert_eq!((r.min_rtt(), reo), (Some(99 * MS), 24_750_000));
    assert_eq!(r.detect(101 * MS, reo), Some(123_750_000));
    assert!(!r.reordering_seen);
    ack(&mut r, &mut sb, 110 * MS, 3, &[], 0, 4);
    assert!(r.reordering_seen);
    assert_eq!(r.detect(110 * MS, reo), None);
    assert_eq!((r.marked, r.lost_out), (0, 0));
    // From now on DupThresh SACKed segments no longer close the window.
    assert_eq!(reo_wnd(r.reordering_seen, false, 3, 3, r.min_rtt(), None), 24_750_000);
}

#[test]
fn a_lost_retransmission_is_found_by_a_later_delivery() {
    // 0 lost: marked at 130 ms and resent then; 5 is sent at 131 ms and
    // SACKed at 231 ms (RACK.rtt 100 ms). In recovery with no reordering
    // reo_wnd is 0, so the retransmission (sent 130 ms) was due at 230 ms:
    // lost again, and to be resent.
    let (mut r, mut sb) = (sent(5), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 102 * MS, 0, &[(2, 5)], 4 * MS, 5);
    assert_eq!(r.detect(130 * MS, 0), None);
    assert_eq!((r.next_lost(), r.lost_out), (Some(0), 2));
    r.sent(0, 130 * MS);
    r.sent(1, 130 * MS);
    r.sent(5, 131 * MS);
    assert_eq!((r.retrans_out, r.next_lost()), (2, None));
    // 1's retransmission arrives (ACK 0, SACK 1..6 but 5 later): SACK 1 at
    // 230.5 ms. Its RTT (100.5 ms) passes the min-RTT check.
    ack(&mut r, &mut sb, 230 * MS + MS / 2, 0, &[(1, 5)], 130 * MS, 6);
    assert_eq!((r.xmit_ts, r.end_seq), (130 * MS, 2));
    ack(&mut r, &mut sb, 231 * MS, 0, &[(1, 6)], 131 * MS, 6);
    assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (131 * MS, 6, 100 * MS));
    assert_eq!(r.detect(231 * MS, 0), None);
    assert_eq!((r.next_lost(), r.retrans_out, r.lost_out, r.marked), (Some(0), 0, 1, 3));
    assert_eq!(r.pipe(0, 6, sb.sacked()), 0);
}

#[test]
fn an_ambiguous_retransmission_does_not_advance_rack() {
    // RFC 8985 6.2 step 2: a retransmitted segment whose ACK echoes an
    // earlier send, or whose RTT would be below min_RTT, may be the original.
    let (mut r, mut sb) = (sent(4), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 100 * MS, 0, &[(3, 4)], 3 * MS, 4);
    assert_eq!((r.xmit_ts, r.end_seq, r.min_rtt()), (3 * MS, 4, Some(97 * MS)));
    // 1 resent at 110 ms and SACKed at 150 ms: RTT 40 ms < 97 ms.
    r.sent(1, 110 * MS);
    ack(&mut r, &mut sb, 150 * MS, 0, &[(1, 2), (3, 4)], 110 * MS, 4);
    assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (3 * MS, 4, 97 * MS));
    // 2 resent at 120 ms, SACKed at 230 ms (RTT 110 ms) by an ACK that
    // echoes 2 ms, the first send: ambiguous too.
    r.sent(2, 120 * MS);
    ack(&mut r, &mut sb, 230 * MS, 0, &[(1, 4)], 2 * MS, 4);
    assert_eq!((r.xmit_ts, r.end_seq), (3 * MS, 4));
    // 0 resent at 240 ms and acknowledged at 340 ms, echoing 240 ms: taken.
    r.sent(0, 240 * MS);
    ack(&mut r, &mut sb, 340 * MS, 4, &[], 240 * MS, 4);
    assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (240 * MS, 1, 100 * MS));
    assert!(
        !r.reordering_seen,
        "retransmissions delivered below fack are not reordering"
    );
}

#[test]
fn a_timeout_drops_the_marks_and_the_probe() {
    let (mut r, mut sb) = (sent(5), Scoreboard::new(3, true));
    ack(&mut r, &mut sb, 100 * MS, 0, &[(3, 5)], 4 * MS, 5);
    r.detect(200 * MS, 0);
    r.sent(0, 200 * MS);
    r.tlp = Some(Probe { end: 5, retrans: true });
    assert_eq!((r.lost_out, r.retrans_out), (3, 1));
    r.on_timeout();
    assert_eq!((r.lost_out, r.retrans_out, r.next_lost(), r.tlp), (0, 0, None, None));
    assert!(!r.is_lost(1));
}

#[test]
fn the_boxed_state_stays_small() {
    // Held boxed behind the SACK recovery, only with `rack`; per segment
    // outstanding it adds 16 bytes (its send time and marks), and one entry
    // of the ordered set for each watched segment below the highest one
    // SACKed, marked or resent (none while data arrives in order).
    assert_eq!(std::mem::size_of::<Seg>(), 16);
    assert!(std::mem::size_of::<Rack>() <= 256, "{}", std::mem::size_of::<Rack>());
}
