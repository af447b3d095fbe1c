"""Mussmann, "Making Short Flows Finish Faster with TCP", MS thesis, University
of Illinois at Urbana-Champaign, 2012: one page per figure of chapter 5
(Figs 5.1 to 5.4); the scenarios are in `.scenarios`, the thesis's own
numbers in ``published.toml``, and `.full` runs Fig. 5.2 at the thesis's
scale (``python -m fctlab.experiments.mussmann2012.full``).

Set-up (thesis sections 4.2-4.3 and chapter 5): a half-dumbbell, every link
10 Mb/s, the senders' links 10 ms and the bottleneck 10 ms (RTT 40 ms), 1 KB
packets; five protocols: TCP Reno with IW 2 over DropTail ("TCP"), Reno with
IW 10 over DropTail, RED (ns-2's automatic settings) and fair queueing, and RCP
with alpha = beta = 1.
"""
