"""ACE, Evans and Hood's Application Communication Emulator, from Python.

Each emulated application (EA) is a specification, either the command line's text
``"pattern=ring,size=1MB,load=30%,iterations=100,ranks=0-15"`` or a mapping of the
same keys (``{"pattern": "ring", "size": "1MB", ...}``); :func:`ace` runs them all at
once, each on its own ranks and communicator, and returns the engine's result as a
dict (times in ps). :func:`load_ace_file` reads the TOML form: a ``platform``, an
optional ``ranks`` and ``seed``, and one ``[[ea]]`` table per EA. ``mode="live"`` (or
``mode = "live"`` in the file) runs the same emulator on real MPI with the platform
injected (:mod:`netsens.ace.live`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from netsens import _core
from netsens.errors import InputError

if TYPE_CHECKING:  # tomllib and pathlib load with a file: `import netsens` stays light
    from pathlib import Path

EA_KEYS = ("pattern", "size", "load", "iterations", "ranks", "reps")
FILE_KEYS = ("platform", "ranks", "seed", "ea", "mode", "mpi")
MODES = ("simulate", "live")

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
    platform: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
    mode: str = "simulate",
    mpi: str = "openmpi",
    mpirun_args: Sequence[str] = (),
    timeout: float | None = None,
) -> str:
    """``ace``'s result as JSON text, unparsed."""
    if mode not in MODES:
        raise InputError(f'mode: "simulate" or "live", got {mode!r}')
    if ranks is not None and not (isinstance(ranks, int) and 1 <= ranks < 2**32):
        raise InputError(f"ranks: must be between 1 and 2^32-1, got {ranks}")
    if not (isinstance(seed, int) and 0 <= seed < 2**64):
        raise InputError(f"seed: must be between 0 and 2^64-1, got {seed}")
    texts = [spec_text(ea) for ea in eas]
    if mode == "live":
        from netsens.ace.live import run_ace_live  # noqa: PLC0415 (live mode only)

        live = run_ace_live(
            texts,
            platform=None if platform in (None, "machine") else platform,
            overrides=overrides,
            ranks=ranks,
            seed=seed,
            mpi=mpi,
            mpirun_args=mpirun_args,
            timeout=timeout,
        )
        return json.dumps(live)
    platform = os.fspath(platform) if platform is not None else "loggopsim"
    return _core.ace(texts, platform, dict(overrides or {}), ranks, seed)


def ace(
    eas: Sequence[EaSpec],
    platform: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
    mode: str = "simulate",
    mpi: str = "openmpi",
    mpirun_args: Sequence[str] = (),
    timeout: float | None = None,
) -> dict[str, Any]:
    """Run the EAs together (``platform``: default ``loggopsim``); per EA (``eas``)
    the α–β fit of phase one (``alpha_ps``, ``beta_ps_per_byte``, ``r2``),
    ``t_comm_ps``, ``t_sync_ps``, ``t_comp_ps``, ``predicted_ps``, ``actual_ps``,
    ``error``, the ``compute``, ``comm`` and ``sync`` statistics over every cycle
    (``mean_ps``, ``sd_ps``, ``min_ps``, ``max_ps``, ``cv``) and the same
    ``per_rank`` with each cycle's ``comm_cycles_ps``.

    ``mode="live"`` runs them on real MPI (``mpi``: ``"openmpi"`` or ``"mpich"``;
    ``mpirun_args`` for the launcher; ``timeout`` in seconds) with the platform's o,
    g, L, G and wide-area links injected; ``platform=None`` (or ``"machine"``) then
    injects only the ``overrides``. The result adds ``mpi``, ``machine`` and the
    resolved ``platform``."""
    return json.loads(
        ace_json(eas, platform, overrides, ranks, seed, mode, mpi, mpirun_args, timeout)
    )


def read_ace_toml(path: Path, keys: Sequence[str]) -> dict[str, Any]:
    """A TOML file of ``keys`` (others are an error), its ``platform`` file, when
    relative, found beside it."""
    import tomllib
    from pathlib import Path

    try:
        doc = tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: not valid TOML: {e}") from None
    unknown = [k for k in doc if k not in keys]
    if unknown:
        raise InputError(f'{path}: unknown key "{unknown[0]}"; keys: {", ".join(keys)}')
    if "platform" not in doc:
        return doc
    platform = str(doc["platform"])
    if platform.endswith(".toml") and not Path(platform).is_absolute():
        platform = str(path.parent / platform)
    return {**doc, "platform": platform}


def load_ace_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The keyword arguments of :func:`ace` from a TOML file."""
    from pathlib import Path

    path = Path(path)
    doc = read_ace_toml(path, FILE_KEYS)
    eas = doc.get("ea")
    if not isinstance(eas, list) or not eas:
        raise InputError(f"{path}: needs at least one [[ea]] table")
    mode = doc.get("mode", "simulate")
    if mode not in MODES:
        raise InputError(f'{path}: mode: "simulate" or "live", got {mode!r}')
    args = {
        "eas": eas,
        "platform": doc.get("platform"),
        "ranks": doc.get("ranks"),
        "seed": doc.get("seed", 0),
        "mode": mode,
    }
    if "mpi" in doc:
        args["mpi"] = doc["mpi"]
    return args
