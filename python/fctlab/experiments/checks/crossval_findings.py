"""What the cross-validation against ns-3 found, shown on the crossval-ns3
page: findings of tracing flows packet by packet in both simulators (they
describe those traces, not the page's runs)."""

#: What the comparison found, shown on the page (paragraphs).
FINDINGS = "\n\n".join(
    (
        "Under loss, ns-3 3.44 without SACK differs from RFC NewReno in ways the ns3 preset models (docs: TCP "
        "model options), found by tracing flows packet by packet in both simulators: (1) its window counts each "
        "duplicate ACK as a segment that has left (TcpTxBuffer::AddRenoSack) instead of inflating cwnd, and keeps"
        " such marks past the ACK that ends recovery; the new head is then marked lost and resent at once, and "
        "the next duplicate ACK starts another recovery, so after a timeout the spurious duplicate ACKs of "
        'go-back-N chain recoveries that resend every segment (dupack_window = "pipe"); (2) ssthresh halves that '
        'same estimate, on every timeout (ssthresh_flight = "pipe"); (3) the SYN-ACK of a retransmitted SYN is '
        "timed from the first SYN, so after a lost SYN the RTO is about 9 s (time_first_syn); (4) the peer had "
        "given the hosts' own devices the routers' buffer (fctlab's host NICs are unlimited; the peer now "
        "matches).",
        "Then a single flow still differed: one 800-packet flow, buffer 20, IW 2 took 1.720 s in fctlab and 1.874"
        " s in ns-3. Its first divergence was the first drop: the packet that reached the full queue at the very "
        "nanosecond a departure freed a slot took the slot in fctlab and was dropped in ns-3, whose full device "
        "queue is stopped and woken by an event of the same time (net-device-queue-interface.h); such ties are "
        "systematic, since all packet times are multiples of one serialisation time (DropTail full_wake = "
        '"deferred", which crossval sets with the preset). The second: ns-3\'s NewReno counts cwnd in whole bytes '
        "and spends what an ACK acknowledges beyond slow start on one congestion-avoidance step (window_growth = "
        '"bytes"). With both, that flow matches ns-3 packet for packet (260 retransmissions and 66 drops in both;'
        " FCT 1.873588 s in both once the handshake's bytes below are modelled too; full_wake alone gives 1.913 "
        "s, window_growth alone 1.720 s).",
        "Tracing mixes of flows then found the packets fctlab did not send: the pure ACK that ends ns-3's "
        "handshake ahead of the data (handshake_ack), the 4-byte window-scale option on SYN and SYN-ACK "
        "(syn_option_bytes), the teardown, a FIN from the receiver and the sender's pure ACK answering it "
        "(fin_exchange), and, found by logging every packet the bottleneck sent or dropped in both simulators "
        "(the first 100 flows of the cell buffer 480, load 0.5, IW 2), a reset: the peer runs ns-3 with TIME_WAIT"
        " of no time (MaxSegLifetime 0), so the pure ACK the receiver sends right behind its FIN reaches a sender"
        " already closed, which answers it with a reset (fin_rst). Each reset is one more 42-byte packet on the "
        "forward bottleneck (without them fctlab's packets fell 3.36 us behind ns-3's at every flow's end; in a "
        "traced mix of 25 flows this was what made one flow's handshake ACK leave 80 us late). With the resets "
        "the two logs agree packet for packet, every departure and drop at the same nanosecond, over the first "
        "11,266 packets (2.6 s), up to a sender that ns-3 resets twice: a duplicate ACK reached it after it had "
        "closed, and fctlab resets only the ACK behind the FIN (5 of the 60 flows that ended in that log were "
        "reset twice; not modelled).",
        "The resets matter beyond their bytes: they change how a full queue alternates between full and one "
        "packet below (in that cell over all 3000 flows, ns-3's queue, sampled every 1 ms, was full 4.34% of the "
        "time; fctlab's 4.8-5.4% without the resets and 4.3-4.8% with them), and a SYN that finds the queue full "
        "costs its flow 3 s. Over the 48 cells the preset's flows of 1-10 packets took 3 s or more 4,214 times "
        "without the resets against ns-3's 3,807, and 3,853 times with them; that bin's mean, over the cells, "
        "went from 10.8% above ns-3 to 2.5%.",
        "Tracing flows of the RED cells then found one more TCP difference, the same under DropTail: after a "
        "timeout, the ACK that first covers everything sent before it (after go-back-N the receiver often holds "
        "the rest) grows ns-3's window only by the segments beyond that recovery point, usually none "
        "(timeout_exit_growth); with it two flows of the load-0.9, IW-10 list alone on a 121-packet buffer finish"
        " at the nanosecond ns-3 gives (0.975056 and 0.883029 s; 0.975722 and 0.855846 s before), in that mix of "
        "25 flows (buffer 20, IW 2) 24 flows finish at ns-3's nanosecond and the longest (2784 packets) 80 ms "
        "earlier (not yet traced), and over the 48 cells the 1-10 packet bin's mean difference is 0.4%.",
        "The goal is finer than the metric's noise at 3000 flows per cell: a small-flow bin's mean and 99th "
        "percentile follow the few dozen flows that lose a SYN (3 s, 9 s after two losses), and two runs of one "
        "model on the same flows, whose starts differ by less than a packet time, differ by 10-40% in such a bin."
        " So the preset runs five times per cell (the cell's flows and four copies with every start moved by "
        "0-100 us) and is compared by the mean of its runs; a statistic outside the goal is 'noise' when ns-3's "
        "value lies in the 95% prediction interval of one more run of the preset, else 'differs'. If the two "
        "models were the same, about 5% of statistics would fall outside that interval by chance. The per-bin "
        "table over all cells shows what is systematic: the geometric mean of the cells' ratios with its 95% "
        "confidence interval. ns-3 itself varies as much: in the cell buffer 50, load 0.7, IW 1 (the worst), ns-3"
        " on the cell's flows and on three jittered copies gave a 1-10 packet mean of 0.35, 0.43, 0.45 and 0.41 s"
        " and 62-67 flows of 3 s or more, against the preset's 0.49-0.53 s and 73-93 flows; grouped by buffer, "
        "the 12 cells of buffer 50 are the one group whose 1-10 packet mean stays above ns-3 (by about 10%), not "
        "yet explained.",
    )
)

#: What the RED cells found, shown on the page after `FINDINGS`.
RED_FINDINGS = "\n\n".join(
    (
        "RED cells. ns-3's RedQueueDisc is a port of ns-2's red.cc and computes what fctlab's RED does: the "
        "average updated per arrival and, after an idle period, decayed as m = floor(ptc x idle time) arrivals to"
        " an empty queue with ptc = LinkBandwidth / (8 MeanPktSize) (IdlePktSize serves only an idle rule that "
        "InitializeParams never enables), the same gentle line and the same count spacing (wait).",
        "Two things differ, and the preset's RED runs model both: ns-3's queue disc sits on a device queue, here "
        "of one packet, that RED neither counts nor limits, refilled only after the arrivals of a departure's "
        "instant, and RED's idle time starts when the last packet starts its transmission (device_queue_pkts = 1,"
        " buffer 121); and ns-3 without Ns1Compat leaves the count since the last drop running after forced and "
        'full-queue drops, where ns-2 restarts it (forced_drop_count = "keep"). One 3000-packet flow with IW 2 '
        "then takes 1.559040 s in both, with 153 drops and 509 retransmissions in ns-3 and 154 and 510 in fctlab "
        "(RED's random draws come from other generators: over eight RED seeds fctlab gives 1.559 s six times, "
        "1.599, 1.635 and 1.836 s otherwise); ns-2's RED over the same limit of 120 gives 1.437-1.538 s, nearly "
        "all of it the missing 121st place. With early drops switched off (max_th 1000, max_p 1e-6) RED is a "
        "queue of 120 over the device queue's 1, and each simulator gives every one of the first 300 flows of the"
        " load-0.9, IW-10 list the FCT and drops it gives with DropTail of 121 packets, so where the two "
        "simulators differ there, they differ as much with DropTail: TCP, not RED. The first such difference: "
        "flows 0 and 9 of that list alone (1044 and 360 packets) have the same drops (137) and retransmissions "
        "(646) in both, and flow 9's window is the same until 0.7759 s, when the ACK that ends the recovery after"
        " a timeout (ACK 12 after 9; ns-3 leaves CA_LOSS) moved cwnd from 2.9 to 3.244 segments in fctlab, a "
        "congestion-avoidance step for the three segments it acknowledges, and left it at 2.9 in ns-3, which "
        "counts on that ACK only the segments beyond the recovery point (TcpSocketBase::ProcessAck, (ack - "
        "m_recover) / segment size, here none); flow 9 took 0.8558 s against 0.8830 s. The preset now does as "
        'ns-3 (timeout_exit_growth = "beyond_recover") and both flows finish at ns-3\'s nanosecond.',
        "Over the full grid's RED cells (3000 flows, the preset run five times per cell) the bottleneck drops, "
        "averaged over the runs, are within 3.5% of ns-3's (ns-3 against itself with another seed: up to 6.4%), "
        "and at load 0.9, IW 10 (before timeout_exit_growth) the queue sampled every 1 ms averages 38.5-39.2 "
        "packets in fctlab (three RED seeds) against 37.3 in ns-3, holds at least 60 packets 28.4-28.7% of the "
        "time against 27.3%, at least 120 1.6-2.0% against 2.1%. Of the 56 bin statistics (7 cells, 4 bins, mean "
        "and p99) 46 meet the goal and 8 are within the preset's own run-to-run noise; two differ, both the "
        "11-100 packet bin's mean at IW 2 (ratios 0.876 at load 0.8 and 0.887 at load 0.9), where ns-3 itself "
        "with RED seeds 2 and 3 gives 0.887 and 0.912 of its seed-1 mean at load 0.9: RED's draws, which the "
        "preset's runs on jittered starts do not span in ns-3. The bins of 101 packets and more agree within 8% "
        "(mean) and 14% (p99) everywhere.",
        "What moves most is the small flows' 99th percentile: their tails are the dozen flows of 1-10 or 11-100 "
        "packets that wait 9-14 s after a lost SYN, and RED's random drops decide how many, so a bin's p99 jumps "
        "between about 3 s and 9 s (one run of the preset is off by up to 224% in p99); ns-3 against itself with "
        "another seed (RngSeedManager) differs by 3-25% in the worst bin's mean and 9-121% in its 99th percentile"
        " in three cells. The flows of 1-10 packets that lose their SYN and then data, waiting the RTO of about 9"
        " s that the SYN's 3 s left (FCT 11-14 s), number 7-10 in fctlab (three RED seeds) and 6-8 in ns-3 (three"
        " seeds) at load 0.9, IW 10; they were 13-17 before the preset answered the receiver's FIN with ns-3's "
        "reset.",
    )
)

#: What the scheme cells (CUBIC, DCTCP, BBR, Vegas) found, shown after the RED findings.
SCHEME_FINDINGS = "\n\n".join(
    (
        "Other schemes. The same flow lists with CUBIC, DCTCP, BBR v1 and Vegas in both simulators. The ns3 preset "
        "sets only the options that model ns-3's TCP machinery (recovery, timers, handshake, and the CWR state "
        "after an ECN reduction, ecn_cwr_hold); the congestion controls are fctlab's own, written from RFC 9438, "
        "RFC 8257 and Linux's tcp_dctcp.c, tcp_bbr.c and tcp_vegas.c, so these cells set two independent "
        "implementations side by side. Over the full grid (3000 flows per cell, load 0.8, IW 10, the preset run "
        "three times) the 8 bin statistics per cell came out: CUBIC, buffer 50: 3 in goal, 5 within noise, 0 "
        "differ; buffer 480: 2, 5, 1. DCTCP, buffer 480: all 8 in goal (worst mean 3.6%, worst p99 5.9%); buffer "
        "50: 0, 2, 6. BBR, buffer 480: 2, 4, 2; buffer 50: ns-3 stopped on its own assertion (tcp-socket-base.cc "
        "line 3984, 'In flight (2000) there is more than one segment (1000)', at 79 s), so the cell shows fctlab "
        "alone. Vegas, buffer 50: 0, 5, 3; buffer 480: 4, 2, 2.",
        "CUBIC: without losses both run the same slow start (two transfers agree to the nanosecond, "
        "tests/test_crossval_schemes.py). Under the heavy loss of these cells (ns-3 drops 108,000-124,000 "
        "packets) fctlab's CUBIC, written from RFC 9438, loses fewer (86,000-95,000) and its flows finish "
        "earlier in most bins; ns-3's TcpCubic is a port of Linux's bictcp arithmetic (the cnt per ACK, its "
        "clamp and its delayed-ACK scaling), which grows faster right after a loss than RFC 9438's W_cubic.",
        "DCTCP: ns-3 runs DCTCP's switch as a RedQueueDisc, which drops what it cannot mark: ns-3's TcpDctcp sends "
        "its data and SYNs ECT but not its pure ACKs, and those are dropped above K. With the preset's "
        'not_ect = "drop", DCTCP\'s SYN sent ECT (as Linux and ns-3 do) and the window held in the CWR state '
        "(ecn_cwr_hold: no growth until the reduced window is acknowledged, as ns-3 and Linux do), the bottleneck "
        "queue of a 600-flow run is above K 19.0% of the time in fctlab and 18.6% in ns-3 (mean 10.5 and 10.1 "
        "packets) and 40 flows wait out a SYN timeout in each. The first cut of a lone flow comes one alpha update "
        "apart: fctlab updates alpha from the first ACK (Linux's dctcp_init sets next_seq = snd_nxt), ns-3 only "
        "after the first window (TcpDctcp::PktsAcked), so a 1000-packet transfer ends 5% later in ns-3. With the "
        "50-packet buffer the queue overflows (ns-3 drops 8,301 packets, the preset 4,977) and fctlab's flows "
        "finish earlier; that difference is not yet explained.",
        "BBR: fctlab's tcp-bbr follows Linux's tcp_bbr.c; ns-3 3.44's TcpBbr departs from it after heavy loss: it "
        "keeps its full-bandwidth estimate on a timeout, where Linux's bbr_set_state clears it (tcp-bbr.cc line "
        "740); entering recovery does not start a new round, so packet conservation can end early (line 746); "
        "losses come off cwnd only in fast recovery (line 577); the window before recovery is restored only when "
        "fast recovery ends, not after a timeout (line 760). Neither simulator here models Linux's policer "
        "detection (lt_bw), and RACK is off in both (the ns3 preset). With a 1-BDP buffer and two transfers the "
        "two agree within 1%; a lone 3000-packet transfer through a 50-packet buffer takes 0.67 s in fctlab and "
        "0.92 s in ns-3.",
        "Vegas: fctlab's tcp-vegas follows Linux's tcp_vegas.c (its integer diff, truncated, against gamma, alpha "
        "and beta). ns-3's TcpVegas is given the smoothed RTT instead of each ACK's sample (tcp-socket-base.cc "
        "calls PktsAcked with m_tcb->m_srtt), so its base RTT and each round's minimum carry the queue of earlier "
        "rounds; it computes diff as cwnd - floor(cwnd baseRTT / minRTT) (tcp-vegas.cc lines 198 and 206), "
        "which rounds up where Linux rounds down, and it starts a round one segment early (m_lastAckedSeq >= "
        "m_begSndNxt, line 158). ns-3 therefore leaves slow start with a queue of a few packets (a lone "
        "1000-packet transfer: 0.432 s against fctlab's 0.332 s); with those three departures written into "
        "fctlab's Vegas, it gives ns-3's completion times exactly.",
    )
)
