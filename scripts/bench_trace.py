"""Tracing overhead: a fine-grained MPI program (tests/pmpi/pingpong.c, 8-byte
messages) run untraced and traced under the netsens library on Open MPI, 2 ranks;
median of 5 runs each, interleaved; the traced / untraced run time ratio (and the
library's own cost, against a run without it, as a second ratio). Needs make
install-live."""

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "native" / "pmpi" / "build" / "openmpi" / "libnetsens-pmpi.so"


def run(exe: Path, reps: int, env: dict[str, str]) -> float:
    args = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    for key, value in env.items():
        args += ["-x", f"{key}={value}"]
    start = time.perf_counter()
    subprocess.run([*args, exe, "8", str(reps)], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=20000, help="round trips per run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(ROOT / "native" / "pmpi")], check=True)
    with tempfile.TemporaryDirectory(prefix="netsens-bench-trace-") as tmp:
        exe = Path(tmp) / "pingpong"
        subprocess.run(
            ["mpicc.openmpi", "-O2", "-o", exe, ROOT / "tests/pmpi/pingpong.c"], check=True
        )
        times: dict[str, list[float]] = {"bare": [], "library": [], "traced": []}
        for i in range(args.runs):
            times["bare"].append(run(exe, args.reps, {}))
            times["library"].append(run(exe, args.reps, {"LD_PRELOAD": str(LIBRARY)}))
            out = Path(tmp) / f"trace{i}"
            env = {"LD_PRELOAD": str(LIBRARY), "NETSENS_TRACE_DIR": str(out)}
            times["traced"].append(run(exe, args.reps, env))
        med = {k: statistics.median(v) for k, v in times.items()}
    events = 2 * 2 * (args.reps + 5)  # per round trip: a send and a receive on each rank
    print(
        f"tracing overhead: pingpong 8 B × {args.reps} round trips, 2 ranks, median of {args.runs}"
    )
    print(
        f"  whole job: without the library {med['bare']:.3f} s, "
        f"library {med['library']:.3f} s, traced {med['traced']:.3f} s"
    )
    print(f"  traced / untraced (library preloaded): {med['traced'] / med['library']:.3f}")
    print(f"  traced / without the library:          {med['traced'] / med['bare']:.3f}")
    extra = (med["traced"] - med["library"]) / events * 1e9
    print(f"  ≈ {extra:.0f} ns per traced point-to-point call (about {events:,} calls)")


if __name__ == "__main__":
    os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    main()
