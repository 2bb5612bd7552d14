"""netsens's latency tolerance against LLAMP's linear program, on the same GOAL files.

LLAMP (SC'24; github.com/spcl/llamp) builds a dependency graph from a GOAL schedule,
turns it into a linear program in L and solves it with OR-Tools (or Gurobi). This
script runs LLAMP's own graph builder and LP (from a checkout of it, with a Python that
has its requirements: igraph, ortools, numpy, scipy, pandas, tqdm, psutil, seaborn,
networkx, matplotlib) and netsens's `sensitivity` on random blocking schedules in
Schedgen's form (every rank a chain: compute, then rounds of pairwise exchanges, the
lower rank sending first; each rank starts and ends with a computation, as LLAMP's graph
builder needs), and prints T0 and the latency tolerance at 1, 2, 5, 10 % from both.

    python scripts/llamp_compare.py --llamp /tmp/llamp --llamp-python /tmp/llampenv/bin/python

Nothing of LLAMP is kept in this repository: --llamp names a checkout made apart
(`git clone https://github.com/spcl/llamp`; measured at commit 0bdce2e).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from netsens.sensitivity import analyze

EPSILONS = (0.01, 0.02, 0.05, 0.10)
L_NS, O_NS = 5000, 1000

# Run by LLAMP's Python, in LLAMP's mpi-dep-graph folder: its graph and LP for the file,
# T0 at L = L0, then for each eps "maximise l with the end <= (1 + eps) T0" (LLAMP's
# latency buffer, with the end expression taken where its converter sets the objective).
LLAMP_DRIVER = r"""
import contextlib, io, json, sys
sys.path.insert(0, ".")
from ortools.linear_solver import pywraplp
from dep_graph_generator import DependencyGraphGenerator
from lp_converter import LPConverter
goal, o, L0, epsilons = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
end = {}
minimize = pywraplp.Solver.Minimize
def keep_end(self, expr):
    end["t"] = expr
    return minimize(self, expr)
pywraplp.Solver.Minimize = keep_end
with contextlib.redirect_stdout(io.StringIO()):
    graph = DependencyGraphGenerator(goal, None).generate(False)
    model = LPConverter(graph, o=o, S=None).convert_to_lp(False, G=0.0)
l, t, objective = model.LookupVariable("l"), end["t"], model.Objective()
l.SetBounds(L0, L0)
assert model.Solve() == pywraplp.Solver.OPTIMAL
T0 = objective.Value()
l.SetBounds(L0, model.infinity())
out = {"T0_ns": T0, "tolerance_ns": []}
for eps in epsilons:
    bound = model.Add(t <= (1 + eps) * T0)
    objective.Clear(); objective.SetCoefficient(l, 1.0); objective.SetMaximization()
    assert model.Solve() == pywraplp.Solver.OPTIMAL
    out["tolerance_ns"].append(l.solution_value() - L0)
    bound.SetBounds(-model.infinity(), model.infinity())
    model.Minimize(t)
print(json.dumps(out))
"""


def blocking_schedule(ranks: int, rounds: int, seed: int) -> str:
    """A random blocking schedule (GOAL text, labels l1, l2, ... as LLAMP's parser needs)."""
    rng = random.Random(seed)
    ops: list[list[str]] = [[] for _ in range(ranks)]
    for k in range(1, rounds + 1):
        order = list(range(ranks))
        rng.shuffle(order)
        for r in range(ranks):
            ops[r].append(f"calc {rng.randrange(1, 20000)}")
        for a, b in zip(order[0::2], order[1::2], strict=False):
            lo, hi = min(a, b), max(a, b)
            size = rng.choice([1, 8, 64, 1024])
            ops[lo] += [f"send {size}b to {hi} tag {k}", f"recv {size}b from {hi} tag {k}"]
            ops[hi] += [f"recv {size}b from {lo} tag {k}", f"send {size}b to {lo} tag {k}"]
    lines = [f"num_ranks {ranks}", ""]
    for r in range(ranks):
        ops[r].append(f"calc {rng.randrange(1, 20000)}")
        lines.append(f"rank {r} {{")
        lines += [f"l{i}: {op}" for i, op in enumerate(ops[r], 1)]
        lines += [f"l{i} requires l{i - 1}" for i in range(2, len(ops[r]) + 1)]
        lines += ["}", ""]
    return "\n".join(lines)


def llamp(goal: Path, checkout: Path, python: str) -> dict:
    done = subprocess.run(
        [python, "-c", LLAMP_DRIVER, str(goal), str(O_NS), str(L_NS), json.dumps(EPSILONS)],
        cwd=checkout / "mpi-dep-graph",
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"error: LLAMP's LP failed on {goal}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def netsens(goal: Path) -> dict:
    out = analyze(
        goal,
        overrides={"L": f"{L_NS}ns", "o": f"{O_NS}ns", "g": "0ns", "G": "0ps/B", "O": "0ps/B"},
        params=["L"],
        epsilons=EPSILONS,
    )
    tol = out["params"][0]["tolerance"]
    return {
        "T0_ns": out["makespan_ps"] / 1000,
        # where full runs did not confirm the record's answer, theirs is the tolerance
        "tolerance_ns": [t.get("delta_by_runs", t["delta"]) / 1000 for t in tol],
        "confirmed": [t.get("confirmed", True) for t in tol],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llamp", type=Path, required=True, help="a checkout of github.com/spcl/llamp")
    ap.add_argument("--llamp-python", required=True, help="a Python with LLAMP's requirements")
    ap.add_argument(
        "--cases",
        default="8x6:1,16x10:2,32x8:1,32x20:3",
        help="schedules as RANKSxROUNDS:SEED, comma-separated",
    )
    args = ap.parse_args()
    if not (args.llamp / "mpi-dep-graph" / "lp_converter.py").is_file():
        sys.exit(f"error: {args.llamp} has no mpi-dep-graph/lp_converter.py: not LLAMP")
    print(f"L = {L_NS} ns, o = {O_NS} ns, g = G = O = 0; tolerance = largest increase of L (ns)")
    columns = " | ".join(f"{e:.0%} netsens / LLAMP" for e in EPSILONS)
    print(f"| schedule | T0 netsens | T0 LLAMP | {columns} |")
    print("|---|---|---|" + "---|" * len(EPSILONS))
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            shape, seed = case.split(":")
            ranks, rounds = (int(x) for x in shape.split("x"))
            goal = Path(tmp) / f"blocking-{ranks}x{rounds}-{seed}.goal"
            goal.write_text(blocking_schedule(ranks, rounds, int(seed)))
            ours, theirs = netsens(goal), llamp(goal, args.llamp, args.llamp_python)
            ok = ours["confirmed"]
            pairs = zip(ours["tolerance_ns"], theirs["tolerance_ns"], ok, strict=True)
            cells = [f"{a:.3f}{'' if ok else '*'} / {b:.3f}" for a, b, ok in pairs]
            print(
                f"| {ranks} ranks × {rounds} rounds, seed {seed} | {ours['T0_ns']:.0f} ns | "
                f"{theirs['T0_ns']:.0f} ns | " + " | ".join(cells) + " |",
                flush=True,
            )
    print("* found by full runs: the record's order of events changed before the tolerance")


if __name__ == "__main__":
    main()
