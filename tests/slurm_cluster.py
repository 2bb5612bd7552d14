"""A real one-node Slurm cluster for the tests: munged, slurmctld and slurmd (Debian's
slurm-wlm 22.05) on 127.0.0.1, with their key, configuration, spool, state, sockets
and logs under one temporary directory, started as root and torn down afterwards.

No cgroups (proctrack/linuxproc, task/none) and no accounting daemon: ``squeue`` and
``scontrol`` work, ``sacct`` does not (netsens never uses it). Clients find the
cluster through the ``SLURM_CONF`` variable :meth:`Cluster.env` returns.
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

# The node's CPUs: the test machine has two cores.
CPUS = 2
START_TIMEOUT_S = 60.0
# Array tasks per sbatch (Slurm's default is 1001): small, so that a test can pass it.
MAX_ARRAY_SIZE = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``with Cluster(tmp) as c: subprocess.run(["sbatch", ...], env=c.env())``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.conf = root / "slurm.conf"
        self.socket = root / "munge" / "munge.socket"
        self.node = socket.gethostname()
        self.processes: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        return {"SLURM_CONF": str(self.conf)}

    def __enter__(self) -> "Cluster":
        try:
            self._start_munge()
            self._write_conf()
            conf = ["-f", str(self.conf)]
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", *conf])
            self._spawn("slurmd", ["slurmd", "-D", "-N", self.node, *conf])
            self._wait_idle()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if len(self.processes) == 3:
            self._cancel_jobs()
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()

    def _cancel_jobs(self) -> None:
        """Cancel what a failed test left queued and wait for it to end: a job step
        still running when slurmd stops would outlive the cluster."""
        env = dict(os.environ, **self.env())
        subprocess.run(["scancel", f"--user={os.getuid()}"], env=env, capture_output=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            out = subprocess.run(["squeue", "--noheader"], capture_output=True, text=True, env=env)
            if out.returncode != 0 or not out.stdout.strip():
                return
            time.sleep(0.5)

    def _start_munge(self) -> None:
        munge = self.root / "munge"
        munge.mkdir(mode=0o700, parents=True)
        key = munge / "munge.key"
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True)
        key.chmod(0o600)
        self._spawn(
            "munged",
            [
                "munged",
                "--foreground",
                "--force",
                f"--socket={self.socket}",
                f"--key-file={key}",
                f"--pid-file={munge / 'munged.pid'}",
                f"--seed-file={munge / 'munged.seed'}",
                f"--log-file={munge / 'munged.log'}",
            ],
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.socket.exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"munged did not start: {self._log('munged')}")
            time.sleep(0.1)

    def _write_conf(self) -> None:
        for sub in ("state", "spool", "log"):
            (self.root / sub).mkdir()
        self.conf.write_text(
            f"""ClusterName=netsens-test
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
StateSaveLocation={self.root / "state"}
SlurmdSpoolDir={self.root / "spool"}
SlurmctldPidFile={self.root / "slurmctld.pid"}
SlurmdPidFile={self.root / "slurmd.pid"}
SlurmctldLogFile={self.root / "log" / "slurmctld.log"}
SlurmdLogFile={self.root / "log" / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
KillWait=2
MinJobAge=2
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=5
MaxArraySize={MAX_ARRAY_SIZE}
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={CPUS} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
        )

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = (self.root / f"{name}.out").open("wb")
        env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.processes.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env))

    def _log(self, name: str) -> str:
        path = self.root / f"{name}.out"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def _wait_idle(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        env = dict(os.environ, **self.env())
        while time.monotonic() < deadline:
            for process, name in zip(
                self.processes, ("munged", "slurmctld", "slurmd"), strict=True
            ):
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited: {self._log(name)}")
            out = subprocess.run(
                ["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True, env=env
            )
            if out.returncode == 0 and out.stdout.strip() == "idle":
                return
            time.sleep(0.5)
        raise RuntimeError(
            f"the Slurm node did not become idle in {START_TIMEOUT_S:.0f} s: "
            f"{self._log('slurmctld')}{self._log('slurmd')}"
        )


def installed() -> bool:
    return all(shutil.which(t) for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue"))
