"""The sweep's progress line: runs done out of all, packets simulated per wall
second over every worker, time elapsed and left."""

from __future__ import annotations

import math
import sys
import time


def _fmt_dur(s: float) -> str:
    if s is None or not math.isfinite(s):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.2f}{unit}"
    return f"{x:.0f}"


class SweepProgress:
    """The sweep's progress line on stderr: runs done/total, simulated (delivered
    data) packets per wall second over all workers, elapsed and time left."""

    def __init__(self, name: str, total: int, stored: int, stream=None, every_s: float | None = None):
        self.name = name
        self.total = total
        self.stored = stored
        self.done = 0
        self.failed = 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s if every_s is not None else (0.5 if self.tty else 10.0)
        self.t0 = time.monotonic()
        self._last = 0.0
        self._pkts_done = 0
        self._live: dict = {}  # key -> (pkts, frac)
        self._drawn = False

    def live(self, key: str, pkts: int, frac: float | None) -> None:
        self._live[key] = (pkts, frac)

    def finished(self, key: str, pkts: int, ok: bool = True) -> None:
        self._live.pop(key, None)
        if ok:
            self.done += 1
            self._pkts_done += pkts
        else:
            self.failed += 1

    def line(self) -> str:
        el = time.monotonic() - self.t0
        todo = self.total - self.stored
        if todo == 0:
            return f"sweep {self.name}: all {self.total} runs already stored; nothing to run"
        pkts = self._pkts_done + sum(p for p, _ in self._live.values())
        work = self.done + self.failed + sum(min(f, 1.0) for _, f in self._live.values() if f is not None)
        left = (todo - work) * el / work if work > 0 else math.inf
        stored = f" ({self.stored} already stored)" if self.stored else ""
        fail = f", {self.failed} FAILED" if self.failed else ""
        run = f" | {len(self._live)} running" if self._live else ""
        return (
            f"sweep {self.name}: {self.done + self.stored}/{self.total} runs done{stored}{fail}{run}"
            f" | {_fmt_rate(pkts / max(el, 1e-9))} pkts/s | {_fmt_dur(el)} elapsed | ~{_fmt_dur(left)} left"
        )

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.every_s:
            return
        self._last = now
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line())
            self._drawn = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        self.draw(force=True)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
