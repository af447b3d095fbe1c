"""``python -m fctlab.ns3peer``: run fctlab's benchmark scenario under ns-3, print JSON.

Installs ns-3 on first use (see :func:`fctlab.ns3peer.ensure_ns3`). Exits 2 with
a one-line message on stderr when ns-3 is unavailable.
"""

import argparse
import json
import sys

from . import PeerUnavailable, ensure_ns3, run_ns3_bench


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m fctlab.ns3peer",
        description="Run fctlab's benchmark dumbbell under ns-3 (from PyPI) and print the counters as JSON.",
    )
    ap.add_argument("--senders", type=int, default=10, help="sender hosts (and as many receivers)")
    ap.add_argument("--bottleneck-bps", type=float, default=1e9)
    ap.add_argument("--rtt-ms", type=float, default=100.0, help="base RTT; all on the bottleneck")
    ap.add_argument("--load", type=float, default=0.8, help="offered load of the bottleneck")
    ap.add_argument("--mean-pkts", type=float, default=25, help="mean flow size (packets)")
    ap.add_argument("--shape", type=float, default=1.2, help="Pareto shape of flow sizes")
    ap.add_argument("--mss-bytes", type=int, default=1000)
    ap.add_argument("--header-bytes", type=int, default=40)
    ap.add_argument("--init-cwnd-pkts", type=int, default=2)
    ap.add_argument("--buffer-bdp", type=float, default=1.0, help="device queues, in bottleneck BDPs")
    ap.add_argument("--access-bps", type=float, default=10e9)
    ap.add_argument("--sim-seconds", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--install-only", action="store_true", help="install ns-3 and print its python")
    args = ap.parse_args(argv)

    def say(msg):
        print(msg, file=sys.stderr, flush=True)

    try:
        if args.install_only:
            print(ensure_ns3(progress=say))
            return 0
        kw = {k: v for k, v in vars(args).items() if k != "install_only"}
        result = run_ns3_bench(progress=say, **kw)
    except (PeerUnavailable, ValueError) as exc:
        print(f"fctlab.ns3peer: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fctlab.ns3peer: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
