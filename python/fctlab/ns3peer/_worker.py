"""Run fctlab's benchmark scenario under ns-3; executed by the ns-3 environment's python.

Usage (done by `fctlab.ns3peer.run_ns3_bench`)::

    python _worker.py PARAMS_JSON RESULT_PATH
    python _worker.py @PARAMS_PATH RESULT_PATH

This file must stay standalone (fctlab itself is not installed in the ns-3
environment). It writes one JSON object to RESULT_PATH: the counters, or
``{"error": ..., "stage": ...}`` when a stage (import, setup, run) failed.

Python only builds the network and hands the flow list to ``fctlab::Workload``
(``flowapp.h``, compiled by cppyy); the simulation itself runs in C++.
"""

import collections
import json
import math
import os
import random
import resource
import sys
import time

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flowapp.h")
#: TCP port every receiver listens on.
PORT = 5000
#: Send and receive buffers: large enough never to limit a window (ns-3's default is 128 KiB).
SOCKET_BUFFER_BYTES = 64 << 20
#: A host's own device queue, in packets: more than a run ever queues there
#: (fctlab's host NICs are unlimited).
HOST_QUEUE_PKTS = 1 << 20
#: The bottleneck port's device queue under a RED queue disc, in packets: the
#: fewest ns-3 allows. With a queue disc installed the device queue is flow
#: controlled (stopped when full, woken by an event of the same time after a
#: departure), so besides the packet on the wire this one packet waits outside
#: RED, which neither counts it in its average nor limits it.
RED_DEVICE_QUEUE_PKTS = 1


def peak_rss_mb():
    """Peak resident memory of this process so far, in MB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


#: ns-3's congestion control for each scheme the peer runs (src/internet/model/tcp-*.cc).
SCHEMES = {
    "newreno": "TcpNewReno",
    "cubic": "TcpCubic",
    "dctcp": "TcpDctcp",
    "bbr": "TcpBbr",
    "vegas": "TcpVegas",
}


def configure_tcp(ns, mss_bytes, init_cwnd_pkts, limited_transmit=False, scheme="newreno", sack=False):
    """Set ns-3's TCP defaults to classic NewReno as fctlab models it, or to
    ``scheme`` (a key of `SCHEMES`) with the same segments, ACKs and recovery.

    ns-3's own defaults differ (Cubic, PRR, SACK, timestamps, 536-byte segments,
    delayed ACKs every 2 segments, 128 KiB buffers, 240 s TIME_WAIT).
    ``limited_transmit``: RFC 3042 limited transmit (ns-3's default is on; the
    benchmark turns it off). TcpCubic runs without its HyStart (ns-3's is
    Linux's 2008 HyStart, fctlab's RFC 9406 HyStart++: the two are switched
    off so that the cubic law itself is compared); TcpDctcp turns ECN on itself
    (TcpDctcp::Init: ECT on data segments and SYNs; pure ACKs go without); TcpBbr
    turns pacing on itself (TcpBbr::Init). ``sack``: SACK (RFC 2018) on.
    """
    cfg = ns.Config.SetDefault
    if scheme not in SCHEMES:
        raise ValueError(f"scheme {scheme!r} is not one of {', '.join(SCHEMES)}")
    # Congestion control: NewReno (RFC 5681/6582) unless another scheme is asked for.
    cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(getattr(ns, SCHEMES[scheme]).GetTypeId()))
    if scheme == "cubic":
        cfg("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    # Loss recovery: classic fast recovery (window inflation), not Proportional Rate Reduction.
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    # No SACK unless asked for, no timestamp option (so segments carry a bare
    # 20-byte TCP header).
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(sack)))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    # RFC 3042 limited transmit (off: fast retransmit on the third duplicate ACK only).
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(bool(limited_transmit)))
    # RTO floor 200 ms (ns-3's default is 1 s, RFC 6298).
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
    # TIME_WAIT lasts 2 MSL; 0 frees each endpoint at once (endpoint look-up is linear).
    cfg("ns3::TcpSocketBase::MaxSegLifetime", ns.DoubleValue(0.0))
    # Payload bytes per segment.
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(mss_bytes))
    # Initial congestion window, in segments.
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(init_cwnd_pkts))
    # One ACK per data segment (no delayed ACKs).
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    # Buffers never limit the window (window scaling is on by default in ns-3).
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER_BYTES))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER_BYTES))


def flow_list(p):
    """Poisson arrivals at the offered load, Pareto sizes (packets), uniform sender choice.

    Same definitions as fctlab's workload: lambda = load C / (8 mean (mss+header)),
    Pareto scale x_m = mean (shape-1)/shape, sizes x_m / U^(1/shape) rounded up to
    whole packets. Arrivals stop at sim_seconds. The draws use Python's own
    generator, so the flows are not the same ones fctlab draws, only the same law.
    An explicit list ``p["flows"]`` of (start_s, pair, pkts) replaces the draws.
    """
    if p.get("flows") is not None:
        flows = [(float(t), int(i), int(n)) for t, i, n in p["flows"]]
        return flows, len(flows) / max(p["sim_seconds"], 1e-9)
    rng = random.Random(p["seed"])
    pkt_bytes = p["mss_bytes"] + p["header_bytes"]
    lam = p["load"] * p["bottleneck_bps"] / (8.0 * p["mean_pkts"] * pkt_bytes)
    xm = p["mean_pkts"] * (p["shape"] - 1.0) / p["shape"]
    t = 0.0
    flows = []
    while True:
        t += rng.expovariate(lam)
        if t >= p["sim_seconds"]:
            break
        u = 1.0 - rng.random()  # (0, 1]
        size = max(1, math.ceil(xm / u ** (1.0 / p["shape"])))
        flows.append((t, rng.randrange(p["senders"]), size))
    return flows, lam


def buffer_packets(p):
    """buffer_bdp x BDP in packets of mss+header bytes, rounded up (as fctlab does);
    ``p["buffer_pkts"]`` when given."""
    if p.get("buffer_pkts"):
        return int(p["buffer_pkts"])
    bdp = p["bottleneck_bps"] * p["rtt_ms"] / 1000.0 / 8.0 / (p["mss_bytes"] + p["header_bytes"])
    return max(1, math.ceil(p["buffer_bdp"] * bdp))


def build_network(ns, fct, p):
    """The dumbbell: ``senders`` hosts on access links into router R0, the
    bottleneck R0-R1 carrying the whole base RTT, R1 to as many receivers;
    addresses and routes; every router port DropTail of the buffer, each host's
    own device unlimited. Returns the nodes, links and interfaces by name."""
    n = p["senders"]
    buf = buffer_packets(p)
    senders, receivers, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n)
    receivers.Create(n)
    routers.Create(2)
    r0, r1 = routers.Get(0), routers.Get(1)
    stack = ns.InternetStackHelper()
    stack.Install(senders)
    stack.Install(receivers)
    stack.Install(routers)

    def link(rate_bps, delay_s, a, b, host_end=None):
        helper = ns.PointToPointHelper()
        helper.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(rate_bps))))
        helper.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(delay_s)))
        devs = helper.Install(a, b)
        for i in range(2):
            # Every router port is DropTail of `buf` packets, as in fctlab; a
            # host's own device (end `host_end`) never drops, as fctlab's
            # unlimited host NICs.
            fct.ConfigureDeviceQueue(devs.Get(i), HOST_QUEUE_PKTS if i == host_end else buf)
        return devs

    # All the propagation delay is on the bottleneck: base RTT = rtt_ms.
    bottleneck = link(p["bottleneck_bps"], p["rtt_ms"] / 2000.0, r0, r1)
    access = [link(p["access_bps"], 0.0, senders.Get(i), r0, host_end=0) for i in range(n)]
    egress = [link(p["access_bps"], 0.0, r1, receivers.Get(i), host_end=1) for i in range(n)]

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    ifaces = []
    for devs in [bottleneck] + access + egress:
        ifaces.append(addr.Assign(devs))
        addr.NewNetwork()
        # Address assignment installs an FqCoDel queue disc: remove it, leaving the
        # plain DropTail device queue.
        ns.TrafficControlHelper().Uninstall(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    return {
        "senders": senders,
        "receivers": receivers,
        "r0": r0,
        "r1": r1,
        "bottleneck": bottleneck,
        "all_devs": [devs.Get(i) for devs in [bottleneck] + access + egress for i in range(2)],
        "acc_if": ifaces[1 : 1 + n],
        "egr_if": ifaces[1 + n :],
        "buf": buf,
    }


def install_red(fct, p, bottleneck):
    """RED (ns-3 RedQueueDisc, a port of ns-2 red.cc) on R0's bottleneck port
    only, over a one-packet device queue; every other port keeps its DropTail
    device queue. None without ``p["red"]``."""
    red = p.get("red")
    if not red:
        return None
    fct.ConfigureDeviceQueue(bottleneck.Get(0), RED_DEVICE_QUEUE_PKTS)
    return fct.InstallRed(
        bottleneck.Get(0),
        float(red["min_th"]),
        float(red["max_th"]),
        float(red["max_p"]),
        float(red["q_weight"]),
        bool(red["gentle"]),
        bool(red["wait"]),
        int(red["mean_pktsize"]),
        int(red["limit_pkts"]),
        float(p["bottleneck_bps"]),
        p["rtt_ms"] / 2000.0,
        bool(red.get("ecn", False)),
    )


def workload(fct, p, net, red_qd):
    """The flows on the sender-receiver pairs, and the trace sources counting
    the bottleneck's packets and every drop. Returns the workload, the flows
    and their arrival rate."""
    n = p["senders"]
    work = fct.Workload(p["mss_bytes"], PORT)
    if p.get("trace_flow") is not None:
        work.TraceFlow(int(p["trace_flow"]))
    for i in range(n):
        work.AddPair(
            net["senders"].Get(i),
            net["receivers"].Get(i),
            net["acc_if"][i].GetAddress(0),
            net["egr_if"][i].GetAddress(1),
        )
    flows, lam = flow_list(p)
    for t, pair, size in flows:
        work.AddFlow(t, pair, size)
    bottleneck = net["bottleneck"]
    hooked = [
        work.CountTx(bottleneck.Get(0), True),  # R0 -> R1: data, SYN and FIN segments
        work.CountTx(bottleneck.Get(1), False),  # R1 -> R0: ACKs
        work.CountTcDrops(net["r0"], True),  # R0's drops are the bottleneck's (its other links carry ACKs)
        work.CountTcDrops(net["r1"], False),
    ]
    hooked += [work.CountTcDrops(c.Get(i), False) for c in (net["senders"], net["receivers"]) for i in range(n)]
    hooked += [fct.CountQueueDrops(work, dev) for dev in net["all_devs"]]
    if red_qd is not None:
        hooked.append(work.CountQueueDiscDrops(red_qd))
    if not all(hooked):
        raise RuntimeError("could not connect ns-3 trace sources (PhyTxBegin, TcDrop, Drop)")
    return work, flows, lam


def start_sampling(fct, p, work, bottleneck, red_qd):
    """With ``p["queue_sample_ms"]``, sample the bottleneck's queue until the last arrival."""
    if not p.get("queue_sample_ms"):
        return
    every_s = float(p["queue_sample_ms"]) / 1000.0
    until_s = float(p.get("queue_sample_until_s") or p["sim_seconds"])
    if red_qd is not None:
        # RED's queue disc and the device queue below it.
        fct.StartRedSampling(work, red_qd, bottleneck.Get(0), every_s, until_s)
    else:
        # The bottleneck's device queue (R0's end).
        fct.StartBottleneckSampling(work, bottleneck.Get(0), every_s, until_s)


def per_flow(fct, p, work, red_qd):
    """What only some runs report: each flow's FCT and segments sent (an explicit
    flow list), RED's drops by reason, a traced flow's events."""
    extra = {}
    if p.get("flows") is not None:
        extra["flow_fct_s"] = [float(x) for x in work.AllFcts()]
        extra["flow_data_segments_sent"] = [int(x) for x in work.DataSegmentsSent()]
    if red_qd is not None:
        st = fct.RedDropStats(red_qd)
        extra["bottleneck_red"] = {
            "early_drops": int(st[0]),
            "forced_drops": int(st[1]),
            "overflow_drops": int(st[2]),
            "limit_pkts": int(p["red"]["limit_pkts"]),
            "device_queue_pkts": RED_DEVICE_QUEUE_PKTS,
        }
    if p.get("trace_flow") is not None:
        tr = list(work.Trace())
        extra["trace"] = [[tr[i], int(tr[i + 1]), tr[i + 2]] for i in range(0, len(tr), 3)]
    return extra


def counters(ns, p, work, flows, fcts):
    """The run's counters: time, packets, bytes and drops at the bottleneck, the
    flows' fates and FCTs (``fcts``: the completed flows', sorted)."""

    def quantile(q):
        return fcts[min(len(fcts) - 1, int(q * len(fcts)))] * 1000.0 if fcts else None

    return {
        "sim_seconds": float(p["sim_seconds"]),
        "sim_time_reached_s": ns.Simulator.Now().GetSeconds(),
        "events": int(ns.Simulator.GetEventCount()),
        "data_pkts_delivered": int(work.BytesDelivered()) // p["mss_bytes"],
        "bytes_delivered": int(work.BytesDelivered()),
        "bottleneck_pkts": int(work.FwdPkts()),
        "bottleneck_pkts_direction": "forward (R0->R1: data, SYN, FIN); ACKs are in bottleneck_pkts_reverse",
        "bottleneck_pkts_reverse": int(work.RevPkts()),
        "bottleneck_bytes": int(work.FwdBytes()),
        "bottleneck_drops": int(work.BottleneckDrops()),
        "bottleneck_syn_drops": int(work.SynDrops()),
        "bottleneck_control_drop_sizes": {
            str(k): v for k, v in collections.Counter(int(x) for x in work.ControlDropSizes()).items()
        },
        "bottleneck_queue_histogram": [int(x) for x in work.QueueHistogram()],
        "other_drops": int(work.OtherDrops()) + int(work.QueueDrops()),
        "flows_offered": len(flows),
        "flows_started": int(work.FlowsStarted()),
        "flows_completed": int(work.FlowsCompleted()),
        "flows_failed": int(work.FlowsFailed()),
        "sockets_open_at_end": int(work.OpenSockets()),
        "fct_mean_ms": (sum(fcts) / len(fcts) * 1000.0) if fcts else None,
        "fct_median_ms": quantile(0.5),
        "fct_p99_ms": quantile(0.99),
    }


def build_and_run(ns, cppyy, p, timings, state):
    """Build the dumbbell, start the workload, run; return the result dict.

    ``timings`` receives ``setup_s``; ``state["stage"]`` says what is under way.
    """
    t_setup = time.perf_counter()
    # ns-3's own random streams (this scenario's TCP draws none; set for completeness).
    ns.RngSeedManager.SetSeed(max(1, int(p["seed"])))
    configure_tcp(
        ns,
        p["mss_bytes"],
        p["init_cwnd_pkts"],
        p.get("limited_transmit", False),
        p.get("scheme", "newreno"),
        p.get("sack", False),
    )
    fct = cppyy.gbl.fctlab
    net = build_network(ns, fct, p)
    red_qd = install_red(fct, p, net["bottleneck"])
    queue_discs = sum(1 for d in net["all_devs"] if fct.HasQueueDisc(d))
    work, flows, lam = workload(fct, p, net, red_qd)
    start_sampling(fct, p, work, net["bottleneck"], red_qd)
    work.Start()
    ns.Simulator.Stop(ns.Seconds(p["sim_seconds"]))
    timings["setup_s"] = time.perf_counter() - t_setup
    rss_before = peak_rss_mb()

    state["stage"] = "run"
    t0, c0 = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    fcts = sorted(work.Fcts())
    return {
        **per_flow(fct, p, work, red_qd),
        "wall_s": wall,
        "cpu_s": cpu,
        **counters(ns, p, work, flows, fcts),
        "arrival_rate_per_s": lam,
        "buffer_pkts": net["buf"],
        "queue_discs_installed": queue_discs,
        "peak_rss_mb": peak_rss_mb(),
        "peak_rss_before_run_mb": rss_before,
    }


CPP_GLUE = r"""
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
namespace fctlab {
/// Make a point-to-point device's queue hold `pkts` packets.
inline void ConfigureDeviceQueue(ns3::Ptr<ns3::NetDevice> dev, uint32_t pkts)
{
    auto p2p = ns3::DynamicCast<ns3::PointToPointNetDevice>(dev);
    p2p->GetQueue()->SetMaxSize(ns3::QueueSize(ns3::QueueSizeUnit::PACKETS, pkts));
}
/// Whether a device still has a root queue disc (it should not, after Uninstall).
inline bool HasQueueDisc(ns3::Ptr<ns3::NetDevice> dev)
{
    auto tc = dev->GetNode()->GetObject<ns3::TrafficControlLayer>();
    return tc && tc->GetRootQueueDiscOnDevice(dev);
}
/// Sample a point-to-point device's queue (see Workload::StartQueueSampling).
inline void StartBottleneckSampling(Workload& w, ns3::Ptr<ns3::NetDevice> dev, double everyS, double untilS)
{
    w.StartQueueSampling(ns3::DynamicCast<ns3::PointToPointNetDevice>(dev)->GetQueue(), everyS, untilS);
}
/// Install ns-3's RedQueueDisc as the root queue disc of `dev`, every attribute
/// set (src/traffic-control/model/red-queue-disc.cc). Thresholds and the limit
/// count packets; LInterm is 1/max_p (the drop probability at max_th). No
/// adaptive variant (ARED, AdaptMaxP, FengAdaptive, NLRED off: their own
/// attributes are set to ns-3's defaults and unused), hard drops above the
/// gentle region; with `useEcn`, ECN-capable packets are marked instead of
/// dropped, early and forced (UseEcn on, UseHardDrop off: DCTCP's switch with
/// QW 1 and MinTh just below MaxTh = K, so every arrival that finds K packets
/// or more is marked). IdlePktSize is used only by the `cautious == 3` idle rule,
/// which RedQueueDisc::InitializeParams never enables (m_cautious = 0): the idle
/// decay takes ptc = LinkBandwidth / (8 MeanPktSize). Ns1Compat false (ns-3's
/// default): a forced drop leaves the count since the last drop running.
inline ns3::Ptr<ns3::QueueDisc> InstallRed(ns3::Ptr<ns3::NetDevice> dev, double minTh, double maxTh, double maxP,
                                           double qW, bool gentle, bool wait, uint32_t meanPktSize,
                                           uint32_t limitPkts, double linkBps, double linkDelayS,
                                           bool useEcn)
{
    using namespace ns3;
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MeanPktSize", UintegerValue(meanPktSize),
                         "IdlePktSize", UintegerValue(meanPktSize),
                         "Wait", BooleanValue(wait),
                         "Gentle", BooleanValue(gentle),
                         "ARED", BooleanValue(false),
                         "AdaptMaxP", BooleanValue(false),
                         "FengAdaptive", BooleanValue(false),
                         "NLRED", BooleanValue(false),
                         "MinTh", DoubleValue(minTh),
                         "MaxTh", DoubleValue(maxTh),
                         "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limitPkts)),
                         "QW", DoubleValue(qW),
                         "LInterm", DoubleValue(1.0 / maxP),
                         "TargetDelay", TimeValue(MilliSeconds(5)),
                         "Interval", TimeValue(MilliSeconds(500)),
                         "Top", DoubleValue(0.5),
                         "Bottom", DoubleValue(0.0),
                         "Alpha", DoubleValue(0.01),
                         "Beta", DoubleValue(0.9),
                         "FengAlpha", DoubleValue(3.0),
                         "FengBeta", DoubleValue(2.0),
                         "LastSet", TimeValue(Seconds(0)),
                         "Rtt", TimeValue(MilliSeconds(100)),
                         "Ns1Compat", BooleanValue(false),
                         "LinkBandwidth", DataRateValue(DataRate(static_cast<uint64_t>(linkBps))),
                         "LinkDelay", TimeValue(Seconds(linkDelayS)),
                         "UseEcn", BooleanValue(useEcn),
                         "UseHardDrop", BooleanValue(!useEcn));
    QueueDiscContainer c = tch.Install(dev);
    return c.Get(0);
}
/// A RED queue disc's drops by reason: early (probabilistic), forced (average
/// above 2 max_th, or max_th without gentle) and by its full internal queue.
inline std::vector<uint64_t> RedDropStats(ns3::Ptr<ns3::QueueDisc> qd)
{
    const auto& st = qd->GetStats();
    return {st.GetNDroppedPackets(ns3::RedQueueDisc::UNFORCED_DROP),
            st.GetNDroppedPackets(ns3::RedQueueDisc::FORCED_DROP),
            st.GetNDroppedPackets(ns3::QueueDisc::INTERNAL_QUEUE_DROP)};
}
/// Sample a RED queue disc plus the device queue below it (see Workload::StartQueueDiscSampling).
inline void StartRedSampling(Workload& w, ns3::Ptr<ns3::QueueDisc> qd, ns3::Ptr<ns3::NetDevice> dev, double everyS,
                             double untilS)
{
    w.StartQueueDiscSampling(qd, ns3::DynamicCast<ns3::PointToPointNetDevice>(dev)->GetQueue(), everyS, untilS);
}
/// Count drops by a point-to-point device's own queue.
inline bool CountQueueDrops(Workload& w, ns3::Ptr<ns3::NetDevice> dev)
{
    return w.CountQueueDrops(ns3::DynamicCast<ns3::PointToPointNetDevice>(dev)->GetQueue());
}
}
"""


def main(argv):
    if argv[1].startswith("@"):  # a long flow list comes in a file
        with open(argv[1][1:]) as fh:
            params = json.load(fh)
    else:
        params = json.loads(argv[1])
    out_path = argv[2]
    timings = {}
    state = {"stage": "import"}
    try:
        t0 = time.perf_counter()
        import cppyy
        from ns import ns  # noqa: E402  (takes ~9 s: cppyy loads ns-3's headers)

        with open(HEADER) as fh:
            cppyy.cppdef(fh.read())
        cppyy.cppdef(CPP_GLUE)
        timings["import_s"] = time.perf_counter() - t0
        try:
            from importlib.metadata import version

            ns3_version = version("ns3")
        except Exception:  # pragma: no cover - metadata missing
            ns3_version = "unknown"
        state["stage"] = "setup"
        result = build_and_run(ns, cppyy, params, timings, state)
        result.update(timings)
        result["ns3_version"] = ns3_version
    except BaseException as exc:  # reported to the parent as one line
        msg = " ".join(f"{type(exc).__name__}: {exc}".split())
        result = {"error": msg[:500], "stage": state["stage"]}
    with open(out_path, "w") as fh:
        json.dump(result, fh)
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip ns-3's and cppyy's teardown (slow, and irrelevant once the result is written).
    os._exit(0 if "error" not in result else 1)


if __name__ == "__main__":
    main(sys.argv)
