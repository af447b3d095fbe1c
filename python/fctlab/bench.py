"""``fctlab bench``: the engine's speed on a reference scenario, beside ns-3's
and htsim's (`fctlab.benchmarks.htsim`).

Reference scenario: TCP NewReno on a dumbbell of 10 senders, 1 Gb/s
bottleneck, RTT 100 ms, buffer 1 BDP, Poisson arrivals of Pareto flows (mean 25
packets, shape 1.2 as in the RCP paper) at load 0.8, 1000 B packets plus 40 B
headers, an ACK per packet crossing the network. It is defined once, by
`reference_scenario`; the ns-3 peer (`fctlab.ns3peer`) reads its
parameters from there. The fctlab run is made in a child process so its peak
memory is its own.
"""

from __future__ import annotations

import json

MEAN_PKTS = 25
SHAPE = 1.2


def reference_scenario(packets: float, seed: int = 1) -> dict:
    """The reference scenario sized to deliver about ``packets`` data packets."""
    # Rounding sizes up to whole packets adds about half a packet per flow.
    count = max(1, int(packets / (MEAN_PKTS + 0.5)))
    return {
        "seed": seed,
        "network": {
            "topology": "dumbbell",
            "senders": 10,
            "bottleneck_bps": 1e9,
            "bottleneck_delay_ms": 50.0,
            "access_bps": 10e9,
            "access_delay_ms": 0.0,
            "buffer_bdp": 1.0,
        },
        "transport": {"scheme": "tcp-newreno", "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.8,
                "sizes": {"dist": "pareto", "mean_pkts": MEAN_PKTS, "shape": SHAPE},
                "count": count,
            }
        ],
        "metrics": {"series": False},
    }


def _row(name: str, value: str) -> str:
    return f"  {name:<38} {value}"


def _rate(bps: float) -> str:
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= div:
            return f"{bps / div:g} {unit}"
    return f"{bps:g} b/s"


def describe_scenario(cfg: dict) -> str:
    """A one-line summary of a scenario of the reference's shape, from its values."""
    n, t, g = cfg["network"], cfg["transport"], cfg["traffic"][0]
    rtt_ms = 2 * (n["bottleneck_delay_ms"] + n.get("access_delay_ms", 0.0) + n.get("receiver_delay_ms", 0.0))
    scheme = {"tcp-newreno": "NewReno"}.get(t["scheme"], t["scheme"])
    return (
        f"{scheme}, {n['topology']} x{n['senders']}, {_rate(n['bottleneck_bps'])}, RTT {rtt_ms:g} ms, "
        f"{n['buffer_bdp']:g} BDP, {g['sizes']['dist'].capitalize()} {g['sizes']['mean_pkts']:g}/"
        f"{g['sizes']['shape']:g}, load {g['load']:g}"
    )


def _m(x: float) -> str:
    """A rate in millions (or thousands) per second, three significant digits."""
    return f"{x / 1e6:.3g} M" if x >= 1e5 else f"{x / 1e3:.3g} k"


def spread(xs) -> tuple:
    """(min, median, max) of a list of numbers."""
    import statistics

    return min(xs), statistics.median(xs), max(xs)


def parse_shapes(text: str) -> list:
    """``--shape``'s value (``all`` or names separated by commas) as a list of
    shapes; ValueError naming the unknown one."""
    from .benchmarks.shapes import SHAPES

    names = [s.strip() for s in str(text).split(",") if s.strip()]
    if not names:
        raise ValueError(f"--shape: empty (known: all, {', '.join(SHAPES)})")
    out = []
    for name in names:
        if name == "all":
            out += [s for s in SHAPES if s not in out]
        elif name in SHAPES:
            if name not in out:
                out.append(name)
        else:
            raise ValueError(f"--shape: unknown shape {name!r} (known: all, {', '.join(SHAPES)})")
    return out


def run_shape(shape: str, size: float, repeat: int) -> dict:
    """``repeat`` runs of one shape, each in a fresh process; the runs' numbers."""
    from .benchmarks.runner import run_child
    from .benchmarks.shapes import scenario

    cfg = scenario(shape, size)
    runs = [run_child(cfg, kind="ps" if shape == "ps" else "sim") for _ in range(repeat)]
    if shape == "ps":
        work = [r["flows"] for r in runs]
        key = [(r["flows"], r["finish_digest"]) for r in runs]
    else:
        work = [r["unique_delivered"] for r in runs]
        key = [(r["unique_delivered"], r["data_delivered"], r["events"], r["drops"]) for r in runs]
    return {
        "shape": shape,
        "size": size,
        "runs": runs,
        "rates": [w / r["wall_s"] for w, r in zip(work, runs)],
        "cpu_rates": [w / max(r["cpu_s"], 1e-9) for w, r in zip(work, runs)],
        "identical": len(set(key)) == 1,
        "unit": "flows" if shape == "ps" else "unique delivered data packets",
    }


def print_shape(res: dict) -> None:
    from .benchmarks.shapes import DESCRIPTIONS

    r0, n = res["runs"][0], len(res["runs"])
    lo, med, hi = spread(res["rates"])
    print(f"shape {res['shape']}: {DESCRIPTIONS[res['shape']]}")
    if res["shape"] == "ps":
        print(_row("flows", f"{r0['flows']:,} ({r0['packets']:,} packets, {r0['sim_s']:.0f} simulated s)"))
        print(_row(f"flows / wall s ({n} runs)", f"min {_m(lo)} / median {_m(med)} / max {_m(hi)}"))
        print(_row("flows / CPU s (median)", _m(spread(res["cpu_rates"])[1])))
    else:
        print(
            _row("simulated time", f"{r0['sim_s']:.1f} s ({r0['flows_completed']:,}/{r0['flows']:,} flows completed)")
        )
        print(
            _row(
                "unique data packets delivered",
                f"{r0['unique_delivered']:,} (copies included: {r0['data_delivered']:,}; drops {r0['drops']:,})",
            )
        )
        print(_row(f"unique delivered pkts / wall s ({n} runs)", f"min {_m(lo)} / median {_m(med)} / max {_m(hi)}"))
        print(_row("unique delivered pkts / CPU s (median)", _m(spread(res["cpu_rates"])[1])))
        print(_row("events per unique delivered packet", f"{r0['events'] / max(r0['unique_delivered'], 1):.2f}"))
    print(_row("peak memory (process, largest run)", f"{max(r['peak_rss_mb'] for r in res['runs']):.0f} MB"))
    print(_row(f"results identical over the {n} runs", "yes" if res["identical"] else "NO"))


def print_slice(s: dict) -> None:
    f, n = s["fctlab"], s["ns3"]
    print(
        f"ns-3 {n['version']} beside fctlab: the reference scenario's first {s['seconds']:g} simulated s, the same "
        f'{s["flows"]:,} flows (its seed-1 draw), TCP as ns-3 runs it (fctlab: transport.preset = "ns3")'
    )
    for name, x in (("fctlab", f), ("ns-3", n)):
        lo, med, hi = spread(x["rates"])
        k = len(x["rates"])
        print(
            _row(
                f"{name}: unique pkts delivered by {s['seconds']:g} s",
                f"{x['unique_delivered']:,} ({x['flows_completed']:,} flows completed, {x['drops']:,} drops)",
            )
        )
        print(
            _row(
                f"{name}: per wall s ({k} run{'s' if k > 1 else ''})", f"min {_m(lo)} / median {_m(med)} / max {_m(hi)}"
            )
        )
        print(_row(f"{name}: per CPU s (median)", _m(spread(x["cpu_rates"])[1])))
    print(_row("fctlab / ns-3, wall (medians)", f"{s['ratio']:,.0f}x"))
    print(_row("fctlab / ns-3, CPU (medians)", f"{s['cpu_ratio']:,.0f}x"))


def _print_race_rows(r: dict) -> None:
    """Each simulator's packets and rates in an htsim race, then the ratios."""
    for name in ("fctlab", "htsim"):
        x = r[name]
        lo, med, hi = spread(x["rates"])
        print(
            _row(
                f"{name}: unique pkts delivered",
                f"{x['unique_delivered']:,} ({x['flows_completed']:,} flows completed, {x['drops']:,} drops)",
            )
        )
        print(_row(f"{name}: per wall s ({len(x['rates'])} runs)", f"min {_m(lo)} / median {_m(med)} / max {_m(hi)}"))
        print(_row(f"{name}: per CPU s (median)", _m(spread(x["cpu_rates"])[1])))
    print(_row("fctlab / htsim, wall (medians)", f"{r['ratio']:.2f}x"))
    print(_row("fctlab / htsim, CPU (medians)", f"{r['cpu_ratio']:.2f}x"))


def print_htsim(r: dict) -> None:
    print(
        f"htsim beside fctlab: the reference dumbbell, the same {r['flows']:,} flows ({r['sum_pkts']:,} packets) "
        "to completion, runs alternating"
    )
    _print_race_rows(r)


def _htsim_race(args, size: float, out) -> dict | None:
    """The htsim race when htsim is built (or ``--build-htsim`` builds it)."""
    import tempfile
    from pathlib import Path

    from .benchmarks import htsim

    exe = _find_htsim(args, htsim.DRIVER)
    if exe is None:
        return None
    print(f"running the htsim race ({size:.3g} data packets, {args.repeat} runs each, alternating)...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        r = htsim.race(exe, size, args.repeat, Path(out or tmp), progress=lambda m: print("  " + m, flush=True))
    print_htsim(r)
    return r


def print_htsim_fattree(r: dict) -> None:
    fab = r["fabric"]
    print(
        f"htsim beside fctlab on a k = {fab['k']} fat-tree: the same {r['flows']:,} web-search flows "
        f"({r['sum_pkts']:,} packets, load {fab['load']:g} per host link, {fab['buffer_pkts']:,}-packet ports) to "
        "completion, htsim's ECMP hash and TCP, runs alternating"
    )
    _print_race_rows(r)
    print("  mean FCT per size bin (packets), fctlab / htsim:")
    for b in r["bins"]:
        print(
            _row(
                f"  {b['bin']} ({b['flows']:,} flows)",
                f"{b['fctlab_ns'] / 1e3:,.1f} us / {b['htsim_ns'] / 1e3:,.1f} us = {b['ratio']:.3f}",
            )
        )


def _find_htsim(args, driver: str):
    """htsim's ``driver`` when built (or ``--build-htsim`` builds it); None, saying why, if not."""
    from .benchmarks import htsim

    try:
        if getattr(args, "build_htsim", False):
            return htsim.build(progress=lambda m: print("  " + m, flush=True), driver=driver)
        return htsim.find(getattr(args, "htsim", None), driver=driver)
    except htsim.PeerUnavailable as e:
        print(f"htsim: skipped: {e}")
        return None


def _htsim_fattree_race(args, size: float, out) -> dict | None:
    """The fat-tree race (`fctlab.benchmarks.htsim_fattree`) when htsim is built."""
    import tempfile
    from pathlib import Path

    from .benchmarks import htsim_fattree

    exe = _find_htsim(args, htsim_fattree.DRIVER)
    if exe is None:
        return None
    print(f"running the htsim fat-tree race ({size:.3g} data packets, {args.repeat} runs each, alternating)...")
    with tempfile.TemporaryDirectory() as tmp:
        r = htsim_fattree.race(exe, size, args.repeat, Path(out or tmp), progress=lambda m: print("  " + m, flush=True))
    print_htsim_fattree(r)
    r.pop("fct")  # per-flow arrays: not for bench.json
    return r


def _figure(results: list, out) -> str:
    """One panel per shape: each run's rate and the median."""
    from .plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(2.0 * len(results) + 1.0, 3.2), squeeze=False)
    for ax, res in zip(axes[0], results):
        rates = [x / 1e6 for x in res["rates"]]
        cpu = [x / 1e6 for x in res["cpu_rates"]]
        runs = range(1, len(rates) + 1)
        ax.plot(runs, rates, "o", color="C0", label="per wall s")
        ax.axhline(spread(rates)[1], color="C0", lw=1)
        ax.plot(runs, cpu, "x", color="C1", label="per CPU s")
        ax.axhline(spread(cpu)[1], color="C1", lw=1, ls="--")
        ax.set_title(res["shape"])
        ax.set_xlabel("run")
        ax.set_ylim(0, max(rates + cpu) * 1.2)
        ax.set_ylabel("M flows / s" if res["shape"] == "ps" else "M unique delivered pkts / s")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("fctlab bench: each shape's runs, per wall and per CPU second (lines: medians)", fontsize=9)
    fig.tight_layout()
    path = out / "bench-shapes.png"
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def main(args) -> int:
    from pathlib import Path

    from .benchmarks.shapes import QUICK, SINGLE

    out = Path(args.out) if getattr(args, "out", None) else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    if getattr(args, "scaling", False):
        from .benchmarks.scaling import main as scaling_main

        return scaling_main(args, out)
    if getattr(args, "memory", False):
        from .benchmarks.memory import main as memory_main

        return memory_main(args, out)
    shapes = parse_shapes(args.shape)
    defaults = SINGLE if len(shapes) == 1 else QUICK
    results = []
    for shape in shapes:
        size = args.packets if args.packets else defaults[shape]
        what = "flows" if shape == "ps" else "data packets"
        print(f"running shape {shape} ({size:.3g} {what}, {args.repeat} runs)...", flush=True)
        res = run_shape(shape, size, args.repeat)
        print_shape(res)
        results.append(res)
    if len(results) > 1:
        print("summary (median per wall s; ps counts flows, the others unique delivered data packets):")
        for res in results:
            print(_row(res["shape"], _m(spread(res["rates"])[1])))
    report = {"shapes": results}
    if "tcp" in shapes and not args.no_ns3:
        from . import ns3peer
        from .benchmarks.ns3slice import run_slice

        try:
            print(
                f"running the {args.ns3_seconds:g}-s slice in fctlab ({args.repeat} runs) and ns-3 "
                f"(installs ns-3 on first use; ns-3 takes minutes)...",
                flush=True,
            )
            s = run_slice(args.ns3_seconds, args.repeat, progress=lambda m: print("  " + m, flush=True))
            print_slice(s)
            report["ns3_slice"] = s
        except ns3peer.PeerUnavailable as e:
            print(f"ns-3: skipped: {e}")
    elif "tcp" in shapes:
        print("ns-3: skipped (--no-ns3)")
    if "tcp" in shapes and not getattr(args, "no_htsim", False):
        size = args.packets if args.packets else defaults["tcp"]
        r = _htsim_race(args, size, out)
        if r is not None:
            report["htsim_race"] = r
    if "fattree" in shapes and not getattr(args, "no_htsim", False):
        size = args.packets if args.packets else defaults["fattree"]
        r = _htsim_fattree_race(args, size, out)
        if r is not None:
            report["htsim_fattree_race"] = r
    if out:
        (out / "bench.json").write_text(json.dumps(report, indent=1))
        print(f"wrote {out / 'bench.json'} and {_figure(results, out)}")
    return 0
