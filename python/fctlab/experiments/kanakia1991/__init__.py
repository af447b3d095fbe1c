"""Kanakia, Keshav & Mishra, "A comparison of reactive host-based flow control
schemes in reservationless networks" (1991 draft): a benchmark of ten
experiments judged by file transfer time (data available at the sender to the
acknowledgement of its last byte) and single packet delay.

Every table (4.1 to 4.10) is reproduced, one page each (``table4_1`` ... as
``kanakia1991-table4-N``) and all on one page (``kanakia1991``, with Figure 7);
the networks are in `.network`, the experiments' scenarios in
`.scenarios`, the paper's numbers in ``published.toml``, and
`suite` runs the ten experiments for any registered scheme
(``fctlab suite1991``).
"""

from .any_scheme import scheme_setup, suite

__all__ = ["scheme_setup", "suite"]
