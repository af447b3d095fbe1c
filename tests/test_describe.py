"""fctlab.describe: what the engine resolves from a scenario (flows it creates,
buffer, packet sizes), and the sweep progress built on it."""

import fctlab
import pytest
from fctlab.progress import fraction_done

FIXED = {"dist": "fixed", "pkts": 4}


def net(senders=1, **kw):
    return {
        "topology": "dumbbell",
        "senders": senders,
        "bottleneck_bps": 10e6,
        "bottleneck_delay_ms": 5.0,
        "buffer_pkts": 30,
        **kw,
    }


def explicit():
    # three explicit flows, given in packets, in bytes and in packets again
    return {"network": net(2), "flows": [{"size_pkts": 10}, {"sender": 1, "size_bytes": 5000}, {"size_pkts": 1}]}


def poisson():
    # count is the total over all senders: 250 flows from 4 senders
    return {"network": net(4), "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": FIXED, "count": 250}]}


def closed_loop():
    # count is per sender: 7 flows on each of 3 senders = 21
    return {"network": net(3), "traffic": [{"arrivals": "closed-loop", "sizes": FIXED, "count": 7}]}


def closed_loop_some_senders():
    # 5 per sender on senders 0 and 2 of 3 = 10, plus 20 Poisson flows = 30
    return {
        "network": net(3),
        "traffic": [
            {"arrivals": "closed-loop", "sizes": FIXED, "count": 5, "senders": [0, 2]},
            {"arrivals": "poisson", "load": 0.3, "sizes": FIXED, "count": 20},
        ],
    }


def long_lived():
    # one never-ending flow per sender (4), one explicit long-lived flow, one finite flow: 6, 5 never finish
    return {
        "stop_s": 0.5,
        "network": net(4),
        "traffic": [{"arrivals": "long-lived"}],
        "flows": [{"long_lived": True}, {"sender": 3, "size_pkts": 8}],
    }


def time_bounded():
    # Poisson arrivals until stop_s: the count is not known in advance
    return {
        "stop_s": 0.5,
        "network": net(2),
        "flows": [{"size_pkts": 3}],
        "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": FIXED}],
    }


def closed_loop_time_bounded():
    return {
        "network": net(2),
        "traffic": [
            {"arrivals": "closed-loop", "sizes": FIXED, "count": 3},
            {"arrivals": "closed-loop", "sizes": FIXED, "stop_s": 0.2},
        ],
    }


@pytest.mark.parametrize(
    "make, expected, long",
    [
        (explicit, 3, 0),
        (poisson, 250, 0),
        (closed_loop, 21, 0),
        (closed_loop_some_senders, 30, 0),
        (long_lived, 6, 5),
        (time_bounded, None, 0),
        (closed_loop_time_bounded, None, 0),
    ],
)
def test_flows_expected(make, expected, long):
    d = fctlab.describe(make())
    assert d["flows_expected"] == expected
    assert d["flows_long_lived"] == long


@pytest.mark.parametrize("make", [explicit, poisson, closed_loop, closed_loop_some_senders, long_lived])
def test_flows_expected_is_what_a_run_creates(make):
    cfg = make()
    res = fctlab.run(cfg, warn=False)
    d = fctlab.describe(cfg)
    assert len(res.flows) == d["flows_expected"]
    assert int(res.flows["size_pkts"].isna().sum()) == d["flows_long_lived"]


def test_buffer_packet_sizes_and_stop():
    d = fctlab.describe(long_lived())
    assert d["buffer_pkts"] == 30 and d["buffer_key"] == "network.buffer_pkts"
    assert d["stop_ns"] == 500_000_000
    assert fctlab.describe(explicit())["stop_ns"] is None
    # the packet sizes in effect: the catalogue's defaults, or the config's
    defaults = {p["key"]: p["default"] for p in fctlab.catalog()["parameters"]}
    assert (d["mss_bytes"], d["header_bytes"]) == (defaults["transport.mss_bytes"], defaults["transport.header_bytes"])
    cfg = explicit()
    cfg["transport"] = {"mss_bytes": 1460, "header_bytes": 52}
    d = fctlab.describe(cfg)
    assert (d["mss_bytes"], d["header_bytes"]) == (1460, 52)


def test_buffer_sized_in_bdp_is_the_one_the_run_uses():
    cfg = poisson()
    del cfg["network"]["buffer_pkts"]
    for bdp in (None, 0.5, 2.0):
        if bdp is not None:
            cfg["network"]["buffer_bdp"] = bdp
        d = fctlab.describe(cfg)
        assert d["buffer_key"] == "network.buffer_bdp"
        assert d["buffer_pkts"] == fctlab.run(cfg, warn=False).meta["stats"]["buffer_pkts"]


def test_refused_scenario_raises_config_error():
    cfg = closed_loop()
    cfg["traffic"][0]["count"] = 0
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.describe(cfg)
    assert e.value.field == "traffic[0].count"


def _reports(cfg):
    """The engine's progress reports of a run, one every 65,536 events."""
    got = []
    fctlab.run(cfg, progress=lambda p: got.append(p), every_s=0.0, warn=False)
    return got


def test_progress_fraction():
    # The engine reports the flows it creates when all of them can finish
    # (what describe counts), else None.
    big = {**closed_loop(), "traffic": [{"arrivals": "closed-loop", "sizes": FIXED, "count": 7000}]}
    reports = _reports(big)
    assert reports and all(p["flows_expected"] == fctlab.describe(big)["flows_expected"] == 21000 for p in reports)
    ll = {**long_lived(), "stop_s": 20.0}
    reports = _reports(ll)
    assert reports and all(p["flows_expected"] is None for p in reports)
    # closed loop: 21 flows in all (7 per sender), so 21 completed is the end
    p = {"flows_expected": fctlab.describe(closed_loop())["flows_expected"], "sim_ns": 0, "stop_ns": None}
    assert fraction_done({**p, "flows_completed": 21}) == 1.0
    assert fraction_done({**p, "flows_completed": 7}) == pytest.approx(1 / 3)
    # long-lived flows never complete: the run ends at stop_s, so time tells
    p = {"flows_expected": None, "flows_completed": 1, "sim_ns": 125_000_000, "stop_ns": 500_000_000}
    assert fraction_done(p) == 0.25
    # bounded by time only
    assert fctlab.describe(time_bounded())["flows_expected"] is None
    assert fraction_done({**p, "flows_completed": 10, "sim_ns": 250_000_000}) == 0.5
    # neither end known
    assert fctlab.describe(closed_loop_time_bounded())["flows_expected"] is None
    assert fraction_done({**p, "stop_ns": None}) is None


def test_offered_load_by_hand():
    # load keys add up; a rate is rate x mean size x wire bits over the bottleneck
    two = {**poisson(), "traffic": [{**poisson()["traffic"][0], "load": 0.7}, {**poisson()["traffic"][0], "load": 0.5}]}
    assert fctlab.describe(two)["offered_load"] == pytest.approx(1.2)
    rate = {**poisson(), "traffic": [{"arrivals": "poisson", "rate_per_s": 200.0, "sizes": FIXED, "count": 10}]}
    assert fctlab.describe(rate)["offered_load"] == pytest.approx(200 * 4 * (1000 + 40) * 8 / 10e6)
    assert fctlab.describe(explicit())["offered_load"] is None


def test_store_columns_take_the_buffer_from_the_engine():
    from fctlab.store import _defaults, config_columns

    defaults = _defaults()
    # given in packets: that is the buffer, and no BDP default applies
    cols = config_columns(poisson(), defaults)
    assert cols["network.buffer_pkts"] == 30 and "network.buffer_bdp" not in cols
    # sized by the default BDP: the catalogue's multiple, and the packets the engine made of it
    cfg = poisson()
    del cfg["network"]["buffer_pkts"]
    cols = config_columns(cfg, defaults)
    assert cols["network.buffer_bdp"] == defaults["network.buffer_bdp"]
    assert cols["network.buffer_pkts"] == fctlab.describe(cfg)["buffer_pkts"]
    cfg["network"]["buffer_bdp"] = 2.0
    cols = config_columns(cfg, defaults)
    assert cols["network.buffer_bdp"] == 2.0 and cols["network.buffer_pkts"] == fctlab.describe(cfg)["buffer_pkts"]
    # a config the engine refuses keeps its own keys and the plain defaults
    cfg["network"]["buffer_pkts"] = 10
    cols = config_columns(cfg, defaults)
    assert cols["network.buffer_pkts"] == 10 and cols["network.buffer_bdp"] == 2.0
    assert cols["transport.mss_bytes"] == defaults["transport.mss_bytes"]
