"""The ``fctlab`` command line: run, list, reproduce, sweep, query, report, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path


class CliError(Exception):
    """An expected failure: printed as one line, exit status 2."""


def cmd_run(args) -> int:
    import fctlab

    from .progress import RunProgress

    cfg = fctlab.load_config(args.scenario)
    if args.seed is not None:
        cfg["seed"] = args.seed
    prog = RunProgress() if not args.quiet else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fctlab.NoCompletedFlowWarning)
        try:
            res = fctlab.run(cfg, progress=prog)
        finally:
            if prog:
                prog.close()
    out = res.write(args.out)
    m = res.meta
    st = m["stats"]
    if st["interrupted"]:
        print(f"fctlab: run interrupted at simulated {st['end_ns'] / 1e9:.3f} s; finished flows kept", file=sys.stderr)
    if not args.quiet:
        rate = st["data_delivered"] / max(m["wall_s"], 1e-9)
        print(
            f"{m['flows_completed']}/{m['flows_total']} flows completed; simulated {st['end_ns'] / 1e9:.3f} s "
            f"in {m['wall_s']:.2f} s wall ({m['events_processed']} events, {rate:,.0f} data pkts/s); "
            f"wrote {out}/flows.parquet, series.parquet, meta.json"
            + "".join(f", {n}.parquet" for n in ("prefixes", "size_stats") if (out / f"{n}.parquet").exists())
        )
    if m["flows_total"] and m["flows_completed"] == 0:
        print(
            f"fctlab: WARNING: no flow completed ({m['flows_total']} started; simulated until "
            f"{st['end_ns'] / 1e9:.3f} s): check stop_s, the buffer and the link rates",
            file=sys.stderr,
        )
    return 0


def cmd_live(args) -> int:
    import fctlab

    from .live import LiveError, require_root
    from .live.run import run as live_run

    try:
        require_root()
        cfg = fctlab.load_config(args.scenario)
        if args.seed is not None:
            cfg["seed"] = args.seed
        res = live_run(
            cfg, stack=args.stack, cc=args.cc, sack=args.sack, bottleneck=args.bottleneck, timeout_s=args.timeout
        )
    except LiveError as e:
        raise CliError(str(e)) from None
    out = res.write(args.out)
    m = res.meta
    if not args.quiet:
        st = m["live"].get("flow_status", {})
        print(
            f"{m['flows_completed']}/{m['flows_total']} flows completed live ({', '.join(f'{k} {v}' for k, v in st.items())}) "
            f"in {m['wall_s']:.1f} s wall; wrote {out}/flows.parquet, series.parquet, meta.json"
        )
    return 0


def cmd_compare(args) -> int:
    import pandas as pd

    from .live.compare import compare_dirs

    for d in (args.dir_a, args.dir_b):
        if not (Path(d) / "flows.parquet").exists():
            raise CliError(f"{d}: not a run directory (no flows.parquet)")
    t, fig = compare_dirs(args.dir_a, args.dir_b, args.out)
    show = t[["size_pkts", "flows_a", "median_ms_a", "flows_b", "median_ms_b", "ratio_b_a"]]
    with pd.option_context("display.width", 200, "display.max_rows", None):
        print(show.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if fig is not None:
        print(f"wrote {Path(args.out) / 'compare.csv'}, {fig}")
    return 0


def cmd_list(args) -> int:
    from . import listing

    bad = listing.unknown(args.sections)
    if bad:
        raise CliError(f"unknown section {bad[0]!r}; allowed: {', '.join(listing.SECTIONS)}")
    cat = listing.catalogue()
    if args.json:
        print(json.dumps(listing.select(cat, args.sections), indent=2))
    else:
        print(listing.text(cat, args.sections))
    return 0


def cmd_reproduce(args) -> int:
    from .experiments import REGISTRY, canonical, reproduce

    names = [canonical(n) for n in args.names] or list(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise CliError(f"unknown reproduction {unknown[0]!r}; available: {', '.join(REGISTRY)}")
    scale = "full" if args.full else "quick"
    path = reproduce(names, scale=scale, out_dir=args.out)
    print(f"wrote {path}")
    return 0


def cmd_suite1991(args) -> int:
    from .experiments import kanakia1991

    try:
        cells = kanakia1991.suite(args.scheme, args.queue)
    except ValueError as e:
        raise CliError(str(e)) from None
    except fctlab_config_error() as e:
        raise CliError(str(e)) from None
    tp, net = kanakia1991.scheme_setup(args.scheme, args.queue)
    print(f"Kanakia, Keshav & Mishra 1991 benchmark, experiments 1-10: {args.scheme} over {net['queue']}")
    print(f"{'exp':<4} {'quantity':<32} {'fctlab':>10} {'optimal':>10} {'published':>10}")
    for c in cells:
        f = lambda v: "-" if v is None or v != v else f"{v:.4g}"  # noqa: E731
        print(
            f"{c['experiment']:<4} {c['quantity']:<32} {f(c['fctlab']):>10} {f(c['optimal']):>10} {f(c['published']):>10}"
        )
    return 0


def fctlab_config_error():
    import fctlab

    return fctlab.ConfigError


def cmd_sweep(args) -> int:
    from .store import StoreError
    from .sweep import SweepError, run_sweep

    try:
        res = run_sweep(
            args.spec,
            store=args.store,
            scheduler=args.scheduler,
            workers=args.workers,
            progress=not args.quiet,
            dry_run=args.dry_run,
        )
    except (SweepError, StoreError) as e:
        raise CliError(str(e)) from None
    runs = res.runs()
    if args.dry_run:
        for p in res.points:
            stored = sum(r.key in set(res.skipped) for r in p.runs)
            print(f"point {p.index}: {p.label()}  ({stored}/{len(p.runs)} runs stored)")
        print(f"{len(res.points)} points, {len(runs)} runs, {len(res.skipped)} already in {res.store.path}")
        return 0
    if not args.quiet:
        import math

        for p in res.points:
            rep = res.replicated(p.index)
            s = rep.overall()
            done = int(rep.flows["completed"].sum()) if len(rep.flows) else 0
            if s.empty:
                stat = "no flow completed"
            else:
                r = s.iloc[0]
                ci = f" +- {(r['mean_hi'] - r['mean_lo']) / 2e6:.4g}" if not math.isnan(r["mean_lo"]) else ""
                stat = f"mean FCT {r['mean'] / 1e6:.4g}{ci} ms, p99 {r['p99'] / 1e6:.4g} ms"
            print(f"point {p.index} ({p.label()}): {done}/{len(rep.flows)} flows; {stat}")
        print(
            f"sweep {res.name}: {len(runs)} runs ({len(res.ran)} ran now, {len(res.skipped)} already stored) "
            f"in {res.wall_s:.1f} s; store {res.store.path}"
        )
        print(
            f'  query: fctlab query --store {res.store.path} "SELECT * FROM runs"; report: fctlab report {res.store.path}'
        )
    return 0


def cmd_query(args) -> int:
    from .store import StoreError
    from .store import open as open_store

    try:
        df = open_store(args.store).query(args.sql)
    except StoreError as e:
        raise CliError(str(e)) from None
    if args.format == "csv":
        df.to_csv(sys.stdout, index=False)
    elif args.format == "json":
        print(df.to_json(orient="records", indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
            print(df.to_string(index=False) if len(df) else f"(no rows; columns: {', '.join(df.columns)})")
    return 0


def cmd_report(args) -> int:
    from .report import write_store_report
    from .store import StoreError

    try:
        path = write_store_report(args.store, args.out)
    except StoreError as e:
        raise CliError(str(e)) from None
    print(f"wrote {path}")
    return 0


def cmd_bench(args) -> int:
    from .bench import main as bench_main
    from .bench import parse_shapes

    try:
        parse_shapes(args.shape)
    except ValueError as e:
        raise CliError(str(e)) from None
    for key in ("packets", "ns3_seconds"):
        v = getattr(args, key)
        if v is not None and not v > 0:
            raise CliError(f"--{key.replace('_', '-')}: must be positive, got {v:g}")
    if args.repeat < 1:
        raise CliError(f"--repeat: must be at least 1, got {args.repeat}")
    if (args.scaling or args.memory) and not args.out:
        raise CliError(f"--{'scaling' if args.scaling else 'memory'} needs --out DIR (for its figure and numbers)")
    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fctlab",
        description="Fast packet-level simulation of congestion control, centred on flow completion time.",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser(
        "run",
        help="run one scenario file",
        description="Run SCENARIO.toml; write flows.parquet, series.parquet and meta.json to --out (and prefixes.parquet, size_stats.parquet when the scenario has measuring flows or asks for size statistics).",
    )
    r.add_argument("scenario", help="the scenario TOML file")
    r.add_argument("--out", default="out", help="output directory (default: out)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    r.set_defaults(func=cmd_run)

    lv = sub.add_parser(
        "live",
        help="run a scenario's flows as real traffic (root: network namespaces)",
        description="Run SCENARIO.toml's flows (the simulated run's own arrivals and sizes) as real traffic through network namespaces and a user-space link emulator; write flows.parquet, series.parquet and meta.json to --out. Needs root.",
    )
    lv.add_argument("scenario")
    lv.add_argument("--out", required=True)
    lv.add_argument("--seed", type=int)
    lv.add_argument(
        "--stack",
        choices=["fctlab", "kernel"],
        default="fctlab",
        help="fctlab: the scenario's scheme over UDP (default); kernel: Linux TCP",
    )
    lv.add_argument("--cc", choices=["reno", "cubic"], help="kernel TCP congestion control (default reno)")
    lv.add_argument(
        "--sack",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="kernel TCP SACK (default: on for tcp-sack only)",
    )
    lv.add_argument(
        "--bottleneck",
        choices=["fctlab", "tc"],
        default="fctlab",
        help="fctlab: the scenario's queue in the link emulator (default); tc: tbf + pfifo (droptail)",
    )
    lv.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="seconds after the last flow's start before unfinished flows are cut (default 30)",
    )
    lv.add_argument("--quiet", action="store_true")
    lv.set_defaults(func=cmd_live)

    cp = sub.add_parser(
        "compare",
        help="two runs' FCT by flow size, side by side",
        description="Median and p90 FCT per flow-size bin (powers of two, in packets) of two run directories; prints the table, and with --out writes compare.csv and compare.png.",
    )
    cp.add_argument("dir_a")
    cp.add_argument("dir_b")
    cp.add_argument("--out")
    cp.set_defaults(func=cmd_compare)

    from .listing import SECTIONS

    ls = sub.add_parser(
        "list",
        help="every building block and every scenario key with its default, meaning and source",
        description="Every building block and every scenario key with its default, meaning and source.\n\n"
        "sections:\n" + "\n".join(f"  {k:<14}{v}" for k, v in SECTIONS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ls.add_argument("sections", nargs="*", metavar="SECTION", help=f"show only these ({', '.join(SECTIONS)})")
    ls.add_argument("--json", action="store_true", help="machine-readable output (the named sections, or everything)")
    ls.set_defaults(func=cmd_list)

    rp = sub.add_parser("reproduce", help="reproduce the source documents' figures into an HTML report")
    rp.add_argument("names", nargs="*", help="reproductions to run (default: all)")
    g = rp.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="scaled-down runs, a few minutes in all (default)")
    g.add_argument("--full", action="store_true", help="the papers' full scale")
    rp.add_argument("--out", default="report", help="output directory (default: report)")
    rp.set_defaults(func=cmd_reproduce)

    s91 = sub.add_parser(
        "suite1991",
        help="run the 1991 benchmark's ten experiments for one scheme",
        description="The ten experiments of Kanakia, Keshav & Mishra 1991 (transfer times, probe delay) for any "
        "registered scheme, beside the optimal and (for the paper's schemes) the published values.",
    )
    s91.add_argument("--scheme", required=True, help="a registered scheme (fctlab list)")
    s91.add_argument("--queue", help="router queue (default: the scheme's router half, else droptail)")
    s91.set_defaults(func=cmd_suite1991)

    sw = sub.add_parser(
        "sweep",
        help="run a sweep of scenarios into a results store",
        description="Expand SPEC.toml (a base scenario and axes over config keys, seeds, replications) and "
        "run every point not already in the store, in parallel.",
    )
    sw.add_argument("spec", help="the sweep spec (or a scenario file: a sweep of one point)")
    sw.add_argument("--store", help="results directory (default: the spec's store, else ./store)")
    sw.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786) instead of local processes"
    )
    sw.add_argument("--workers", type=int, help="local worker processes (default: every core)")
    sw.add_argument("--dry-run", action="store_true", help="list the points and what is stored; run nothing")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    sw.set_defaults(func=cmd_sweep)

    qy = sub.add_parser(
        "query",
        help="SQL over every run in a results store (DuckDB)",
        description="Tables: runs (one row per run, config keys as columns), flows and series (every "
        "run's records with the run's columns), sweep_points.",
    )
    qy.add_argument("sql", help='e.g. "SELECT scheme, avg(fct_ns) FROM flows GROUP BY 1"')
    qy.add_argument("--store", default="store", help="results directory (default: store)")
    qy.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format (default: table)"
    )
    qy.set_defaults(func=cmd_query)

    rs = sub.add_parser("report", help="write the HTML report of a results store")
    rs.add_argument("store", nargs="?", default="store", help="results directory (default: store)")
    rs.add_argument("--out", help="output directory (default: STORE/report)")
    rs.set_defaults(func=cmd_report)

    b = sub.add_parser(
        "bench",
        help="measure simulation speed, beside ns-3 on the same flows",
        description="Run each shape (default: tcp, the reference scenario) --repeat times, each run in "
        "a process of its own, and print unique delivered data packets per wall second "
        "(min/median/max); with tcp, also the reference scenario's first --ns3-seconds in "
        "fctlab and in ns-3 on the same flow list, and the ratio; and, when htsim is built, "
        "the whole reference run in fctlab and htsim alternately on the same flows. --scaling and --memory "
        "measure how cost and memory grow instead.",
    )
    b.add_argument(
        "--shape", default="tcp", help="all, or shapes separated by commas: tcp, rcp, fq, red, graph, ps (default tcp)"
    )
    b.add_argument(
        "--packets",
        type=float,
        help="data packets per run (ps: flows); default 1e7 for tcp alone, "
        "about 1e6 per shape with several (README, Speed)",
    )
    b.add_argument("--repeat", type=int, default=5, help="runs per shape (default 5)")
    b.add_argument(
        "--ns3-seconds",
        type=float,
        default=16.0,
        help="simulated seconds of the slice run in both simulators (default 16: the first losses come at 14.9 s)",
    )
    b.add_argument("--no-ns3", action="store_true", help="skip the ns-3 comparison")
    b.add_argument(
        "--htsim",
        metavar="DIR",
        help="directory with htsim's htsim_dumbbell driver for the htsim race "
        "(default: $FCTLAB_HTSIM, else $FCTLAB_CACHE/htsim; skipped when there is none)",
    )
    b.add_argument(
        "--build-htsim",
        action="store_true",
        help="build htsim into $FCTLAB_CACHE/htsim from its sources ($FCTLAB_HTSIM_SRC, or "
        "../shared/peers/htsim beside the repository) first; needs g++ and make",
    )
    b.add_argument("--no-htsim", action="store_true", help="skip the htsim race")
    b.add_argument(
        "--scaling",
        action="store_true",
        help="cost per delivered packet against concurrent flows and links (figure in --out)",
    )
    b.add_argument(
        "--memory",
        action="store_true",
        help="peak memory at 10^5 to 10^7 flows with streamed metrics (numbers in --out)",
    )
    b.add_argument(
        "--full", action="store_true", help="with --scaling or --memory: the largest sizes too (10^6 flows, 10^7 flows)"
    )
    b.add_argument("--out", help="directory for bench.json and the figures")
    b.set_defaults(func=cmd_bench)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        import fctlab

        print(f"fctlab {fctlab.__version__}")
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        import fctlab

        return args.func(args) or 0
    except fctlab.ConfigError as e:
        print(f"fctlab: error: {e}", file=sys.stderr)
        return 2
    except CliError as e:
        print(f"fctlab: error: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, PermissionError, IsADirectoryError) as e:
        print(f"fctlab: error: {e.strerror or e}: {e.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fctlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`fctlab list | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as e:  # a bug: keep the user's terminal clean, offer the traceback
        if os.environ.get("FCTLAB_DEBUG"):
            raise
        print(
            f"fctlab: internal error: {type(e).__name__}: {e} (set FCTLAB_DEBUG=1 for the traceback)", file=sys.stderr
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
