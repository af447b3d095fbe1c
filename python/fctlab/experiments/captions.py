"""Caption text for the reproductions, read off the scenario a figure ran and the
engine's defaults (``fctlab list``), so that a caption states what was run."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import fctlab

#: How the captions name the transports.
SCHEME_NAMES = {
    "tcp-newreno": "NewReno",
    "tcp-reno": "Reno",
    "tcp-tahoe": "Tahoe",
    "tcp-hstcp": "HighSpeed TCP",
    "tcp-scalable": "Scalable TCP",
    "tcp-sack": "SACK",
    "xcp": "XCP",
    "rcp": "RCP",
}


@functools.lru_cache(maxsize=1)
def defaults() -> dict:
    """Every default the engine documents, by dotted key: the scenario parameters
    (``transport.min_rto_ms``) and each scheme's and queue's parameter table
    (``network.xcp.alpha``)."""
    cat = fctlab.catalog()
    out = {p["key"]: p["default"] for p in cat["parameters"]}
    for entry in cat["schemes"] + cat["queues"]:
        for p in entry["params"] if entry.get("table") else []:
            out.setdefault(f"{entry['table']}.{p['key']}", p["default"])
    return out


def value(cfg: Mapping[str, Any], key: str) -> Any:
    """The dotted ``key`` as the run had it: the scenario's value, else the default."""
    node: Any = cfg
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return defaults()[key]
        node = node[part]
    return node


def num(v: Any) -> str:
    """A parameter value as a caption writes it: numbers without trailing zeros."""
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return str(v) if isinstance(v, int) else f"{v:g}"


def rate(bps: float) -> str:
    """A link rate: ``2.4 Gb/s``."""
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= div:
            return f"{bps / div:.3g} {unit}"
    return f"{bps:g} b/s"


def packet(cfg: Mapping[str, Any]) -> str:
    """``1000 B payload + 40 B header``: the data packet the engine used."""
    d = fctlab.describe(cfg)
    return f"{d['mss_bytes']} B payload + {d['header_bytes']} B header"


def packet_bytes(cfg: Mapping[str, Any]) -> int:
    """Bytes of a data packet on the wire (payload plus header)."""
    d = fctlab.describe(cfg)
    return d["mss_bytes"] + d["header_bytes"]


def rtt(cfg: Mapping[str, Any]) -> str:
    """The base RTT of a single-link scenario: ``100 ms (single link, 50 ms each way)``."""
    one_way = value(cfg, "network.bottleneck_delay_ms")
    return f"{num(2 * one_way)} ms ({value(cfg, 'network.topology').replace('-', ' ')}, {num(one_way)} ms each way)"


def sizes(traffic: Mapping[str, Any]) -> str:
    """``Pareto, mean 30 pkts, shape 1.4``: a generator's size distribution."""
    s = dict(traffic["sizes"])
    dist = s.pop("dist")
    parts = [f"mean {num(s.pop('mean_pkts'))} pkts"] if "mean_pkts" in s else []
    parts += [f"{k} {num(v)}" for k, v in s.items()]
    return ", ".join([dist.capitalize()] + parts)


def tcp(cfg: Mapping[str, Any], *, min_rto: bool = True) -> str:
    """``NewReno, IW 2, SYN handshake, ACK per packet, min RTO 200 ms``."""
    scheme = value(cfg, "transport.scheme")
    parts = [
        SCHEME_NAMES.get(scheme, scheme),
        f"IW {num(value(cfg, 'transport.init_cwnd_pkts'))}",
        "SYN handshake" if value(cfg, "transport.handshake") else "no handshake",
        "delayed ACKs" if value(cfg, "transport.delayed_ack") else "ACK per packet",
    ]
    if min_rto:
        parts.append(f"min RTO {num(value(cfg, 'transport.min_rto_ms'))} ms")
    return ", ".join(parts)


def table(cfg: Mapping[str, Any], table: str, keys) -> str:
    """``alpha 0.4, beta 0.226``: parameters of a scheme's or queue's table
    (``network.xcp``) as the run had them."""
    return ", ".join(f"{k} {num(value(cfg, f'{table}.{k}'))}" for k in keys)


def single_link(cfg: Mapping[str, Any], *, load: str = "load") -> dict:
    """The workload of a single-link scenario as it ran (its first traffic
    generator): link rate, RTT, load (under the key ``load``), sizes, packet."""
    g = cfg["traffic"][0]
    return {
        "C": rate(value(cfg, "network.bottleneck_bps")),
        "RTT": rtt(cfg),
        load: g["load"],
        "flow sizes": sizes(g),
        "packet": packet(cfg),
    }


def scheme(cfg: Mapping[str, Any]) -> str:
    """How the captions name the scenario's transport (``NewReno``, ``XCP``)."""
    s = value(cfg, "transport.scheme")
    return SCHEME_NAMES.get(s, s)
