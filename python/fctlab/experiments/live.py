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

import time
from pathlib import Path

import numpy as np

from ..report import Figure, Reproduction, Table

SOURCE = "fctlab live mode (Linux network namespaces; kernel TCP per RFC 5681/6582)"
BIN_EDGES = np.array([1, 4, 16, 64, 256, 1024, 4096, 16384])

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


def _max_active(flows) -> int:
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


def _label(c, rtt):
    return f"{c / 1e6:g} Mb/s, RTT {rtt:g} ms"


def live_vs_sim(out: Path, scale: str) -> list:
    import fctlab

    from ..live import LiveError, by_size_table, require_root
    from ..live.run import run as live_run

    name = "live-vs-sim"
    title = "Simulated against live: fctlab TCP vs the kernel's TCP, simulated vs live RCP"
    try:
        require_root()
    except LiveError as e:
        return [
            Reproduction(
                name=name,
                title=title,
                source=SOURCE,
                scale=scale,
                notes=f"Skipped: {e}. Run `sudo fctlab reproduce live-vs-sim` on Linux to produce this page.",
            )
        ]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = time.monotonic()
    points = QUICK if scale == "quick" else FULL
    tables, figs, params = [], [], {}
    worst = {"tcp": 0.0, "rcp": 0.0}
    cubic = None
    fig, axes = plt.subplots(len(points), 2, figsize=(10, 3.6 * len(points)), squeeze=False)
    for k, (c, rtt, load, count) in enumerate(points):
        rows = []
        runs = {}
        for scheme in ("tcp-newreno", "rcp"):
            cfg = scenario(c, rtt, load, count, scheme)
            sim = fctlab.run(cfg, warn=False)
            runs[(scheme, "sim")] = sim
            if scheme == "rcp":
                runs[(scheme, "live")] = live_run(cfg, stack="fctlab", sim=sim, timeout_s=20)
            else:
                runs[(scheme, "live")] = live_run(cfg, stack="kernel", cc="reno", sack=False, sim=sim, timeout_s=20)
                if k == 0:
                    cubic = live_run(cfg, stack="kernel", cc="cubic", sack=False, sim=sim, timeout_s=20)
        for j, scheme in enumerate(("tcp-newreno", "rcp")):
            t = by_size_table(runs[(scheme, "sim")].flows, runs[(scheme, "live")].flows, BIN_EDGES)
            key = "tcp" if scheme.startswith("tcp") else "rcp"
            ok = t[(t["flows_a"] >= 5) & (t["flows_b"] >= 5)]
            if len(ok):
                worst[key] = max(worst[key], float(np.abs(ok["ratio_b_a"] - 1).max()))
            for _, r in t.iterrows():
                rows.append(
                    [
                        f"{'TCP: sim NewReno vs kernel reno' if key == 'tcp' else 'RCP: sim vs live'}",
                        r["size_pkts"],
                        int(r["flows_a"]),
                        r["median_ms_a"],
                        r["median_ms_b"],
                        r["ratio_b_a"],
                    ]
                )
            ax = axes[k][j]
            x = np.sqrt(t["lo"].to_numpy(float) * (t["hi"].to_numpy(float) - 1).clip(min=1))
            ax.plot(x, t["median_ms_a"], "o-", label="simulated")
            ax.plot(
                x,
                t["median_ms_b"],
                "s--",
                label="live (kernel TCP reno)" if key == "tcp" else "live (fctlab RCP over UDP)",
            )
            if key == "tcp" and k == 0 and cubic is not None:
                tc = by_size_table(runs[(scheme, "sim")].flows, cubic.flows, BIN_EDGES)
                ycub = tc.set_index("size_pkts")["median_ms_b"].reindex(t["size_pkts"]).to_numpy(float)
                ax.plot(x, ycub, "^:", label="live (kernel TCP cubic)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{'TCP' if key == 'tcp' else 'RCP'}, {_label(c, rtt)}", fontsize=9)
            ax.set_xlabel("flow size (packets)")
            ax.set_ylabel("median FCT (ms)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        conc = {s: _max_active(runs[(s, "live")].flows) for s in ("tcp-newreno", "rcp")}
        done = {
            s: f"{int(runs[(s, 'live')].flows['completed'].sum())}/{len(runs[(s, 'live')].flows)}"
            for s in ("tcp-newreno", "rcp")
        }
        lat = runs[("rcp", "live")].meta["live"].get("link_stats", {})
        params[_label(c, rtt)] = {
            "load": load,
            "flows": count,
            "max_concurrent_live_tcp": conc["tcp-newreno"],
            "max_concurrent_live_rcp": conc["rcp"],
            "completed_live": done,
            "emulator_mean_late_us": round(lat.get("mean_late_us") or 0, 1),
        }
        tables.append(
            Table(
                title=f"Median FCT per size bin, {_label(c, rtt)}, Poisson load {load}",
                columns=["pair", "size (pkts)", "flows", "simulated (ms)", "live (ms)", "live / sim"],
                rows=rows,
                key_columns=2,
                caption=(
                    f"{count} flows, at most {conc['tcp-newreno']} (TCP) and {conc['rcp']} (RCP) in progress at once live; "
                    f"completed live: TCP {done['tcp-newreno']}, RCP {done['rcp']}. The link emulator's frames left on "
                    f"average {params[_label(c, rtt)]['emulator_mean_late_us']} us after their time."
                ),
            )
        )
    fig.tight_layout()
    png = "live-vs-sim.png"
    fig.savefig(Path(out) / png, dpi=100)
    plt.close(fig)
    wall = time.monotonic() - t0
    caption = (
        "Median FCT per flow-size bin (4^k packets), simulated (fctlab) against live on this machine: left, fctlab's "
        "TCP NewReno against the Linux kernel's TCP (reno, SACK off, timestamps off, initcwnd 2, quick ACKs, RACK/TLP/F-RTO "
        "off); right, fctlab's RCP simulated against the same RCP endpoints and router code run live over UDP. Top row, "
        "dotted: the kernel's cubic (the one parameter varied: short flows end in slow start, where cubic and reno agree; "
        "HyStart can leave slow start early). The workload: 4 senders on a dumbbell, access delay 1 ms, bottleneck "
        "delay RTT/2 - 1 ms, buffer 1 BDP, DropTail (TCP) or the RCP router (RCP), Poisson arrivals, Pareto sizes "
        "(mean 25 packets, shape 1.4), MSS 1000 B + 40 B of headers. Chosen here (the comparison has no source figure): "
        f"all of the above. Goal: within 10% per bin with at least 5 flows; worst here TCP {worst['tcp']:.1%}, "
        f"RCP {worst['rcp']:.1%}. Scale: {scale}."
    )
    figs.append(Figure(png, caption))
    notes = (
        "Where they differ and why: (1) the kernel's TCP is not fctlab's model: it counts its initial window, "
        "recovers from losses with its own heuristics, and sends a SYN-ACK whose options make it 60 bytes; the "
        "largest bins, with few flows and losses, differ most. (2) Real time: every packet waits for a process to "
        "wake up (tens of microseconds on average on a busy 2-core machine, milliseconds at worst) and the "
        "kernel's timers tick at its HZ for delayed work; the simulator's time is exact. (3) Segmentation offloads "
        "(TSO, GSO, GRO) and checksum offload are turned off on every veth, so each packet on the wire is one "
        "MSS, as in the simulator. (4) The access links' serialisation (10x the bottleneck) is not emulated."
    )
    return [
        Reproduction(
            name=name,
            title=title,
            source=SOURCE,
            figures=figs,
            tables=tables,
            params=params,
            seed=11,
            wall_s=wall,
            scale=scale,
            notes=notes,
            command=f"sudo fctlab reproduce live-vs-sim --{scale} --out report",
        )
    ]
