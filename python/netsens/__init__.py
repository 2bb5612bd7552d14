"""netsens: how parallel programs respond to their network.

The engine is Rust (the private native module ``netsens._core``): an exact LogGOPS
discrete-event simulator. This package is its Python face: :mod:`netsens.engine` runs
it and hands back plain dicts, :mod:`netsens.cli` is the ``netsens`` command, and
:mod:`netsens.errors` holds the exceptions every user error is reported with.
"""

from importlib.metadata import version

from netsens.engine import platform_toml, presets, run_goal, run_goal_text
from netsens.errors import DeadlockError, InputError, NetsensError

__version__ = version("netsens")

__all__ = [
    "DeadlockError",
    "InputError",
    "NetsensError",
    "__version__",
    "platform_toml",
    "presets",
    "run_goal",
    "run_goal_text",
]
