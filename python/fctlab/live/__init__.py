"""Live mode: a scenario's flows as real traffic through network namespaces
(:func:`run`), and the kernel's TCP as a peer of the simulator's."""

from .netns import LiveError, sweep
from .run import run, require_root

__all__ = ["run", "sweep", "LiveError", "require_root"]
