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

SOURCE = "fctlab live mode (Linux network namespaces; the kernel's TCP: reno, cubic, bbr, dctcp)"
BIN_EDGES = np.array([1, 4, 16, 64, 256, 1024, 4096, 16384])
SCHEMES = ("tcp-newreno", "rcp")
#: The modern schemes, simulated and against the kernel's own: (fctlab scheme, kernel congestion control).
MODERN = (("tcp-cubic", "cubic"), ("tcp-bbr", "bbr"), ("tcp-dctcp", "dctcp"))
#: A size bin is compared with at least this many flows on each side; the goal per bin.
MIN_FLOWS, GOAL = 5, 0.10

# (rate b/s, RTT ms, Poisson load, flows): the grid of the ranges.
QUICK = [(10e6, 20.0, 0.5, 120), (100e6, 100.0, 0.2, 250)]
FULL = [(10e6, 20.0, 0.5, 400), (10e6, 100.0, 0.5, 400), (100e6, 20.0, 0.8, 1000), (100e6, 100.0, 0.2, 1000)]


def dctcp_k(c: float, rtt_ms: float) -> int:
    """DCTCP's marking threshold here: its guideline K > C x RTT / 7 (Alizadeh
    et al. 2010, sec. 3.4), in packets of 1040 B, rounded up (chosen)."""
    return max(2, int(np.ceil(c * rtt_ms / 1e3 / 8 / 1040 / 7)))


def queue_of(scheme: str, c: float, rtt_ms: float) -> dict:
    if scheme == "rcp":
        return {"queue": "rcp"}
    if scheme == "tcp-dctcp":
        return {"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": dctcp_k(c, rtt_ms)}}
    return {"queue": "droptail"}


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
            **queue_of(scheme, c, rtt_ms),
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


def _runs(point: tuple) -> tuple:
    """Each scheme simulated and live (fctlab's RCP over UDP, the kernel's reno
    for TCP), and each modern scheme against the kernel's own where the kernel
    has it (else the reason it was skipped)."""
    from ...live import LiveError
    from ...live.run import run as live_run

    runs, skipped = {}, {}
    for scheme in SCHEMES:
        cfg = scenario(*point, scheme)
        sim = run(cfg, warn=False)
        runs[(scheme, "sim")] = sim
        if scheme == "rcp":
            runs[(scheme, "live")] = live_run(cfg, stack="fctlab", sim=sim, timeout_s=20)
        else:
            runs[(scheme, "live")] = live_run(cfg, stack="kernel", cc="reno", sack=False, sim=sim, timeout_s=20)
    for scheme, cc in MODERN:
        cfg = scenario(*point, scheme)
        sim = run(cfg, warn=False)
        try:
            live = live_run(cfg, stack="kernel", cc=cc, sack=False, sim=sim, timeout_s=20)
        except LiveError as e:
            skipped[scheme] = str(e)
            continue
        runs[(scheme, "sim")], runs[(scheme, "live")] = sim, live
    return runs, skipped


def _x(t) -> np.ndarray:
    return np.sqrt(t["lo"].to_numpy(float) * (t["hi"].to_numpy(float) - 1).clip(min=1))


def _panel(ax, t, key: str, point: tuple) -> None:
    ax.plot(_x(t), t["median_ms_a"], "o-", label="simulated")
    live = "live (kernel TCP reno)" if key == "tcp" else "live (fctlab RCP over UDP)"
    ax.plot(_x(t), t["median_ms_b"], "s--", label=live)
    title = f"{'TCP' if key == 'tcp' else 'RCP'}, {label(point[0], point[1])}"
    style(ax, "flow size (packets)", "median FCT (ms)", title=title, log="xy")


def _modern_panel(ax, tables: dict, point: tuple, skipped: dict) -> None:
    """The modern schemes: simulated (solid) and the kernel's (dashed), one colour each."""
    for i, (scheme, cc) in enumerate(MODERN):
        if scheme not in tables:
            ax.plot([], [], " ", label=f"{cc}: skipped (kernel lacks it)")
            continue
        t, colour = tables[scheme], f"C{i + 2}"
        ax.plot(_x(t), t["median_ms_a"], "o-", color=colour, label=f"simulated {scheme}")
        ax.plot(_x(t), t["median_ms_b"], "s--", color=colour, label=f"live kernel {cc}")
    style(ax, "flow size (packets)", "median FCT (ms)", title=f"CUBIC, BBR, DCTCP, {label(*point[:2])}", log="xy")


def _worst(worst: dict, key: str, t) -> None:
    ok = t[(t["flows_a"] >= MIN_FLOWS) & (t["flows_b"] >= MIN_FLOWS)]
    if len(ok):
        worst[key] = max(worst.get(key, 0.0), float(np.abs(ok["ratio_b_a"] - 1).max()))


def _rows(rows: list, pair: str, t) -> None:
    for _, r in t.iterrows():
        rows.append([pair, r["size_pkts"], int(r["flows_a"]), r["median_ms_a"], r["median_ms_b"], r["ratio_b_a"]])


def _point(axes, k: int, point: tuple, worst: dict) -> tuple:
    """One grid point: every scheme drawn, the worst bins updated; its table,
    parameters and the schemes the kernel lacks."""
    from ...live import by_size_table

    runs, skipped = _runs(point)
    rows = []
    for j, scheme in enumerate(SCHEMES):
        t = by_size_table(runs[(scheme, "sim")].flows, runs[(scheme, "live")].flows, BIN_EDGES)
        key = "tcp" if scheme.startswith("tcp") else "rcp"
        _worst(worst, key, t)
        _rows(rows, "TCP: sim NewReno vs kernel reno" if key == "tcp" else "RCP: sim vs live", t)
        _panel(axes[k][j], t, key, point)
    tables = {}
    for scheme, cc in MODERN:
        if scheme in skipped:
            continue
        tables[scheme] = t = by_size_table(runs[(scheme, "sim")].flows, runs[(scheme, "live")].flows, BIN_EDGES)
        _worst(worst, scheme, t)
        _rows(rows, f"sim {scheme} vs kernel {cc}", t)
    _modern_panel(axes[k][2], tables, point, skipped)
    table, params = _point_table(point, runs, rows)
    return table, params, skipped


def _point_table(point: tuple, runs: dict, rows: list) -> tuple:
    c, rtt, load, count = point
    live = [s for s in SCHEMES + tuple(m for m, _ in MODERN) if (s, "live") in runs]
    conc = {s: max_active(runs[(s, "live")].flows) for s in live}
    done = {s: f"{int(runs[(s, 'live')].flows['completed'].sum())}/{len(runs[(s, 'live')].flows)}" for s in live}
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
            f"completed live: {', '.join(f'{k} {v}' for k, v in done.items())}. The link emulator's frames left on "
            f"average {params['emulator_mean_late_us']} us after their time."
        ),
    )
    return table, params


def _caption(cfg: dict, worst: dict, scale: str, skipped: dict) -> str:
    net, g = cfg["network"], cfg["traffic"][0]
    modern = ", ".join(f"{s} {worst[s]:.1%}" for s, _ in MODERN if s in worst)
    lacks = "".join(f" {s} skipped: {why}." for s, why in skipped.items())
    return (
        "Median FCT per flow-size bin (4^k packets), simulated (fctlab) against live on this machine: left, fctlab's "
        "TCP NewReno against the Linux kernel's TCP (reno, SACK off, timestamps off, initcwnd 2, quick ACKs, "
        "RACK/TLP/F-RTO off); middle, fctlab's RCP simulated against the same RCP endpoints and router code run live "
        "over UDP; right, fctlab's tcp-cubic (HyStart++ on, its default; the kernel's cubic runs Linux's HyStart), "
        "tcp-bbr (BBR v1, paced) and tcp-dctcp (over DCTCP's marking switch, K = C x RTT / 7 rounded up, the "
        "emulator marking the kernel's ECT frames CE) against the kernel's cubic, bbr and dctcp with the same "
        "settings as reno. The workload: "
        f"{net['senders']} senders on a dumbbell, access delay {net['access_delay_ms']:g} ms, bottleneck delay "
        f"RTT/2 - {net['access_delay_ms']:g} ms, buffer {net['buffer_bdp']:g} BDP, DropTail (TCP) or the RCP router "
        f"(RCP), Poisson arrivals, Pareto sizes (mean {g['sizes']['mean_pkts']} packets, shape "
        f"{g['sizes']['shape']:g}), MSS 1000 B + 40 B of headers. Chosen here (the comparison has no source figure): "
        f"all of the above. Goal: within {GOAL:.0%} per bin with at least {MIN_FLOWS} flows; worst here TCP "
        f"{worst['tcp']:.1%}, RCP {worst['rcp']:.1%}; {modern or 'no modern scheme ran'}.{lacks} Scale: {scale}."
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


@reproduction(
    "live-vs-sim",
    title="Simulated against live: fctlab's TCPs vs the kernel's (reno, cubic, bbr, dctcp), simulated vs live RCP",
)
def live_vs_sim(out: Path, scale: str) -> list:
    from ...live import LiveError, require_root

    p = Page("live-vs-sim", out, scale)
    try:
        require_root()
    except LiveError as e:
        skipped = f"Skipped: {e}. Run `sudo fctlab reproduce live-vs-sim` on Linux to produce this page."
        return p.record(source=SOURCE, notes=skipped, wall_s=0.0)
    points = QUICK if scale == "quick" else FULL
    fig, axes = p.subplots(len(points), 3, figsize=(15, 3.6 * len(points)), squeeze=False)
    tables, params, worst, skipped = [], {}, {"tcp": 0.0, "rcp": 0.0}, {}
    for k, point in enumerate(points):
        table, params[label(point[0], point[1])], lacks = _point(axes, k, point, worst)
        skipped.update(lacks)
        tables.append(table)
    fig.tight_layout()
    png = "live-vs-sim.png"
    fig.savefig(Path(out) / png, dpi=100)
    import matplotlib.pyplot as plt

    plt.close(fig)
    caption = _caption(scenario(*points[0], SCHEMES[0]), worst, scale, skipped)
    return p.record(
        source=SOURCE,
        figures=[Figure(png, caption)],
        tables=tables,
        params=params,
        seed=11,
        notes=NOTES,
        command=f"sudo fctlab reproduce live-vs-sim --{scale} --out report",
    )
