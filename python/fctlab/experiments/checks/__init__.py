"""The project's own pages, with no source document of their own: fctlab
against ns-3 (`.crossval_ns3`), against real packets on this machine
(`.live_vs_sim`), against the fluid PS and SRPT of the same flows
(`.baselines`), a workload replicated in parallel with confidence
intervals (`.replicated`), and TCP on datacenter fabrics against their
fluid ideal and ECMP against spraying (`.fabric_websearch`,
`.fabric_ecmp`), and fctlab against htsim on a fat-tree (`.fabric_htsim`)."""
