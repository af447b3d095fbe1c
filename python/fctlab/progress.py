"""A one-line progress display for long runs, on standard error."""

from __future__ import annotations

import sys
import time


def _fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.1f}{unit}"
    return f"{x:.0f}"


class RunProgress:
    """Callable for ``fctlab.run(progress=...)``: simulated time, flows, events/s.

    Draws in place on a terminal; elsewhere prints a line every ``every_s`` seconds.
    """

    def __init__(self, label: str = "", stream=None, every_s: float = 10.0):
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s
        self._last = 0.0
        self._drawn = False

    def __call__(self, p: dict) -> bool:
        now = time.monotonic()
        if not self.tty and now - self._last < self.every_s:
            return True
        self._last = now
        sim = p["sim_ns"] / 1e9
        stop = p.get("stop_ns")
        pct = f" ({100 * p['sim_ns'] / stop:.0f}%)" if stop else ""
        ev = p["events"] / max(p["wall_s"], 1e-9)
        pk = p["data_delivered"] / max(p["wall_s"], 1e-9)
        line = (
            f"{self.label}sim {sim:.3f} s{pct} | flows {p['flows_completed']}/{p['flows_started']} done"
            f" | {_fmt_rate(ev)} events/s | {_fmt_rate(pk)} data pkts/s | wall {p['wall_s']:.0f} s"
        )
        if self.tty:
            self.stream.write("\r\x1b[2K" + line)
            self._drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        return True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
