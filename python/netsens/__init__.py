"""netsens: how parallel programs respond to their network.

The engine is Rust (the private native module ``netsens._core``): an exact LogGOPS
discrete-event simulator. This package is its Python face: :func:`netsens.run` runs
an application or a GOAL file and returns a :class:`RunResult` with polars
DataFrames (:mod:`netsens.api`), :mod:`netsens.engine` runs it and hands back plain
dicts, :func:`netsens.calibrate` recovers a platform's parameters with the seeds' LogP
microbenchmarks, a :class:`Study` sweeps parameters over workloads
(:func:`run_study`, :mod:`netsens.sweep`) into a results store read back by
:func:`results` (:mod:`netsens.store`), :mod:`netsens.cli` is the ``netsens`` command, and
:mod:`netsens.errors` holds the exceptions every user error is reported with.
"""

from importlib.metadata import version

from netsens.ace import ace
from netsens.api import RunResult, run
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
from netsens.store import results
from netsens.study import Study, StudyError
from netsens.sweep import SweepSummary, run_study

__version__ = version("netsens")

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
    "run_study",
]
