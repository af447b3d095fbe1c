"""``live-vs-sim``: the simulator against real packets on this machine.

The same flows (the simulated run's own arrivals and sizes) run three ways:
simulated, live with fctlab's transports over UDP through the link emulator,
and live with the kernel's TCP. The emulator applies the delays and the
bottleneck's queue with the simulator's own queue code, so what differs is
the endpoints (the kernel's TCP against fctlab's model) and real time (timer
granularity, scheduling, wake-up latency). Needs root (network namespaces);
without it the page says so and nothing runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...report import Figure, Table
from ..page import Page, run, style
from ..registry import reproduction

SOURCE = "fctlab live mode (Linux network namespaces; kernel TCP per RFC 5681/6582)"
BIN_EDGES = np.array([1, 4, 16, 64, 256, 1024, 4096, 16384])
SCHEMES = ("tcp-newreno", "rcp")
#: A size bin is compared with at least this many flows on each side; the goal per bin.
MIN_FLOWS, GOAL = 5, 0.10

# (rate b/s, RTT ms, Poisson load, flows): the grid of the ranges.
QUICK = [(10e6, 20.0, 0.5, 120), (100e6, 100.0, 0.2, 250)]
FULL = [(10e6, 20.0, 0.5, 400), (10e6, 100.0, 0.5, 400), (100e6, 20.0, 0.8, 1000), (100e6, 100.0, 0.2, 1000)]


def scenario(c: float, rtt_ms: float, load: float, count: int, scheme: str, seed: int = 11) -> dict:
    senders = 4
    return {
        "seed": seed,
        "network": {
            "topology": "dumbbell",
            "senders": senders,
            "bottleneck_bps": c,
            "bottleneck_delay_ms": rtt_ms / 2 - 1.0,
            "access_delay_ms": 1.0,
            "buffer_bdp": 1.0,
            "queue": "rcp" if scheme == "rcp" else "droptail",
        },
        "transport": {"scheme": scheme},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": load,
                "sizes": {"dist": "pareto", "mean_pkts": 25, "shape": 1.4},
                "count": count,
            }
        ],
    }


def max_active(flows) -> int:
    """The most flows in progress at once."""
    f = flows[flows["completed"]]
    ev = np.concatenate(
        [
            np.stack([f["start_ns"].to_numpy(np.int64), np.ones(len(f), np.int64)], 1),
            np.stack([f["finish_ns"].to_numpy(np.int64), -np.ones(len(f), np.int64)], 1),
        ]
    )
    if not len(ev):
        return 0
    ev = ev[np.lexsort((ev[:, 1], ev[:, 0]))]
    return int(np.cumsum(ev[:, 1]).max())


def label(c, rtt) -> str:
    return f"{c / 1e6:g} Mb/s, RTT {rtt:g} ms"


def _runs(point: tuple, first: bool) -> tuple:
    """Each scheme simulated and live (fctlab's RCP over UDP, the kernel's reno
    for TCP), and at the first point the kernel's cubic too."""
    from ...live.run import run as live_run

    runs, cubic = {}, None
    for scheme in SCHEMES:
        cfg = scenario(*point, scheme)
        sim = run(cfg, warn=False)
        runs[(scheme, "sim")] = sim
        if scheme == "rcp":
            runs[(scheme, "live")] = live_run(cfg, stack="fctlab", sim=sim, timeout_s=20)
        else:
            runs[(scheme, "live")] = live_run(cfg, stack="kernel", cc="reno", sack=False, sim=sim, timeout_s=20)
            if first:
                cubic = live_run(cfg, stack="kernel", cc="cubic", sack=False, sim=sim, timeout_s=20)
    return runs, cubic


def _panel(ax, t, key: str, point: tuple, sim, cubic) -> None:
    from ...live import by_size_table

    x = np.sqrt(t["lo"].to_numpy(float) * (t["hi"].to_numpy(float) - 1).clip(min=1))
    ax.plot(x, t["median_ms_a"], "o-", label="simulated")
    live = "live (kernel TCP reno)" if key == "tcp" else "live (fctlab RCP over UDP)"
    ax.plot(x, t["median_ms_b"], "s--", label=live)
    if key == "tcp" and cubic is not None:
        tc = by_size_table(sim.flows, cubic.flows, BIN_EDGES)
        ycub = tc.set_index("size_pkts")["median_ms_b"].reindex(t["size_pkts"]).to_numpy(float)
        ax.plot(x, ycub, "^:", label="live (kernel TCP cubic)")
    title = f"{'TCP' if key == 'tcp' else 'RCP'}, {label(point[0], point[1])}"
    style(ax, "flow size (packets)", "median FCT (ms)", title=title, log="xy")


def _point(axes, k: int, point: tuple, worst: dict) -> tuple:
    """One grid point: both schemes drawn, the worst bins updated; its table and parameters."""
    from ...live import by_size_table

    runs, cubic = _runs(point, k == 0)
    rows = []
    for j, scheme in enumerate(SCHEMES):
        t = by_size_table(runs[(scheme, "sim")].flows, runs[(scheme, "live")].flows, BIN_EDGES)
        key = "tcp" if scheme.startswith("tcp") else "rcp"
        ok = t[(t["flows_a"] >= MIN_FLOWS) & (t["flows_b"] >= MIN_FLOWS)]
        if len(ok):
            worst[key] = max(worst[key], float(np.abs(ok["ratio_b_a"] - 1).max()))
        pair = "TCP: sim NewReno vs kernel reno" if key == "tcp" else "RCP: sim vs live"
        for _, r in t.iterrows():
            rows.append([pair, r["size_pkts"], int(r["flows_a"]), r["median_ms_a"], r["median_ms_b"], r["ratio_b_a"]])
        _panel(axes[k][j], t, key, point, runs[(scheme, "sim")], cubic)
    return _point_table(point, runs, rows)


def _point_table(point: tuple, runs: dict, rows: list) -> tuple:
    c, rtt, load, count = point
    conc = {s: max_active(runs[(s, "live")].flows) for s in SCHEMES}
    done = {s: f"{int(runs[(s, 'live')].flows['completed'].sum())}/{len(runs[(s, 'live')].flows)}" for s in SCHEMES}
    lat = runs[("rcp", "live")].meta["live"].get("link_stats", {})
    params = {
        "load": load,
        "flows": count,
        "max_concurrent_live_tcp": conc["tcp-newreno"],
        "max_concurrent_live_rcp": conc["rcp"],
        "completed_live": done,
        "emulator_mean_late_us": round(lat.get("mean_late_us") or 0, 1),
    }
    table = Table(
        title=f"Median FCT per size bin, {label(c, rtt)}, Poisson load {load}",
        columns=["pair", "size (pkts)", "flows", "simulated (ms)", "live (ms)", "live / sim"],
        rows=rows,
        key_columns=2,
        caption=(
            f"{count} flows, at most {conc['tcp-newreno']} (TCP) and {conc['rcp']} (RCP) in progress at once live; "
            f"completed live: TCP {done['tcp-newreno']}, RCP {done['rcp']}. The link emulator's frames left on "
            f"average {params['emulator_mean_late_us']} us after their time."
        ),
    )
    return table, params


def _caption(cfg: dict, worst: dict, scale: str) -> str:
    net, g = cfg["network"], cfg["traffic"][0]
    return (
        "Median FCT per flow-size bin (4^k packets), simulated (fctlab) against live on this machine: left, fctlab's "
        "TCP NewReno against the Linux kernel's TCP (reno, SACK off, timestamps off, initcwnd 2, quick ACKs, "
        "RACK/TLP/F-RTO off); right, fctlab's RCP simulated against the same RCP endpoints and router code run live "
        "over UDP. Top row, dotted: the kernel's cubic (the one parameter varied: short flows end in slow start, "
        "where cubic and reno agree; HyStart can leave slow start early). The workload: "
        f"{net['senders']} senders on a dumbbell, access delay {net['access_delay_ms']:g} ms, bottleneck delay "
        f"RTT/2 - {net['access_delay_ms']:g} ms, buffer {net['buffer_bdp']:g} BDP, DropTail (TCP) or the RCP router "
        f"(RCP), Poisson arrivals, Pareto sizes (mean {g['sizes']['mean_pkts']} packets, shape "
        f"{g['sizes']['shape']:g}), MSS 1000 B + 40 B of headers. Chosen here (the comparison has no source figure): "
        f"all of the above. Goal: within {GOAL:.0%} per bin with at least {MIN_FLOWS} flows; worst here TCP "
        f"{worst['tcp']:.1%}, RCP {worst['rcp']:.1%}. Scale: {scale}."
    )


NOTES = (
    "Where they differ and why: (1) the kernel's TCP is not fctlab's model: it counts its initial window, "
    "recovers from losses with its own heuristics, and sends a SYN-ACK whose options make it 60 bytes; the "
    "largest bins, with few flows and losses, differ most. (2) Real time: every packet waits for a process to "
    "wake up (tens of microseconds on average on a busy 2-core machine, milliseconds at worst) and the "
    "kernel's timers tick at its HZ for delayed work; the simulator's time is exact. (3) Segmentation offloads "
    "(TSO, GSO, GRO) and checksum offload are turned off on every veth, so each packet on the wire is one "
    "MSS, as in the simulator. (4) The access links' serialisation (10x the bottleneck) is not emulated."
)


@reproduction("live-vs-sim", title="Simulated against live: fctlab TCP vs the kernel's TCP, simulated vs live RCP")
def live_vs_sim(out: Path, scale: str) -> list:
    from ...live import LiveError, require_root

    p = Page("live-vs-sim", out, scale)
    try:
        require_root()
    except LiveError as e:
        skipped = f"Skipped: {e}. Run `sudo fctlab reproduce live-vs-sim` on Linux to produce this page."
        return p.record(source=SOURCE, notes=skipped, wall_s=0.0)
    points = QUICK if scale == "quick" else FULL
    fig, axes = p.subplots(len(points), 2, figsize=(10, 3.6 * len(points)), squeeze=False)
    tables, params, worst = [], {}, {"tcp": 0.0, "rcp": 0.0}
    for k, point in enumerate(points):
        table, params[label(point[0], point[1])] = _point(axes, k, point, worst)
        tables.append(table)
    fig.tight_layout()
    png = "live-vs-sim.png"
    fig.savefig(Path(out) / png, dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)
    caption = _caption(scenario(*points[0], SCHEMES[0]), worst, scale)
    return p.record(
        source=SOURCE,
        figures=[Figure(png, caption)],
        tables=tables,
        params=params,
        seed=11,
        notes=NOTES,
        command=f"sudo fctlab reproduce live-vs-sim --{scale} --out report",
    )
