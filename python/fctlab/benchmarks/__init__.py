"""``fctlab bench``'s parts: the shapes of run (:mod:`.shapes`), one run in a
process of its own (:mod:`.runner`), the slice run beside ns-3
(:mod:`.ns3slice`), cost against concurrent flows and links
(:mod:`.scaling`) and memory against flows (:mod:`.memory`)."""
