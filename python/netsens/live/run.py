"""Live mode: a real MPI program, or an application of the suite on real MPI, under a
dialled network.

netsens starts the MPI launcher with its PMPI library preloaded into every process
(``LD_PRELOAD``) and configured through environment variables: the library adds the
platform's o (busy CPU at both ends of every message, plus O per byte), keeps g
between a rank's message injections and (s − 1)·G on its send NIC, holds every
message until its send time + L, and sends messages between clusters over emulated
wide-area links (each directed link a FIFO). What is injected comes on top of the
real machine: with no platform and no flags nothing is injected and the run measures
the machine itself. See docs/reference/pmpi.md for the exact semantics.

    import netsens
    r = netsens.run("radb", ranks=4, size="tiny", mode="live", overrides={"o": "20us"})
    r.makespan_ps, r.verified, r.to_dict()["mpi"]
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from netsens import _core
from netsens.errors import InputError, ProgramError
from netsens.live.mpi import Implementation, implementation
from netsens.live.result import merge, read_ranks

# With no --platform, live mode injects nothing but what the flags ask for.
MACHINE = "machine"
_ZERO = {"L": "0ps", "o": "0ps", "g": "0ps", "G": "0ps/B", "O": "0ps/B"}


def resolve_platform(
    platform: str | os.PathLike[str] | None, overrides: Mapping[str, str] | None
) -> tuple[dict[str, Any], str, str]:
    """(resolved platform as a dict, its name, its TOML) of what will be injected.

    ``platform=None`` is the bare machine: every parameter 0, then the overrides."""
    overrides = dict(overrides or {})
    if platform is None:
        spec, merged = "loggopsim", {**_ZERO, **overrides}
    else:
        spec, merged = os.fspath(platform), overrides
    resolved = json.loads(_core.platform_json(spec, merged))
    if resolved.get("topology"):
        raise InputError(
            f"platform {resolved['name']}: live mode cannot inject a [topology] (its links "
            "are shared only in simulation and replay; docs/guides/topology.md)"
        )
    toml = _core.platform_toml(spec, merged)
    name = resolved["name"] if platform is not None else MACHINE
    resolved["name"] = name
    return resolved, name, toml


def injection_env(platform: Mapping[str, Any]) -> dict[str, str]:
    """The PMPI library's environment for ``platform`` (times in ps, per byte in fs/B).

    The cluster level is injected between any two ranks; a node level is not (the
    ranks of one host already share memory)."""
    c = platform["cluster"]
    env = {
        "NETSENS_L_PS": c["latency"],
        "NETSENS_O_PS": c["overhead"],
        "NETSENS_O_FS_PER_B": c["overhead_per_byte"],
        "NETSENS_GAP_PS": c["gap"],
        "NETSENS_GAP_FS_PER_B": c["gap_per_byte"],
    }
    clusters = platform["shape"].get("clusters")
    if clusters and len(clusters) > 1:
        wan = platform["wan"]
        env |= {
            "NETSENS_CLUSTERS": ",".join(str(n) for n in clusters),
            "NETSENS_WAN_SHAPE": wan["shape"],
            "NETSENS_WAN_HUB": wan["hub"],
            "NETSENS_WAN_L_PS": wan["latency"],
            "NETSENS_WAN_FS_PER_B": wan["per_byte"],
        }
    return {key: str(value) for key, value in env.items()}


# The parameters a schedule may change between the runs of one job (the library's
# variables, without their NETSENS_ prefix).
SCHEDULED = ("L_PS", "O_PS", "O_FS_PER_B", "GAP_PS", "GAP_FS_PER_B")
SCHEDULED_PARAMETERS = ("L", "o", "O", "g", "G")


def schedule_env(
    platform: str | os.PathLike[str] | None,
    overrides: Mapping[str, str] | None,
    schedule: Sequence[Mapping[str, str]],
) -> str:
    """NETSENS_SCHEDULE for runs with ``schedule``'s overrides on top of ``overrides``."""
    base = dict(overrides or {})
    entries = []
    for entry in schedule:
        if set(entry) - set(SCHEDULED_PARAMETERS):
            raise InputError(f"live: a schedule changes only L, o, g, G and O; got {dict(entry)}")
        env = injection_env(resolve_platform(platform, base | dict(entry))[0])
        entries.append(",".join(f"{k}={env['NETSENS_' + k]}" for k in SCHEDULED))
    return ";".join(entries)


def ranks_share_cores(ranks: int) -> bool:
    """Whether ``ranks`` processes on this machine share its cores."""
    from netsens.live.calibrate import machine_cores  # noqa: PLC0415

    return ranks > machine_cores()


def shared_core_env(shared: bool) -> dict[str, str]:
    """The library's settings when the ranks share cores (``shared``): injected o is
    the rank's CPU time, not wall time, so that two ranks on one core no longer spin
    their o at once (the model's o occupies the core); docs/reference/pmpi.md, "More ranks than
    cores". A setting already in the environment stays."""
    if not shared or "NETSENS_O_CLOCK" in os.environ:
        return {}
    return {"NETSENS_O_CLOCK": "cpu"}


def _check_ranks(ranks: Any, platform: Mapping[str, Any]) -> int:
    if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
        raise InputError(f"ranks: must be a whole number of at least 1, got {ranks!r}")
    clusters = platform["shape"].get("clusters")
    if clusters and sum(clusters) != ranks:
        raise InputError(
            f"ranks: {ranks} ranks do not fill the platform's clusters "
            f"{'+'.join(map(str, clusters))} = {sum(clusters)}"
        )
    return ranks


_LINKED = {"openmpi": b"libmpi.so.40", "mpich": b"libmpich.so"}


def _check_linked(program: str, impl: Implementation) -> None:
    """A compiled program linked against the other implementation cannot take this
    one's library: say so before it crashes (scripts and static binaries pass)."""
    path = Path(program) if os.sep in program else None
    if path is None:
        found = shutil.which(program)
        path = Path(found) if found else None
    if path is None or not path.is_file():
        raise InputError(f"program not found: {program}")
    try:
        with path.open("rb") as f:
            if f.read(4) != b"\x7fELF":
                return
        libs = subprocess.run(["ldd", str(path)], capture_output=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return
    for name, marker in _LINKED.items():
        if name != impl.name and marker in libs and _LINKED[impl.name] not in libs:
            raise InputError(
                f"{program} is linked against {name}, not {impl.name}; run it with --mpi {name}"
            )


def launcher_error(stderr: str) -> str | None:
    """The launcher's most telling line about a failed job (None: it said nothing).
    Open MPI frames its messages in rules of dashes, which say nothing."""
    lines = [line.strip() for line in stderr.splitlines() if set(line.strip()) - set("-=* ")]
    for pattern in (
        r"netsens-mpi-run: .*",
        r"netsens-pmpi: error: .*",
        r".*(unable to find the specified executable|No such file or directory).*",
        r".*process rank \d+ .*(exited|signal).*",
        r".*(BAD TERMINATION|exit code|killed|Segmentation fault).*",
    ):
        for line in lines:
            if re.search(pattern, line):
                return line
    return lines[-1] if lines else None


def _run_job(
    impl: Implementation,
    ranks: int,
    program: Sequence[str],
    env: dict[str, str],
    mpirun_args: Sequence[str],
    timeout: float | None,
    stdout: int | None,
    out: Path,
) -> None:
    outcome = impl.run(ranks, program, env, out, mpirun_args, timeout, stdout)
    if outcome.timed_out:
        raise ProgramError(
            f"live run: timed out after {timeout:g} s; every MPI process was stopped"
        )
    apps = read_ranks(out, "app-", ranks)
    failed = sorted((r, a["error"]) for r, a in apps.items() if a.get("error"))
    if failed:
        r, why = failed[0]
        more = f" (and {len(failed) - 1} more rank(s) failed)" if len(failed) > 1 else ""
        raise ProgramError(f"rank {r}: {why}{more}")
    if outcome.returncode != 0:
        line = launcher_error(outcome.stderr) or "no message"
        for prefix in ("netsens-mpi-run: error: ", "netsens-pmpi: error: "):
            if line.startswith(prefix):
                raise InputError(line.removeprefix(prefix))
        if "executable" in line or "No such file" in line:
            raise InputError(f"program not found or not executable: {' '.join(program)}")
        raise ProgramError(
            f"live run failed: {impl.launcher} exited with code {outcome.returncode}: {line}"
        )


def _collect(out: Path, ranks: int, program: Sequence[str]) -> dict[int, dict[str, Any]]:
    stats = read_ranks(out, "", ranks)
    if not stats:
        raise InputError(
            f"{' '.join(program)} is not an MPI program: no process called MPI_Init and "
            "MPI_Finalize under the netsens library (or it uses another MPI; see --mpi)"
        )
    missing = sorted(set(range(ranks)) - set(stats))
    if missing:
        raise ProgramError(f"live run: rank(s) {missing} ended without MPI_Finalize")
    return stats


def run_live(
    ranks: int,
    *,
    app: str | None = None,
    program: Sequence[str] | None = None,
    variant: str | None = None,
    size: str = "small",
    seed: int = 0,
    platform: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, str] | None = None,
    mpi: str = "openmpi",
    mpirun_args: Sequence[str] = (),
    timeout: float | None = None,
    matrix: bool = True,
    program_stdout: int | None = None,
    trace_dir: str | os.PathLike[str] | None = None,
    repeat: int = 1,
    trace_cpu_time: bool | None = None,
    schedule: Sequence[Mapping[str, str]] = (),
) -> dict[str, Any]:
    """Run ``app`` (a suite application; ``variant`` for a wide-area one) or ``program``
    (any MPI program's command line)
    on ``ranks`` processes of real MPI under the dialled network; the result has the
    schema of a simulated run plus ``mode``, ``mpi``, ``machine`` and the MPI calls
    seen (``unhandled_calls`` lists those the library passed through untouched).
    With ``trace_dir`` the library also records every MPI call and rank 0 writes
    the OTF2 archive ``trace_dir/traces.otf2`` (docs/reference/pmpi.md, "Trace mode"), with each
    rank's thread CPU time at every call if ``trace_cpu_time`` (by default when there
    are more ranks than this machine's cores: then a rank's wall time between calls
    also holds the time it waited for its core, while alone on a core the two clocks
    agree and reading the CPU time, a system call, only slows the traced run).
    ``repeat`` runs an application that many times in one job; the result is its
    median run (see live_result). ``schedule`` gives those runs, one entry per run, other
    values of the network parameters (each entry overrides of ``overrides``, of L, o,
    g, G or O only; the set-up and drain around each run keep ``overrides``' values):
    one job then measures them in turn, on one placement of its ranks;
    ``makespans_ps`` lists the runs in order."""
    if (app is None) == (program is None):
        raise InputError("live: give either an application or a program to run")
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise InputError(f"repeat: must be a whole number of at least 1, got {repeat!r}")
    if repeat > 1 and app is None:
        raise InputError("--repeat: only a suite application (--app) can be run repeatedly")
    impl = implementation(mpi)
    resolved, name, toml = resolve_platform(platform, overrides)
    ranks = _check_ranks(ranks, resolved)
    shared = ranks_share_cores(ranks)
    env = injection_env(resolved) | shared_core_env(shared)
    if schedule:
        if app is None or len(schedule) != repeat:
            raise InputError("live: a schedule gives each run of a repeated application its values")
        env["NETSENS_SCHEDULE"] = schedule_env(platform, overrides, schedule)
    if trace_dir is not None:
        env["NETSENS_TRACE_DIR"] = str(Path(trace_dir).resolve())
        if trace_cpu_time is None:
            trace_cpu_time = shared
        if not trace_cpu_time:
            env["NETSENS_TRACE_CPU_TIME"] = "0"
    with tempfile.TemporaryDirectory(prefix="netsens-live-") as tmp:
        out = Path(tmp)
        if app is not None:
            # Checked here to fail before mpirun starts; hidden test programs (names
            # starting with "_") are left to netsens-mpi-run, which knows them too.
            known = {n: sizes for n, _, sizes in _core.apps()}
            if app not in known and not app.startswith("_"):
                raise InputError(f'unknown application "{app}"; applications: {", ".join(known)}')
            if app in known and size not in known[app]:
                raise InputError(f'unknown size "{size}" for {app}; sizes: {", ".join(known[app])}')
            (out / "platform.toml").write_text(toml)
            command = [
                str(impl.app_runner()),
                *("--app", app, "--size", size, "--seed", str(seed)),
                *("--platform", str(out / "platform.toml"), "--out", str(out)),
                *(("--variant", variant) if variant else ()),
                *(("--repeat", str(repeat)) if repeat > 1 else ()),
            ]
            workload = {"kind": "app", "app": app, "size": size}
            if variant:
                workload["variant"] = variant
        else:
            command = list(program or [])
            if not command:
                raise InputError("live: the program's command line is empty (after --)")
            _check_linked(command[0], impl)
            workload = {"kind": "program", "command": command}
        _run_job(impl, ranks, command, env, mpirun_args, timeout, program_stdout, out)
        stats = _collect(out, ranks, command)
        apps = read_ranks(out, "app-", ranks) if app is not None else {}
        if app is not None and len(apps) != ranks:
            raise ProgramError(f"live run: {ranks - len(apps)} rank(s) wrote no application result")
        return merge(
            stats,
            apps,
            implementation=impl.name,
            platform=resolved,
            platform_name=name,
            workload=workload,
            seed=seed,
            matrix=matrix,
        )
