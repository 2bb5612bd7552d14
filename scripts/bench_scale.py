"""The 2^23-rank dissemination barrier from GOAL text (issue 15's scale target).

    python scripts/bench_scale.py [--log2-ranks 23] [--work DIR] [--keep]

Builds the GOAL generator (`examples/goal_dissemination.rs`, the text of
`scripts/goal_gen.py dissemination`), checks the disk has room, writes the text,
and runs `netsens run --goal FILE`, the command a user types (stderr is not a
terminal here, so no progress bar). Printed: the text's size and the time to write
it, the run's wall time, peak resident memory and events per second (whole
process), its end time against the one derived by hand, and each target as PASS or
FAIL: at most 12 GiB and under 5 minutes. Then the op table's bytes per operation
(`examples/goal_op_table.rs`, a parse alone) on the 2^k file and on issue 15's four
schedules, against the 32 B/op target. The text is deleted at the end unless
--keep. Run one at a time: it takes most of the machine's memory.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_PEAK_GIB = 12.0
TARGET_WALL_S = 300.0
TARGET_BYTES_PER_OP = 32.0
# The loggopsim preset: a round of 1-byte messages costs o + L + o (no G for k = 0).
ROUND_NS = 1500 + 2500 + 1500
# The four schedules of issue 15 (as scripts/bench_goal.py writes them).
SCHEDULES = [
    ["exchange", "1024", "500"],
    ["exchange", "4096", "200"],
    ["exchange", "256", "4000"],
    ["dissemination", "65536"],
]


def example(name: str) -> Path:
    """Build a netsens-core example in release mode; its binary."""
    cmd = ["cargo", "build", "--quiet", "--release", "-p", "netsens-core", "--example", name]
    subprocess.run(cmd, check=True, cwd=ROOT)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "examples" / name


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident GiB and stdout of one process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench_scale: failed: {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 2**20, out


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def table_line(name: str, table: dict) -> str:
    per_op = table["bytes_per_op"]
    return (
        f"  {name}: {table['ops']:,} ops, {table['edges']:,} edges, "
        f"{table['table_bytes'] / 2**30:.2f} GiB, {per_op:.2f} B/op "
        f"({per_op / TARGET_BYTES_PER_OP:.2f}x the {TARGET_BYTES_PER_OP:.0f} B/op target, "
        f"{verdict(per_op <= TARGET_BYTES_PER_OP)})"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2-ranks", type=int, default=23)
    ap.add_argument("--work", type=Path, default=ROOT / "results" / "bench-scale")
    ap.add_argument("--schedules", type=Path, default=ROOT / "results" / "bench-goal")
    ap.add_argument("--keep", action="store_true", help="keep the GOAL text")
    args = ap.parse_args()
    from netsens.units import format_time

    k = args.log2_ranks
    ranks = 1 << k
    args.work.mkdir(parents=True, exist_ok=True)
    goal = args.work / f"dissemination_{ranks}.goal"
    generate, op_table = example("goal_dissemination"), example("goal_op_table")
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    # Per rank and round about 95 bytes (two ops, two dependencies) at 7-digit ranks.
    estimate = ranks * (k * 95 + 16)
    free = shutil.disk_usage(args.work).free
    if not goal.exists() and free < 1.1 * estimate:
        sys.exit(
            f"bench_scale: {free / 1e9:.1f} GB free, the text needs about {estimate / 1e9:.1f}"
        )
    if not goal.exists():
        t = time.perf_counter()
        subprocess.run([str(generate), str(ranks), str(goal)], check=True)
        took = time.perf_counter() - t
        print(f"GOAL text: {goal.stat().st_size / 1e9:.2f} GB written in {took:.1f} s")
    try:
        wall, peak, out = timed([sys.executable, "-m", "netsens", "run", "--goal", str(goal)])
        makespan = re.search(r"makespan\s+(.+)", out)
        events = re.search(r"events\s+([\d,]+)", out)
        if not makespan or not events:
            sys.exit(f"bench_scale: no makespan or events in the output:\n{out}")
        n_events = int(events.group(1).replace(",", ""))
        # Every rank moves in step: k rounds of o + L + o.
        expected = format_time(k * ROUND_NS * 1000)
        print(f"2^{k}-rank dissemination barrier, `netsens run --goal` (whole process):")
        print(f"  end time {makespan.group(1).strip()} (by hand: {k} x 5.5 us = {expected})")
        print(f"  {n_events:,} events, {n_events / wall / 1e6:.2f} M events/s")
        print(
            f"  wall {wall:.1f} s: {wall / TARGET_WALL_S:.2f}x the {TARGET_WALL_S:.0f} s target "
            f"{verdict(wall < TARGET_WALL_S)}"
        )
        print(
            f"  peak {peak:.2f} GiB: {peak / TARGET_PEAK_GIB:.2f}x the {TARGET_PEAK_GIB:.0f} GiB "
            f"target {verdict(peak <= TARGET_PEAK_GIB)}"
        )
        if makespan.group(1).strip() != expected:
            sys.exit("bench_scale: the end time is not the one derived by hand")
        print("op table (a parse alone):")
        table = json.loads(
            subprocess.run(
                [str(op_table), str(goal)], capture_output=True, text=True, check=True
            ).stdout
        )
        print(table_line(f"dissemination 2^{k}", table))
        print(f"    parse {table['parse_s']:.1f} s, peak {table['peak_rss_bytes'] / 2**30:.2f} GiB")
    finally:
        if not args.keep:
            goal.unlink(missing_ok=True)
    args.schedules.mkdir(parents=True, exist_ok=True)
    for gen in SCHEDULES:
        path = args.schedules / ("_".join(gen) + ".goal")
        if not path.exists():
            subprocess.run(
                [sys.executable, str(ROOT / "scripts" / "goal_gen.py"), *gen, str(path)], check=True
            )
        run = subprocess.run([str(op_table), str(path)], capture_output=True, text=True, check=True)
        print(table_line(" ".join(gen), json.loads(run.stdout)))


if __name__ == "__main__":
    main()
