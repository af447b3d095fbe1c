"""Gavaletz & Kaur, "Decomposing RTT-Unfairness in Transport Protocols" (2010).

Fig. 1: the throughput ratio delta of two transfers with RTTs r_a = 10 ms and
r_b in slow start (eq. 3) and congestion avoidance (eq. 5), beside the same
ratio measured on two simulated NewReno flows. Figs. 2 and 3: window and
throughput of 20, 30 and 40 ms transfers under standard AIMD (w0 = 1, SST =
100) and under the scaled rules (eqs. 7-13, r_ref = 30 ms), analytic and
simulated. Figs. 4 and 5: ten senders with minimum RTTs 50-500 ms on a
100 Mb/s bottleneck with 1 Gb/s access links, losses forced in every transfer
when the buffer nears full (the `sync-drop` queue), throughput as % of the
bottleneck and RTT over time for NewReno, SRF, Libra and Tarheel (oracle).
One page per figure; the scenarios and equations are in `.scenarios`.
"""
