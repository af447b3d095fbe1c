"""crossval-ns3: the same flow lists replayed in fctlab and in ns-3 3.44 (the PyPI
wheel, through `fctlab.ns3peer`), FCT compared per size bin over a grid of
buffers, loads and initial windows (the set-up: `.crossval`).

fctlab runs twice per cell: with its defaults (RFC-faithful TCP) and with
``transport.preset = "ns3"`` (the model options set the way ns-3 behaves,
docs: TCP model options); the goal is the preset within 10% of ns-3 in
every bin's mean and 20% in every bin's 99th percentile.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...report import Figure
from .. import captions
from ..page import Page, parameters, style
from ..registry import reproduction
from .crossval import (
    ACCESS_BPS,
    BDP_PKTS,
    BIN_NAMES,
    BINS,
    C_BPS,
    GOAL_MEAN,
    GOAL_P99,
    GRID,
    HEADER_BYTES,
    MSS_BYTES,
    RED,
    RED_DEVICE_PKTS,
    RTT_MS,
    SENDERS,
    SOURCE,
    flow_list,
    grid_cells,
    jittered,
    ns3_cache_path,
    ns3_run_params,
    run_fctlab,
    run_ns3,
    scenario,
    transport,
)
from .crossval_findings import FINDINGS, RED_FINDINGS, SCHEME_FINDINGS
from .crossval_schemes import SCHEME_GRID, run_scheme_cell, scheme_cells
from .crossval_schemes import caption as schemes_caption
from .crossval_stats import bin_stats, compare, ensemble_stats, scipy_t_ppf, verdict, within_noise, worst
from .crossval_tables import bins_table, cells_table, pooled_table


class Tally:
    """What the cells add up to: the bins table's rows, the per-cell summary,
    the figure's points, and per bin over the DropTail cells log(preset mean /
    ns-3) of the mean and p99 and the flows of 3 s or more."""

    def __init__(self):
        self.rows, self.summary = [], []
        self.failed = {}  # cell -> why its ns-3 run failed
        self.plot = {"default": [], "ns3": [], "noise": []}
        self.pooled = {"mean": [[] for _ in BINS], "p99": [[] for _ in BINS]}
        self.tails = {"ns3": np.zeros(len(BINS)), "preset": np.zeros(len(BINS)), "default": np.zeros(len(BINS))}

    def preset_only(self, cell: str, pre: dict, sizes: np.ndarray) -> None:
        """Rows without ns-3: the preset's bins alone."""
        for (n, m, p), name in zip(bin_stats(pre["fct"], sizes, ~np.isnan(pre["fct"])), BIN_NAMES):
            self.rows.append([cell, name, n, None, m * 1e3, None, None, None, None, None, p * 1e3, None, None, None])

    def add_tails(self, sizes: np.ndarray, dflt: dict, ens: list, ref: dict) -> None:
        for b, (lo, hi) in enumerate(BINS):
            sel = (sizes >= lo) & (sizes <= hi)
            self.tails["ns3"][b] += np.sum(ref["fct"][sel] >= 3.0)
            self.tails["default"][b] += np.sum(dflt["fct"][sel] >= 3.0)
            self.tails["preset"][b] += np.mean([np.sum(r["fct"][sel] >= 3.0) for r in ens])


def _bin_row(cell: str, name: str, d, e, rm, vm, rp, vp) -> list:
    mean_range = f"{np.min(e['mean']) * 1e3:.4g}-{np.max(e['mean']) * 1e3:.4g}"
    return [
        cell,
        name,
        e["flows"],
        d[1] * 1e3,
        float(np.mean(e["mean"])) * 1e3,
        mean_range,
        e["ref_mean"] * 1e3,
        rm,
        vm,
        d[4] * 1e3,
        float(np.mean(e["p99"])) * 1e3,
        e["ref_p99"] * 1e3,
        rp,
        vp,
    ]


def compare_cell(t: Tally, cell: str, pooled: bool, sizes: np.ndarray, dflt: dict, ens: list, ref: dict) -> None:
    """One cell against ns-3: its bins' rows, its summary row and its points
    (``pooled``: a NewReno DropTail cell, which the pooled summary counts)."""
    cd, es = compare(dflt, ref, sizes), ensemble_stats(ens, ref, sizes)
    worst_m = worst_p = noise_m = 0.0
    verdicts = []
    for b, (name, d, e) in enumerate(zip(BIN_NAMES, cd, es)):
        rm, vm = verdict(e["mean"], e["ref_mean"], GOAL_MEAN)
        rp, vp = verdict(e["p99"], e["ref_p99"], GOAL_P99)
        verdicts += [vm, vp]
        worst_m, worst_p = max(worst_m, abs(rm - 1)), max(worst_p, abs(rp - 1))
        noise_m = max(noise_m, within_noise(e["mean"], e["ref_mean"])[1])
        if pooled:  # the pooled summary is the DropTail cells'
            t.pooled["mean"][b].append(math.log(rm))
            t.pooled["p99"][b].append(math.log(rp))
        t.rows.append(_bin_row(cell, name, d, e, rm, vm, rp, vp))
    if pooled:
        t.add_tails(sizes, dflt, ens, ref)
    wd = worst(cd)
    t.plot["default"].append(wd)
    t.plot["ns3"].append((worst_m, worst_p))
    t.plot["noise"].append(noise_m)
    met = "yes" if verdicts.count("goal") == 2 * len(BINS) else "no"
    drops = float(np.mean([r["drops"] for r in ens]))
    t.summary.append(
        [
            cell,
            dflt["drops"],
            drops,
            ref["drops"],
            *wd,
            worst_m,
            worst_p,
            met,
            verdicts.count("noise"),
            verdicts.count("differs"),
        ]
    )


def run_cell(t: Tally, g: dict, where: tuple, ns3_reason: str | None) -> str | None:
    """One grid cell: fctlab with its defaults and the preset (on the cell's flows
    and on jittered copies), ns-3 if it runs; returns why ns-3 does not run, if so."""
    (ci, n_cells), (cell, buf, load, iw, red) = where
    flows = flow_list(load, g["flows"], 1)
    cached = ns3_reason is None and ns3_cache_path(ns3_run_params(flows, buf, iw, red=red), flows).exists()
    slow = "" if ns3_reason or cached else " (running ns-3, 1-5 min)"
    print(f"  cell {ci + 1}/{n_cells}: {cell}{slow}", flush=True)
    sizes = np.array([n for _, _, n in flows])
    dflt = run_fctlab(flows, buf, transport(iw), red=red)
    pre = run_fctlab(flows, buf, transport(iw, "ns3"), red=red)
    # The preset again on the same flows started up to 100 us later: the
    # spread of these runs is the metric's noise, what one model gives
    # from one flow list when only the order of packets at the queue moves.
    ens = [pre] + [run_fctlab(jittered(flows, k), buf, transport(iw, "ns3"), red=red) for k in range(1, g["ensemble"])]
    ref = None
    if ns3_reason is None:
        try:
            ref = run_ns3(flows, buf, iw, red=red)
        except Exception as exc:  # PeerUnavailable, or a broken install
            ns3_reason = str(exc) or type(exc).__name__
    if ref is None:
        t.preset_only(cell, pre, sizes)
    else:
        compare_cell(t, cell, red is None, sizes, dflt, ens, ref)
    return ns3_reason


def run_schemes(scale: str, ns3_reason: str | None) -> tuple:
    """The scheme cells (`.crossval_schemes`): their tally and why ns-3 did not run."""
    g = SCHEME_GRID[scale]
    t = Tally()
    cells = list(scheme_cells(g))
    for ci, cell in enumerate(cells):
        print(f"  scheme cell {ci + 1}/{len(cells)}: {cell[0]}", flush=True)
        sizes, dflt, ens, ref, ns3_reason, failed = run_scheme_cell(g, cell, ns3_reason)
        if failed:
            t.failed[cell[0]] = failed
        if ref is None:
            t.preset_only(cell[0], ens[0], sizes)
        else:
            compare_cell(t, cell[0], False, sizes, dflt, ens, ref)
    return t, ns3_reason


def red_caption(g: dict) -> str:
    """The RED cells' parameters and what each simulator runs, for the caption."""
    cells = "; ".join(
        f"load {load:g}, IW {iw}" + "".join(f", {k} {v:g}" for k, v in ch.items()) for load, iw, ch in g.get("red", ())
    )
    ns3_buffer = RED["limit_pkts"] + RED_DEVICE_PKTS
    return (
        f"{cells} (chosen). RED at the bottleneck: min_th {RED['min_th']}, max_th {RED['max_th']} packets, max_p "
        f"{RED['max_p']:g}, q_weight {RED['q_weight']:g}, gentle, wait, mean packet {RED['mean_pktsize']} B, limit "
        f"{RED['limit_pkts']} packets ({RED['limit_pkts'] / BDP_PKTS:.2g} BDP) (chosen). ns-3: RedQueueDisc with "
        "these values (LInterm = 1/max_p, LinkBandwidth and LinkDelay of the bottleneck, no ECN, no adaptive "
        f"variant, Ns1Compat false) over a {RED_DEVICE_PKTS}-packet device queue, so {RED_DEVICE_PKTS} packet waits "
        f"outside RED ({ns3_buffer} in all besides the one on the wire), the other router ports DropTail of "
        f"{ns3_buffer}. fctlab, RED at every router port (only the bottleneck's ever holds more than a few packets): "
        f"defaults, ns-2 red.cc semantics with buffer {RED['limit_pkts']}; preset ns3, device_queue_pkts "
        f"{RED_DEVICE_PKTS} and forced_drop_count keep with buffer {ns3_buffer}"
    )


def _params(g: dict, scale: str) -> dict:
    ens_n = g["ensemble"]
    return {
        "bottleneck": f"{captions.rate(C_BPS)}, one-way delay {RTT_MS / 2:g} ms (base RTT {RTT_MS:g} ms), DropTail",
        "hosts": f"{SENDERS} senders and receivers on {captions.rate(ACCESS_BPS)} links without delay (chosen); "
        "a host's own device never drops (fctlab's host NICs are unlimited; ns-3: a 2^20-packet device queue)",
        "packet": f"{MSS_BYTES} B payload + {HEADER_BYTES} B headers (ns-3's TCP, IPv4 and PPP)",
        "TCP": "NewReno, handshake, an ACK per segment, no SACK, no timestamps, min RTO 200 ms",
        "ns-3": "TcpNewReno with TcpClassicRecovery, LimitedTransmit on (its default), ConnTimeout 3 s (default)",
        "sizes": "40/30/20/10% of flows in the bins 1-10, 11-100, 101-1000, 1001-3000 packets, log-uniform within a "
        "bin (chosen so every bin has flows)",
        "arrivals": f"Poisson, {g['flows']} flows per cell, seed 1",
        "grid": f"buffers {', '.join(map(str, g['buffers']))} packets (1 BDP = {BDP_PKTS}), loads "
        f"{', '.join(f'{x:g}' for x in g['loads'])}, IW {', '.join(map(str, g['iws']))}",
        "RED cells": red_caption(g),
        "other schemes": schemes_caption(SCHEME_GRID[scale]),
        "noise": f"the ns3 preset run {ens_n} times per cell, on the cell's flows and on {ens_n - 1} copies with every "
        "start moved later by a uniform 0-100 us (chosen)",
    }


def _figure(p: Page, plot: dict, params: dict) -> Figure:
    fig, ax = p.subplots(1, 2, figsize=(11, 4))
    x = np.arange(len(plot["ns3"]))
    for i, what in enumerate(("mean", "p99")):
        ax[i].plot(x, [max(w[i] * 100, 0.5) for w in plot["default"]], "o", ms=4, label="fctlab defaults")
        ax[i].plot(x, [max(w[i] * 100, 0.5) for w in plot["ns3"]], "s", ms=4, label='fctlab preset "ns3"')
        if i == 0:
            noise = [w * 100 for w in plot["noise"]]
            ax[i].plot(x, noise, "_", color="grey", ms=8, label="noise: 95% prediction interval (worst bin)")
        ax[i].axhline((GOAL_MEAN, GOAL_P99)[i] * 100, color="k", ls="--", lw=0.8, label="goal")
        ax[i].set_yscale("log")
        ax[i].set_ylim(bottom=0.5)  # a bin that agrees to 0.5% or better sits on the axis
        style(ax[i], "grid cell (table order)", f"worst bin |{what} ratio - 1| (%)")
    caption = (
        "Worst size bin of each grid cell: the largest relative difference from ns-3 of a bin's mean (left) and 99th "
        "percentile (right) FCT, fctlab with its defaults and with the ns3 preset (the mean of its runs per cell); "
        "grey: the half-width of the interval in which one more run of the preset would fall with 95% probability, "
        "relative to ns-3, largest over the cell's bins. " + parameters(params)
    )
    return Figure(p.save(fig), caption)


@reproduction("crossval-ns3", title="Cross-validation against ns-3: FCT per size bin")
def crossval_ns3(out: Path, scale: str) -> list:
    """crossval-ns3: fctlab (defaults and the ns3 preset) against ns-3, per size bin."""
    from ... import ns3peer

    p = Page("crossval-ns3", out, scale)
    g = GRID[scale]
    ns3_reason = (
        None
        if ns3peer.installed()
        else "ns-3 is not installed; install it with python -m fctlab.ns3peer --install-only"
    )
    t = Tally()
    cells = list(grid_cells(g))
    for ci, cell in enumerate(cells):
        ns3_reason = run_cell(t, g, ((ci, len(cells)), cell), ns3_reason)
    ts, ns3_reason = run_schemes(scale, ns3_reason)
    cfg = scenario(flow_list(g["loads"][0], 3, 1), g["buffers"][0], transport(g["iws"][0], "ns3"))
    figures = [_figure(p, t.plot, _params(g, scale))] if t.plot["ns3"] else []
    notes = FINDINGS + ("\n\n" + RED_FINDINGS if g.get("red") else "") + "\n\n" + SCHEME_FINDINGS
    if ns3_reason is not None:
        notes = f"ns-3 did not run here ({ns3_reason}); the tables show fctlab's ns3 preset alone.\n\n" + notes
    for cell, why in ts.failed.items():
        notes += f"\n\nns-3 failed in the cell {cell} (its rows show fctlab alone): {why}"
    tables = [bins_table(t.rows)]
    if t.summary:
        tables = [cells_table(t.summary), pooled_table(t.pooled, t.tails, scipy_t_ppf)] + tables
    if ts.summary:
        tables.append(cells_table(ts.summary, "Other schemes (CUBIC, DCTCP, BBR, Vegas)"))
    tables.append(bins_table(ts.rows, "Other schemes (CUBIC, DCTCP, BBR, Vegas)"))
    return p.record(
        source=SOURCE,
        figures=figures,
        tables=tables,
        params={"fctlab (first cell)": cfg},
        seed=1,
        notes=notes,
    )
