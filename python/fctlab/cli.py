"""The ``fctlab`` command line: run, list, reproduce, bench."""

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
        )
    if m["flows_total"] and m["flows_completed"] == 0:
        print(
            f"fctlab: WARNING: no flow completed ({m['flows_total']} started; simulated until "
            f"{st['end_ns'] / 1e9:.3f} s): check stop_s, the buffer and the link rates",
            file=sys.stderr,
        )
    return 0


def cmd_list(args) -> int:
    import fctlab

    cat = fctlab.catalog()
    if args.json:
        print(json.dumps(cat, indent=2))
        return 0
    for section in ("schemes", "queues", "topologies", "distributions", "arrivals"):
        print(f"{section}:")
        for item in cat[section]:
            params = f"  [{item['parameters']}]" if item.get("parameters") else ""
            print(f"  {item['name']:<14} {item['description']}{params}")
        print()
    print("parameters (default, source):")
    for p in cat["parameters"]:
        src = f"  -- {p['source']}" if p["source"] else ""
        print(f"  {p['key']:<30} {json.dumps(p['default'])}{src}")
    return 0


def cmd_reproduce(args) -> int:
    from .experiments import REGISTRY, reproduce

    names = args.names or list(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise CliError(f"unknown reproduction {unknown[0]!r}; available: {', '.join(REGISTRY)}")
    scale = "full" if args.full else "quick"
    path = reproduce(names, scale=scale, out_dir=args.out)
    print(f"wrote {path}")
    return 0


def cmd_bench(args) -> int:
    from .bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fctlab", description="Fast packet-level simulation of congestion control, centred on flow completion time.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run one scenario file", description="Run SCENARIO.toml; write flows.parquet, series.parquet and meta.json to --out.")
    r.add_argument("scenario", help="the scenario TOML file")
    r.add_argument("--out", default="out", help="output directory (default: out)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    r.set_defaults(func=cmd_run)

    ls = sub.add_parser("list", help="list schemes, queues, topologies, distributions and defaults")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=cmd_list)

    rp = sub.add_parser("reproduce", help="reproduce the source documents' figures into an HTML report")
    rp.add_argument("names", nargs="*", help="reproductions to run (default: all)")
    g = rp.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="scaled-down runs, a few minutes in all (default)")
    g.add_argument("--full", action="store_true", help="the papers' full scale")
    rp.add_argument("--out", default="report", help="output directory (default: report)")
    rp.set_defaults(func=cmd_reproduce)

    b = sub.add_parser("bench", help="measure simulation speed against ns-3 on the same scenario")
    b.add_argument("--packets", type=float, default=1e7, help="approximate data packets in the fctlab run (default 1e7)")
    b.add_argument("--ns3-seconds", type=float, default=3.0, help="simulated seconds of the ns-3 slice (default 3)")
    b.add_argument("--no-ns3", action="store_true", help="skip the ns-3 comparison")
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
    except Exception as e:  # a bug: keep the user's terminal clean, offer the traceback
        if os.environ.get("FCTLAB_DEBUG"):
            raise
        print(f"fctlab: internal error: {type(e).__name__}: {e} (set FCTLAB_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
