"""Start-up: `netsens run --goal examples/goal/pingpong.goal`, whole process.

    python scripts/bench_startup.py [--repeats 21]

Runs, interleaved so that load from elsewhere hits all alike: the bare interpreter
(`python -c pass`, the floor), the command, and the command with --json. Prints each
one's median wall time (min-max) and the command's time over the interpreter's, both
medians of one run. Target: the command under 60 ms.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

GOAL = Path(__file__).resolve().parent.parent / "examples" / "goal" / "pingpong.goal"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=21)
    args = ap.parse_args()
    netsens = str(Path(sys.executable).with_name("netsens"))
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "netsens run --goal pingpong.goal": [netsens, "run", "--goal", str(GOAL)],
        "  ... --json": [netsens, "run", "--goal", str(GOAL), "--json"],
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    load = os.getloadavg()[0]
    for _ in range(args.repeats):
        for name, cmd in cases.items():
            t = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            times[name].append(1000 * (time.perf_counter() - t))
    cores = os.cpu_count()
    print(f"start-up, {args.repeats} interleaved runs, load average {load:.1f} on {cores} cores")
    for name, ts in times.items():
        print(f"  {name:34} {statistics.median(ts):6.1f} ms ({min(ts):.1f}-{max(ts):.1f})")
    run = statistics.median(times["netsens run --goal pingpong.goal"])
    floor = statistics.median(times["python -c pass"])
    verdict = "(met)" if run < 60 else "(MISSED)"
    print(f"  command / bare interpreter: {run / floor:.2f}x")
    print(f"  target under 60 ms: {run:.1f} ms {verdict}")


if __name__ == "__main__":
    main()
