"""From GOAL text to result: netsens's whole process against LogGOPSim's.

    python scripts/bench_goal.py --loggopsim DIR [--repeats 5] [--work DIR]

DIR holds LogGOPSim's `txt2bin` and `LogGOPSim` binaries (built from its public
source, e.g. `make CXXFLAGS="-std=c++11 -O3 -DNDEBUG"` in src/LogGOPSim). The four
schedules of issue 15 are written once into the work directory (scripts/goal_gen.py).
Each repeat runs, one after the other so that load from elsewhere hits all alike:
`netsens run --goal F --json`, `txt2bin` then `LogGOPSim` on its binary. Printed per
schedule: median wall time (min-max) and peak resident memory of each, and the ratios
netsens / (txt2bin + sim) and netsens / (sim on the binary) taken within each repeat.
Both must give the same end time (checked). Each of issue 15's targets is printed
as PASS or FAIL: at least 3x faster than txt2bin + sim, faster than the sim alone
(both by the median of the per-repeat ratios), and a peak at most LogGOPSim's + 25 MiB.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCHEDULES = [
    ("exchange 1024 x 500", ["exchange", "1024", "500"]),
    ("exchange 4096 x 200", ["exchange", "4096", "200"]),
    ("exchange 256 x 4000", ["exchange", "256", "4000"]),
    ("dissemination 65536", ["dissemination", "65536"]),
]


# Whole-process peak netsens may take above LogGOPSim's sim (issue 15).
PEAK_MARGIN_MIB = 25.0


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident MiB and stdout of one process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_goal: failed: {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 1024, out


def spread(values: list[float], unit: str = "s", scale: float = 1.0) -> str:
    v = sorted(x * scale for x in values)
    return f"{statistics.median(v):.2f} {unit} ({v[0]:.2f}-{v[-1]:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loggopsim", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--work", type=Path, default=Path("results/bench-goal"))
    ap.add_argument("--only", help="run the schedules whose name contains this")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    netsens = str(Path(sys.executable).with_name("netsens"))
    here = Path(__file__).parent
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, gen in SCHEDULES:
        if args.only and args.only not in name:
            continue
        goal = args.work / ("_".join(gen) + ".goal")
        binary = goal.with_suffix(".bin")
        if not goal.exists():
            subprocess.run([sys.executable, str(here / "goal_gen.py"), *gen, str(goal)], check=True)
        runs: dict[str, list[tuple[float, float]]] = {"netsens": [], "txt2bin": [], "sim": []}
        for _ in range(args.repeats):
            wall, rss, out = timed([netsens, "run", "--goal", str(goal), "--json", "--no-matrix"])
            runs["netsens"].append((wall, rss))
            ours = json.loads(out)["makespan_ps"]
            txt2bin = [str(args.loggopsim / "txt2bin"), "-i", str(goal), "-o", str(binary)]
            runs["txt2bin"].append(timed(txt2bin)[:2])
            wall, rss, out = timed([str(args.loggopsim / "LogGOPSim"), "-f", str(binary)])
            runs["sim"].append((wall, rss))
            theirs = int(re.search(r"Maximum finishing time at host \d+: (\d+)", out).group(1))
            if ours != theirs * 1000:
                sys.exit(f"bench_goal: {name}: netsens ends at {ours} ps, LogGOPSim at {theirs} ns")
        ns = [w for w, _ in runs["netsens"]]
        whole = [a[0] + b[0] for a, b in zip(runs["txt2bin"], runs["sim"], strict=True)]
        sim = [w for w, _ in runs["sim"]]
        print(f"\n{name}: end time {ours / 1e6:.3f} us in both")
        ns_peak = spread([r for _, r in runs["netsens"]], "MiB")
        sim_peak = spread([r for _, r in runs["sim"]], "MiB")
        over_whole = spread([w / n for w, n in zip(whole, ns, strict=True)], "x")
        over_sim = spread([s / n for s, n in zip(sim, ns, strict=True)], "x")
        print(f"  netsens whole process       {spread(ns)}, peak {ns_peak}")
        print(f"  LogGOPSim txt2bin + sim     {spread(whole)}, peak {sim_peak} (sim)")
        print(f"  LogGOPSim sim on binary     {spread(sim)}")
        print(f"  speed-up over txt2bin + sim {over_whole}")
        print(f"  speed-up over sim alone     {over_sim}")
        peak_over = statistics.median(r for _, r in runs["netsens"]) - statistics.median(
            r for _, r in runs["sim"]
        )
        speedup_whole = statistics.median(w / n for w, n in zip(whole, ns, strict=True))
        speedup_sim = statistics.median(s / n for s, n in zip(sim, ns, strict=True))
        targets = [
            ("3x txt2bin + sim", speedup_whole, 3.0),
            ("faster than sim alone", speedup_sim, 1.0),
        ]
        for what, ratio, goal in targets:
            verdict = "PASS" if ratio >= goal else "FAIL"
            print(f"  target {what:<24} {ratio:.2f}x (needs {goal:.2f}x)  {verdict}")
        verdict = "PASS" if peak_over <= PEAK_MARGIN_MIB else "FAIL"
        print(f"  target {'peak <= sim + 25 MiB':<24} {peak_over:+.1f} MiB  {verdict}")
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
