"""``fctlab bench``'s parts: the shapes of run (`.shapes`), one run in a
process of its own (`.runner`), the slice run beside ns-3
(`.ns3slice`), cost against concurrent flows and links
(`.scaling`) and memory against flows (`.memory`)."""
