"""Sensitivity of an application against its run alone, in one process.

    python scripts/bench_sensitivity.py [--app stencil --ranks 16 --size small --repeats 3]

Runs, interleaved so that load from elsewhere hits both alike: the application alone
(``netsens.run_app``) and its sensitivity analysis (``netsens.sensitivity.analyze``:
one recorded run, the critical path, the slopes and the tolerances at 1, 2, 5 and
10 % of every parameter; without the full runs that confirm them). Prints each
one's median wall time, their ratio and PASS or FAIL against the target (issue 26):
the analysis at most 3x the run. The analysis spreads its passes over the cores
(``NETSENS_ANALYSIS_THREADS=1``: one thread); the CPU time of all its threads is
printed beside the wall time.
"""

import argparse
import statistics
import time

from netsens import run_app
from netsens.sensitivity import analyze

TARGET = 3.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", default="stencil")
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--size", default="small")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    runs, analyses, cpu_ratios = [], [], []
    for _ in range(a.repeats):
        t, cpu = time.perf_counter(), time.process_time()
        run_app(a.app, a.ranks, a.size, matrix=False)
        runs.append(time.perf_counter() - t)
        run_cpu = time.process_time() - cpu
        t, cpu = time.perf_counter(), time.process_time()
        out = analyze(app=a.app, ranks=a.ranks, size=a.size, chain=0, confirm=False)
        analyses.append(time.perf_counter() - t)
        cpu_ratios.append((time.process_time() - cpu) / run_cpu)
    run_s, analysis_s = statistics.median(runs), statistics.median(analyses)
    ratio = analysis_s / run_s
    record = out["record"]
    print(f"sensitivity of {a.app}, {a.ranks} ranks, {a.size} (medians of {a.repeats})")
    print(f"  run alone          {run_s:8.3f} s  1.00x")
    print(f"  run + analysis     {analysis_s:8.3f} s  {ratio:.2f}x")
    print(
        f"  record: {record['nodes']} nodes, {record['predecessors']} predecessors, "
        f"{record['bytes'] / 2**20:.1f} MiB"
    )
    passes = out["newton_passes"]
    print(f"  Newton: {len(passes)} passes, {sum(passes)} lanes ({passes})")
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"target analysis <= {TARGET:g}x the run (wall time): {ratio:.2f}x {verdict}")
    print(f"  (CPU time of all threads against the run's: {statistics.median(cpu_ratios):.2f}x)")


if __name__ == "__main__":
    main()
