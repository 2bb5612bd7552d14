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

One calibration on a shared or virtual machine can be off by a few microseconds as a
whole (a job's placement and the host's scheduling: on a 2-core virtual machine the
machine's own o_s was 3.2 µs in some jobs and 4.7-5.3 µs in others, within a job
stable), and with an injected o the o_r of some jobs came out 3-8 µs above machine +
o throughout (the spin itself ends on time; docs/measurements/fidelity.md), so
``calibrate_live`` runs ``runs`` calibrations of the machine, and as many with the
injection, in alternation, and combines them (``combine``): a CPU overhead is the
lowest of the runs (noise only ever adds to it), every other value a trimmed mean (a
median would keep one of two levels whole); every run's own calibration stays in the
result.

The result also holds the machine's cores (``machine_cores``): ``--save`` writes them
as the platform's ``cores_per_node`` on one node holding every rank, so that a run or
replay with more ranks than cores has ranks on one core compute in turn, as the live
ranks do (netsens binds them to cores in turn, ``--map-by core``).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from scipy.stats import trim_mean

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


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One calibration from several of the same kind, each parameter from the runs that
    measured it, where most did: an overhead (``LOWEST``) the lowest of them, a size
    (bytes) their lower median (a size some run measured), any other value their
    trimmed mean (``TRIM`` of the values left out at each end). Where most runs only
    bound a parameter (the method sees it in a minority of noisy runs), it stays a
    bound: the trimmed mean of the bounds of the kind most runs proved. The α-β line
    takes the trimmed mean of each of its two terms."""
    if not runs:
        raise InputError("a calibration needs at least one run")
    first = runs[0]
    parameters = []
    for i, p in enumerate(first["parameters"]):
        row = dict(p)
        seen = [run["parameters"][i] for run in runs]
        middle = _trimmed_mean
        if p["unit"] == "B":
            middle = statistics.median_low
        elif p["name"] in LOWEST:
            middle = min
        measured = [q["measured"] for q in seen if q["measured"] is not None]
        if 2 * len(measured) > len(runs):
            row |= {"measured": middle(measured), "bound": None, "why": None}
        else:
            bounds = [q for q in seen if q["bound"] is not None]
            if bounds:
                kind = Counter(q["bound"]["kind"] for q in bounds).most_common(1)[0][0]
                same = [q for q in bounds if q["bound"]["kind"] == kind]
                value = middle([q["bound"]["value"] for q in same])
                row |= {"measured": None, "bound": {"kind": kind, "value": value}}
                row["why"] = same[0]["why"]
            else:  # neither measured by most nor bounded: the median of the few
                row |= {"measured": middle(measured) if measured else None, "bound": None}
        dialled = row.get("dialled")
        got = row["measured"]
        if got is None or (not dialled and got != 0):
            row["relative_error"] = None  # as the calibration writes an infinite error
        else:
            row["relative_error"] = got / dialled - 1 if dialled else 0.0
        parameters.append(row)
    line = {
        key: {**first[key], "measured": _trimmed_mean([r[key]["measured"] for r in runs])}
        for key in ("alpha", "beta")
        if key in first
    }
    return {**first, **line, "parameters": parameters}


# The share of a parameter's values left out at each end before averaging the runs: one
# of five (an outlying run, as a preempted receiver makes) and none of three or fewer.
TRIM = 0.2

# The CPU overheads, which a run's noise only ever lengthens (a preemption, a host's
# other work, a spin ending late): the least disturbed run's is the machine's.
LOWEST = frozenset({"o_s", "o_r", "o_s_stream", "o_r_stream"})


def _trimmed_mean(values: list[float]) -> float:
    return float(trim_mean(values, TRIM))


def _values(calibration: dict[str, Any]) -> dict[str, float | None]:
    return {p["name"]: p["measured"] for p in calibration["parameters"]}


def compare(
    machine: dict[str, Any],
    injected: dict[str, Any] | None,
    dialled: dict[str, Any] | None,
    o_s_of_l: float | None = None,
) -> list[dict[str, Any]]:
    """Rows per parameter: unit, the machine's value, and with injection the dialled
    value (in the calibration's units: ps, ps/B), the expected and measured values and
    the error of the measurement against the expectation. ``o_s_of_l`` is the o_s the
    injected L was measured against (default: the injected o_s)."""
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
                o_s = o_s_of_l or measured.get("o_s") or base["o_s"] or 0.0
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
    runs: int = 5,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The machine's own parameters and, when a platform or overrides are given, the
    effective ones with them injected, dialled vs measured: each combined (``combine``)
    from ``runs`` calibrations, machine and injected in alternation so that a machine
    that drifts moves both alike. ``say`` hears a line before each run."""
    if reps < 2:
        raise InputError(f"--reps: at least 2 repetitions, got {reps}")
    if runs < 1:
        raise InputError(f"--runs: at least 1 calibration, got {runs}")
    injecting = platform is not None or bool(overrides)
    machine_runs: list[dict[str, Any]] = []
    injected_runs: list[dict[str, Any]] = []
    for i in range(runs):
        if say is not None:
            what = "the machine, then injected" if injecting else "the machine"
            say(f"calibration {i + 1}/{runs}: {what}")
        machine_runs.append(measure(mpi, None, None, reps, timeout))
        if injecting:
            injected_runs.append(measure(mpi, platform, overrides, reps, timeout))
    machine = combine(machine_runs)
    injected = combine(injected_runs) if injecting else None
    dialled = resolve_platform(platform, overrides)[0] if injecting else None
    # Each run's L is its ping-pong less its own o_s and o_r, and L's value their trimmed
    # mean: its expectation takes the same mean of the runs' o_s (not the lowest).
    o_s_runs = [_values(run)["o_s"] for run in injected_runs]
    o_s_of_l = _trimmed_mean([v for v in o_s_runs if v is not None]) if injecting else None
    return {
        "mpi": mpi,
        "reps": reps,
        "runs": runs,
        "cores": machine_cores(),
        "machine": machine,
        "injected": injected,
        "dialled_platform": dialled,
        "rows": compare(machine, injected, dialled, o_s_of_l),
        "machine_runs": machine_runs,
        "injected_runs": injected_runs if injecting else None,
    }
