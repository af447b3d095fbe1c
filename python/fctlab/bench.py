"""``fctlab bench``: the engine's speed on a reference scenario, beside ns-3's.

Reference scenario: TCP NewReno on a dumbbell of 10 senders, 1 Gb/s
bottleneck, RTT 100 ms, buffer 1 BDP, Poisson arrivals of Pareto flows (mean 25
packets, shape 1.2 as in the RCP paper) at load 0.8, 1000 B packets plus 40 B
headers, an ACK per packet crossing the network. It is defined once, by
:func:`reference_scenario`; the ns-3 peer (:mod:`fctlab.ns3peer`) reads its
parameters from there. The fctlab run is made in a child process so its peak
memory is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys

MEAN_PKTS = 25
SHAPE = 1.2


def reference_scenario(packets: float, seed: int = 1) -> dict:
    """The reference scenario sized to deliver about ``packets`` data packets."""
    # Rounding sizes up to whole packets adds about half a packet per flow.
    count = max(1, int(packets / (MEAN_PKTS + 0.5)))
    return {
        "seed": seed,
        "network": {"topology": "dumbbell", "senders": 10, "bottleneck_bps": 1e9, "bottleneck_delay_ms": 50.0,
                    "access_bps": 10e9, "access_delay_ms": 0.0, "buffer_bdp": 1.0},
        "transport": {"scheme": "tcp-newreno", "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2},
        "traffic": [{"arrivals": "poisson", "load": 0.8, "sizes": {"dist": "pareto", "mean_pkts": MEAN_PKTS, "shape": SHAPE},
                     "count": count}],
        "metrics": {"series": False},
    }


_CHILD = r"""
import json, resource, sys, time
import fctlab
cfg = json.loads(sys.argv[1])
t = time.perf_counter()
c = time.process_time()
res = fctlab.run(cfg, warn=False)
wall = time.perf_counter() - t
cpu = time.process_time() - c
st = res.meta["stats"]
f = res.flows
# Unique data packets: every packet of a completed flow once (the run goes on
# until every flow completes), not counting retransmitted or duplicate copies.
unique = int(f.loc[f["completed"], "size_pkts"].sum())
print(json.dumps({"wall_s": st["wall_s"], "total_s": wall, "cpu_s": cpu, "events": st["events"], "data_delivered": st["data_delivered"],
                  "unique_delivered": unique,
                  "packet_hops": st["packet_hops"], "sim_s": st["end_ns"] / 1e9, "flows": res.meta["flows_total"],
                  "flows_completed": res.meta["flows_completed"], "drops": st["packets_dropped"],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_fctlab(packets: float) -> dict:
    cfg = reference_scenario(packets)
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(cfg)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"fctlab benchmark run failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(name: str, value: str) -> str:
    return f"  {name:<38} {value}"


def _rate(bps: float) -> str:
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= div:
            return f"{bps / div:g} {unit}"
    return f"{bps:g} b/s"


def describe_scenario(cfg: dict) -> str:
    """A one-line summary of a scenario of the reference's shape, from its values."""
    n, t, g = cfg["network"], cfg["transport"], cfg["traffic"][0]
    rtt_ms = 2 * (n["bottleneck_delay_ms"] + n.get("access_delay_ms", 0.0) + n.get("receiver_delay_ms", 0.0))
    scheme = {"tcp-newreno": "NewReno"}.get(t["scheme"], t["scheme"])
    return (f"{scheme}, {n['topology']} x{n['senders']}, {_rate(n['bottleneck_bps'])}, RTT {rtt_ms:g} ms, "
            f"{n['buffer_bdp']:g} BDP, {g['sizes']['dist'].capitalize()} {g['sizes']['mean_pkts']:g}/"
            f"{g['sizes']['shape']:g}, load {g['load']:g}")


def main(args) -> int:
    print(f"fctlab bench: reference scenario, about {args.packets:.3g} data packets "
          f"({describe_scenario(reference_scenario(args.packets))})")
    print("running fctlab...", flush=True)
    f = run_fctlab(args.packets)
    w = f["wall_s"]
    # Unique data packets (each packet of each flow once), as ns-3's side counts
    # application bytes; copies (retransmissions, duplicates) are shown apart.
    rate = f["unique_delivered"] / w
    print(_row("simulated time", f"{f['sim_s']:.1f} s ({f['flows_completed']:,}/{f['flows']:,} flows completed)"))
    print(_row("wall time (engine)", f"{w:.2f} s (CPU {f['cpu_s']:.2f} s)"))
    print(_row("unique data packets delivered", f"{f['unique_delivered']:,} (copies included: {f['data_delivered']:,})"))
    print(_row("unique delivered data packets / wall s", f"{rate:,.0f}"))
    print(_row("unique delivered data packets / CPU s", f"{f['unique_delivered'] / f['cpu_s']:,.0f}"))
    print(_row("packet-hops / wall s (data + ACKs)", f"{f['packet_hops'] / w:,.0f}"))
    print(_row("events / wall s", f"{f['events'] / w:,.0f}"))
    print(_row("events per unique delivered data packet", f"{f['events'] / max(f['unique_delivered'], 1):.2f}"))
    print(_row("peak memory (process)", f"{f['peak_rss_mb']:.0f} MB"))
    if args.no_ns3:
        print("ns-3: skipped (--no-ns3)")
        return 0
    try:
        from . import ns3peer
    except ImportError as e:  # pragma: no cover
        print(f"ns-3: skipped: the ns-3 peer is not available ({e})")
        return 0
    try:
        print(f"running ns-3 on the same scenario ({args.ns3_seconds:g} simulated s; installs ns-3 on first use)...", flush=True)
        n = ns3peer.run_ns3_bench(sim_seconds=args.ns3_seconds)
    except ns3peer.PeerUnavailable as e:
        print(f"ns-3: skipped: {e}")
        return 0
    nrate = n["data_pkts_delivered"] / n["wall_s"]
    print(_row("ns-3 version", str(n.get("ns3_version", "?"))))
    print(_row("ns-3 simulated / wall time", f"{n['sim_seconds']:g} s / {n['wall_s']:.2f} s (CPU {n['cpu_s']:.2f} s)"))
    print(_row("ns-3 flows completed", f"{n['flows_completed']:,}/{n['flows_started']:,}"))
    print(_row("ns-3 delivered data packets / wall s", f"{nrate:,.0f}"))
    print(_row("ns-3 delivered data packets / CPU s", f"{n['data_pkts_delivered'] / n['cpu_s']:,.0f}"))
    if n.get("events"):
        print(_row("ns-3 events / wall s", f"{n['events'] / n['wall_s']:,.0f}"))
    print(_row("ns-3 peak memory (process)", f"{n.get('peak_rss_mb', float('nan')):.0f} MB"))
    print(_row("speed-up, wall (delivered data pkts/s)", f"{rate / nrate:.1f}x"))
    cpu_ratio = (f["unique_delivered"] / f["cpu_s"]) / (n["data_pkts_delivered"] / n["cpu_s"])
    print(_row("speed-up, CPU (delivered data pkts/s)", f"{cpu_ratio:.1f}x"))
    return 0
