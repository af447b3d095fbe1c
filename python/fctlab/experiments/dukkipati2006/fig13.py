"""Fig. 13: bandwidth grew more than 100x; best-case slow-start FCT far less."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, published, style
from ..registry import reproduction
from .scenarios import MSS_BYTES, SOURCE

# Backbone capacity milestones. The paper takes its time-line from a private
# communication; these are the SONET/T-carrier steps of US backbones (T3 in
# 1980, the paper's first milestone, then OC-3, OC-12, OC-48, OC-192).
MILESTONES = [(1980, 45e6), (1993, 155e6), (1996, 622e6), (1999, 2.5e9), (2002, 10e9)]
RTT_S = 0.04  # "comparable to RTT in U.S. backbone"
#: Varied once each in the table: larger packets, a later milestone.
ALT_PAYLOAD_BYTES, ALT_MILESTONE = 1460, (2005, 40e9)


def claims() -> dict:
    """The paper's upper bounds on the improvement: {flow MB: bound}."""
    pub = published(__file__, "fig13")
    return dict(zip(pub["flow_mb"], pub["improvement_below"]))


def fig13_improvements(milestones=MILESTONES, payload_bytes: int = MSS_BYTES, rtt_s: float = RTT_S) -> dict:
    """FCT improvement of 1, 10 and 100 MB flows over the 45 Mb/s milestone,
    with the paper's best-case slow-start FCT (sec. II-A: a window of one
    packet doubling every RTT, handshake included, the flow alone on the link):
    ``{mb: [(year, capacity, fct_s, improvement), ...]}``."""
    out = {}
    for mb in claims():
        pkts = -(-mb * 10**6 // payload_bytes)  # 10^6 bytes per MB, whole packets
        rows = []
        for year, c in milestones:
            fct = ideal.slow_start_fct_ns(pkts, c, rtt_s * 1e9, pkt_bytes=payload_bytes, init_cwnd_pkts=1) / 1e9
            rows.append((year, c, fct))
        base = rows[0][2]
        out[mb] = [(y, c, f, base / f) for y, c, f in rows]
    return out


def capacity_for(mb: int, factor: float, payload_bytes: int = MSS_BYTES, rtt_s: float = RTT_S) -> float:
    """The capacity at which the improvement of an `mb` flow reaches `factor` (bisection)."""
    lo, hi = MILESTONES[0][1], 1e15

    def f(c):
        return fig13_improvements([(0, MILESTONES[0][1]), (1, c)], payload_bytes, rtt_s)[mb][1][3]

    if f(hi) < factor:
        return float("inf")
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if f(mid) < factor else (lo, mid)
    return hi


def _draw(p: Page, imp: dict) -> str:
    fig, ax = p.subplots(figsize=(6.5, 4.2))
    base_c = MILESTONES[0][1]
    caps = [c for _, c in MILESTONES]
    ax.plot(caps, [c / base_c for c in caps], "k-o", label="bandwidth")
    for i, mb in enumerate(imp):
        ax.plot(caps, [r[3] for r in imp[mb]], "-s", color=f"C{i}", label=f"FCT, {mb} MB flow")
    style(
        ax, "backbone link capacity (b/s)", f"improvement over {captions.rate(base_c)} ({MILESTONES[0][0]})", log="xy"
    )
    return p.save(fig)


def _table(imp: dict) -> tuple:
    imp_big = fig13_improvements(payload_bytes=ALT_PAYLOAD_BYTES)
    imp_later = fig13_improvements(MILESTONES + [ALT_MILESTONE])
    top = MILESTONES[-1]
    rows, published_rows, verdicts = [], [], []
    for mb, claim in claims().items():
        got = imp[mb][-1][3]
        rows.append([f"{mb} MB", got, imp_big[mb][-1][3], imp_later[mb][-1][3]])
        published_rows.append([None, claim, None, None])
        holds = "holds" if got < claim else "does not hold"
        verdicts.append(f"{mb} MB: {got:.2f}x at {captions.rate(top[1])} ({holds}: the paper says under {claim:g}x)")
    table = Table(
        title=f"FCT improvement at the last milestone over {captions.rate(MILESTONES[0][1])}",
        columns=[
            "flow",
            f"improvement at {captions.rate(top[1])}",
            f"with {ALT_PAYLOAD_BYTES} B packets",
            f"with a {captions.rate(ALT_MILESTONE[1])} milestone",
        ],
        rows=rows,
        published=published_rows,
        key_columns=1,
        published_source="Fig. 13 text (upper bounds)",
    )
    return table, verdicts


@reproduction("dukkipati2006-fig13", title="Bandwidth outpaces flow-completion time (2006, Fig. 13)")
def fig13(out: Path, scale: str) -> list:
    """Fig. 13: bandwidth grew more than 100x; best-case slow-start FCT far less."""
    p = Page("dukkipati2006-fig13", out, scale)
    imp = fig13_improvements()
    png = _draw(p, imp)
    table, verdicts = _table(imp)
    (y0, c0), top = MILESTONES[0], MILESTONES[-1]
    biggest, bound = max(claims().items())
    c20 = capacity_for(biggest, bound)
    params = {
        "RTT": f"{RTT_S * 1e3:g} ms (the paper)",
        "milestones": ", ".join(f"{y}: {captions.rate(c)}" for y, c in MILESTONES),
        "FCT model": "paper sec. II-A: (ceil(log2(L + 1)) + 1/2) RTT + L/C, window from 1 packet, handshake "
        "included, flow alone on the link",
        "packet": f"{MSS_BYTES} B payload (chosen; {ALT_PAYLOAD_BYTES} B shown in the table)",
        "MB": "10^6 bytes (chosen)",
    }
    mbs = [str(mb) for mb in claims()]
    caption = (
        f"{SOURCE}, Fig. 13: relative improvement of backbone bandwidth and of the best-case slow-start FCT of "
        f"{', '.join(mbs[:-1])} and {mbs[-1]} MB flows since the {captions.rate(c0)} milestone of {y0}. Bandwidth "
        f"grows {top[1] / c0:.0f}x by {top[0]}. {'; '.join(verdicts)}. The {biggest} MB claim holds only up to about "
        f"{captions.rate(c20)} under the paper's own formula (at {ALT_PAYLOAD_BYTES} B packets too: the number of "
        "rounds is the same); the paper's time-line (a private communication) is not given, so its last milestone "
        "may be lower than OC-192. The milestones are chosen (T3, OC-3, OC-12, OC-48, OC-192); a "
        f"{captions.rate(ALT_MILESTONE[1])} step is varied once in the table. {parameters(params)}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. 13", figures=[Figure(png, caption)], tables=[table], params=params, seed=None
    )
