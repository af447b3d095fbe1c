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
import warnings
from pathlib import Path
from typing import Any

from ..rundir import FILES, OPTIONAL_FILES


class SweepError(Exception):
    """Some runs of a sweep failed (the others are stored)."""


class TaskError(RuntimeError):
    """A run of a sweep failed in its worker: the message names the error
    (``EngineError: ...``). A plain exception, so that it crosses process
    boundaries whatever the original was (a Rust panic cannot be pickled)."""


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


def _run_task(task: dict) -> dict:
    """Run one store entry and return its files' bytes (runs in a worker, local
    or on a Dask cluster: nothing here touches the store). Any failure but
    Ctrl-C comes back as a `TaskError` naming it."""
    try:
        return _run_task_unguarded(task)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except TaskError:
        raise
    except BaseException as e:  # noqa: BLE001 - a Rust panic is a BaseException
        text = str(e).strip()
        raise TaskError(f"{type(e).__name__}: {text.splitlines()[0] if text else 'no message'}") from None


def _run_task_unguarded(task: dict) -> dict:
    import fctlab

    from ..progress import fraction_done

    cfg = task["config"]
    key = task["key"]
    q = _PROGRESS_Q

    def cb(p: dict) -> bool:
        if q is not None:
            with contextlib.suppress(Exception):
                q.put_nowait((key, int(p["data_delivered"]), fraction_done(p)))
        return True

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fctlab.OverloadWarning)  # the sweep's points were warned of once
        res = fctlab.run(cfg, progress=cb, warn=False)
    if res.interrupted:
        if _IN_PROCESS:
            raise KeyboardInterrupt
        raise TaskError(f"run {key} was interrupted ({res.meta['stats'].get('interrupted_by')})")
    res.meta["store"] = {
        "key": key,
        "replication": task.get("replication"),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    with tempfile.TemporaryDirectory(prefix="fctlab-run-") as d:
        run_dir = res.write(Path(d) / "run")
        files = {n: (run_dir / n).read_bytes() for n in FILES}
        files.update({n: (run_dir / n).read_bytes() for n in OPTIONAL_FILES if (run_dir / n).exists()})
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
    """Run ``tasks`` in this process (one worker or one task) or in a pool."""
    if nworkers == 1 or len(tasks) == 1:
        _execute_in_process(tasks, on_done, on_live, on_fail)
    else:
        _execute_pool(tasks, nworkers, on_done, on_live, on_fail)


def _execute_in_process(tasks: list, on_done, on_live, on_fail) -> None:
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
                out, err = _run_task(t), None
            except TaskError as e:
                out, err = None, e
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


def _pool(ctx, q, tasks: list, nworkers: int):
    """A process pool of fctlab workers, and the futures of ``tasks`` on it."""
    from concurrent.futures import ProcessPoolExecutor

    ex = ProcessPoolExecutor(
        max_workers=min(nworkers, len(tasks)),
        mp_context=ctx,
        initializer=_init_worker,
        initargs=(q, os.getpid(), _proc_start(os.getpid())),
    )
    # Workers would re-run the parent's __main__ (a script without an
    # `if __name__ == "__main__":` guard would start the sweep again in each,
    # and a script read from stdin has no file to run). They need only
    # fctlab, so __main__ is hidden from them while they start.
    main = sys.modules.get("__main__")
    saved = {a: main.__dict__[a] for a in ("__file__", "__spec__") if main is not None and a in main.__dict__}
    if main is not None:
        main.__dict__.pop("__file__", None)
        main.__spec__ = None
    try:
        return ex, {ex.submit(_run_task, t): t for t in tasks}
    finally:
        if main is not None:
            main.__dict__.update(saved)


def _execute_pool(tasks: list, nworkers: int, on_done, on_live, on_fail) -> None:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = _mp_context()
    q = ctx.Queue()
    ex, futs = None, {}
    try:
        ex, futs = _pool(ctx, q, tasks, nworkers)
        pending = set(futs)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            _drain(q, on_live)
            for f in done:
                try:
                    out = f.result()
                except BrokenProcessPool:
                    raise SweepError(
                        "a worker process died (out of memory? killed?); finished runs are stored, "
                        "run the sweep again to resume"
                    ) from None
                except Exception as e:  # noqa: BLE001 - reported per run
                    on_fail(futs[f], e)
                    continue
                on_done(futs[f], out)
        ex.shutdown(wait=True)
    except BaseException:
        _kill_pool(ex, futs)
        raise
    finally:
        with contextlib.suppress(Exception):
            q.close()
            q.join_thread()


def _kill_pool(ex, futs) -> None:
    for f in futs:
        f.cancel()
    if ex is None:
        return
    procs = list(getattr(ex, "_processes", {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()


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
