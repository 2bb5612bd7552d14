"""Start-up: `netsens run --goal examples/goal/pingpong.goal`, whole process.

    python scripts/bench_startup.py [--repeats 21]

Runs, interleaved so that load from elsewhere hits all alike: the bare interpreter
(`python -c pass`, the floor), the interpreter importing click (the floor of a click
command line), the command, and the command with --json, its stdout a pipe. Prints
each one's median wall time and CPU time (user + system; on a loaded machine the wall
time is mostly waiting for a core), with min-max, the command's time over the
interpreter's, and PASS or FAIL against the target: the command under 60 ms.

netsens's modules are compiled first (``compileall``), as a user's first run leaves
them: with PYTHONDONTWRITEBYTECODE set every run would compile them again.
"""

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = ROOT / "examples" / "goal" / "pingpong.goal"
TARGET_MS = 60
COMMAND = "netsens run --goal pingpong.goal"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=21)
    args = ap.parse_args()
    import netsens

    compileall.compile_dir(Path(netsens.__file__).parent, quiet=1)
    netsens_script = str(Path(sys.executable).with_name("netsens"))
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import click'": [sys.executable, "-c", "import click"],
        COMMAND: [netsens_script, "run", "--goal", str(GOAL)],
        "  ... --json": [netsens_script, "run", "--goal", str(GOAL), "--json"],
    }
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    load = os.getloadavg()[0]
    for _ in range(args.repeats):
        for name, cmd in cases.items():
            t = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
            proc.stdout.read()  # a pipe, as a script reading the output has it
            _, status, usage = os.wait4(proc.pid, 0)
            wall[name].append(1000 * (time.perf_counter() - t))
            cpu[name].append(1000 * (usage.ru_utime + usage.ru_stime))
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"bench_startup: failed: {' '.join(cmd)}")
    load = max(load, os.getloadavg()[0])
    cores = os.cpu_count()
    print(
        f"start-up, {args.repeats} interleaved runs, load average up to {load:.1f} on {cores} cores"
    )
    for name in cases:
        w, c = wall[name], cpu[name]
        print(
            f"  {name:34} wall {statistics.median(w):6.1f} ms ({min(w):.1f}-{max(w):.1f}), "
            f"CPU {statistics.median(c):6.1f} ms ({min(c):.1f}-{max(c):.1f})"
        )
    for what, times in (("wall", wall), ("CPU", cpu)):
        run = statistics.median(times[COMMAND])
        floor = statistics.median(times["python -c pass"])
        click = statistics.median(times["python -c 'import click'"])
        verdict = "PASS" if run < TARGET_MS else "FAIL"
        print(
            f"  {what}: command {run:.1f} ms, {run / floor:.2f}x the bare interpreter, "
            f"{run - click:+.1f} ms over importing click; target under {TARGET_MS} ms {verdict}"
        )


if __name__ == "__main__":
    main()
