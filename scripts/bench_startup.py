"""Start-up: `netsens run --goal examples/goal/pingpong.goal`, whole process.

    python scripts/bench_startup.py [--repeats 21]

Runs, interleaved so that load from elsewhere hits all alike: the bare interpreter
(`python -c pass`, the floor), the command, and the command with --json. Prints each
one's median wall time and CPU time (user + system; on a loaded machine the wall time
is mostly waiting for a core), with min-max, and the command's time over the
interpreter's. Target: the command under 60 ms.
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
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    load = os.getloadavg()[0]
    for _ in range(args.repeats):
        for name, cmd in cases.items():
            t = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            wall[name].append(1000 * (time.perf_counter() - t))
            cpu[name].append(1000 * (usage.ru_utime + usage.ru_stime))
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"bench_startup: failed: {' '.join(cmd)}")
    cores = os.cpu_count()
    print(f"start-up, {args.repeats} interleaved runs, load average {load:.1f} on {cores} cores")
    for name in cases:
        w, c = wall[name], cpu[name]
        print(
            f"  {name:34} wall {statistics.median(w):6.1f} ms ({min(w):.1f}-{max(w):.1f}), "
            f"CPU {statistics.median(c):6.1f} ms ({min(c):.1f}-{max(c):.1f})"
        )
    command = "netsens run --goal pingpong.goal"
    for what, times in (("wall", wall), ("CPU", cpu)):
        run = statistics.median(times[command])
        floor = statistics.median(times["python -c pass"])
        verdict = "PASS" if run < 60 else "FAIL"
        print(
            f"  {what}: command {run:.1f} ms, {run / floor:.2f}x the bare interpreter; "
            f"target under 60 ms {verdict}"
        )


if __name__ == "__main__":
    main()
