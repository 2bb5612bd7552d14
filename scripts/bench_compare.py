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


def one_run(w) -> float:
    sized = resolve(DEFAULT[0], w.ranks)
    began = time.perf_counter()
    if w.app:
        run_app(w.app, w.ranks, w.size, sized.platform, sized.overrides, matrix=False)
    else:
        run_goal(w.path, sized.platform, sized.overrides, matrix=False)
    return time.perf_counter() - began


def compared(w, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        study.run(study.Comparison(w, list(DEFAULT)), tmp, jobs=jobs, progress=False)
        return time.perf_counter() - began


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(ROOT / "examples/traces/ring/traces.otf2"))
    ap.add_argument("--apps", default="ft,is,mg,cg,radix,em3d-write")
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--size", default="small")
    args = ap.parse_args()
    jobs = default_jobs()
    print(f"networks: {', '.join(DEFAULT)}; compare on 1 and on {jobs} processes")
    head = f"{'workload':<28} {'one run (s)':>12} {'1 job (s)':>10} {'ratio':>7}"
    print(f"{head} {f'{jobs} jobs (s)':>11} {'ratio':>7}")
    items = [workload_of(args.trace, None, None, None)]
    items += [workload_of(None, a, args.ranks, args.size) for a in args.apps.split(",") if a]
    for w in items:
        one = min(one_run(w) for _ in range(3))
        serial = compared(w, 1)
        par = compared(w, jobs)
        line = f"{w.label:<28} {one:>12.3f} {serial:>10.3f} {serial / one:>6.1f}x"
        print(f"{line} {par:>11.3f} {par / one:>6.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
