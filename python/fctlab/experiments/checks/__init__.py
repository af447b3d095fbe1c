"""The project's own pages, with no source document of their own: fctlab
against ns-3 (:mod:`.crossval_ns3`), against real packets on this machine
(:mod:`.live_vs_sim`), against the fluid PS and SRPT of the same flows
(:mod:`.baselines`), a workload replicated in parallel with confidence
intervals (:mod:`.replicated`), and TCP on datacenter fabrics against their
fluid ideal and ECMP against spraying (:mod:`.fabric_websearch`,
:mod:`.fabric_ecmp`)."""
