"""Benchmark of `make run`'s default study: the whole sweep from nothing, timed.

Runs every point of studies/isca97.toml into a fresh temporary results directory on
all cores, then `netsens explain` and the report as `make run` does, and prints the
wall time, points per second, and the parallel speed-up: the sum of the points' own
run times (each point stores its wall time) over the sweep's wall time, a baseline
measured in the same run; and the CPU time of this process and its children, which a
loaded machine does not inflate as it does wall time. Target: `make run` under 4
minutes on a 2-core machine (`--target` seconds for another study: the wide-area
study das1998.toml's is 15 minutes).

`--with STUDY` (repeatable) sweeps a companion study first, its results next to the
study's, and counts its time in (the wide-area study's references and cluster
structures, which its report's tables read).

The study is swept twice in the same invocation: first with every point's program run
in full (`netsens sweep --full`, the baseline), then as a sweep runs by default (each
timing-independent program once per worker and key, its recorded schedule at the
other points); the script prints both sweeps' wall times and their ratio, and checks
that both stored the same results. `--fast-only` skips the full sweep.

    .venv/bin/python scripts/bench_study.py [--study studies/isca97.toml] [--jobs N]
        [--with studies/das1998-reference.toml ...] [--fast-only]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl
from compare_results import differences

from netsens import NetsensError
from netsens.report.page import write_report
from netsens.study.definition import Study
from netsens.study.store import load
from netsens.study.sweep import run_study

TARGET_S = 240.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=Path, default=Path("studies/isca97.toml"))
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--target", type=float, default=TARGET_S, help="the target time in seconds")
    parser.add_argument("--with", dest="companions", type=Path, action="append", default=[])
    parser.add_argument("--fast-only", action="store_true", help="skip the full sweep")
    args = parser.parse_args()
    full_s: float | None = None
    with tempfile.TemporaryDirectory(prefix="netsens-bench-") as tmp:
        try:
            companions_s = 0.0
            for path in args.companions:
                companion = Study.from_toml(path)
                companion = Study.from_toml(path, results=Path(tmp) / companion.name)
                companions_s += run_study(companion, jobs=args.jobs, progress=True).wall_s
            study = Study.from_toml(args.study)
            results = Path(tmp) / study.name
            if not args.fast_only:
                full_dir = Path(tmp) / "full" / study.name
                baseline = Study.from_toml(args.study, results=full_dir)
                full_s = run_study(baseline, jobs=args.jobs, progress=True, full=True).wall_s
            study = Study.from_toml(args.study, results=results)
            summary = run_study(study, jobs=args.jobs, progress=True)
            start = time.perf_counter()
            explain = [sys.executable, "-m", "netsens", "explain", str(results)]
            subprocess.run(explain, check=True, stdout=subprocess.DEVNULL)
            explain_s = time.perf_counter() - start
            start = time.perf_counter()
            write_report(results, results / "report", jobs=args.jobs)
            report_s = time.perf_counter() - start
            frame = load(results).unique("point_id")
            same = None if args.fast_only else _same_results(results, full_dir)
        except (NetsensError, subprocess.CalledProcessError) as e:
            print(f"bench_study: error: {e}", file=sys.stderr)
            return 2
    ran = summary.done + summary.failed
    serial_s = float(frame["wall_s"].sum())
    total_s = summary.wall_s + explain_s + report_s + companions_s
    times = os.times()
    cpu_s = times.user + times.system + times.children_user + times.children_system
    cores = args.jobs or len(os.sched_getaffinity(0))
    per_workload = (
        frame.group_by("workload")
        .agg(points=pl.len(), mean_s=pl.col("wall_s").mean())
        .sort("mean_s", descending=True)
    )
    print(f"default study {study.name}: {summary.total} points, {summary.failed} failed")
    print(f"  sweep   {summary.wall_s:8.1f} s   {ran / summary.wall_s:6.2f} points/s")
    if produced := summary.produced_line():
        print(f"          {produced}")
    if full_s is not None:
        print(
            f"  full    {full_s:8.1f} s   every program run in full: the sweep took "
            f"{summary.wall_s / full_s:.3f}x its time ({full_s / summary.wall_s:.2f}x faster); "
            f"results {'identical' if same else 'DIFFERENT'}"
        )
    if args.companions:
        print(f"  companion studies {companions_s:8.1f} s ({len(args.companions)})")
    print(f"  explain {explain_s:8.1f} s")
    print(f"  report  {report_s:8.1f} s")
    ratio = total_s / args.target
    print(f"  total   {total_s:8.1f} s   ({ratio:.2f}x the {args.target:.0f} s target)")
    # On an idle machine the wall time is at best the CPU time spread over the cores.
    print(
        f"  CPU     {cpu_s:8.1f} s   (this process and its workers): {cpu_s / cores:.1f} s on "
        f"{cores} idle cores, {cpu_s / cores / args.target:.2f}x the target; load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(
        f"  points' own run times sum to {serial_s:.1f} s: parallel speed-up "
        f"{serial_s / summary.wall_s:.2f}x on {args.jobs or 'all'} cores"
    )
    for row in per_workload.iter_rows(named=True):
        print(f"    {row['workload']:<12} {row['points']:4d} points  {row['mean_s']:6.2f} s/point")
    return 0 if summary.ok and same is not False else 2


def _same_results(fast: Path, full: Path) -> bool:
    """Whether both sweeps stored the same points, but for their wall times and how
    each was produced."""
    return not differences(fast, full, ignore=("produced",))


if __name__ == "__main__":
    sys.exit(main())
