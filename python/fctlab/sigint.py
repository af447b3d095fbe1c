"""Ctrl-C while a run is written: the run stops, and what finished is kept.

Inside `deferred` a SIGINT no longer raises ``KeyboardInterrupt`` in
whatever Python code happens to run: it sets a `fctlab.StopFlag`, which
stops the engine within about 65,536 events (the engine checks it, and runs
this handler, at that interval), and is remembered (``requested``) so that
the caller can finish writing the run and then report the interruption.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class Interrupt:
    """What `deferred` yields: ``flag`` (give it to `fctlab.run` as
    ``stop``) and ``requested`` (a SIGINT came)."""

    def __init__(self):
        from ._core import StopFlag

        self.flag = StopFlag()
        self.requested = False

    def handler(self, signum, frame) -> None:
        self.requested = True
        self.flag.set()


@contextlib.contextmanager
def deferred(after=None):
    """Within this block, Ctrl-C stops the run given ``flag`` instead of
    raising ``KeyboardInterrupt`` (only in the main thread; elsewhere the
    handler cannot be set and Ctrl-C behaves as usual). On leaving it the
    earlier handler returns, or ``after`` when given (the command line passes
    ``signal.SIG_IGN``: once its run is written a Ctrl-C has nothing left to
    stop, and must not turn a complete run into a killed process)."""
    it = Interrupt()
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield it  # elsewhere, or where SIGINT is ignored on purpose (nohup, a background job)
        return
    old = signal.signal(signal.SIGINT, it.handler)
    try:
        yield it
    finally:
        signal.signal(signal.SIGINT, old if after is None else after)
