"""Open-loop sources and the probes table from Python: the probe's delays on an
idle path by hand, probe_delays(), and the table's round trip through disk."""

import fctlab


def _net():
    # s0 -- R0 -- R1 -- d0: 100 Mb/s, 1 ms; 40 Mb/s, 20 ms; 100 Mb/s, 1 ms.
    return {
        "topology": "graph",
        "buffer_pkts": 100,
        "graph": {
            "routers": ["R0", "R1"],
            "links": [
                {"name": "a", "a": "s0", "b": "R0", "rate_bps": 100e6, "delay_ms": 1.0},
                {"name": "core", "a": "R0", "b": "R1", "rate_bps": 40e6, "delay_ms": 20.0},
                {"name": "e", "a": "R1", "b": "d0", "rate_bps": 100e6, "delay_ms": 1.0},
            ],
            "paths": [["s0", "d0"]],
            "bottleneck": "core",
        },
    }


def test_probe_delays_on_an_idle_path(tmp_path):
    res = fctlab.run(
        {
            "network": _net(),
            "transport": {"mss_bytes": 460, "header_bytes": 40},
            "stop_s": 0.5,
            "traffic": [{"arrivals": "probe"}],
        },
        warn=False,
    )
    # 500 B: 22 ms + 40 us + 100 us + 40 us; answer 40 B: 22 ms + 3.2 + 8 + 3.2 us.
    one_way_ms = 22 + 0.04 + 0.1 + 0.04
    rtt_ms = one_way_ms + 22 + 0.0032 + 0.008 + 0.0032
    d = res.probe_delays()
    assert len(d) == 1 and int(d.probes[0]) == 24  # sent at 0, 20, ..., 460 ms
    assert abs(d.one_way_mean_ms[0] - one_way_ms) < 1e-9 and d.one_way_std_ms[0] == 0
    assert abs(d.delay_mean_ms[0] - rtt_ms) < 1e-9 and d.delay_std_ms[0] == 0
    # Those sent after 500 - 44.19 ms have no answer yet.
    assert int(res.probes.rtt_ns.isna().sum()) == 1
    back = fctlab.Result.read(res.write(tmp_path / "r"))
    assert back.probes.equals(res.probes)


def test_no_probes_no_table():
    res = fctlab.run({"network": {"bottleneck_bps": 10e6}, "flows": [{"size_pkts": 5}]})
    assert res.probes.empty and list(res.probes.columns) == ["flow_id", "seq", "sent_ns", "one_way_ns", "rtt_ns"]
