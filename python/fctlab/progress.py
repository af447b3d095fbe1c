"""A one-line progress display for long runs, on standard error."""

from __future__ import annotations

import math
import sys
import time


def _fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.1f}{unit}"
    return f"{x:.0f}"


def fmt_duration(s: float | None) -> str:
    """``75`` -> ``1:15``; ``3725`` -> ``1:02:05``; unknown -> ``?``."""
    if s is None or not math.isfinite(s):
        return "?"
    s = int(round(max(s, 0.0)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def fraction_done(p: dict) -> float | None:
    """How far a run is, from a progress report ``p``: the larger of flows
    completed out of the flows it creates (when all of them can finish) and
    simulated time out of ``stop_s`` (the run ends at whichever comes first);
    None when neither end is known."""
    parts = []
    if p.get("flows_expected"):
        parts.append(p["flows_completed"] / p["flows_expected"])
    if p.get("stop_ns"):
        parts.append(p["sim_ns"] / p["stop_ns"])
    return min(max(parts), 1.0) if parts else None


class RunProgress:
    """Callable for ``fctlab.run(progress=...)``: simulated time, flows, events/s,
    and, where the end of the run is known (a flow count or ``stop_s``), the
    percentage done and the time left.

    Draws in place on a terminal; elsewhere prints a line every ``every_s`` seconds.
    """

    def __init__(self, label: str = "", stream=None, every_s: float = 10.0):
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s
        self._last = -math.inf
        self._drawn = False

    def line(self, p: dict) -> str:
        sim = p["sim_ns"] / 1e9
        f = fraction_done(p)
        wall = p["wall_s"]
        done = ""
        if f is not None:
            left = wall * (1 - f) / f if f > 0 else None
            done = f"{100 * f:.0f}% | ~{fmt_duration(left)} left | "
        ev = p["events"] / max(wall, 1e-9)
        pk = p["data_delivered"] / max(wall, 1e-9)
        return (
            f"{self.label}{done}sim {sim:.3f} s | flows {p['flows_completed']}/{p['flows_started']} done"
            f" | {_fmt_rate(ev)} events/s | {_fmt_rate(pk)} data pkts/s | wall {fmt_duration(wall)}"
        )

    def __call__(self, p: dict) -> bool:
        now = time.monotonic()
        if not self.tty and now - self._last < self.every_s:
            return True
        self._last = now
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line(p))
            self._drawn = True
        else:
            self.stream.write(self.line(p) + "\n")
        self.stream.flush()
        return True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False
