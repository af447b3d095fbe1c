"""The captions of the zhuang2016-fig6 page, read off its table's rows and the scenarios run."""

from __future__ import annotations

from .. import captions
from ..dukkipati2006.scenarios import FIG12_SIZES
from ..page import parameters, quick_or_full
from .scenarios import ACCESS_FACTOR, ACCESS_VARIED, FLOWS, RUNS, SHORT_MEAN, SINGLE_LINK, SOURCE, TWO_HOSTS

PATCH, PATCH_SYN, PS_MODE, PS_MODE_SYN = (r[0] for r in RUNS[1:])


def readings() -> list:
    return [f"{w}: mean {captions.num(m)}, shape {captions.num(s)}" for m, s, w in FIG12_SIZES]


def _params(ran: dict, count: int) -> dict:
    cfg, rcp = ran[f"{RUNS[0][0]}, {readings()[0]}"], ran[f"{PATCH}, {readings()[0]}"]
    return {
        "C": captions.rate(cfg["network"]["bottleneck_bps"]),
        "RTT": f"{2 * cfg['network']['bottleneck_delay_ms']:g} ms (bottleneck "
        f"{cfg['network']['bottleneck_delay_ms']:g} ms each way, access link without delay)",
        "access link": f"{captions.num(ACCESS_FACTOR)} x C, unlimited host queue (not stated in the report, chosen; "
        f"{captions.num(ACCESS_VARIED)} x C in the table)",
        "load": cfg["traffic"][0]["load"],
        "sizes": "Pareto, both readings: "
        + " and ".join(f"mean {captions.num(m)} / shape {captions.num(s)} ({w})" for m, s, w in FIG12_SIZES),
        "packet": captions.packet(cfg),
        "flows per run": count,
        "buffer": f"{cfg['network']['buffer_pkts']:,} pkts at the router (as run-rcp.pl)",
        "TCP": captions.tcp(cfg),
        "RCP": f"{captions.table(rcp, 'network.rcp', ('alpha', 'beta'))}; mode ns2 (the patch's router and hosts) "
        "and mode ps, each with and without transport.rcp.data_with_syn",
        "seed": cfg["seed"],
    }


def figure_caption(rows: list, ran: dict, scale: str, count: int) -> str:
    """The caption of the FCT-by-size figure."""
    by = {(r[0], r[1], r[2]): r for r in rows}
    rd = readings()
    return (
        f"{SOURCE}: average FCT by flow size on two hosts joined through one router (the report: 'two clients "
        "connected through a single router', as the patch's test scripts), for both Pareto readings, against PS with "
        "and without the handshake's round trip. RCP as the patch (mode ns2) over PS, all flows: "
        + "; ".join(
            f"{r}: {by[(r, PATCH, TWO_HOSTS)][3]:.2f} (on fctlab's single link {by[(r, PATCH, SINGLE_LINK)][3]:.2f})"
            for r in rd
        )
        + ". The router between the hosts changes little: RCP's state is at the router's port either way. TCP over PS: "
        + "; ".join(f"{r}: {by[(r, RUNS[0][0], TWO_HOSTS)][3]:.2f}" for r in rd)
        + ". fctlab's default RCP (mode ps) over PS, all flows: "
        + "; ".join(
            f"{r}: {by[(r, PS_MODE, TWO_HOSTS)][3]:.2f} ({by[(r, PS_MODE_SYN, TWO_HOSTS)][3]:.2f} with data with the "
            "SYN)"
            for r in rd
        )
        + f" (see dukkipati2006-rcp-sensitivity). Scale: {quick_or_full(scale)} ({count:,} flows per run; full: "
        f"{FLOWS['full']:,}). " + parameters(_params(ran, count))
    )


def _smallest_sizes(ran: dict) -> dict:
    """The smallest flow of each Pareto reading: the law's scale, mean x (shape - 1) / shape."""
    out = {}
    for r in readings():
        s = ran[f"{RUNS[0][0]}, {r}"]["traffic"][0]["sizes"]
        out[r] = int(min(s["mean_pkts"] * (s["shape"] - 1) / s["shape"], 10**9))
    return out


def data_with_syn_caption(rows: list, ran: dict, short: dict) -> str:
    """The caption of the data-with-the-SYN figure."""
    by = {(r[0], r[1], r[2]): r for r in rows}
    pr = readings()[0]
    no, yes = by[(pr, PATCH, TWO_HOSTS)], by[(pr, PATCH_SYN, TWO_HOSTS)]
    load = ran[f"{RUNS[0][0]}, {pr}"]["traffic"][0]["load"]
    return (
        "The report's explanation of RCP's average FCT dipping below PS: RCP sends data with its first packet, which "
        "saves a round trip that the PS curve (1.5 RTT + L/(C(1-rho)), the handshake counted) includes. Mean FCT over "
        "PS by size, RCP with and without transport.rcp.data_with_syn (the first data packet right behind the SYN). "
        "On this workload the option hardly matters: it saves a whole round trip only for one-packet flows (0.5 RTT "
        "instead of 1.5, the dashed line), and the Pareto sizes start at about "
        + " and ".join(f"{v} packets ({k})" for k, v in _smallest_sizes(ran).items())
        + "; a longer flow still waits for the SYN-ACK's rate and gains one packet's time. In mode ns2 "
        f"({pr}) the smallest tenth of the flows take {no[4]:.3f}x PS without it and {yes[4]:.3f}x with it "
        f"({no[5]:.0%} and {yes[5]:.0%} of them below PS); the lowest size bin is at {no[6]:.2f}x and {yes[6]:.2f}x. "
        "Where RCP's mean falls below PS here it is for another reason: the PS curve assumes the nominal load "
        f"{load:g}, and the flows sampled offer less (realised load {no[7]:.2f}, table), so flows see fewer "
        "competitors than PS's mean assumes. Right: where the option matters, the same link and load with "
        f"exponential sizes of mean {SHORT_MEAN} packets (one flow in {SHORT_MEAN} is a single packet): one-packet "
        f"flows take {short[False][0]:.2f}x PS without it and {short[True][0]:.2f}x with it (a third: 0.5 RTT "
        f"against 1.5), and all flows {short[False][1]:.2f}x against {short[True][1]:.2f}x; larger flows gain a "
        "packet's time. Parameters as above."
    )
