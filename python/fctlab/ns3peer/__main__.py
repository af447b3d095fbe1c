"""``python -m fctlab.ns3peer``: run fctlab's benchmark scenario under ns-3, print JSON.

Installs ns-3 on first use (see `fctlab.ns3peer.ensure_ns3`). Exits 2 with
a one-line message on stderr when ns-3 is unavailable.
"""

import argparse
import json
import sys

from . import PARAM_TYPES, PeerUnavailable, ensure_ns3, reference_params, run_ns3_bench


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m fctlab.ns3peer",
        description="Run fctlab's benchmark dumbbell under ns-3 (from PyPI) and print the counters as JSON.",
    )
    helps = {
        "senders": "sender hosts (and as many receivers)",
        "rtt_ms": "base RTT; all on the bottleneck",
        "load": "offered load of the bottleneck",
        "mean_pkts": "mean flow size (packets)",
        "shape": "Pareto shape of flow sizes",
        "buffer_bdp": "device queues, in bottleneck BDPs",
    }
    for key, value in reference_params().items():  # fctlab's benchmark scenario
        ap.add_argument(
            "--" + key.replace("_", "-"),
            type=PARAM_TYPES[key],
            default=PARAM_TYPES[key](value),
            help=f"{helps[key] + '; ' if key in helps else ''}default: {value:g}",
        )
    ap.add_argument("--sim-seconds", type=float, default=5.0)
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
