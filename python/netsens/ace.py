"""ACE, Evans and Hood's Application Communication Emulator, from Python.

Each emulated application (EA) is a specification, either the command line's text
``"pattern=ring,size=1MB,load=30%,iterations=100,ranks=0-15"`` or a mapping of the
same keys (``{"pattern": "ring", "size": "1MB", ...}``); :func:`ace` runs them all at
once, each on its own ranks and communicator, and returns the engine's result as a
dict (times in ps). :func:`load_ace_file` reads the TOML form: a ``platform``, an
optional ``ranks`` and ``seed``, and one ``[[ea]]`` table per EA.
"""

import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from netsens import _core
from netsens.errors import InputError

EA_KEYS = ("pattern", "size", "load", "iterations", "ranks", "reps")
FILE_KEYS = ("platform", "ranks", "seed", "ea")

EaSpec = str | Mapping[str, Any]


def spec_text(ea: EaSpec) -> str:
    """An EA as the engine's ``key=value,...`` text."""
    if isinstance(ea, str):
        return ea
    unknown = [k for k in ea if k not in EA_KEYS]
    if unknown:
        raise InputError(f'EA key "{unknown[0]}" is unknown; keys: {", ".join(EA_KEYS)}')
    return ",".join(f"{k}={v}" for k, v in ea.items())


def ace_json(
    eas: Sequence[EaSpec],
    platform: str | os.PathLike[str] = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
) -> str:
    """``ace``'s result as the engine's JSON text, unparsed."""
    if ranks is not None and not (isinstance(ranks, int) and 1 <= ranks < 2**32):
        raise InputError(f"ranks: must be between 1 and 2^32-1, got {ranks}")
    if not (isinstance(seed, int) and 0 <= seed < 2**64):
        raise InputError(f"seed: must be between 0 and 2^64-1, got {seed}")
    texts = [spec_text(ea) for ea in eas]
    return _core.ace(texts, os.fspath(platform), dict(overrides or {}), ranks, seed)


def ace(
    eas: Sequence[EaSpec],
    platform: str | os.PathLike[str] = "loggopsim",
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Run the EAs together; per EA (``eas``) the α–β fit of phase one (``alpha_ps``,
    ``beta_ps_per_byte``, ``r2``), ``t_comm_ps``, ``t_sync_ps``, ``t_comp_ps``,
    ``predicted_ps``, ``actual_ps``, ``error``, the ``compute``, ``comm`` and ``sync``
    statistics over every cycle (``mean_ps``, ``sd_ps``, ``min_ps``, ``max_ps``,
    ``cv``) and the same ``per_rank`` with each cycle's ``comm_cycles_ps``."""
    return json.loads(ace_json(eas, platform, overrides, ranks, seed))


def read_ace_toml(path: Path, keys: Sequence[str]) -> dict[str, Any]:
    """A TOML file of ``keys`` (others are an error), its ``platform`` file, when
    relative, found beside it."""
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: not valid TOML: {e}") from None
    unknown = [k for k in doc if k not in keys]
    if unknown:
        raise InputError(f'{path}: unknown key "{unknown[0]}"; keys: {", ".join(keys)}')
    platform = str(doc.get("platform", "loggopsim"))
    if platform.endswith(".toml") and not Path(platform).is_absolute():
        platform = str(path.parent / platform)
    return {**doc, "platform": platform}


def load_ace_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The keyword arguments of :func:`ace` from a TOML file."""
    path = Path(path)
    doc = read_ace_toml(path, FILE_KEYS)
    eas = doc.get("ea")
    if not isinstance(eas, list) or not eas:
        raise InputError(f"{path}: needs at least one [[ea]] table")
    return {
        "eas": eas,
        "platform": doc["platform"],
        "ranks": doc.get("ranks"),
        "seed": doc.get("seed", 0),
    }
