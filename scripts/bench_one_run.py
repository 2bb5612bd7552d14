"""The report's one-run section for one workload: its record's exact curves against the
record asked at the swept values only, in one process.

    python scripts/bench_one_run.py [--app connect --ranks 32 --size small --repeats 3]

On the default study's platform (now1997) and axes (o, g, L, G, 8 points each over
studies/isca97.toml's ranges), runs, interleaved so that load from elsewhere hits all
alike: the record alone (the baseline), the record with the exact curve of each
parameter over its range (what the section read before), and the record asked at the
swept values and the section's values between them (``at``, what it reads now).
Prints each one's median wall time, its ratio to the record alone, and how much
cheaper ``at`` is than the curves.
"""

import argparse
import statistics
import time
from typing import Any

from netsens.report.one_run import line_values
from netsens.sensitivity import analyze

# studies/isca97.toml's axes in the analysis's units (ps, ps/B), 8 points each.
RANGES = {"o": (2.9e6, 102.9e6), "g": (5.8e6, 105.8e6), "L": (5e6, 100e6), "G": (26.315789, 1000.0)}
POINTS = 8


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", default="connect")
    ap.add_argument("--ranks", type=int, default=32)
    ap.add_argument("--size", default="small")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    swept = {
        p: [lo + (hi - lo) * i / (POINTS - 1) for i in range(POINTS)]
        for p, (lo, hi) in RANGES.items()
    }
    asks: dict[str, dict[str, Any]] = {
        "record alone": {},
        "exact curves": {"curves": [(p, (v[0], v[-1])) for p, v in swept.items()]},
        "at the values": {"at": [(p, line_values(v)) for p, v in swept.items()]},
    }
    times: dict[str, list[float]] = {k: [] for k in asks}
    corners = 0
    for _ in range(a.repeats):
        for name, ask in asks.items():
            t = time.perf_counter()
            out = analyze(
                app=a.app,
                ranks=a.ranks,
                size=a.size,
                platform="now1997",
                params=[],
                epsilons=[],
                chain=0,
                confirm=False,
                **ask,
            )
            times[name].append(time.perf_counter() - t)
            corners = max(corners, sum(len(c["points"]) for c in out["curves"]))
    median = {k: statistics.median(v) for k, v in times.items()}
    values = sum(len(v) for _, v in asks["at the values"]["at"])
    print(f"one-run section of {a.app}, {a.ranks} ranks, {a.size} (medians of {a.repeats})")
    for name, s in median.items():
        print(f"  {name:14s} {s:8.3f} s  {s / median['record alone']:6.2f}x the record")
    print(f"  the curves have {corners} corner points; at asks {values} values")
    ratio = median["exact curves"] / median["at the values"]
    record = median["record alone"]
    beyond = (median["exact curves"] - record) / max(median["at the values"] - record, 1e-9)
    print(f"at the values is {ratio:.1f}x faster than the exact curves", end="")
    print(f" ({beyond:.0f}x in what they add to the record)")


if __name__ == "__main__":
    main()
