"""``netsens calibrate --live``: the seeds' LogP calibration on real MPI.

The same microbenchmarks as in simulation (``netsens_apps::calibrate``, run by
``netsens-mpi-run --calibrate`` on two MPI processes) measure first the machine
itself (nothing injected), then, when a platform or flags are given, the machine with
that platform injected. Each injected parameter is set beside what the library
should deliver on this machine: o and O add to the machine's own, L, g and G are
floors (a message is held until its send time + L; sends are spaced by at least g;
see docs/reference/pmpi.md), so the expected value is ``machine + dialled`` or
``max(machine, dialled)``. L is held from the send call's entry and the machine's own
send overhead runs during that flight, so the L a round trip shows is
``max(machine L, dialled L - o_s)``, with the o_s measured in the same run (on a
loaded machine the two runs' o_s differ by microseconds).

The result also holds the machine's cores (``machine_cores``): ``--save`` writes them
as the platform's ``cores_per_node`` on one node holding every rank, so that a run or
replay with more ranks than cores has ranks on one core compute in turn, as the live
ranks do (netsens binds them to cores in turn, ``--map-by core``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from netsens.errors import InputError, ProgramError
from netsens.live.mpi import implementation
from netsens.live.run import injection_env, launcher_error, resolve_platform

# The platform key of each calibrated parameter, and how injection combines with
# the machine's own value.
PARAMETER_KEYS = {
    "L": ("latency", "floor after o_s"),
    "o_s": ("overhead", "add"),
    "o_r": ("overhead", "add"),
    "o_s_stream": ("overhead", "add"),
    "o_r_stream": ("overhead", "add"),
    "g": ("gap", "floor"),
    "G": ("gap_per_byte", "floor"),
    "G_long": ("gap_per_byte", "floor"),
    "O": ("overhead_per_byte", "add"),
}


def machine_cores() -> int:
    """The physical cores this process may run on: the cores ``mpirun --map-by core``
    binds ranks to (hardware threads of one core count once)."""
    allowed = sorted(os.sched_getaffinity(0))
    cores = set()
    for cpu in allowed:
        siblings = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
        try:
            cores.add(siblings.read_text().strip())
        except OSError:
            cores.add(str(cpu))  # no topology: a core per CPU
    return max(len(cores), 1)


def measure(
    mpi: str,
    platform: str | os.PathLike[str] | None,
    overrides: Mapping[str, str] | None,
    reps: int,
    timeout: float | None = None,
) -> dict[str, Any]:
    """One calibration on two MPI processes with ``platform`` injected (None: nothing)."""
    impl = implementation(mpi)
    resolved, _, _ = resolve_platform(platform, overrides)
    env = injection_env(resolved)
    with tempfile.TemporaryDirectory(prefix="netsens-calibrate-") as tmp:
        out = Path(tmp)
        command = [str(impl.app_runner()), "--calibrate", "--reps", str(reps), "--out", str(out)]
        outcome = impl.run(2, command, env, out, timeout=timeout)
        path = out / "calibration.json"
        if outcome.timed_out:
            raise ProgramError(f"calibrate --live: timed out after {timeout:g} s")
        if outcome.returncode != 0 or not path.is_file():
            why = launcher_error(outcome.stderr) or f"exit code {outcome.returncode}"
            raise ProgramError(f"calibrate --live failed: {why}")
        return json.loads(path.read_text())


def _values(calibration: dict[str, Any]) -> dict[str, float | None]:
    return {p["name"]: p["measured"] for p in calibration["parameters"]}


def compare(
    machine: dict[str, Any], injected: dict[str, Any] | None, dialled: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Rows per parameter: unit, the machine's value, and with injection the dialled
    value (in the calibration's units: ps, ps/B), the expected and measured values and
    the error of the measurement against the expectation."""
    base = _values(machine)
    measured = _values(injected) if injected else {}
    units = {p["name"]: p["unit"] for p in machine["parameters"]}
    rows = []
    for p in machine["parameters"]:
        name = p["name"]
        row: dict[str, Any] = {"name": name, "unit": units[name], "machine": base[name]}
        if injected is not None and dialled is not None and name in PARAMETER_KEYS:
            key, how = PARAMETER_KEYS[name]
            raw = dialled["cluster"][key]
            dial = raw / 1000 if units[name] == "ps/B" else float(raw)
            own = base[name] or 0.0
            if how == "add":
                expected = own + dial
            elif how == "floor after o_s":
                # The send overhead that ran during this run's flight is this run's.
                o_s = measured.get("o_s") or base["o_s"] or 0.0
                expected = max(own, dial - o_s)
            else:
                expected = max(own, dial)
            got = measured.get(name)
            row |= {
                "dialled": dial,
                "combines": how,
                "expected": expected,
                "measured": got,
                "abs_error": None if got is None else got - expected,
                "relative_error": None if got is None or expected == 0 else got / expected - 1,
            }
        elif injected is not None:
            row["measured"] = measured.get(name)
        rows.append(row)
    return rows


def calibrate_live(
    mpi: str = "openmpi",
    platform: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, str] | None = None,
    reps: int = 40,
    timeout: float | None = None,
) -> dict[str, Any]:
    """The machine's own parameters and, when a platform or overrides are given, the
    effective ones with them injected, dialled vs measured."""
    if reps < 2:
        raise InputError(f"--reps: at least 2 repetitions, got {reps}")
    machine = measure(mpi, None, None, reps, timeout)
    injecting = platform is not None or bool(overrides)
    injected = measure(mpi, platform, overrides, reps, timeout) if injecting else None
    dialled = resolve_platform(platform, overrides)[0] if injecting else None
    return {
        "mpi": mpi,
        "reps": reps,
        "cores": machine_cores(),
        "machine": machine,
        "injected": injected,
        "dialled_platform": dialled,
        "rows": compare(machine, injected, dialled),
    }
