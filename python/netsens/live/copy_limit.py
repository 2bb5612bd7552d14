"""The MPI's shared-memory eager limit: the message size above which it copies a
message once (single copy, after a rendezvous of its own) instead of twice through a
shared buffer.

On the 16-core machine of docs/measurements/fidelity.md (set D) a byte costs
0.3-0.9 ns/B up to 4 KiB and 0.1-0.2 ns/B above, where Open MPI's ``vader`` limit
(4 KiB) puts the drop; the calibration's own S (where a send stops completing
without its receiver) is 256 B there. The size bands that showed it are a dozen
calibrations and one of their three repetitions of the 8-32 KiB band (0.59 ns/B)
stood with the eager sizes: not robust enough to set a limit by. So the limit is the
MPI's own setting, read from the MPI: Open MPI's ``btl_vader_eager_limit`` (4.x) or
``btl_sm_eager_limit`` (5.x) through ``ompi_info --parsable`` (which also shows a value
set by ``OMPI_MCA_...`` in the environment; the setting counts Open MPI's fragment
header, so the largest payload sent eagerly is a few dozen bytes less: S is the
setting). MPICH's is not read (its limits are
control variables that depend on the build and device); without a limit the saved
platform sends every message eagerly, as before.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

# Open MPI's shared-memory transports: 4.x calls it vader, 5.x sm.
OPEN_MPI_BTLS = ("vader", "sm")


@dataclass(frozen=True)
class CopyLimit:
    bytes: int
    # Where the value came from, for the user: "Open MPI btl_vader_eager_limit".
    source: str


def parse_ompi_info(text: str, btl: str) -> int | None:
    """The eager limit (bytes) in ``ompi_info --parsable --param btl BTL --level 9``
    output: the line ``mca:btl:BTL:param:btl_BTL_eager_limit:value:4096``."""
    key = f"mca:btl:{btl}:param:btl_{btl}_eager_limit:value:"
    for line in text.splitlines():
        if line.startswith(key):
            value = line[len(key) :].strip()
            return int(value) if value.isdigit() and int(value) > 0 else None
    return None


def copy_limit(mpi: str) -> CopyLimit | None:
    """The MPI's shared-memory eager limit, or None where it cannot be read."""
    if mpi != "openmpi":
        return None
    tool = shutil.which("ompi_info.openmpi") or shutil.which("ompi_info")
    if tool is None:
        return None
    for btl in OPEN_MPI_BTLS:
        command = [tool, "--parsable", "--param", "btl", btl, "--level", "9"]
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        limit = parse_ompi_info(out, btl)
        if limit is not None:
            return CopyLimit(limit, f"Open MPI btl_{btl}_eager_limit")
    return None
