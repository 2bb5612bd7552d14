"""netsens: how parallel programs respond to their network.

The engine is Rust (the private native module ``netsens._core``): an exact LogGOPS
discrete-event simulator. This package is its Python face: :func:`netsens.run` runs
an application or a GOAL file and returns a :class:`RunResult` with polars
DataFrames (:mod:`netsens.api`), :mod:`netsens.engine` runs it and hands back plain
dicts, :func:`netsens.calibrate` recovers a platform's parameters with the seeds' LogP
microbenchmarks, a :class:`Study` sweeps parameters over workloads
(:func:`run_study`, :mod:`netsens.study.sweep`) into a results store read back by
:func:`results` (:mod:`netsens.study.store`), :mod:`netsens.cli.main` is the ``netsens``
command, and :mod:`netsens.errors` holds the exceptions every user error is reported
with. The subpackages, by concept: :mod:`netsens.cli` (the command line),
:mod:`netsens.study` (studies, sweeps, the results store), :mod:`netsens.models` (fits,
Martin's models, the communication profile), :mod:`netsens.report` (the report, its
tables and figures), :mod:`netsens.live` (real MPI), :mod:`netsens.slurm` (the Slurm
executor) and :mod:`netsens.ace` (the emulator).
"""

import importlib
from typing import TYPE_CHECKING, Any

# The emulator's entry point shares its subpackage's name: bound here, after the subpackage,
# so `netsens.ace` is the function (the module imports nothing heavy).
from netsens.ace.emulator import ace
from netsens.engine import (
    apps,
    calibrate,
    platform_toml,
    presets,
    run_app,
    run_goal,
    run_goal_text,
)
from netsens.errors import DeadlockError, InputError, NetsensError, ProgramError

if TYPE_CHECKING:
    from netsens.api import RunResult, run
    from netsens.jobs import run_jobs
    from netsens.study.definition import Study, StudyError
    from netsens.study.store import results
    from netsens.study.sweep import SweepSummary, run_study

# Names whose modules import polars (or the study machinery): loaded on first use, so
# a command that only runs the engine starts without them.
_LAZY = {
    "RunResult": "netsens.api",
    "run": "netsens.api",
    "run_jobs": "netsens.jobs",
    "results": "netsens.study.store",
    "Study": "netsens.study.definition",
    "StudyError": "netsens.study.definition",
    "SweepSummary": "netsens.study.sweep",
    "run_study": "netsens.study.sweep",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        value = version("netsens")
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'netsens' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


__all__ = [
    "DeadlockError",
    "InputError",
    "NetsensError",
    "ProgramError",
    "RunResult",
    "Study",
    "StudyError",
    "SweepSummary",
    "__version__",
    "ace",
    "apps",
    "calibrate",
    "platform_toml",
    "presets",
    "results",
    "run",
    "run_app",
    "run_goal",
    "run_goal_text",
    "run_jobs",
    "run_study",
]
