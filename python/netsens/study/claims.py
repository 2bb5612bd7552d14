"""Claims on points: two sweeps of one study -- on one machine, or on several that share
the results directory over a network filesystem -- never compute a point at the same
time, and a point claimed by a sweep that died is computed by the next one.

A claim is the file ``claims/<point_id>.claim`` in the results directory, written
aside and hard-linked into place (a link fails where the name exists, as ``O_CREAT |
O_EXCL`` does: atomic on local filesystems and on NFS v3 and later, exactly one creator
wins, and a claim is never seen half-written). It holds JSON::

    {"host": "node17", "pid": 4242, "started": 1732420000.25, "expires": 1732420060.25}

``host``, ``pid`` and ``started`` (the holder process's start time, so a recycled pid
is not mistaken for the holder) identify the holder, a :class:`Holder`. ``expires`` is
a wall-clock time (seconds since the epoch): the holder renews it every
``ttl / 3`` seconds while it computes (:class:`Heartbeat`). A claim is *stale* when it
has expired, or, on the holder's own host, when the holder process is gone; a stale
claim may be taken over. Hosts sharing a filesystem therefore need clocks that agree
to well within ``ttl`` (NTP gives milliseconds; the default ttl is 120 s).

Taking over a stale claim renames it to a unique name first (only one contender's
rename succeeds), checks that what it moved is the stale claim it judged (else puts it
back), deletes it and creates its own claim. A claim is released (deleted) by its
holder once the point is stored or has failed. Executors on other machines (a Slurm
job per batch of points) use the same four calls: :func:`try_claim`,
:class:`Heartbeat` (or :func:`renew`), :func:`release` and :func:`holder_of`.
"""

import json
import os
import socket
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

CLAIMS = "claims"
SUFFIX = ".claim"
DEFAULT_TTL_S = 120.0


@dataclass(frozen=True)
class Holder:
    """Who holds a claim: host name, process id and the process's start time (s)."""

    host: str
    pid: int
    started: float

    @classmethod
    def current(cls) -> "Holder":
        return cls(socket.gethostname(), os.getpid(), _start_time(os.getpid()) or 0.0)

    def describe(self) -> str:
        return f"process {self.pid} on {self.host}"


def _start_time(pid: int) -> float | None:
    """When process ``pid`` of this host started (s since boot), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; field 3 is the state, field 22 the
    # start time in ticks. A zombie (killed, not yet reaped: a container's init may
    # reap late) holds nothing any more.
    fields = stat.rpartition(")")[2].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _path(results_dir: str | os.PathLike[str], point_id: str) -> Path:
    return Path(results_dir) / CLAIMS / f"{point_id}{SUFFIX}"


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError, OSError):
        return {}  # unreadable: a claim cut short by a crash; stale once it expires


def _is_stale(claim: dict, now: float, path: Path) -> bool:
    expires = claim.get("expires")
    if not isinstance(expires, (int, float)):
        # Half-written by a holder that died: stale after a ttl from its last change.
        try:
            return path.stat().st_mtime + DEFAULT_TTL_S < now
        except FileNotFoundError:
            return True
    if expires < now:
        return True
    if claim.get("host") == socket.gethostname():
        return _start_time(int(claim.get("pid", -1))) != claim.get("started")
    return False


def _create(path: Path, holder: Holder, ttl: float) -> bool:
    data = json.dumps({**asdict(holder), "expires": time.time() + ttl})
    # Written aside, then linked into place (a link fails where the claim exists, as
    # O_EXCL does): a claim appears whole or not at all. Created in place, a process
    # killed between creating and writing it (a stopped sweep terminates its workers
    # wherever they are) left an empty claim that looked held for a ttl. A full disk
    # fails the write aside, which is taken back, and the error is reported.
    aside = path.with_name(f"{path.name}.new-{uuid.uuid4().hex}")
    try:
        aside.write_text(data, encoding="utf-8")
        try:
            os.link(aside, path)
        except FileExistsError:
            return False
    finally:
        aside.unlink(missing_ok=True)
    return True


def try_claim(
    results_dir: str | os.PathLike[str],
    point_id: str,
    holder: Holder | None = None,
    ttl: float = DEFAULT_TTL_S,
) -> bool:
    """Claim ``point_id`` for ``holder`` (default: this process) for ``ttl`` seconds;
    False when another live holder has it."""
    holder = holder or Holder.current()
    path = _path(results_dir, point_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    if _create(path, holder, ttl):
        return True
    claim = _read(path)
    if claim is None:  # released meanwhile
        return _create(path, holder, ttl)
    if not _is_stale(claim, time.time(), path):
        return False
    aside = path.with_name(f"{path.name}.stale-{uuid.uuid4().hex}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return False  # another sweep took it over first
    if _read(aside) != claim:
        # A fresh claim made after we looked: put it back (never over a newer one).
        try:
            os.link(aside, path)
        except FileExistsError:
            pass
        aside.unlink(missing_ok=True)
        return False
    aside.unlink(missing_ok=True)
    return _create(path, holder, ttl)


def holder_of(results_dir: str | os.PathLike[str], point_id: str) -> Holder | None:
    """The live holder of ``point_id``'s claim, or None (unclaimed or stale)."""
    path = _path(results_dir, point_id)
    claim = _read(path)
    if not claim or _is_stale(claim, time.time(), path):
        return None
    return Holder(claim["host"], claim["pid"], claim["started"])


def renew(
    results_dir: str | os.PathLike[str], point_id: str, holder: Holder, ttl: float = DEFAULT_TTL_S
) -> bool:
    """Push the claim's expiry ``ttl`` seconds ahead; False if ``holder`` lost it."""
    path = _path(results_dir, point_id)
    claim = _read(path)
    if not claim or Holder(claim.get("host"), claim.get("pid"), claim.get("started")) != holder:
        return False
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps({**asdict(holder), "expires": time.time() + ttl}))
    os.replace(tmp, path)
    return True


def release(results_dir: str | os.PathLike[str], point_id: str, holder: Holder) -> None:
    """Give up ``holder``'s claim on ``point_id`` (nothing if it holds none)."""
    path = _path(results_dir, point_id)
    claim = _read(path)
    if claim and Holder(claim.get("host"), claim.get("pid"), claim.get("started")) == holder:
        path.unlink(missing_ok=True)


class Heartbeat:
    """Renews a claim every ``ttl / 3`` seconds in a thread while the point computes::

    with Heartbeat(results_dir, point_id, holder):
        ...compute and store the point...
    """

    def __init__(
        self,
        results_dir: str | os.PathLike[str],
        point_id: str,
        holder: Holder,
        ttl: float = DEFAULT_TTL_S,
    ) -> None:
        self.args = (results_dir, point_id, holder, ttl)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(self.args[3] / 3):
            renew(*self.args)

    def __enter__(self) -> "Heartbeat":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
