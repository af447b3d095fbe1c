"""Zhuang & Kaiser-Pendergrast, "Why Flow-Completion Time is the Right Metric
for Congestion Control (Rate Control Protocol)", CS244 reproduction, Stanford,
2016: the RCP figure of Dukkipati & McKeown (CCR 2006, Fig. 12) re-run in
ns-2 with the released RCP patch, on two hosts joined through one router, for
both readings of the Pareto sizes; and the report's explanation of RCP's
average FCT dipping below processor sharing (data sent with the first packet).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import fctlab

from .. import ideal
from ..plots import loglog, mean_by_size, params_caption, pyplot, save
from ..progress import RunProgress
from ..report import Figure, Reproduction, Table
from . import captions
from .dukkipati2006 import (
    C_BPS,
    FIG12_BUFFER_PKTS,
    FIG12_SIZES,
    HEADER_BYTES,
    MSS_BYTES,
    PKT_BYTES,
    RHO,
    RTT_S,
    fig12_scenario,
)

SOURCE = "Zhuang & Kaiser-Pendergrast, CS244 2016 (RCP, after Dukkipati & McKeown CCR 2006 Fig. 12)"
FLOWS = {"full": 500_000, "quick": 50_000}
#: The access link of the sending host: 10 x the bottleneck, no delay (chosen;
#: the report does not give it); varied once to the bottleneck's rate.
ACCESS_FACTOR, ACCESS_VARIED = 10.0, 1.0
#: Mean of the exponential sizes of the short-flow workload (chosen).
SHORT_MEAN = 5
#: (label, transport, network.queue, RCP mode or None, data_with_syn)
RUNS = (
    ("TCP NewReno", {"scheme": "tcp-newreno"}, "droptail", None, False),
    ("RCP, mode ns2 (the patch)", {"scheme": "rcp"}, "rcp", "ns2", False),
    ("RCP, mode ns2, data with the SYN", {"scheme": "rcp"}, "rcp", "ns2", True),
    ("RCP, mode ps", {"scheme": "rcp"}, "rcp", "ps", False),
    ("RCP, mode ps, data with the SYN", {"scheme": "rcp"}, "rcp", "ps", True),
)


def two_host_scenario(
    transport: dict,
    queue: str,
    mode,
    data_with_syn: bool,
    mean_pkts: float,
    shape: float,
    count: int,
    access_factor: float = ACCESS_FACTOR,
) -> dict:
    """Fig. 12's workload on a sending host, one router and a receiving host:
    the host's access link (unlimited NIC queue) into the router, whose port
    onto the 2.4 Gb/s, 50 ms bottleneck holds the buffer and the RCP state."""
    cfg = fig12_scenario(dict(transport), queue, mean_pkts, shape, count)
    cfg["network"].update(
        {"topology": "half-dumbbell", "senders": 1, "access_bps": access_factor * C_BPS, "access_delay_ms": 0.0}
    )
    if mode is not None:
        cfg["network"]["rcp"] = {"mode": mode}
        cfg["transport"]["rcp"] = {"mode": mode, "data_with_syn": data_with_syn}
    return cfg


def _run(cfg: dict, label: str):
    prog = RunProgress(label=f"  {label}: ")
    try:
        return fctlab.run(cfg, progress=prog)
    finally:
        prog.close()


def _small(f):
    """The smallest tenth of the flows (by size; ties included)."""
    return f["size_pkts"] <= f["size_pkts"].quantile(0.1)


def _lowest_bin(f) -> float:
    """The lowest, over size bins (4 per decade), of mean FCT over mean analytic PS FCT."""
    a, p = mean_by_size(f, bins_per_decade=4), mean_by_size(f, value="ps_formula", bins_per_decade=4)
    return float((a["mean"] / p["mean"]).min())


def _realised_load(res, cfg) -> float:
    """Bytes on the wire the run's flows offered, over C times the span of their arrivals."""
    f = res.flows
    wire = float((f["size_bytes"] + cfg["transport"]["header_bytes"] * f["size_pkts"]).sum()) * 8
    return wire / C_BPS / ((f["start_ns"].max() - f["start_ns"].min()) / 1e9)


def _below_ps(f) -> float:
    """Share of the smallest tenth of the completed flows whose FCT is below
    the analytic PS FCT of their size (1.5 RTT + L/(C(1 - rho)))."""
    f = f[f["completed"]]
    g = f[_small(f)]
    ps = ideal.ps_fct_ns(g["size_pkts"].to_numpy() * PKT_BYTES, C_BPS, RHO, RTT_S * 1e9)
    return float((g["fct_ns"].to_numpy() < ps).mean()) if len(g) else float("nan")


def fig6(out: Path, scale: str) -> list:
    """The RCP figure on two hosts and one router, both Pareto readings; RCP with data sent with the SYN."""
    full = scale == "full"
    count = FLOWS["full" if full else "quick"]
    t0 = time.monotonic()
    plt = pyplot()
    figa, axa = plt.subplots(1, len(FIG12_SIZES), figsize=(11.5, 4.5), squeeze=False)
    figb, axb = plt.subplots(1, len(FIG12_SIZES) + 1, figsize=(15, 4.2), squeeze=False)
    rows, ran = [], {}
    for j, (mean_pkts, shape, whose) in enumerate(FIG12_SIZES):
        reading = f"{whose}: mean {captions.num(mean_pkts)}, shape {captions.num(shape)}"
        top = 10
        for k, (label, tr, queue, mode, dws) in enumerate(RUNS):
            cfg = two_host_scenario(tr, queue, mode, dws, mean_pkts, shape, count)
            ran[f"{label}, {reading}"] = cfg
            res = _run(cfg, f"{label} ({reading})")
            f = res.flows[res.flows["completed"]]
            agg = mean_by_size(f)
            axa[0, j].plot(agg["size_pkts"], agg["mean"] / 1e9, "os^v<"[k] + "-", ms=3, lw=0.9, label=label)
            top = max(top, float(agg["size_pkts"].max()))
            L = f["size_pkts"].to_numpy()
            f = f.assign(ps_formula=ideal.ps_fct_ns(L * PKT_BYTES, C_BPS, RHO, RTT_S * 1e9))
            if mode is not None:
                a, p = mean_by_size(f, bins_per_decade=4), mean_by_size(f, value="ps_formula", bins_per_decade=4)
                axb[0, j].plot(a["size_pkts"], a["mean"] / p["mean"], "os^v<"[k] + "-", ms=3, lw=0.9, label=label)
            small = f[_small(f)]
            rows.append(
                [
                    reading,
                    label,
                    "two hosts, one router",
                    float(f["fct_ns"].mean() / f["ps_formula"].mean()),
                    float(small["fct_ns"].mean() / small["ps_formula"].mean()),
                    _below_ps(res.flows),
                    _lowest_bin(f),
                    _realised_load(res, cfg),
                    f"{len(f):,} / {len(res.flows):,}",
                ]
            )
        # The same RCP on the single link (fctlab's Fig. 12 set-up), and the access link varied once.
        for label, cfg in (
            (
                "RCP, mode ns2 (the patch)",
                fig12_scenario({"scheme": "rcp", "rcp": {"mode": "ns2"}}, "rcp", mean_pkts, shape, count),
            ),
            (
                "RCP, mode ns2 (the patch)",
                two_host_scenario({"scheme": "rcp"}, "rcp", "ns2", False, mean_pkts, shape, count, ACCESS_VARIED),
            ),
        ):
            where = (
                "single link (fctlab's Fig. 12)"
                if cfg["network"]["topology"] == "single-link"
                else f"two hosts, access = {captions.num(ACCESS_VARIED)} x C"
            )
            if cfg["network"]["topology"] == "single-link":
                cfg["network"]["rcp"] = {"mode": "ns2"}
            ran[f"{label}, {reading}, {where}"] = cfg
            res = _run(cfg, f"{label} ({reading}, {where})")
            f = res.flows[res.flows["completed"]]
            L = f["size_pkts"].to_numpy()
            f = f.assign(ps_formula=ideal.ps_fct_ns(L * PKT_BYTES, C_BPS, RHO, RTT_S * 1e9))
            small = f[_small(f)]
            rows.append(
                [
                    reading,
                    label,
                    where,
                    float(f["fct_ns"].mean() / f["ps_formula"].mean()),
                    float(small["fct_ns"].mean() / small["ps_formula"].mean()),
                    _below_ps(res.flows),
                    _lowest_bin(f),
                    _realised_load(res, cfg),
                    f"{len(f):,} / {len(res.flows):,}",
                ]
            )
        Ls = np.unique(np.round(np.logspace(0, np.log10(top), 300)).astype(int))
        ps = ideal.ps_fct_ns(Ls * PKT_BYTES, C_BPS, RHO, RTT_S * 1e9) / 1e9
        axa[0, j].plot(Ls, ps, "k-", lw=1, label="PS, 1.5 RTT + L/(C(1-rho))")
        axa[0, j].plot(Ls, ps - RTT_S, "k--", lw=1, label="PS without the handshake, 0.5 RTT + L/(C(1-rho))")
        loglog(axa[0, j], "flow size (packets)", "average FCT (s)", legend_size=7)
        axa[0, j].set_title(reading, fontsize=9)
        axb[0, j].axhline(1, color="k", lw=0.8)
        axb[0, j].axhline(
            (0.5 * RTT_S) / (1.5 * RTT_S), color="k", ls="--", lw=0.8, label="a 1-packet flow without the handshake"
        )
        axb[0, j].set_xscale("log")
        axb[0, j].set_xlabel("flow size (packets)")
        axb[0, j].set_ylabel("mean FCT / PS FCT (analytic)")
        axb[0, j].set_title(reading, fontsize=9)
        axb[0, j].grid(True, which="both", alpha=0.3)
        axb[0, j].legend(fontsize=7)
    # Where the option matters: the same link and load with short flows,
    # exponential sizes of mean SHORT_MEAN packets (a fifth of them one packet).
    ax = axb[0, len(FIG12_SIZES)]
    short = {}
    for k, dws in enumerate((False, True)):
        cfg = two_host_scenario({"scheme": "rcp"}, "rcp", "ns2", dws, 25, 1.2, count)
        cfg["traffic"][0]["sizes"] = {"dist": "exponential", "mean_pkts": SHORT_MEAN}
        label = "RCP, mode ns2" + (", data with the SYN" if dws else "")
        ran[f"{label}, exponential sizes of mean {SHORT_MEAN}"] = cfg
        res = _run(cfg, f"{label} (exponential, mean {SHORT_MEAN})")
        f = res.flows[res.flows["completed"]]
        f = f.assign(ps_formula=ideal.ps_fct_ns(f["size_pkts"].to_numpy() * PKT_BYTES, C_BPS, RHO, RTT_S * 1e9))
        by_l = f.groupby("size_pkts").agg(fct=("fct_ns", "mean"), ps=("ps_formula", "mean"), n=("fct_ns", "size"))
        by_l = by_l[by_l["n"] >= 20]
        ax.plot(by_l.index, by_l["fct"] / by_l["ps"], "o-" if not dws else "s-", ms=3, lw=0.9, label=label)
        one = f[f["size_pkts"] == 1]
        short[dws] = (
            float(one["fct_ns"].mean() / one["ps_formula"].mean()),
            float((f["fct_ns"] / f["ps_formula"]).mean()),
        )
    ax.axhline(1, color="k", lw=0.8)
    ax.axhline(1 / 3, color="k", ls="--", lw=0.8, label="a 1-packet flow without the handshake")
    ax.set_xscale("log")
    ax.set_xlabel("flow size (packets)")
    ax.set_title(f"exponential sizes, mean {SHORT_MEAN} packets", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    png_a = save(figa, out, "zhuang2016-fig6.png")
    for a in axb[0]:
        a.set_yscale("log")
    png_b = save(figb, out, "zhuang2016-fig6-data-with-syn.png")
    table = Table(
        title="Mean FCT over the analytic PS FCT (all flows; the smallest tenth of the flows by size), and the share of those small "
        "flows that finish faster than PS",
        columns=[
            "Pareto reading",
            "scheme",
            "set-up",
            "mean FCT / PS",
            "smallest tenth of the flows: mean FCT / PS",
            "smallest tenth below PS",
            "lowest size bin: mean FCT / PS",
            "realised load",
            "completed / flows",
        ],
        rows=rows,
        key_columns=3,
    )
    by = {(r[0], r[1], r[2]): r for r in rows}
    rd = [f"{w}: mean {captions.num(m)}, shape {captions.num(s)}" for m, s, w in FIG12_SIZES]
    two = "two hosts, one router"
    cfg0 = ran[next(iter(ran))]
    params = {
        "C": captions.rate(C_BPS),
        "RTT": f"{RTT_S * 1e3:g} ms (bottleneck 50 ms each way, access link without delay)",
        "access link": f"{captions.num(ACCESS_FACTOR)} x C, unlimited host queue (not stated in the report, chosen; "
        f"{captions.num(ACCESS_VARIED)} x C in the table)",
        "load": RHO,
        "sizes": "Pareto, both readings: the paper's mean 25 / shape 1.2 and the released scripts' 30 / 1.8",
        "packet": f"{MSS_BYTES} B payload + {HEADER_BYTES} B header",
        "flows per run": count,
        "buffer": f"{FIG12_BUFFER_PKTS:,} pkts at the router (as run-rcp.pl)",
        "TCP": captions.tcp(cfg0),
        "RCP": "alpha 0.1, beta 1; mode ns2 (the patch's router and hosts) and mode ps, each with and without "
        "transport.rcp.data_with_syn",
        "seed": 1,
    }
    ca = (
        f"{SOURCE}: average FCT by flow size on two hosts joined through one router (the report: 'two clients "
        "connected through a single router', as the patch's test scripts), for both Pareto readings, against PS with "
        "and without the handshake's round trip. RCP as the patch (mode ns2) over PS, all flows: "
        + "; ".join(
            f"{r}: {by[(r, 'RCP, mode ns2 (the patch)', two)][3]:.2f} (on fctlab's single link "
            f"{by[(r, 'RCP, mode ns2 (the patch)', 'single link (fctlab' + chr(39) + 's Fig. 12)')][3]:.2f})"
            for r in rd
        )
        + ". The router between the hosts changes little: RCP's state is at the router's port either way. TCP over PS: "
        + "; ".join(f"{r}: {by[(r, 'TCP NewReno', two)][3]:.2f}" for r in rd)
        + ". fctlab's default RCP (mode ps) over PS, all flows: "
        + "; ".join(
            f"{r}: {by[(r, 'RCP, mode ps', two)][3]:.2f} ({by[(r, 'RCP, mode ps, data with the SYN', two)][3]:.2f} "
            "with data with the SYN)"
            for r in rd
        )
        + " (see dukkipati2006-rcp-sensitivity). "
        f"Scale: {'full' if full else 'quick'} ({count:,} flows per run; full: {FLOWS['full']:,}). Parameters: {params_caption(params)}."
    )
    pr = rd[0]
    no, yes = by[(pr, "RCP, mode ns2 (the patch)", two)], by[(pr, "RCP, mode ns2, data with the SYN", two)]
    smallest = {
        r: int(
            min(
                c["traffic"][0]["sizes"]["mean_pkts"]
                * (c["traffic"][0]["sizes"]["shape"] - 1)
                / c["traffic"][0]["sizes"]["shape"],
                10**9,
            )
        )
        for r, c in zip(rd, (ran[f"TCP NewReno, {x}"] for x in rd))
    }
    cb = (
        "The report's explanation of RCP's average FCT dipping below PS: RCP sends data with its first packet, which "
        "saves a round trip that the PS curve (1.5 RTT + L/(C(1-rho)), the handshake counted) includes. Mean FCT over "
        "PS by size, RCP with and without transport.rcp.data_with_syn (the first data packet right behind the SYN). "
        "On this workload the option hardly matters: it saves a whole round trip only for one-packet flows (0.5 RTT "
        "instead of 1.5, the dashed line), and the Pareto sizes start at about "
        + " and ".join(f"{v} packets ({k})" for k, v in smallest.items())
        + "; a longer flow still waits for the SYN-ACK's rate and gains one packet's time. In mode ns2 "
        f"({pr}) the smallest tenth of the flows take {no[4]:.3f}x PS without it and {yes[4]:.3f}x with it "
        f"({no[5]:.0%} and {yes[5]:.0%} of them below PS); the lowest size bin is at {no[6]:.2f}x and {yes[6]:.2f}x. "
        "Where RCP's mean falls below PS here it is for another reason: the PS curve assumes the nominal load "
        f"{RHO:g}, and the flows sampled offer less (realised load {no[7]:.2f}, table), so flows see fewer "
        "competitors than PS's mean assumes. Right: where the option matters, the same link and load with "
        f"exponential sizes of mean {SHORT_MEAN} packets (one flow in {SHORT_MEAN} is a single packet): one-packet flows "
        f"take {short[False][0]:.2f}x PS without it and {short[True][0]:.2f}x with it (a third: 0.5 RTT against 1.5), "
        f"and all flows {short[False][1]:.2f}x against {short[True][1]:.2f}x; larger flows gain a packet's time. "
        "Parameters as above."
    )
    return [
        Reproduction(
            name="zhuang2016-fig6",
            title="The RCP figure on two hosts and one router; data with the SYN (CS244 2016)",
            source=SOURCE,
            figures=[Figure(png_a, ca), Figure(png_b, cb)],
            tables=[table],
            params=ran,
            seed=1,
            wall_s=time.monotonic() - t0,
            scale=scale,
            notes="The report calls the figure it reproduces 'Figure (6)'; it is the RCP figure of Dukkipati & "
            "McKeown, CCR 2006 (Fig. 12 there).",
        )
    ]
