"""Dukkipati & McKeown, "Why Flow-Completion Time is the Right Metric for
Congestion Control", ACM CCR 36(1), 2006: one page per figure (Figs 6-7, 8-9
and 10-11 share a page each), and two pages on RCP beyond the figures
(convergence, sensitivity to alpha and beta). The scenarios are in
`.scenarios`, the paper's own numbers in ``published.toml``."""
