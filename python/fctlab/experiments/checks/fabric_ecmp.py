"""A permutation of long flows on a k = 8 fat-tree: each flow's throughput
under ECMP, under packet spraying and on an ideal non-blocking switch, beside
fluid max-min fair sharing on the very paths ECMP chose."""

from __future__ import annotations

import numpy as np

from ...report import Figure
from ..page import Page, parameters, style
from ..registry import reproduction
from .fabric_scenarios import ECMP_BUFFER_PKTS, FAT_TREE, TRANSPORT, fat_tree, non_blocking, permutation_cfg

#: Each flow's size in packets: quick (4 MB), full (100 MB).
SIZE_PKTS = {"quick": 2740, "full": 68_500}
HOSTS = FAT_TREE["k"] ** 3 // 4


def throughput_gbps(flows, fct_column: str = "fct_ns"):
    """Payload bits over the completion time, Gb/s, sorted."""
    return np.sort(flows["size_bytes"].to_numpy(float) * 8 / flows[fct_column].to_numpy(float))


def _summary(x) -> str:
    return f"mean {x.mean():.2f}, min {x.min():.2f} Gb/s, {np.mean(x < 0.9 * 10):.0%} under 9 Gb/s"


@reproduction("fabric-ecmp", title="A permutation on a k = 8 fat-tree: ECMP, spraying, a non-blocking switch")
def fabric_ecmp(out, scale: str) -> list:
    p = Page("fabric-ecmp", out, scale)
    n = SIZE_PKTS["full" if p.full else "quick"]
    runs = {
        "ECMP (per flow)": p.run(permutation_cfg(fat_tree("ecmp"), n), "ecmp"),
        "packet spraying (random)": p.run(permutation_cfg(fat_tree("spray"), n), "spray"),
        "non-blocking switch": p.run(permutation_cfg(non_blocking(HOSTS), n), "non-blocking"),
    }
    for name, r in runs.items():
        if not r.flows["completed"].all():
            raise RuntimeError(f"{name}: flows left unfinished")
    curves = {k: throughput_gbps(r.flows) for k, r in runs.items()}
    curves["fluid max-min on ECMP's paths"] = throughput_gbps(runs["ECMP (per flow)"].flows, "ps_fct_ns")
    fig, ax = p.subplots(figsize=(7, 4.2))
    for (label, x), mark in zip(curves.items(), ("-", "-", "-", "--")):
        ax.step(x, np.arange(1, len(x) + 1) / len(x), mark, where="post", label=label)
    style(ax, "per-flow throughput (Gb/s): payload / FCT", "fraction of flows", xlim=(0, 10.5), loc="upper left")
    png = p.save(fig)
    # Varied once: another ECMP hash draw, and spraying in turn (round robin)
    # rather than at random.
    seed2 = throughput_gbps(p.run(permutation_cfg(fat_tree("ecmp"), n, seed=2), "ecmp seed 2").flows)
    rr = p.run(permutation_cfg(fat_tree("spray", spray="round-robin"), n), "spray round robin").flows
    retx = {k: int(r.flows["retransmits"].sum()) for k, r in runs.items()}
    caption = (
        f"Each of the {HOSTS} hosts of a k = 8 fat-tree (Al-Fares et al. 2008; 10 Gb/s links, 1 us each, "
        f"{ECMP_BUFFER_PKTS}-packet switch ports) sends one flow of {n:,} packets of 1460 B to its image under a "
        "random permutation without fixed point, all from t = 0, with TCP NewReno. ECMP hashes each flow onto "
        "one of its equal-cost paths (16 between pods), so flows collide on links and share them; spraying "
        "picks a path per packet at random (the receiver sees the reordering: NewReno's three duplicate ACKs "
        "then retransmit spuriously); the non-blocking switch joins every host to one switch at 10 Gb/s (the "
        "same permutation). Dashed: fluid max-min fair sharing of the same flows on the very paths ECMP chose "
        "(fctlab's ps_fct_ns), the throughput TCP would reach if it shared those links ideally. "
        + "; ".join(f"{k}: {_summary(v)}" for k, v in curves.items())
        + f". Retransmissions: {retx}. Varied once: ECMP with seed 2 (another hash draw): {_summary(seed2)}; "
        f"spraying round robin: {_summary(throughput_gbps(rr))}, {int(rr['retransmits'].sum())} "
        "retransmissions. Chosen parameters: the transport below, "
        f"seed 1. {parameters({'transport': TRANSPORT, 'fat-tree': FAT_TREE})}"
    )
    return p.record(
        source="fctlab: ECMP's collisions on a fat-tree (Al-Fares et al. 2008), as htsim's permutation runs show",
        figures=[Figure(png, caption)],
        params={"size_pkts": n, "transport": TRANSPORT, "fat-tree": FAT_TREE, "buffer_pkts": ECMP_BUFFER_PKTS},
        seed=1,
    )
