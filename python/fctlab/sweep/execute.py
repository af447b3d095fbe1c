"""Running a sweep's tasks: a local process pool whose workers end with the
sweep process (a watchdog in each), or a Dask cluster; and the task itself, one
engine run whose files come back as bytes (workers never touch the store)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


class SweepError(Exception):
    """Some runs of a sweep failed (the others are stored)."""


_PROGRESS_Q = None
_IN_PROCESS = False  # set while the sweep runs in the calling process


def _proc_start(pid: int) -> str | None:
    """The start time of process ``pid`` (Linux /proc), None if it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _alive(pid: int, start: str | None) -> bool:
    if start is not None:
        return _proc_start(pid) == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _init_worker(q, sweep_pid: int, sweep_start: str | None) -> None:
    """Pool worker set-up: the progress queue; Ctrl-C is left to the sweep process;
    and a watchdog that ends this worker as soon as the sweep process is gone
    (killed, even by SIGKILL), so no worker outlives it or blocks forever on a
    result nobody will read."""
    global _PROGRESS_Q
    _PROGRESS_Q = q
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while True:
            time.sleep(0.25)
            if not _alive(sweep_pid, sweep_start):
                os._exit(70)

    threading.Thread(target=watch, name="fctlab-sweep-watchdog", daemon=True).start()


def _fraction(plan: dict, p: dict) -> float | None:
    """How far a run is, from the engine's progress report ``p`` and its
    :func:`fctlab.describe` ``plan``: flows completed out of those it creates
    when all of them can finish, else simulated time out of the time limit."""
    if plan["flows_expected"] and not plan["flows_long_lived"]:
        return p["flows_completed"] / plan["flows_expected"]
    if p.get("stop_ns"):
        return p["sim_ns"] / p["stop_ns"]
    return None


def _run_task(task: dict) -> dict:
    """Run one store entry and return its files' bytes (runs in a worker, local
    or on a Dask cluster: nothing here touches the store)."""
    import fctlab

    cfg = task["config"]
    key = task["key"]
    q = _PROGRESS_Q
    plan = fctlab.describe(cfg) if q is not None else None

    def cb(p: dict) -> bool:
        if q is not None:
            with contextlib.suppress(Exception):
                q.put_nowait((key, int(p["data_delivered"]), _fraction(plan, p)))
        return True

    res = fctlab.run(cfg, progress=cb, warn=False)
    if res.meta["stats"].get("interrupted"):
        if _IN_PROCESS:
            raise KeyboardInterrupt
        raise RuntimeError(f"run {key} was interrupted ({res.meta['stats'].get('interrupted_by')})")
    res.meta["store"] = {
        "key": key,
        "replication": task.get("replication"),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    with tempfile.TemporaryDirectory(prefix="fctlab-run-") as d:
        res.write(d)
        from ..store import FILES, OPTIONAL_FILES

        files = {n: (Path(d) / n).read_bytes() for n in FILES}
        files.update({n: (Path(d) / n).read_bytes() for n in OPTIONAL_FILES if (Path(d) / n).exists()})
    m = res.meta
    return {
        "key": key,
        "files": files,
        "version": m["fctlab_version"],
        "wall_s": m["wall_s"],
        "data_delivered": int(m["stats"].get("data_delivered", 0)),
        "flows_total": m["flows_total"],
        "flows_completed": m["flows_completed"],
    }


def _local_workers(workers: int | None) -> int:
    if workers:
        return max(1, int(workers))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["fctlab", "fctlab.sweep"])
        return ctx
    return mp.get_context("spawn")


def _execute_local(tasks: list, nworkers: int, on_done, on_live, on_fail) -> None:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    if nworkers == 1 or len(tasks) == 1:
        global _PROGRESS_Q, _IN_PROCESS
        import queue as _queue

        q: Any = _queue.SimpleQueue()
        _PROGRESS_Q, _IN_PROCESS = q, True
        try:
            for t in tasks:
                stop = threading.Event()

                def pump(stop=stop):
                    while not stop.wait(0.5):
                        _drain(q, on_live)

                th = threading.Thread(target=pump, daemon=True)
                th.start()
                try:
                    out = _run_task(t)
                except Exception as e:  # noqa: BLE001 - reported per run
                    out, err = None, e
                else:
                    err = None
                finally:
                    stop.set()
                    th.join()
                _drain(q, on_live)
                if err is not None:
                    on_fail(t, err)
                else:
                    on_done(t, out)
        finally:
            _PROGRESS_Q, _IN_PROCESS = None, False
        return

    ctx = _mp_context()
    q = ctx.Queue()
    main = sys.modules.get("__main__")
    main_file = getattr(main, "__file__", None)
    # Workers re-import the parent's __main__ by path; a script read from stdin
    # ("<stdin>") has none, so leave it out (the workers need only fctlab).
    hide_main = (
        isinstance(main_file, str)
        and getattr(getattr(main, "__spec__", None), "name", None) is None
        and not os.path.isfile(main_file)
    )
    ex = ProcessPoolExecutor(
        max_workers=min(nworkers, len(tasks)),
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(q, os.getpid(), _proc_start(os.getpid())),
    )
    futs = {}
    try:
        if hide_main:
            del main.__file__
        try:
            futs = {ex.submit(_run_task, t): t for t in tasks}
        finally:
            if hide_main:
                main.__file__ = main_file
        pending = set(futs)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            _drain(q, on_live)
            for f in done:
                t = futs[f]
                try:
                    out = f.result()
                except BrokenProcessPool:
                    raise SweepError(
                        "a worker process died (out of memory? killed?); finished runs are stored, "
                        "run the sweep again to resume"
                    ) from None
                except Exception as e:  # noqa: BLE001
                    on_fail(t, e)
                    continue
                on_done(t, out)
        ex.shutdown(wait=True)
    except BaseException:
        for f in futs:
            f.cancel()
        procs = list(getattr(ex, "_processes", {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.kill()
        raise
    finally:
        try:
            q.close()
            q.join_thread()
        except Exception:  # noqa: BLE001
            pass


def _drain(q, on_live) -> None:
    import queue as _queue

    while True:
        try:
            key, pkts, frac = q.get_nowait()
        except (_queue.Empty, OSError, EOFError, ValueError):
            return
        on_live(key, pkts, frac)


def _dask_client(scheduler):
    """(client, owned): a ``distributed.Client`` for an address, or the one given."""
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("a Dask cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="30s"), True
    except (OSError, TimeoutError, ValueError) as e:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None


def _execute_dask(tasks: list, client, on_done, on_fail) -> None:
    from distributed import as_completed

    futs = []
    try:
        futs = [client.submit(_run_task, t, pure=False, retries=1) for t in tasks]
        by_key = {f.key: t for f, t in zip(futs, tasks)}
        for f in as_completed(futs):
            t = by_key[f.key]
            try:
                out = f.result()
            except Exception as e:  # noqa: BLE001
                on_fail(t, e)
            else:
                on_done(t, out)
            f.release()
    except BaseException:
        with contextlib.suppress(Exception):
            client.cancel(futs)
        raise
