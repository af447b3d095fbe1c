"""Live mode: a scenario's flows as real traffic through network namespaces
(`run`), and the kernel's TCP as a peer of the simulator's."""

from .netns import LiveError, sweep
from .run import require_root, run

__all__ = ["run", "sweep", "LiveError", "require_root", "by_size_table"]


def by_size_table(flows_a, flows_b, edges=None):
    """Median FCT per size bin of two runs' flows (see `compare.by_size`)."""
    from .compare import by_size

    return by_size(flows_a, flows_b, edges)
