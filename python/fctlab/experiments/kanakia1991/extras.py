"""The tables the ``kanakia1991`` page adds beyond the paper's: hbh with and
without the extra hops, several schemes in one run, and packet-pair's and
e2e-ef's loss handling."""

from __future__ import annotations

from ...report import Table
from .network import HBH_EXTRA_HOPS, SCHEMES, extra_hops, measure, run
from .scenarios import T42_CROSS_GAP_S, table41_scenario
from .table4_1 import idle_probe_rtt_ms, table41_optimal_ms, table41_row
from .table4_3 import table43_times_ms
from .table4_4 import table44_scenario, table44_times_ms
from .table4_5 import table45_row
from .table4_6 import table46_row
from .table4_10 import table410_row
from .tables import published_rows


def hbh_hops_table() -> Table:
    """hbh with and without the paper's three extra switches."""
    tp, net = {"scheme": "hbh"}, {"queue": "hbh"}
    rows = []
    for hops in (HBH_EXTRA_HOPS, 0):
        n = {**net, "extra_hops": hops}
        rows.append(
            [
                f"hbh, {hops} extra switches",
                table41_row(tp, n)[0],
                table41_row(tp, n, T42_CROSS_GAP_S)[0],
                table43_times_ms(tp, n)[2],
                table45_row(tp, n)[0],
                *table410_row(tp, n)[:2],
            ]
        )
    return Table(
        title="hbh: the extra-hop variant against the plain networks",
        columns=[
            "variant",
            "4.1 conn. 1 (ms)",
            "4.2 conn. 1 (ms)",
            "4.3 200 pkts (ms)",
            "4.5 conn. 1 (ms)",
            "4.10 conn. 1 (ms)",
            "4.10 conn. 2 (ms)",
        ],
        rows=rows,
        caption=f"The paper runs hbh with {HBH_EXTRA_HOPS} more switches between each source and the bottleneck, the "
        f"round trip kept; fctlab splits each source's access line into {HBH_EXTRA_HOPS + 1} (a quarter of its delay "
        "each). The second row runs hbh on the networks the other schemes see.",
    )


def mixed_table() -> Table:
    """Experiment 1 with connection 1 under each scheme and the ten cross
    connections under TCP Tahoe: several schemes in one run (a flow's transport table)."""
    rows = []
    for name, tp, net in SCHEMES:
        sc = table41_scenario(tp, net)
        for f in sc["flows"][1:]:
            f["transport"] = {"scheme": "tcp-tahoe"}
        (t,), mean, std, drops = measure(run(sc), [0], idle_probe_rtt_ms(extra_hops(net)))
        rows.append([name, t, mean, drops])
    return Table(
        title="Beyond the paper: connection 1 under each scheme, the cross traffic under TCP Tahoe (several schemes "
        "in one run)",
        columns=["connection 1's scheme", "conn. 1 (ms)", "delay mean (ms)", "packets dropped"],
        rows=rows,
        caption="Experiment 1 with each cross connection's transport set to tcp-tahoe (flows[i].transport); the "
        f"switches run the queue of connection 1's scheme. Optimal {table41_optimal_ms():g} ms as in Table 4.1.",
    )


def _paper_row(name: str) -> list:
    rows = {s: published_rows(s)[name] for s in ("table4_1", "table4_2", "table4_4", "table4_6")}
    return [name, "paper", rows["table4_1"][0], rows["table4_2"][0], *rows["table4_4"], *rows["table4_6"][:2]]


def recovery_table() -> Table:
    """packet-pair and e2e-ef with each loss handling (``[transport.packet_pair]
    recovery``, which neither paper gives): the transfer times of the tables
    where they lose packets."""
    rows = []
    for name, tp, net in SCHEMES:
        if name not in ("pp", "e2e-ef"):
            continue
        rows.append(_paper_row(name))
        for rec in ("go-back", "newreno"):
            tp2 = {**tp, "packet_pair": {"recovery": rec}}
            t44, _ = table44_times_ms(table44_scenario(tp2, net))
            t41, t42 = table41_row(tp2, net)[0], table41_row(tp2, net, T42_CROSS_GAP_S)[0]
            rows.append([name, rec, t41, t42, *t44, *table46_row(tp2, net)[:2]])
    return Table(
        title="Varied once: packet-pair's and e2e-ef's loss handling",
        key_columns=2,
        columns=[
            "scheme",
            "recovery",
            "4.1 conn. 1 (ms)",
            "4.2 conn. 1 (ms)",
            "4.4 conn. 1 (ms)",
            "4.4 conn. 2 (ms)",
            "4.6 conn. 1 (ms)",
            "4.6 conn. 2 (ms)",
        ],
        rows=rows,
        caption="The paper's values (rows \"paper\") beside fctlab's with each loss handling. Neither Keshav 1991 nor "
        "the benchmark gives the source's loss handling; fctlab's default (chosen) is \"go-back\": three duplicate "
        "ACKs or a timeout resend the first unacknowledged packet and the rest follows again at the current rate. "
        '"newreno" resends hole by hole (RFC 6582), its timer restarted on the first partial ACK only (RFC 3782 sec. '
        "4), so a burst of losses still ends in a timeout's go-back. go-back costs duplicates after an isolated loss "
        "(Table 4.1) and repairs a burst sooner (Table 4.2, Table 4.6's connection 2).",
    )
