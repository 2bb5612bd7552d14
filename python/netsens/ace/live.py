"""ACE on real MPI: the emulator's own source (``netsens-mpi-run --ea``) under
``mpirun``, with the platform's o, g, L, G and wide-area links injected by the PMPI
library exactly as ``netsens live`` injects them (:mod:`netsens.live.run`).

Each EA runs on its own MPI communicator; its first rank gathers the EA's logs (every
rank's compute, communication and synchronisation time per cycle, phase one's fit and
the prediction) and writes the EA in the simulated result's schema
(``ace-ea-<i>.json``); this module merges the EAs into one document, the same as
:func:`netsens.ace.emulator.ace` gives for a simulated run, plus ``mode = "live"``, the MPI
implementation and the machine. Times are wall-clock picoseconds of each rank's own
clock; the platform's noise, background traffic and soft faults are simulated only.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from netsens import _core
from netsens.errors import InputError, ProgramError
from netsens.live.mpi import implementation
from netsens.live.result import merge, read_ranks
from netsens.live.run import _check_ranks, _collect, _run_job, injection_env, resolve_platform


def _read_ea(out: Path, i: int) -> dict[str, Any]:
    path = out / f"ace-ea-{i}.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        why = f"live ace: EA {i + 1} wrote no result (its first rank failed)"
        raise ProgramError(why) from None
    except (OSError, ValueError) as e:
        raise ProgramError(f"live ace: unreadable result file {path}: {e}") from None


def run_ace_live(
    specs: Sequence[str],
    *,
    platform: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, str] | None = None,
    ranks: int | None = None,
    seed: int = 0,
    mpi: str = "openmpi",
    mpirun_args: Sequence[str] = (),
    timeout: float | None = None,
) -> dict[str, Any]:
    """Run the EAs ``specs`` (``key=value,...`` texts) together on real MPI, one
    process per rank (``ranks``: default the platform's shape, else one past the
    highest rank named); ``platform=None`` injects only the ``overrides``."""
    impl = implementation(mpi)
    resolved, name, toml = resolve_platform(platform, overrides)
    if not specs:
        raise InputError("ace: needs at least one --ea")
    with tempfile.TemporaryDirectory(prefix="netsens-ace-live-") as tmp:
        out = Path(tmp)
        platform_file = out / "platform.toml"
        platform_file.write_text(toml)
        # The same check as the runner's, before any process starts.
        world = _check_ranks(_core.ace_world(list(specs), str(platform_file), {}, ranks), resolved)
        command = [
            str(impl.app_runner()),
            *(arg for spec in specs for arg in ("--ea", spec)),
            *("--platform", str(platform_file), "--seed", str(seed), "--out", str(out)),
        ]
        env = injection_env(resolved)
        _run_job(impl, world, command, env, mpirun_args, timeout, subprocess.DEVNULL, out)
        stats = _collect(out, world, command)
        apps = read_ranks(out, "app-", world)
        if len(apps) != world:
            raise ProgramError(f"live ace: {world - len(apps)} rank(s) wrote no result")
        eas = [_read_ea(out, i) for i in range(len(specs))]
        live = merge(
            stats,
            apps,
            implementation=impl.name,
            platform=resolved,
            platform_name=name,
            workload={"kind": "ace", "eas": list(specs)},
            seed=seed,
            matrix=False,
        )
    return {
        "mode": "live",
        "platform_name": name,
        "seed": seed,
        "world": world,
        "makespan_ps": live["makespan_ps"],
        "eas": eas,
        "mpi": live["mpi"],
        "machine": live["machine"],
        "platform": resolved,
        "unhandled_calls": live["unhandled_calls"],
    }
