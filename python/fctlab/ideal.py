"""Ideal baselines for flow-completion time, computed rather than simulated.

Analytic formulas (scalars or numpy arrays of sizes):

- `ps_sojourn_ns` -- M/G/1 processor sharing, ``E[T | x] = x / (C (1 - rho))``.
- `ps_slowdown` -- its slowdown ``1 / (1 - rho)``, the same for every size.
- `ps_fct_ns` -- the PS FCT curve of the RCP papers, ``1.5 RTT + L / (C (1 - rho))``.
- `srpt_sojourn_ns` -- M/G/1 SRPT (Schrage--Miller) for a given size law.
- `slow_start_rounds`, `slow_start_fct_ns` -- the TCP slow-start bound of
  Dukkipati & McKeown (2006), ``(ceil(log2(L + 1)) + 1/2) RTT + L / C``, generalised.

Flow-level (fluid) simulators of an actual workload (finish times in integer ns):

- `fluid_ps` -- processor sharing on one link, O(log n) per event.
- `fluid_srpt` -- preemptive shortest-remaining-processing-time on one link.
- `fluid_maxmin` -- max-min fair sharing on any topology; `maxmin_rates`
  gives the rates of a set of simultaneously active flows.
- `optimal_transfer_ns` -- the 'optimal' file transfer time of the 1991
  benchmark suite of Kanakia, Keshav & Mishra.

Round-by-round models of the 2006 paper's deterministic examples (exact, in
rational arithmetic):

- `rounds_slow_start` -- flows in TCP slow start (Fig. 3).
- `rounds_equal_share` -- a server that gives every flow in the system an
  equal share of the link each round trip, as XCP approximately does (Fig. 4).

Units are in the names: ``_bytes``, ``_pkts``, ``_bps``, ``_ns``. Propagation delay is
not part of the fluid models; add it yourself (``ps_fct_ns`` and
``optimal_transfer_ns`` add it as their sources define). Every bad argument raises
``ValueError`` with a message that starts with the argument's name.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _core

__all__ = [
    "ps_sojourn_ns",
    "ps_slowdown",
    "ps_fct_ns",
    "srpt_sojourn_ns",
    "slow_start_rounds",
    "slow_start_fct_ns",
    "fluid_ps",
    "fluid_srpt",
    "fluid_maxmin",
    "maxmin_rates",
    "optimal_transfer_ns",
    "optimal_transfer",
    "RoundModel",
    "rounds_slow_start",
    "rounds_equal_share",
]


# --------------------------------------------------------------------------- inputs


def _floats(name: str, x: Any) -> tuple[np.ndarray, tuple[int, ...] | None]:
    """A flat float64 array, and the input's shape (None for a scalar)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number or an array of numbers, got {x!r}") from None
    shape = None if a.ndim == 0 else a.shape
    return np.ascontiguousarray(a.ravel()), shape


def _ints(name: str, x: Any) -> tuple[np.ndarray, tuple[int, ...] | None]:
    """A flat int64 array of whole numbers (floats must be integral)."""
    a = np.asarray(x)
    shape = None if a.ndim == 0 else a.shape
    flat = a.ravel()
    if flat.dtype.kind in "iu":
        if flat.dtype.kind == "u" and flat.size and flat.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name}: values above 2**63 - 1 are not supported")
        return np.ascontiguousarray(flat.astype(np.int64)), shape
    if flat.dtype.kind == "b":
        raise ValueError(f"{name}: must be whole numbers, got booleans")
    try:
        f = flat.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be whole numbers, got {x!r}") from None
    bad = ~np.isfinite(f) | (f != np.round(f)) | (np.abs(f) > 2.0**63)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = f"{name}[{i}]" if shape is not None else name
        raise ValueError(f"{where}: must be a whole number, got {f[i]!r}")
    return np.ascontiguousarray(f.astype(np.int64)), shape


def _number(name: str, x: Any) -> float:
    """One real number."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name}: must be a number, got {x!r}")
    return float(x)


def _integer(name: str, x: Any) -> int:
    """One whole number."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name}: must be a whole number, got {x!r}")
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real) and float(x).is_integer():
        return int(x)
    raise ValueError(f"{name}: must be a whole number, got {x!r}")


def _vectorised(name: str, shape: tuple[int, ...] | None, fn: Any, *args: Any) -> Any:
    """Call a vectorised binding; for a scalar input, name the argument without
    the ``[0]`` the binding adds to the failing element."""
    try:
        return fn(*args)
    except ValueError as e:
        msg = str(e)
        if shape is None and msg.startswith(f"{name}[0]:"):
            raise ValueError(name + msg[len(name) + 3 :]) from None
        raise


def _shaped(out: np.ndarray, shape: tuple[int, ...] | None) -> Any:
    """Back to the caller's shape: a Python scalar for a scalar input."""
    if shape is None:
        return out[0].item()
    return out.reshape(shape)


def _routes(routes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Routes as (links end to end, offsets): route i = links[offsets[i]:offsets[i+1]].

    Accepts a sequence with one route per flow, each a sequence of link ids or a
    single link id; a 1-D integer array (one link per flow); a 2-D integer array
    (one row per flow)."""
    if isinstance(routes, np.ndarray) and routes.dtype.kind in "iu" and routes.ndim in (1, 2):
        rows = routes.reshape(-1, 1) if routes.ndim == 1 else routes
        offsets = np.arange(rows.shape[0] + 1, dtype=np.int64) * rows.shape[1]
        return np.ascontiguousarray(rows.astype(np.int64).ravel()), offsets
    if isinstance(routes, (str, bytes)) or not isinstance(routes, (Sequence, np.ndarray)):
        raise ValueError(f"routes: must be a sequence with one route (a list of link ids) per flow, got {routes!r}")
    fast = _routes_fast(routes)
    if fast is not None:
        return fast
    links: list[int] = []
    offsets = [0]
    for i, r in enumerate(routes):
        hops = [r] if isinstance(r, (numbers.Integral, np.integer)) else r
        try:
            for h, link in enumerate(hops):
                links.append(_integer(f"routes[{i}][{h}]", link))
        except TypeError:
            raise ValueError(f"routes[{i}]: must be a link id or a sequence of link ids, got {r!r}") from None
        offsets.append(len(links))
    return np.asarray(links, dtype=np.int64), np.asarray(offsets, dtype=np.int64)


def _routes_fast(routes: Sequence) -> tuple[np.ndarray, np.ndarray] | None:
    """The common case, a sequence of sequences of whole numbers, without a Python
    loop per link id; None if anything is unusual (the careful path then names it)."""
    try:
        lens = np.fromiter((len(r) for r in routes), dtype=np.int64, count=len(routes))
        flat = np.fromiter(itertools.chain.from_iterable(routes), dtype=np.float64, count=int(lens.sum()))
    except (TypeError, ValueError):
        return None
    if not np.all(np.isfinite(flat) & (flat == np.round(flat))):
        return None
    offsets = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    return flat.astype(np.int64), offsets


def _links(links_bps: Any) -> np.ndarray:
    a, _ = _floats("links_bps", links_bps)
    return a


# ------------------------------------------------------------------------- formulas


def ps_sojourn_ns(size_bytes: Any, capacity_bps: float, load: float) -> Any:
    """M/G/1 processor-sharing conditional mean sojourn time, in ns.

    ``E[T | x] = x / (C (1 - rho))`` with ``x = 8 * size_bytes`` bits and ``C`` =
    ``capacity_bps`` (Kleinrock 1976, vol. 2 section 4.4; the PS curve of
    Dukkipati & McKeown 2006, Figs 1, 2 and 12). It depends on the size law only
    through the load ``rho`` (in [0, 1)).

    ``size_bytes`` may be a scalar (returns a float) or an array (same shape).
    """
    x, shape = _floats("size_bytes", size_bytes)
    out = _vectorised(
        "size_bytes", shape, _core.ideal_ps_sojourn_ns, x, _number("capacity_bps", capacity_bps), _number("load", load)
    )
    return _shaped(out, shape)


def ps_slowdown(load: float) -> float:
    """The M/G/1-PS mean slowdown ``E[T | x] / (x / C) = 1 / (1 - rho)``, the same
    for every flow size."""
    return _core.ideal_ps_slowdown(_number("load", load))


def ps_fct_ns(size_bytes: Any, capacity_bps: float, load: float, rtt_ns: float, *, handshake: bool = True) -> Any:
    """The PS flow-completion time as the RCP papers draw it, in ns.

    ``FCT = 1.5 RTT + L / (C (1 - rho))`` (Dukkipati, Kobayashi, Zhang-Shen &
    McKeown, "Processor Sharing Flows in the Internet", IWQoS 2005, cited by the
    2006 FCT paper): one RTT for the SYN / SYN-ACK exchange (the 2006 paper
    measures FCT from the SYN), half an RTT for the last byte to reach the
    receiver, and the M/G/1-PS sojourn of `ps_sojourn_ns`. With
    ``handshake=False`` the first term is ``0.5 RTT``.
    """
    x, shape = _floats("size_bytes", size_bytes)
    out = _vectorised(
        "size_bytes",
        shape,
        _core.ideal_ps_fct_ns,
        x,
        _number("capacity_bps", capacity_bps),
        _number("load", load),
        _number("rtt_ns", rtt_ns),
        bool(handshake),
    )
    return _shaped(out, shape)


def _law(dist: Any) -> dict:
    if isinstance(dist, Mapping):
        d = dict(dist)
        if "samples_bytes" in d:
            d["samples_bytes"], _ = _floats("dist.samples_bytes", d["samples_bytes"])
        return d
    if isinstance(dist, (np.ndarray, Sequence)) and not isinstance(dist, (str, bytes)):
        samples, _ = _floats("dist", dist)
        return {"dist": "empirical", "samples_bytes": samples}
    raise ValueError(
        "dist: must be a dict such as {'dist': 'pareto', 'mean_bytes': 25e3, 'shape': 1.2}, "
        f"or an array of sampled sizes in bytes; got {dist!r}"
    )


def srpt_sojourn_ns(size_bytes: Any, dist: Any, capacity_bps: float, load: float) -> Any:
    """M/G/1 shortest-remaining-processing-time conditional mean sojourn time, ns.

    Schrage & Miller (1966), with service times ``t = 8 bytes / C`` and
    ``rho(x) = lambda * integral_0^x t dF(t)``::

        E[T(x)] = lambda m2(x) / (2 (1 - rho(x-)) (1 - rho(x))) + integral_0^x dt / (1 - rho(t))
        m2(x)   = integral_0^x t^2 dF(t) + x^2 (1 - F(x))

    (for a continuous law the denominator is the familiar ``2 (1 - rho(x))^2``;
    where the law has an atom at ``x``, equal sizes are served first-come
    first-served). The residence integral is exact for fixed and empirical laws
    and adaptive Simpson (relative error ~1e-10) for the continuous ones.

    ``dist`` is the size law, in bytes, as a dict:

    - ``{"dist": "pareto", "mean_bytes": m, "shape": a}`` (a > 1; scale m (a-1)/a)
    - ``{"dist": "exponential", "mean_bytes": m}``
    - ``{"dist": "fixed", "bytes": s}``
    - ``{"dist": "uniform", "min_bytes": a, "max_bytes": b}``
    - ``{"dist": "empirical", "samples_bytes": array}``, or just the array

    (``mean_pkts``, ``pkts``, ``min_pkts``, ``max_pkts`` with ``pkt_bytes`` are
    accepted too). The workload generator rounds Pareto and exponential sizes up
    to whole packets; pass the generated sizes as an empirical law to match it
    exactly. ``load`` is ``rho = lambda E[S]`` in [0, 1).
    """
    x, shape = _floats("size_bytes", size_bytes)
    out = _vectorised(
        "size_bytes",
        shape,
        _core.ideal_srpt_sojourn_ns,
        x,
        _law(dist),
        _number("capacity_bps", capacity_bps),
        _number("load", load),
    )
    return _shaped(out, shape)


def slow_start_rounds(size_pkts: Any, init_cwnd_pkts: int = 1) -> Any:
    """Slow-start rounds to send ``size_pkts`` packets with an initial window of
    ``init_cwnd_pkts`` that doubles every RTT: the smallest ``k >= 1`` with
    ``w (2**k - 1) >= L``, i.e. ``ceil(log2(L / w + 1))``."""
    sizes, shape = _ints("size_pkts", size_pkts)
    out = _vectorised(
        "size_pkts", shape, _core.ideal_slow_start_rounds, sizes, _integer("init_cwnd_pkts", init_cwnd_pkts)
    )
    return _shaped(out, shape)


def slow_start_fct_ns(
    size_pkts: Any,
    capacity_bps: float,
    rtt_ns: float,
    *,
    pkt_bytes: float = 1000.0,
    init_cwnd_pkts: int = 1,
    handshake: bool = True,
) -> Any:
    """The TCP slow-start FCT bound, in ns (queueing excluded).

    Dukkipati & McKeown 2006, section II-A: ``FCT = (ceil(log2(L + 1)) + 1/2) RTT + L / C``
    for a window starting at one packet, handshake included. Generalised to an
    initial window ``w`` and an optional handshake::

        FCT = (h + k - 1 + 1/2) RTT + 8 L pkt_bytes / C,   k = slow_start_rounds(L, w)

    ``h = 1`` with ``handshake`` (the SYN / SYN-ACK round trip); data round ``j``
    leaves ``h + j - 1`` RTTs after the start, and the last one reaches the
    receiver half an RTT later. The defaults (``w = 1``, handshake) give the
    paper's formula; the thesis of Mussmann (2012) uses ``w = 2`` and ``w = 10``.
    Assumes one ACK per packet (no delayed ACKs), no loss, no receiver limit.
    """
    sizes, shape = _ints("size_pkts", size_pkts)
    out = _vectorised(
        "size_pkts",
        shape,
        _core.ideal_slow_start_fct_ns,
        sizes,
        _number("pkt_bytes", pkt_bytes),
        _number("capacity_bps", capacity_bps),
        _number("rtt_ns", rtt_ns),
        _integer("init_cwnd_pkts", init_cwnd_pkts),
        bool(handshake),
    )
    return _shaped(out, shape)


# ---------------------------------------------------------------- fluid simulators


def _flows(starts_ns: Any, sizes_bytes: Any) -> tuple[np.ndarray, np.ndarray]:
    starts, _ = _ints("starts_ns", starts_ns)
    sizes, _ = _floats("sizes_bytes", sizes_bytes)
    return np.atleast_1d(starts), np.atleast_1d(sizes)


def fluid_ps(starts_ns: Any, sizes_bytes: Any, capacity_bps: float) -> np.ndarray:
    """Processor sharing of the given flows on one link: each flow's finish time.

    Each of the ``n(t)`` active flows is served at ``C / n(t)``, recomputed at
    every arrival and departure (Kleinrock 1976, section 4.4). O(log n) per
    event by the link's virtual time. ``starts_ns`` are integer ns, ``sizes_bytes``
    the bytes each flow puts on the wire (> 0). Returns an int64 array of finish
    times in ns (absolute, rounded to the nearest ns), in input order; the FCT is
    ``finish - start``. Propagation delay is not included.
    """
    starts, sizes = _flows(starts_ns, sizes_bytes)
    return _core.ideal_fluid_ps(starts, sizes, _number("capacity_bps", capacity_bps))


def fluid_srpt(starts_ns: Any, sizes_bytes: Any, capacity_bps: float) -> np.ndarray:
    """Preemptive SRPT of the given flows on one link: each flow's finish time.

    The whole link serves the active flow with the least remaining work (Schrage
    1968: the policy that minimises the mean sojourn time on one server); ties
    go to the earlier arrival. Arguments and result as `fluid_ps`.
    """
    starts, sizes = _flows(starts_ns, sizes_bytes)
    return _core.ideal_fluid_srpt(starts, sizes, _number("capacity_bps", capacity_bps))


def fluid_maxmin(links_bps: Any, starts_ns: Any, sizes_bytes: Any, routes: Any) -> np.ndarray:
    """Max-min fair sharing of the given flows on any topology: finish times, ns.

    ``links_bps[l]`` is the capacity of link ``l``; ``routes[i]`` the link ids flow
    ``i`` crosses (a list per flow; a single int, a 1-D int array or a 2-D int
    array also work). At every arrival and departure the active flows get the
    progressive-filling max-min rates (Bertsekas & Gallager, *Data Networks*,
    section 6.5.2): processor sharing generalised to a network. Where every
    route is one link this is exactly `fluid_ps` on each link. Returns
    int64 finish times in ns, in input order; propagation is not included.
    """
    starts, sizes = _flows(starts_ns, sizes_bytes)
    route_links, offsets = _routes(routes)
    return _core.ideal_fluid_maxmin(_links(links_bps), starts, sizes, route_links, offsets)


def maxmin_rates(links_bps: Any, routes: Any) -> np.ndarray:
    """The max-min fair rates (bits/s) of flows that are all active at once, each
    crossing the links of its route (progressive filling)."""
    route_links, offsets = _routes(routes)
    return _core.ideal_maxmin_rates(_links(links_bps), route_links, offsets)


def optimal_transfer_ns(
    links_bps: Any, starts_ns: Any, sizes_bytes: Any, rtts_ns: Any, routes: Any = None
) -> np.ndarray:
    """The 'optimal' file transfer time of the 1991 benchmark suite, in ns.

    Kanakia, Keshav & Mishra, section 4: the sources place each whole file in an
    infinitely large bottleneck buffer at its start, and the bottleneck serves
    every backlogged connection its fair share. The transfer time runs from the
    start to the sender's receipt of the last byte's acknowledgement (section 2),
    so::

        optimal_i = (F_i - start_i) + rtt_i

    with ``F_i`` the instant the file's last byte leaves the bottleneck under
    fluid fair sharing (`fluid_maxmin`; PS for one bottleneck) and ``rtt_i``
    the connection's round-trip propagation delay. Payload bytes only, no
    serialisation outside the bottleneck: this reproduces the suite's published
    values (44.4, 46 and 64 ms for 4, 20 and 200 packets of 500 B at 40 Mb/s and
    44 ms; 1444 ms for experiment 1; 644 ms for the migrating bottleneck; 1556 ms
    for two-way traffic when the reverse ACKs are given as flows).

    ``links_bps`` is one capacity (a single bottleneck, ``routes`` omitted) or
    one per link with ``routes[i]`` the bottleneck links connection ``i`` crosses.
    Returns int64 durations in ns, in input order.
    """
    starts, sizes = _flows(starts_ns, sizes_bytes)
    rtts, _ = _ints("rtts_ns", rtts_ns)
    links = _links(links_bps)
    if routes is None:
        if links.size != 1:
            raise ValueError(
                f"routes: required when links_bps has {links.size} links (which links does each connection cross?)"
            )
        routes = np.zeros(len(starts), dtype=np.int64)
    route_links, offsets = _routes(routes)
    return _core.ideal_optimal_transfer_ns(links, starts, sizes, route_links, offsets, np.atleast_1d(rtts))


#: Alias of `optimal_transfer_ns`.
optimal_transfer = optimal_transfer_ns


# ------------------------------------------------------------------ round models


class RoundModel:
    """The outcome of a round-by-round model, one entry per round trip ``k``:

    - ``flows[k]``: flows in the system at the start of round ``k`` (the
      round's arrivals included);
    - ``sent_pkts[k]``: packets sent in round ``k`` (a ``fractions.Fraction``);
    - ``utilization[k]``: ``sent_pkts[k]`` over the link's packets per round;
    - ``durations``: the rounds each completed flow lasted (its arrival round
      and its last round both count), in completion order.
    """

    def __init__(self, flows, sent_pkts, capacity_pkts, durations):
        self.flows = np.asarray(flows, dtype=np.int64)
        self.sent_pkts = list(sent_pkts)
        self.utilization = np.array([float(x / capacity_pkts) for x in sent_pkts]) if capacity_pkts else None
        self.durations = np.asarray(durations, dtype=np.int64)

    def __repr__(self) -> str:
        return f"RoundModel(rounds={len(self.flows)}, last flows={self.flows[-1] if len(self.flows) else None})"


def _arrivals(arrivals: Any) -> list:
    try:
        sizes = [int(x) for x in arrivals]
    except (TypeError, ValueError):
        raise ValueError(
            "arrivals: a list of flow sizes in packets (the flows that arrive at the start of every round)"
        ) from None
    if not sizes or any(x < 1 for x in sizes):
        raise ValueError(f"arrivals: needs at least one size, each >= 1 packet, got {list(arrivals)}")
    return sizes


def rounds_slow_start(
    arrivals: Any, rounds: int, *, init_cwnd_pkts: int = 1, capacity_pkts: float | None = None
) -> RoundModel:
    """Flows in TCP slow start, round by round (Dukkipati & McKeown 2006, Fig. 3).

    At the start of every round trip the flows of sizes ``arrivals`` (packets)
    arrive; a flow sends ``min(w 2^j, remaining)`` packets in its ``j``-th
    round (``w = init_cwnd_pkts``), so it lasts ``slow_start_rounds(L, w)``
    rounds whatever the other flows do: the link is assumed never to be
    over-subscribed (``utilization`` shows whether it is, when
    ``capacity_pkts`` is given). With two 50-packet flows per round, ``w = 1``
    and 100 packets per round, every flow lasts 6 rounds and 12 flows are in
    the system in the steady state (processor sharing: 2).
    """
    from fractions import Fraction

    sizes = _arrivals(arrivals)
    rounds = _integer("rounds", rounds)
    w0 = _integer("init_cwnd_pkts", init_cwnd_pkts)
    if w0 < 1:
        raise ValueError(f"init_cwnd_pkts: must be >= 1, got {w0}")
    active: list = []  # [remaining, window, arrival round]
    flows, sent, durations = [], [], []
    for k in range(rounds):
        active += [[L, w0, k] for L in sizes]
        flows.append(len(active))
        total = 0
        keep = []
        for f in active:
            n = min(f[1], f[0])
            f[0] -= n
            f[1] *= 2
            total += n
            if f[0] == 0:
                durations.append(k - f[2] + 1)
            else:
                keep.append(f)
        active = keep
        sent.append(Fraction(total))
    return RoundModel(flows, sent, Fraction(capacity_pkts) if capacity_pkts else None, durations)


def rounds_equal_share(arrivals: Any, rounds: int, capacity_pkts: float) -> RoundModel:
    """An equal-share server, round by round (Dukkipati & McKeown 2006, Fig. 4).

    At the start of round ``k`` the flows of sizes ``arrivals`` arrive; the
    server tells each of the ``N[k]`` flows in the system to send
    ``capacity_pkts / N[k]`` packets this round (never over-subscribing the
    link), and each sends that or what it has left, whichever is less; a share
    a flow cannot use is not given to another (the paper: "flows only transmit
    the number of packets the server asks them to"). With arrivals of 99 and
    1 packets and 100 packets per round: ``N[0] = 2``, ``N[1] = 3`` (33.33
    packets each), and the system settles at 100 flows of 1 packet per round
    each, 50 times processor sharing's 2.
    """
    from fractions import Fraction

    sizes = _arrivals(arrivals)
    rounds = _integer("rounds", rounds)
    c = Fraction(_number("capacity_pkts", capacity_pkts))
    if c <= 0:
        raise ValueError(f"capacity_pkts: must be > 0, got {capacity_pkts}")
    active: list = []  # [remaining, arrival round]
    flows, sent, durations = [], [], []
    for k in range(rounds):
        active += [[Fraction(L), k] for L in sizes]
        n = len(active)
        flows.append(n)
        share = c / n
        total = Fraction(0)
        keep = []
        for f in active:
            x = min(share, f[0])
            f[0] -= x
            total += x
            if f[0] == 0:
                durations.append(k - f[1] + 1)
            else:
                keep.append(f)
        active = keep
        sent.append(total)
    return RoundModel(flows, sent, c, durations)
