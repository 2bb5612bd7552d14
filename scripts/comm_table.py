"""The communication table of docs/concepts/applications.md: every application's
characterisation (Martin's Table 3.2 / 4.1) at one size and rank count, as Markdown on
stdout.

    .venv/bin/python scripts/comm_table.py --ranks 32 --size small --platform now1997
"""

import argparse
import sys

from netsens import NetsensError, apps
from netsens.api import run
from netsens.models.profile import characterize
from netsens.units import format_bytes, format_time

# Example programs, not part of the suite.
EXAMPLES = {"pingpong", "stencil"}


def row(name: str, ranks: int, size: str, platform: str) -> str:
    p = characterize(run(name, platform=platform, ranks=ranks, size=size))
    classes = ("reads", "writes", "bulk", "collective")
    shares = " / ".join(f"{100 * p.shares[c]:.0f}" for c in classes)
    median = format_bytes(p.median_bytes_lo) + "–" + format_bytes(p.median_bytes_hi)
    return (
        f"| {name} | {format_time(p.makespan_ps)} | {p.messages_mean:,.0f} | {p.messages_max:,} "
        f"| {format_bytes(round(p.bytes_mean))} | {shares} | {p.messages_per_ms:,.1f} "
        f"| {median} | {format_bytes(round(p.mean_bytes))} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=32)
    parser.add_argument("--size", default="small")
    parser.add_argument("--platform", default="now1997")
    args = parser.parse_args()
    print(
        "| app | run time | msgs/rank mean | msgs/rank max | bytes/rank mean "
        "| reads / writes / bulk / coll. % | msgs/rank/ms | median size | mean size |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    try:
        for name, _, _ in apps():
            if name not in EXAMPLES:
                print(row(name, args.ranks, args.size, args.platform), flush=True)
    except NetsensError as e:
        print(f"comm_table: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
