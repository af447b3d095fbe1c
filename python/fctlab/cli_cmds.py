"""The ``fctlab`` subcommands (the parser and error handling are in `fctlab.cli`)."""

from __future__ import annotations

import math
import signal
import sys
import warnings
from pathlib import Path


class CliError(Exception):
    """An expected failure: printed as one line, exit status 2."""


def _warn_line(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line on stderr, in the CLI's words."""
    print(f"fctlab: warning: {message}", file=sys.stderr, flush=True)


def _load(scenario: str, seed: int | None) -> dict:
    import fctlab

    cfg = fctlab.load_config(scenario)
    if seed is not None:
        cfg["seed"] = seed
    return cfg


def _run_engine(cfg: dict, out: str, quiet: bool):
    """Run ``cfg`` and write it to ``out`` (prepared first, so an unusable
    ``out`` is refused before the run). Ctrl-C stops the run; what finished is
    written all the same. Returns (result, path, interrupt)."""
    import fctlab

    from .progress import RunProgress
    from .rundir import Writer
    from .sigint import deferred

    with deferred(after=signal.SIG_IGN) as sig:  # from before the temporary directory exists
        writer = Writer(out).prepare()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", fctlab.NoCompletedFlowWarning)
                warnings.showwarning = _warn_line
                prog = None if quiet else RunProgress()
                try:
                    res = fctlab.run(cfg, progress=prog, stop=sig.flag)
                finally:
                    if prog:
                        prog.close()
                path = res.write(out, writer=writer)
        finally:
            writer.abort()
    return res, path, sig


def cmd_run(args) -> int:
    from .rundir import is_run_dir

    replaced = " (replacing the earlier run there)" if is_run_dir(Path(args.out)) else ""
    res, out, sig = _run_engine(_load(args.scenario, args.seed), args.out, args.quiet)
    m, st = res.meta, res.meta["stats"]
    if res.interrupted or sig.requested:
        what = (
            f"stopped at simulated {st['end_ns'] / 1e9:.3f} s with {m['flows_completed']}/{m['flows_total']} "
            f"flows finished; wrote them to {out} (marked interrupted)"
            if res.interrupted
            else f"the run had already finished; wrote it, complete, to {out}"
        )
        print(f"fctlab: interrupted: {what}", file=sys.stderr)
        return 130
    if not args.quiet:
        rate = st["data_delivered"] / max(m["wall_s"], 1e-9)
        tables = ", ".join(p.name for p in sorted(out.iterdir()) if p.suffix in (".parquet", ".json"))
        print(
            f"{m['flows_completed']}/{m['flows_total']} flows completed; simulated {st['end_ns'] / 1e9:.3f} s "
            f"in {m['wall_s']:.2f} s wall ({m['events_processed']} events, {rate:,.0f} data pkts/s); "
            f"wrote {out}/{replaced}: {tables}"
        )
    if m["flows_total"] and m["flows_completed"] == 0:
        print(
            f"fctlab: warning: no flow completed ({m['flows_total']} started; simulated until "
            f"{st['end_ns'] / 1e9:.3f} s): check stop_s, the buffer and the link rates",
            file=sys.stderr,
        )
    return 0


def cmd_live(args) -> int:
    from .live import LiveError, require_root
    from .live.run import run as live_run
    from .rundir import Writer

    try:
        require_root()
        cfg = _load(args.scenario, args.seed)
        writer = Writer(args.out).prepare()
        try:
            res = live_run(
                cfg, stack=args.stack, cc=args.cc, sack=args.sack, bottleneck=args.bottleneck, timeout_s=args.timeout
            )
            out = res.write(args.out, writer=writer)
        finally:
            writer.abort()
    except LiveError as e:
        raise CliError(str(e)) from None
    m = res.meta
    if not args.quiet:
        st = ", ".join(f"{k} {v}" for k, v in m["live"].get("flow_status", {}).items())
        print(
            f"{m['flows_completed']}/{m['flows_total']} flows completed live ({st}) in {m['wall_s']:.1f} s wall; "
            f"wrote {out}/"
        )
    return 0


def _one_run(path: str):
    """The run at ``path``: a run directory, or a store holding one run."""
    from .store import StoreError
    from .store import open as open_store

    try:
        st = open_store(path)
    except StoreError as e:
        raise CliError(str(e)) from None
    keys = st.keys()
    damaged = st.damaged()
    intact = [k for k in keys if k not in damaged]
    if len(intact) != 1:
        if damaged and not intact:
            k, why = next(iter(damaged.items()))
            raise CliError(f"{path}: the run is damaged ({why})")
        raise CliError(
            f"{path}: a store of {len(intact)} runs; give one run's directory ({st.path / 'runs'}/<ab>/<key>)"
        )
    return st.get(intact[0])


def _names(a: str, b: str) -> tuple:
    """Short distinct labels of two run paths (their last parts, or the paths)."""
    na, nb = Path(a).name or a, Path(b).name or b
    return (na, nb) if na != nb else (a, b)


def cmd_compare(args) -> int:
    import pandas as pd

    from .live.compare import by_size, figure, labelled

    ra, rb = _one_run(args.run_a), _one_run(args.run_b)
    la, lb = _names(args.run_a, args.run_b)
    t = by_size(ra.flows, rb.flows)
    shown = labelled(t, la, lb)
    with pd.option_context("display.width", 250, "display.max_rows", None, "display.max_columns", None):
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}", na_rep="-"))
    if args.out:
        o = Path(args.out)
        o.mkdir(parents=True, exist_ok=True)
        bins = t[["lo", "hi"]].rename(columns={"lo": "size_lo_pkts", "hi": "size_hi_pkts"})
        shown.join(bins).to_csv(o / "compare.csv", index=False)
        fig = figure(
            t, o / "compare.png", f"{la} ({ra.meta.get('mode', 'sim')})", f"{lb} ({rb.meta.get('mode', 'sim')})"
        )
        print(f"wrote {o / 'compare.csv'}, {fig}")
    return 0


def _reproductions() -> list:
    """(name, source, title) of every reproduction."""
    from . import experiments

    specs = getattr(experiments, "specs", None)
    if specs is not None:
        return [(s.name, getattr(s, "source", ""), getattr(s, "title", "")) for s in specs()]

    def title(f) -> str:
        first = " ".join((getattr(f, "__doc__", None) or "").strip().split("\n\n")[0].split())
        return first if len(first) <= 100 else first[:99] + "\u2026"

    return [(n, "", title(f)) for n, f in experiments.REGISTRY.items()]


def cmd_reproduce(args) -> int:
    from .experiments import canonical, reproduce

    available = _reproductions()
    names = [n for n, _, _ in available]
    if args.list:
        width = max(len(n) for n in names)
        for n, src, title in available:
            print(f"{n:<{width}}  {src}{': ' if src and title else ''}{title}".rstrip())
        return 0
    if args.all or (not args.names and (args.quick or args.full)):
        chosen = names
    elif args.names:
        chosen = [canonical(n) for n in args.names]
    else:
        raise CliError(
            f"name the reproductions to run ({len(names)} available: fctlab reproduce --list), or give --all"
        )
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise CliError(f"unknown reproduction {unknown[0]!r}; see fctlab reproduce --list")
    path = reproduce(chosen, scale="full" if args.full else "quick", out_dir=args.out)
    print(f"wrote {path}")
    return 0


def cmd_suite1991(args) -> int:
    import fctlab

    from .experiments import kanakia1991

    try:
        cells = kanakia1991.suite(args.scheme, args.queue)
    except (ValueError, fctlab.ConfigError) as e:
        raise CliError(str(e)) from None
    tp, net = kanakia1991.scheme_setup(args.scheme, args.queue)
    print(f"Kanakia, Keshav & Mishra 1991 benchmark, experiments 1-10: {args.scheme} over {net['queue']}")
    print(f"{'exp':<4} {'quantity':<32} {'fctlab':>10} {'optimal':>10} {'published':>10}")

    def f(v):
        return "-" if v is None or v != v else f"{v:.4g}"

    for c in cells:
        print(
            f"{c['experiment']:<4} {c['quantity']:<32} {f(c['fctlab']):>10} {f(c['optimal']):>10} "
            f"{f(c['published']):>10}"
        )
    return 0


def _sweep_summary(res) -> None:
    for p in res.points:
        if any(r.key in res.failed for r in p.runs):
            k = next(r.key for r in p.runs if r.key in res.failed)
            print(f"point {p.index} ({p.label()}): FAILED: {res.failed[k]}")
            continue
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
            raise_failures=False,
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
        _sweep_summary(res)
        print(
            f"sweep {res.name}: {len(runs)} runs ({len(res.ran)} ran now, {len(res.skipped)} already stored"
            f"{f', {len(res.failed)} FAILED' if res.failed else ''}) in {res.wall_s:.1f} s; store {res.store.path}"
        )
        where = res.store.path
        print(f'  query: fctlab query --store {where} "SELECT * FROM runs"; report: fctlab report {where}')
    if res.failed:
        raise CliError(res.failure_line())
    return 0


def _warn_damaged(st) -> None:
    bad = st.damaged()
    if bad:
        shown = "; ".join(f"{k} ({why})" for k, why in list(bad.items())[:3])
        more = f"; and {len(bad) - 3} more" if len(bad) > 3 else ""
        print(f"fctlab: warning: {len(bad)} damaged run(s) left out: {shown}{more}", file=sys.stderr)


def cmd_query(args) -> int:
    from .store import StoreError
    from .store import open as open_store

    try:
        st = open_store(args.store)
        df = st.query(args.sql)
    except StoreError as e:
        raise CliError(str(e)) from None
    _warn_damaged(st)
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
    from .store import open as open_store

    try:
        st = open_store(args.store)
        path = write_store_report(st, args.out)
    except StoreError as e:
        raise CliError(str(e)) from None
    _warn_damaged(st)
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
