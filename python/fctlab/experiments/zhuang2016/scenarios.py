"""The CS244 report's set-up: Fig. 12 of the 2006 paper on two hosts and one router."""

from __future__ import annotations

from ..dukkipati2006.scenarios import C_BPS, fig12_scenario

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
TWO_HOSTS = "two hosts, one router"
SINGLE_LINK = "single link (fctlab's Fig. 12)"


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


def single_link_scenario(mean_pkts: float, shape: float, count: int) -> dict:
    """The released patch's RCP on fctlab's single link (the 2006 Fig. 12 set-up)."""
    cfg = fig12_scenario({"scheme": "rcp", "rcp": {"mode": "ns2"}}, "rcp", mean_pkts, shape, count)
    cfg["network"]["rcp"] = {"mode": "ns2"}
    return cfg


def short_flows_scenario(data_with_syn: bool, count: int) -> dict:
    """The same link and load with short flows: exponential sizes of mean SHORT_MEAN packets."""
    cfg = two_host_scenario({"scheme": "rcp"}, "rcp", "ns2", data_with_syn, 25, 1.2, count)
    cfg["traffic"][0]["sizes"] = {"dist": "exponential", "mean_pkts": SHORT_MEAN}
    return cfg
