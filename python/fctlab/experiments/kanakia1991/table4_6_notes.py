"""The notes of the Table 4.6 page: where fctlab's packet-pair, e2e-ef and hbh
differ from the paper under two-way traffic, read off the page's two tables."""

from __future__ import annotations

from .. import captions
from .network import FAST_BPS, HEADER_BYTES, PKT_BYTES, SLOW_BPS
from .tables import published_rows, ratios, row_of, span


def _rate_row(rates: list, name: str, traffic: str, disc: str) -> list:
    return next(r for r in rates if r[:3] == [name, traffic, disc])


def _ack_spacing_text() -> str:
    """How close a pair's ACKs arrive after leaving a reverse port in one turn: what packet-pair then measures."""
    gaps_us = [HEADER_BYTES * 8 / bps * 1e6 for bps in (SLOW_BPS, FAST_BPS)]
    service_us = PKT_BYTES * 8 / SLOW_BPS * 1e6
    line = SLOW_BPS / (8 * PKT_BYTES)
    mus = [1e6 / g for g in gaps_us]
    return (
        f"leave it in the same turn and arrive {gaps_us[0]:g} us ({HEADER_BYTES} B at {SLOW_BPS / 1e6:g} Mb/s) or "
        f"{gaps_us[1]:g} us ({HEADER_BYTES} B at {FAST_BPS / 1e6:g} Mb/s) apart instead of the forward service time of "
        f"{service_us:g} us or more. The source then measures a share mu of {mus[0]:,.0f} or {mus[1]:,.0f} packets/s, "
        f"{mus[0] / line:.0f}-{mus[1] / line:.0f} times the line's {line:,.0f}"
    )


def _rates_text(rates: list) -> str:
    line = SLOW_BPS / 1e6
    both, fwd = _rate_row(rates, "pp", "both ways", "drr"), _rate_row(rates, "pp", "forward only", "drr")
    above = "never exceeds the line" if fwd[3] <= line else f"reaches {fwd[3]:.0f} Mb/s"
    return (
        f"{_ack_spacing_text()}, sets its rate above the {line:g} Mb/s line (up to {both[3] / line:.0f} times it; "
        "the rate table below, from the run's per-flow series) and floods the 440-packet buffer, losing "
        f"{both[5]:,} packets of connection 1; without reverse traffic its rate {above} and it loses {fwd[5]:,}."
    )


def _dks_text(rates: list) -> str:
    pub = published_rows("table4_6")
    pp, pp_drr, e2e = (
        _rate_row(rates, "pp", "both ways", "dks"),
        _rate_row(rates, "pp", "both ways", "drr"),
        _rate_row(rates, "e2e-ef", "both ways", "dks"),
    )

    def times(r: list, name: str) -> str:
        paper = pub[name]
        return f"{r[6]:.0f} and {r[7]:.0f} ms ({r[6] / paper[0]:.2f} and {r[7] / paper[1]:.2f} times the paper's)"

    return (
        "Varied once (the rate table): with fq's discipline = \"dks\" (Demers, Keshav & Shenker's finish numbers) "
        f"packet-pair's largest rate is {pp[3]:.0f} Mb/s, connection 1 loses {pp[5]:,} packets instead of "
        f"{pp_drr[5]:,}, and the times are {times(pp, 'pp')}; e2e-ef's become {times(e2e, 'e2e-ef')} with "
        f"{e2e[5]:,} packets of connection 1 lost. The rate above the line is the DRR discipline's, not the source "
        "law's; the loss packet-pair keeps under dks is not traced here."
    )


def table46_notes(rows: list, rates: list) -> str:
    """The page's notes from the main table's ``rows`` and the rate table's ``rates``."""
    pub = published_rows("table4_6")
    e2e_max = max(r[3] for r in rates if r[0] == "e2e-ef")
    e2e_line = "never exceeds the line" if e2e_max <= SLOW_BPS / 1e6 else f"reaches {e2e_max:.0f} Mb/s"
    hbh = ratios(rows, ("hbh",), 1, "table4_6") + ratios(rows, ("hbh",), 2, "table4_6")
    pp = [ratios(rows, ("pp",), c, "table4_6")[0] for c in (1, 2)]
    e2e = [ratios(rows, ("e2e-ef",), c, "table4_6")[0] for c in (1, 2)]
    return (
        f"Where fctlab differs: packet-pair takes {pp[0]:.2f} and {pp[1]:.2f} times the paper's time here. Traced: "
        "with data flowing both ways, the two ACKs of a pair reach the reverse bottleneck port within one DRR round (a "
        "newly active conversation joins the end of the round and waits for every backlogged reverse conversation's "
        "quantum, longer than the forward bottleneck put between the pair's data), "
        + _rates_text(rates)
        + " The paper's switches ran Fair Queueing for these schemes (its comparison of the schemes; Demers, Keshav & "
        "Shenker 1989), under which an ACK arriving at an idle conversation gets a small finish number and leaves "
        "after the packet in service rather than after a whole round, so a pair's ACK spacing would mostly survive "
        "the reverse port; the tables here use fctlab's default fq, Deficit Round Robin (Shreedhar & Varghese 1995). "
        + _dks_text(rates)
        + " (Before the loss handling was corrected, the source also froze at its floor rate of one packet per RTT "
        f"while it repaired ~3000 losses one hole per RTT: 116 s.) e2e-ef's rate is stamped by the routers and "
        f"{e2e_line} (the rate table); it takes {e2e[0]:.2f} and {e2e[1]:.2f} times the paper's time. hbh's reports "
        f"do not travel with the ACKs' spacing and it takes {span(hbh)} times the paper's time, though its probe "
        f"delay, {row_of(rows, 'hbh')[3]:.2f} ms, is far below the paper's {pub['hbh'][2]:g} ms (fctlab's switches "
        f"keep about {captions.num(captions.defaults()['transport.packet_pair.setpoint_pkts'])} packets per "
        "conversation)."
    )
