"""The fabric pages' scenarios: TCP NewReno over DropTail on the pFabric
leaf-spine (`.fabric_websearch`) and a permutation of long flows on a
k = 8 fat-tree (`.fabric_ecmp`).

Parameters the fabric papers leave to the simulator, chosen here (each page
varies each once): 1460-B payloads and 40-B headers (1500-B packets), no
handshake (ns-2's TCP agents send data at once; the slowdown's ideal has
none), initial window 10 packets (RFC 6928), a receiver window of 64 packets
(about six base-RTT bandwidth-delay products of the 10 Gb/s host link), and
an RTO floor (and initial RTO) of 1 ms, since 200 ms would dwarf every FCT
of the fabric.
"""

from __future__ import annotations

#: The transport of both pages.
TRANSPORT = {
    "scheme": "tcp-newreno",
    "mss_bytes": 1460,
    "header_bytes": 40,
    "handshake": False,
    "init_cwnd_pkts": 10,
    "max_cwnd_pkts": 64,
    "min_rto_ms": 1.0,
    "initial_rto_ms": 1.0,
}

#: pFabric's leaf-spine (Alizadeh et al., SIGCOMM 2013, section 5): 144 hosts
#: in 9 racks of 16, 4 spines, 10 Gb/s host and 40 Gb/s fabric links, 12 us
#: base RTT across a spine.
LEAF_SPINE = {
    "hosts_per_leaf": 16,
    "leaves": 9,
    "spines": 4,
    "host_bps": 10e9,
    "fabric_bps": 40e9,
    "link_delay_us": 1.5,
}

#: The switch ports' buffer on the leaf-spine (packets), a choice.
BUFFER_PKTS = 150


def websearch_cfg(dist: str, load: float, count: int, seed: int = 1, **transport) -> dict:
    """All-to-all flows of ``dist`` at ``load`` of each host link, ECMP."""
    return {
        "seed": seed,
        "network": {
            "topology": "leaf-spine",
            "routing": "ecmp",
            "queue": "droptail",
            "buffer_pkts": transport.pop("buffer_pkts", BUFFER_PKTS),
            "leaf-spine": dict(LEAF_SPINE),
        },
        "transport": {**TRANSPORT, **transport},
        "traffic": [
            {"arrivals": "poisson", "matrix": "all-to-all", "load": load, "sizes": {"dist": dist}, "count": count}
        ],
        "metrics": {"series": False},
    }


#: The fat-tree of the ECMP page: k = 8 (128 hosts), 10 Gb/s everywhere, 1 us
#: per link (htsim's datacenter examples); ports large enough that the
#: comparison is of paths, not of losses.
FAT_TREE = {"k": 8, "host_bps": 10e9, "fabric_bps": 10e9, "link_delay_us": 1.0}
ECMP_BUFFER_PKTS = 1000


def permutation_cfg(network: dict, size_pkts: int, seed: int = 1, **transport) -> dict:
    """Every host sends one flow of ``size_pkts`` to its image under a random
    permutation (the same for a given seed and number of hosts), all at t = 0."""
    return {
        "seed": seed,
        "network": {"buffer_pkts": ECMP_BUFFER_PKTS, **network},
        "transport": {**TRANSPORT, **transport},
        "traffic": [
            {
                "arrivals": "closed-loop",
                "matrix": "permutation",
                "count": 1,
                "sizes": {"dist": "fixed", "pkts": size_pkts},
            }
        ],
        "metrics": {"series": False},
    }


def fat_tree(routing: str, **extra) -> dict:
    return {"topology": "fat-tree", "routing": routing, "fat-tree": dict(FAT_TREE), **extra}


def non_blocking(hosts: int) -> dict:
    """One switch joining every host at the host rate: a leaf-spine of one leaf."""
    return {
        "topology": "leaf-spine",
        "leaf-spine": {
            "hosts_per_leaf": hosts,
            "leaves": 1,
            "spines": 1,
            "host_bps": FAT_TREE["host_bps"],
            "fabric_bps": FAT_TREE["fabric_bps"],
            "link_delay_us": FAT_TREE["link_delay_us"],
        },
    }
