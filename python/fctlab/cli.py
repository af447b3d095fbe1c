"""The ``fctlab`` command line: run, live, compare, list, reproduce, suite1991,
sweep, query, report, bench.

Every failure the user can act on is one line on stderr, ``fctlab: error:
...``, and exit status 2 (a refused scenario names the key; an OS error names
the file). Ctrl-C is exit status 130; ``fctlab run`` first writes what had
finished, marked interrupted.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys

from .cli_cmds import (
    CliError,
    cmd_bench,
    cmd_compare,
    cmd_live,
    cmd_query,
    cmd_report,
    cmd_reproduce,
    cmd_run,
    cmd_suite1991,
    cmd_sweep,
)

__all__ = ["main", "build_parser", "CliError"]


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


def _add_run(sub) -> None:
    r = sub.add_parser(
        "run",
        help="run one scenario file",
        description="Run SCENARIO.toml and write the run directory --out: flows.parquet, series.parquet, "
        "meta.json and manifest.json, and prefixes.parquet, size_stats.parquet and probes.parquet when the "
        "run has those tables. The directory is written whole (to a temporary name beside it, then renamed); "
        "an earlier run in it is replaced, anything else there is refused before the run starts. On a "
        "terminal a progress line shows the percentage done and the time left where the end is known. "
        "Ctrl-C stops the run, writes what finished (marked interrupted) and exits with status 130. "
        "fctlab query, report and compare read the run directory as they read a store.",
    )
    r.add_argument("scenario", help="the scenario TOML file")
    r.add_argument("--out", default="out", metavar="DIR", help="the run directory to write (default: out)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress line or summary (warnings and errors only)")
    r.set_defaults(func=cmd_run)


def _add_live(sub) -> None:
    lv = sub.add_parser(
        "live",
        help="run a scenario's flows as real traffic (root: network namespaces)",
        description="Run SCENARIO.toml's flows (the simulated run's own arrivals and sizes) as real traffic "
        "through network namespaces and a user-space link emulator, and write a run directory to --out as "
        "fctlab run does (compare the two with fctlab compare). Needs root.",
    )
    lv.add_argument("scenario", help="the scenario TOML file")
    lv.add_argument("--out", default="out", metavar="DIR", help="the run directory to write (default: out)")
    lv.add_argument("--seed", type=int, help="override the scenario's seed")
    lv.add_argument(
        "--stack",
        choices=["fctlab", "kernel"],
        default="fctlab",
        help="fctlab: the scenario's scheme over UDP (default); kernel: Linux TCP",
    )
    lv.add_argument(
        "--cc",
        choices=["reno", "cubic", "bbr", "dctcp", "vegas"],
        help="kernel TCP congestion control (default reno; bbr, dctcp and vegas are loaded with modprobe if missing)",
    )
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
    lv.add_argument("-q", "--quiet", action="store_true", help="no summary (warnings and errors only)")
    lv.set_defaults(func=cmd_live)


def _add_compare(sub) -> None:
    cp = sub.add_parser(
        "compare",
        help="two runs' FCT by flow size, side by side",
        description="Per flow-size bin (powers of two, in packets): flows, median and 90th-percentile FCT of "
        "each run, the ratio of the medians and the median FCT under ideal processor sharing (PS), columns "
        "named after the runs. Each run is a run directory (fctlab run or live --out) or a store holding one "
        "run. With --out, also writes compare.csv and compare.png.",
    )
    cp.add_argument("run_a", metavar="RUN_A", help="the first run (a run directory, or a store of one run)")
    cp.add_argument("run_b", metavar="RUN_B", help="the second run")
    cp.add_argument("--out", metavar="DIR", help="also write compare.csv and compare.png here")
    cp.set_defaults(func=cmd_compare)


def _add_list(sub) -> None:
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


def _add_reproduce(sub) -> None:
    rp = sub.add_parser(
        "reproduce",
        help="reproduce the source documents' figures into an HTML report",
        description="Run the named reproductions (figures and tables of the source papers, each beside the "
        "published numbers) and write an HTML report: one page per reproduction and an index, report.html. "
        "fctlab reproduce --list names them all; --all runs every one (a few minutes at --quick scale).",
    )
    rp.add_argument("names", nargs="*", metavar="NAME", help="reproductions to run (see --list)")
    rp.add_argument("--list", action="store_true", help="list the reproductions (name, source, title) and exit")
    rp.add_argument("--all", action="store_true", help="run every reproduction")
    g = rp.add_mutually_exclusive_group()
    g.add_argument(
        "--quick",
        action="store_true",
        help="scaled-down runs (default); with no NAME, every reproduction, as --all",
    )
    g.add_argument("--full", action="store_true", help="the papers' full scale; with no NAME, every reproduction")
    rp.add_argument("--out", default="report", metavar="DIR", help="output directory (default: report)")
    rp.set_defaults(func=cmd_reproduce)


def _add_suite1991(sub) -> None:
    s91 = sub.add_parser(
        "suite1991",
        help="run the 1991 benchmark's ten experiments for one scheme",
        description="The ten experiments of Kanakia, Keshav & Mishra 1991 (transfer times, probe delay) for any "
        "registered scheme, beside the optimal and (for the paper's schemes) the published values.",
    )
    s91.add_argument("--scheme", required=True, help="a registered scheme (fctlab list)")
    s91.add_argument("--queue", help="router queue (default: the scheme's router half, else droptail)")
    s91.set_defaults(func=cmd_suite1991)


def _add_sweep(sub) -> None:
    sw = sub.add_parser(
        "sweep",
        help="run a sweep of scenarios into a results store",
        description="Expand SPEC.toml (a base scenario and axes over config keys, seeds, replications) and "
        "run every point not already in the store, in parallel. A point that fails (a refused value, an "
        "engine error) is reported and the others still run; the exit status is then 2. Stopped sweeps "
        "resume where they were.",
    )
    sw.add_argument("spec", help="the sweep spec (or a scenario file: a sweep of one point)")
    sw.add_argument("--store", metavar="DIR", help="results directory (default: the spec's store, else ./store)")
    sw.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786) instead of local processes"
    )
    sw.add_argument("--workers", type=int, help="local worker processes (default: every core)")
    sw.add_argument("--dry-run", action="store_true", help="list the points and what is stored; run nothing")
    sw.add_argument("-q", "--quiet", action="store_true", help="no progress line or summary (warnings and errors only)")
    sw.set_defaults(func=cmd_sweep)


def _add_query(sub) -> None:
    qy = sub.add_parser(
        "query",
        help="SQL over every run in a results store (DuckDB)",
        description="SQL (DuckDB) over a results store or a run directory. Tables: runs (one row per run, "
        "config keys as columns), flows, series, prefixes, size_stats and probes (every run's records with "
        "the run's columns), sweep_points. The query reads the store only (the files the runs' manifests "
        "list): reading or writing other files, ATTACH and extensions are refused. Damaged runs are left out "
        "and named on stderr.",
    )
    qy.add_argument("sql", help='e.g. "SELECT scheme, avg(fct_ns) FROM flows GROUP BY 1"')
    qy.add_argument("--store", default="store", metavar="DIR", help="a store or a run directory (default: store)")
    qy.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format (default: table)"
    )
    qy.set_defaults(func=cmd_query)


def _add_report(sub) -> None:
    rs = sub.add_parser(
        "report",
        help="write the HTML report of a results store or a run directory",
        description="Write the HTML report of a results store (one page per sweep, one for runs outside any "
        "sweep) or of a run directory. Damaged runs are left out, named on stderr and on the index page.",
    )
    rs.add_argument("store", nargs="?", default="store", help="a store or a run directory (default: store)")
    rs.add_argument("--out", metavar="DIR", help="output directory (default: STORE/report)")
    rs.set_defaults(func=cmd_report)


def _add_bench(sub) -> None:
    b = sub.add_parser(
        "bench",
        help="measure simulation speed, beside ns-3 on the same flows",
        description="Run each shape (default: tcp, the reference scenario) --repeat times, each run in "
        "a process of its own, and print unique delivered data packets per wall second "
        "(min/median/max); with tcp, also the reference scenario's first --ns3-seconds in "
        "fctlab and in ns-3 on the same flow list, and the ratio; and, when htsim is built, "
        "the whole reference run in fctlab and htsim alternately on the same flows (with fattree, the "
        "same web-search flows on htsim's fat-tree, with the mean FCT per size bin of each). --scaling and --memory "
        "measure how cost and memory grow instead.",
    )
    b.add_argument(
        "--shape",
        default="tcp",
        help="all, or shapes separated by commas: tcp, cubic, bbr, rcp, fq, red, graph, fattree, ps (default tcp)",
    )
    b.add_argument(
        "--packets",
        type=float,
        help="data packets per run (ps: flows); default 1e7 for tcp alone, about 1e6 per shape with several",
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
        help="directory with htsim's drivers (htsim_dumbbell, htsim_fattree) for the htsim races "
        "(default: $FCTLAB_HTSIM, else $FCTLAB_CACHE/htsim; skipped when there is none)",
    )
    b.add_argument(
        "--build-htsim",
        action="store_true",
        help="build htsim into $FCTLAB_CACHE/htsim from its sources (Broadcom csg-htsim, in $FCTLAB_HTSIM_SRC) "
        "first; needs g++ and make",
    )
    b.add_argument("--no-htsim", action="store_true", help="skip the htsim race")
    b.add_argument(
        "--scaling",
        action="store_true",
        help="cost per delivered packet against concurrent flows and links",
    )
    b.add_argument("--memory", action="store_true", help="peak memory at 10^5 to 10^7 flows with streamed metrics")
    b.add_argument(
        "--full", action="store_true", help="with --scaling or --memory: the largest sizes too (10^6, 10^7 flows)"
    )
    b.add_argument("--out", metavar="DIR", help="directory for bench.json and the figures")
    b.set_defaults(func=cmd_bench)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fctlab",
        description="Fast packet-level simulation of congestion control, centred on flow completion time.",
        epilog="fctlab COMMAND --help describes each command.",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in (
        _add_run,
        _add_live,
        _add_compare,
        _add_list,
        _add_reproduce,
        _add_suite1991,
        _add_sweep,
        _add_query,
        _add_report,
        _add_bench,
    ):
        add(sub)
    return p


def _error(msg: str) -> int:
    print(f"fctlab: error: {msg}", file=sys.stderr)
    return 2


def _os_error(e: OSError) -> int:
    """An OS error as one line: what failed, and on which file."""
    what = e.strerror or str(e)
    if e.errno == errno.ENOSPC:
        what = "no space left on device"
    files = [str(f) for f in (e.filename, e.filename2) if f is not None]
    return _error(f"{what}: {' -> '.join(files)}" if files else what)


def _engine_panic(e: BaseException) -> int:
    from ._core import last_panic

    where = last_panic()
    return _error(f"the engine failed (a bug; please report it): {where or e}")


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
        return _dispatch(args)
    except BrokenPipeError:
        # The reader went away (`fctlab list | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _dispatch(args) -> int:
    import warnings

    from .cli_cmds import _warn_line
    from .rundir import RunDirError

    warnings.showwarning = _warn_line
    try:
        import fctlab

        return args.func(args) or 0
    except (fctlab.ConfigError, CliError, RunDirError, fctlab.EngineError) as e:
        return _error(str(e))
    except KeyboardInterrupt:
        print("fctlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except OSError as e:
        return _os_error(e)
    except ImportError as e:
        return _error(f"a Python package is missing: {e.name or e} (pip install {e.name or 'fctlab'})")
    except MemoryError:
        return _error("out of memory")
    except Exception as e:  # a bug: keep the user's terminal clean, offer the traceback
        if os.environ.get("FCTLAB_DEBUG"):
            raise
        print(
            f"fctlab: internal error: {type(e).__name__}: {e} (set FCTLAB_DEBUG=1 for the traceback)", file=sys.stderr
        )
        return 1
    except BaseException as e:  # a Rust panic outside the engine's run (pyo3's PanicException)
        if type(e).__name__ != "PanicException":
            raise
        return _engine_panic(e)


if __name__ == "__main__":
    sys.exit(main())
