"""The ISCA'97 seed's quantitative statements beside netsens: each application's
slowdown at the points the statements name, on `now1997` as it is and with one of its
choices undone (the suite's CPU speed 1.0 instead of the NOW's 0.0835; G on every byte
instead of bulk transfers only), so each remaining difference has a run that shows its
cause. Markdown on stdout.

    .venv/bin/python scripts/isca97_statements.py [--size small] [--ranks 32] [--apps radix,ft]
"""

import argparse
import sys

from netsens import NetsensError, apps
from netsens.api import run

# The points of the seed's statements: overhead 103 us, latency 100 us, bulk bandwidth
# 15 MB/s, 5.5 MB/s (one NOW-sort disk) and 1 MB/s.
POINTS = {
    "o=103us": {"o": "102.9us"},
    "L=100us": {"L": "100us"},
    "G=15MB/s": {"G": "15MB/s"},
    "G=5.5MB/s": {"G": "5.5MB/s"},
    "G=1MB/s": {"G": "1MB/s"},
}
# now1997 as it is, then with one choice undone.
VARIANTS = {
    "now1997": {},
    "cpu 1.0": {"cpu_speed": "1"},
    "G every byte": {"G_above": "0B"},
}
EXAMPLES = {"pingpong", "stencil"}


def slowdowns(app: str, size: str, ranks: int, variant: dict[str, str]) -> list[float]:
    def makespan(overrides: dict[str, str]) -> int:
        return run(app, "now1997", ranks, size, 0, overrides, matrix=False).makespan_ps

    base = makespan(variant)
    return [makespan({**variant, **point}) / base for point in POINTS.values()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="small")
    parser.add_argument("--ranks", type=int, default=32)
    parser.add_argument("--apps", default=None, help="comma-separated; default: the whole suite")
    args = parser.parse_args()
    names = args.apps.split(",") if args.apps else [n for n, _, _ in apps() if n not in EXAMPLES]
    print("| app | platform | " + " | ".join(f"slowdown at {p}" for p in POINTS) + " |")
    print("|---|---|" + "---|" * len(POINTS))
    try:
        for name in names:
            for label, variant in VARIANTS.items():
                ratios = slowdowns(name, args.size, args.ranks, variant)
                cells = " | ".join(f"{s:.2f}×" for s in ratios)
                print(f"| {name} | {label} | {cells} |", flush=True)
    except NetsensError as e:
        print(f"isca97_statements: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
