"""A comparison's points as one Slurm job array (``netsens compare --slurm``): the
plan (the workload and each point's spec and id) is written into the results
directory, each array task computes one point and stores it as a local run would
(``python -m netsens.compare.slurm PLAN INDEX``), and the command waits, printing how
many points are stored, until every point is stored or the array has left the queue.
Run again, it submits only the points still missing. Slurm's client commands are
called as the study executor calls them (:mod:`netsens.slurm.executor`): a failure is
one line.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from netsens.slurm.executor import SlurmError, queued, run_command

SLURM = "slurm"
POLL_S = 1.0


def job_name(root: Path) -> str:
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    return f"netsens-compare-{digest}"


def submit_and_wait(
    root: Path,
    workload: dict[str, Any],
    todo: list[tuple[str, dict[str, Any]]],
    stored: Callable[[str], bool],
    say: Callable[[str], None],
    sbatch_args: str = "",
) -> None:
    """Submit ``todo`` (point id, spec) as one array and wait until each is stored."""
    base = root / SLURM
    (base / "logs").mkdir(parents=True, exist_ok=True)
    plan = base / f"plan-{uuid.uuid4().hex}.json"
    plan.write_text(json.dumps({"results": str(root), "workload": workload, "points": todo}))
    name = job_name(root)
    # The task's index is Slurm's: left for the shell of the wrapped command to expand.
    command = shlex.join([sys.executable, "-m", "netsens.compare.slurm", str(plan)])
    argv = [
        "sbatch", "--parsable", f"--job-name={name}", f"--array=0-{len(todo) - 1}",
        f"--output={base / 'logs' / '%A_%a.log'}", *shlex.split(sbatch_args), "--wrap",
        f'{command} "$SLURM_ARRAY_TASK_ID"',
    ]  # fmt: skip
    job = run_command(argv).strip().split(";")[0]
    say(f"compare: submitted {len(todo)} points as Slurm job {job} ({name})")
    ids = [pid for pid, _ in todo]
    seen = -1
    while True:
        done = sum(stored(pid) for pid in ids)
        if done != seen:
            say(f"compare: {done}/{len(ids)} points stored")
            seen = done
        if done == len(ids):
            return
        if not any(t.active for t in queued(name) if t.job == job):
            missing = len(ids) - sum(stored(pid) for pid in ids)
            if missing:
                raise SlurmError(
                    f"Slurm job {job} ended with {missing} of {len(ids)} points not stored; "
                    f"its tasks' logs are in {base / 'logs'}; run the command again to "
                    "submit the missing points"
                )
            return
        time.sleep(POLL_S)


def task(plan_path: str, index: int) -> int:
    """One array task: compute point ``index`` of the plan and store it."""
    from netsens.compare.study import _compute, _store

    plan = json.loads(Path(plan_path).read_text())
    pid, spec = plan["points"][index]
    row = _compute(plan["workload"], spec)
    row["point_id"] = pid
    _store(Path(plan["results"]), pid, row)
    return 0


if __name__ == "__main__":
    sys.exit(task(sys.argv[1], int(sys.argv[2])))
