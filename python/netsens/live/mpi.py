"""The MPI implementations live mode runs on, and how a job is launched and cleaned up.

Open MPI (the default) and MPICH live side by side: Debian installs each one's
launcher under its own name (``mpirun.openmpi``, ``mpirun.mpich``), which netsens
calls directly, so the system-wide ``mpirun`` chosen by Debian's alternatives never
matters. Each implementation has its own build of netsens's PMPI library
(``native/pmpi/build/<name>/``) and of ``netsens-mpi-run`` (the suite on real MPI).

A job runs in a session of its own with the kernel told to stop ``mpirun`` if netsens
dies (even by SIGKILL); an interrupted or timed-out job's whole process group is
killed, and any process still carrying the job's ``NETSENS_JOB`` mark is killed too,
so no MPI process outlives netsens.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from netsens.errors import InputError

# The repository (netsens is installed editable from it): where the PMPI library and
# netsens-mpi-run are built.
ROOT = Path(__file__).resolve().parents[3]
# How often a running job is looked at (for Ctrl-C and the timeout), seconds.
POLL_S = 0.2
INSTALL_HINT = "run `make install-live` (installs Open MPI, MPICH and builds netsens's MPI parts)"


@dataclass(frozen=True)
class Implementation:
    name: str
    launcher: str
    # netsens-mpi-run's cargo target directory, relative to the repository.
    target_dir: str

    def mpirun(self) -> str:
        path = shutil.which(self.launcher)
        if path is None:
            raise InputError(f"--mpi {self.name}: `{self.launcher}` not found; {INSTALL_HINT}")
        return path

    def pmpi_library(self) -> Path:
        override = os.environ.get("NETSENS_PMPI_LIB")
        build = ROOT / "native/pmpi/build" / self.name / "libnetsens-pmpi.so"
        path = Path(override) if override else build
        if not path.is_file():
            raise InputError(
                f"the netsens PMPI library for {self.name} is missing ({path}); {INSTALL_HINT}"
            )
        return path

    def app_runner(self) -> Path:
        override = os.environ.get("NETSENS_MPI_RUN")
        path = Path(override) if override else ROOT / self.target_dir / "release/netsens-mpi-run"
        if not path.is_file():
            raise InputError(f"netsens-mpi-run for {self.name} is missing ({path}); {INSTALL_HINT}")
        return path

    def command(
        self, ranks: int, env: Mapping[str, str], program: Sequence[str], extra: Sequence[str]
    ) -> list[str]:
        """The launcher's command line: ``ranks`` processes of ``program``, each with
        ``env`` added to its environment (the launcher itself does not get it, so
        ``LD_PRELOAD`` reaches only the MPI processes)."""
        cmd = [self.mpirun()]
        # Open MPI's ranks are bound to cores in turn (rank r on core r mod cores),
        # unless the user's arguments place them: left to the scheduler, which ranks
        # share a core changed from one job to the next, and with it a short
        # program's run time (radb at 4 ranks on 2 cores: 1.4 or 2.9 ms for the same
        # job). MPICH is left unbound: its polling does not yield, and two of its
        # ranks bound to one core wait on each other for whole time slices.
        bind = not any(a.lstrip("-").startswith(("bind-to", "map-by")) for a in extra)
        if self.name == "openmpi":
            if os.geteuid() == 0:
                cmd.append("--allow-run-as-root")
            # More ranks than cores is the normal case on a laptop or CI; yielding
            # when idle keeps waits from starving the other ranks.
            cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-np", str(ranks)]
            if bind:
                cmd += ["--bind-to", "core:overload-allowed", "--map-by", "core"]
            for key, value in env.items():
                cmd += ["-x", f"{key}={value}"]
        else:
            cmd += ["-n", str(ranks)]
            for key, value in env.items():
                cmd += ["-genv", key, value]
        return [*cmd, *extra, *program]

    def run(
        self,
        ranks: int,
        program: Sequence[str],
        env: Mapping[str, str],
        stats_dir: Path,
        extra: Sequence[str] = (),
        timeout: float | None = None,
        stdout: int | None = None,
    ) -> Outcome:
        """Run ``program`` on ``ranks`` processes with the netsens library preloaded,
        configured by ``env``, its per-rank files written to ``stats_dir``; the job's
        processes carry a fresh mark, so that none outlives it."""
        job = uuid.uuid4().hex
        env = {
            **env,
            "NETSENS_STATS_DIR": str(stats_dir),
            "LD_PRELOAD": str(self.pmpi_library()),
            "NETSENS_JOB": job,
        }
        return launch(self.command(ranks, env, program, extra), job, timeout, stdout)


IMPLEMENTATIONS = {
    "openmpi": Implementation("openmpi", "mpirun.openmpi", "target"),
    "mpich": Implementation("mpich", "mpirun.mpich", "target/mpich"),
}


def implementation(name: str) -> Implementation:
    try:
        return IMPLEMENTATIONS[name]
    except KeyError:
        known = ", ".join(IMPLEMENTATIONS)
        raise InputError(f'--mpi: unknown MPI implementation "{name}"; known: {known}') from None


@dataclass
class Outcome:
    returncode: int
    stderr: str
    timed_out: bool


def _die_with_parent() -> None:
    """In the child before exec: a session of its own, and SIGTERM when netsens dies."""
    os.setsid()
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def launch(command: Sequence[str], job: str, timeout: float | None, stdout: int | None) -> Outcome:
    """Run ``command`` (a launcher command line) to its end; ``job`` marks its processes.

    The MPI processes' output goes to ``stdout`` (None: netsens's own stdout) and their
    stderr is kept for error messages. Ctrl-C or a timeout kills the whole job."""
    env = dict(os.environ, NETSENS_JOB=job)
    proc = subprocess.Popen(
        list(command),
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        preexec_fn=_die_with_parent,  # noqa: PLW1509 (no threads are running)
    )
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            # Short rounds: a single blocking read of the job's stderr would not see
            # Ctrl-C until the job ends; between rounds it does, and the deadline too.
            try:
                _, err = proc.communicate(timeout=POLL_S)
                return Outcome(proc.returncode, err, False)
            except subprocess.TimeoutExpired:
                if deadline is not None and time.monotonic() > deadline:
                    stop(proc, job)
                    _, err = proc.communicate()
                    return Outcome(proc.returncode, err, True)
    except BaseException:
        stop(proc, job)
        raise


# How long the ranks get to end on SIGTERM while their launcher is held, seconds: a
# tracing rank writes every record it made first (hundreds of MB take seconds); a rank
# that does not trace ends at once.
RANK_WRITE_GRACE_S = 60.0


def stop(proc: subprocess.Popen[str], job: str) -> None:
    """End the ranks, then the launcher, its process group, then any straggler carrying
    the job mark.

    The ranks (the marked processes that load the PMPI library) get SIGTERM first while
    every other marked process, the launcher and its helpers, is held (SIGSTOP): a
    launcher that saw a rank end would kill the others (Open MPI's mpirun sends SIGKILL
    soon after), cutting short a rank still writing its trace records."""
    stop_ranks_first(proc, job)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            continue
    terminate_marked(job)
    kill_marked(job)


def stop_ranks_first(proc: subprocess.Popen[str], job: str) -> None:
    """SIGTERM to the job's ranks, its launcher and helpers held, until the ranks have
    ended or ``RANK_WRITE_GRACE_S`` passed."""
    marked = marked_processes(job)
    helpers = {proc.pid} | {pid for pid in marked if not _loads_library(pid)}
    signal_each(helpers, signal.SIGSTOP)
    try:
        ranks = [pid for pid in marked if pid not in helpers]
        signal_each(ranks, signal.SIGTERM)
        deadline = time.monotonic() + RANK_WRITE_GRACE_S
        while ranks and time.monotonic() < deadline:
            time.sleep(0.05)
            ranks = [pid for pid in marked_processes(job) if pid not in helpers]
    finally:
        signal_each(helpers, signal.SIGCONT)


def _loads_library(pid: int) -> bool:
    """Whether process ``pid`` has the PMPI library loaded (an MPI rank, preloaded)."""
    try:
        return b"libnetsens-pmpi" in Path(f"/proc/{pid}/maps").read_bytes()
    except OSError:
        return False


def signal_each(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def marked_processes(job: str) -> list[int]:
    """Processes whose environment carries ``NETSENS_JOB=job``."""
    mark = f"NETSENS_JOB={job}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if mark in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


# How long the job's processes get to end on SIGTERM before SIGKILL, seconds: a rank
# tracing its run writes what it recorded (docs/reference/pmpi.md, "Trace mode").
TERMINATE_GRACE_S = 2.0


def terminate_marked(job: str) -> None:
    """SIGTERM to the processes carrying the job mark, then wait (a little) for them."""
    pids = marked_processes(job)
    signal_each(pids, signal.SIGTERM)
    deadline = time.monotonic() + TERMINATE_GRACE_S
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = marked_processes(job)


def kill_marked(job: str) -> None:
    for _ in range(20):
        pids = marked_processes(job)
        if not pids:
            return
        signal_each(pids, signal.SIGKILL)
        time.sleep(0.05)
