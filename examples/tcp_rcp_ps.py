"""TCP, RCP and ideal processor sharing (PS) on one link: mean flow completion
time by flow size, the classic figure of Dukkipati & McKeown (CCR 2006, Fig. 1)
at a small scale (1 Gb/s, RTT 100 ms, load 0.9, 5,000 Pareto flows). Writes
tcp_rcp_ps.png (or the path given) in a few seconds.

    python examples/tcp_rcp_ps.py [out.png]
"""

import sys

import fctlab
from fctlab.plots import pyplot

link = {"topology": "single-link", "bottleneck_bps": 1e9, "bottleneck_delay_ms": 50.0}
sizes = {"dist": "pareto", "mean_pkts": 30, "shape": 1.4}
traffic = [{"arrivals": "poisson", "load": 0.9, "sizes": sizes, "count": 5000}]
fig, ax = pyplot().subplots(figsize=(6, 4))
for scheme, queue in (("tcp-newreno", "droptail"), ("rcp", "rcp")):
    cfg = {"seed": 1, "network": {**link, "queue": queue}, "transport": {"scheme": scheme}, "traffic": traffic}
    res = fctlab.run(cfg)
    by_size = res.fct_by_size()
    ax.plot(by_size["size_pkts"], by_size["mean"] / 1e6, "o-", ms=3, label=scheme)
ps = res.fct_by_size(value="ps_fct_ns")  # the same flows under ideal processor sharing
ax.plot(ps["size_pkts"], ps["mean"] / 1e6, "k--", label="processor sharing")
ax.set(xscale="log", yscale="log", xlabel="flow size (packets)", ylabel="mean FCT (ms)")
ax.legend()
fig.savefig(sys.argv[1] if len(sys.argv) > 1 else "tcp_rcp_ps.png", dpi=110)
