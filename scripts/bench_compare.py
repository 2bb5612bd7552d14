"""What `netsens compare` costs (docs/guides/compare.md, the issue's targets):

1. one trace compared on the default presets (the networks sold today), against one
   run of it on one of them: the ratio (target: at most 10x);
2. the suite's applications at their small size on 64 ranks, each compared on the
   default presets: the seconds each took (target: under 30 s here), beside one run.

Both measured in the same process, one after the other, on one process (--jobs 1: the
work) and on every core (the command's default: the wait); one run is the best of 3.
Prints a table; nothing is asserted.

    .venv/bin/python scripts/bench_compare.py [--trace PATH] [--apps ft,is,mg] [--ranks 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from netsens.compare import study
from netsens.compare.networks import DEFAULT, resolve
from netsens.compare.workload import workload_of
from netsens.engine import run_app, run_goal
from netsens.study.sweep import default_jobs

ROOT = Path(__file__).resolve().parent.parent


def one_run(w) -> tuple[float, float]:
    """(wall s, CPU s of this process, every thread) of one run on the first preset."""
    sized = resolve(DEFAULT[0], w.ranks)
    wall, cpu = time.perf_counter(), time.process_time()
    if w.app:
        run_app(w.app, w.ranks, w.size, sized.platform, sized.overrides, matrix=False)
    else:
        run_goal(w.path, sized.platform, sized.overrides, matrix=False)
    return time.perf_counter() - wall, time.process_time() - cpu


def compared(w, jobs: int) -> tuple[float, float]:
    """(wall s, CPU s of this process) of the comparison; with jobs > 1 the CPU time is
    the workers' and not counted."""
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        study.run(study.Comparison(w, list(DEFAULT)), tmp, jobs=jobs, progress=False)
        return time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(ROOT / "examples/traces/ring/traces.otf2"))
    ap.add_argument("--apps", default="ft,is,mg,cg,radix,em3d-write")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--size", default="small")
    args = ap.parse_args()
    jobs = default_jobs()
    print(f"networks: {', '.join(DEFAULT)}; compare on 1 and on {jobs} processes")
    threads = os.environ.get("NETSENS_ANALYSIS_THREADS", "the cores'")
    print(f"CPU: this process's CPU seconds (analysis threads: {threads}), steady under load;")
    print("wall: seconds on the clock; one run: the best of 3")
    head = f"{'workload':<26} {'run CPU':>8} {'1 job CPU':>10} {'ratio':>7}"
    head += f" {'run wall':>9} {f'{jobs} jobs wall':>13} {'ratio':>7}"
    print(head)
    items = [workload_of(args.trace, None, None, None)]
    items += [workload_of(None, a, args.ranks, args.size) for a in args.apps.split(",") if a]
    for w in items:
        runs = [one_run(w) for _ in range(3)]
        wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
        _, serial_cpu = compared(w, 1)
        par_wall, _ = compared(w, jobs)
        line = f"{w.label:<26} {cpu:>8.3f} {serial_cpu:>10.3f} {serial_cpu / cpu:>6.1f}x"
        print(f"{line} {wall:>9.3f} {par_wall:>13.3f} {par_wall / wall:>6.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
