"""One task of a Slurm job array (see :mod:`netsens.slurm.executor`): run its points.

Started by the array's batch script as ``python -m netsens.slurm.task PLAN``; the task
index comes from ``SLURM_ARRAY_TASK_ID``. Each point is claimed, run and stored by the
local executor's point runner (:func:`netsens.study.sweep.run_and_record`); a point that
fails with a netsens error is recorded in ``failures/`` as a local sweep records it.
When every point has been through, the task writes ``slurm/done/<job>_<index>``: a task
that leaves Slurm without it was cancelled, ran out of time or lost its node.
"""

import json
import os
import sys
import time
from pathlib import Path

from netsens.study.definition import Point
from netsens.study.sweep import ELSEWHERE, run_and_record


def main(argv: list[str]) -> int:
    plan_path = Path(argv[0])
    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    index = int(os.environ["SLURM_ARRAY_TASK_ID"])
    job = os.environ["SLURM_ARRAY_JOB_ID"]
    root = plan["results_dir"]
    points = [Point(**p) for p in plan["tasks"][index]]
    ntasks, nodes = os.environ.get("SLURM_NTASKS", "1"), os.environ.get("SLURM_JOB_NODELIST")
    where = f"{ntasks} Slurm tasks on {nodes or '?'}"
    print(f"netsens task {job}_{index}: {len(points)} points into {root} ({where})", flush=True)
    for point in points:
        start = time.perf_counter()
        outcome = run_and_record(point, plan["study"], root)
        took = f"{time.perf_counter() - start:.2f} s"
        if outcome is None:
            print(f"stored {point.point_id} ({point.describe()}) in {took}", flush=True)
        elif outcome == ELSEWHERE:
            print(f"skipped {point.point_id}: stored or claimed by another sweep", flush=True)
        else:
            print(f"failed {point.point_id} ({point.describe()}): {outcome}", flush=True)
    done = Path(root) / "slurm" / "done" / f"{job}_{index}"
    done.parent.mkdir(parents=True, exist_ok=True)
    done.touch()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
