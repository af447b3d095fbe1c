"""``python -m fctlab.experiments.mussmann2012_full``: the older name of
``python -m fctlab.experiments.mussmann2012.full`` (Fig. 5.2 at the thesis's scale)."""

from __future__ import annotations

import sys

from .mussmann2012.full import main

if __name__ == "__main__":
    sys.exit(main())
