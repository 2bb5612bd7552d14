"""The program being compared: a trace (any format netsens reads), a GOAL file, or a
suite application with its ranks and size; how many ranks it has, and how to run it
and record its sensitivity on one network."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from netsens.errors import InputError

_NUM_RANKS = re.compile(rb"^\s*num_ranks\s+(\d+)", re.MULTILINE)


@dataclass(frozen=True)
class Workload:
    path: str | None = None  # a trace or GOAL file
    app: str | None = None
    ranks: int = 0
    size: str = "small"

    @property
    def label(self) -> str:
        if self.app:
            return f"{self.app} ({self.size}, {self.ranks} ranks)"
        return f"{self.name} ({self.ranks} ranks)"

    @property
    def name(self) -> str:
        """The program's name: the app, or the trace's or GOAL file's (an OTF2 archive's
        folder where its anchor file has the usual name)."""
        if self.app:
            return self.app
        path = os.path.normpath(self.path or "")
        base = os.path.basename(path)
        if base == "traces.otf2" and os.path.basename(os.path.dirname(path)):
            return os.path.basename(os.path.dirname(path))
        return base

    @property
    def kind(self) -> str:
        from netsens.engine import is_trace

        if self.app:
            return "app"
        return "trace" if is_trace(self.path or "") else "goal"

    def engine_args(self) -> dict[str, Any]:
        """Keyword arguments of :func:`netsens.sensitivity.analyze` naming it."""
        if self.app:
            return {"app": self.app, "ranks": self.ranks, "size": self.size}
        return {"goal": self.path}

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "app": self.app, "ranks": self.ranks, "size": self.size}


def workload_of(path: str | None, app: str | None, ranks: int | None, size: str | None) -> Workload:
    """The workload from the command's arguments; its ranks read from the trace or the
    GOAL file's ``num_ranks`` where not given."""
    if app and path:
        raise InputError("give a trace or GOAL file, or --app, not both")
    if app:
        from netsens.engine import apps

        known = {name: sizes for name, _, sizes in apps()}
        if app not in known:
            raise InputError(f'app "{app}" is not in the suite; apps: {", ".join(known)}')
        if not ranks:
            raise InputError(f"--ranks: required with --app (e.g. --app {app} --ranks 64)")
        chosen = size or "small"
        if chosen not in known[app]:
            raise InputError(f'--size "{chosen}": {app} has sizes {", ".join(known[app])}')
        return Workload(app=app, ranks=ranks, size=chosen)
    if not path:
        raise InputError("give a trace or GOAL file, or --app NAME --ranks P")
    if not os.path.exists(path):
        raise InputError(f'no such trace or GOAL file "{path}"')
    found = _ranks_of(path)
    if ranks and ranks != found:
        raise InputError(f"--ranks {ranks}: {path} has {found} ranks")
    return Workload(path=os.fspath(path), ranks=found)


def _ranks_of(path: str) -> int:
    from netsens.engine import is_trace, trace_info

    if is_trace(path):
        return int(trace_info(path)["ranks"])
    if path.endswith(".nsg"):
        raise InputError(f"{path}: give the GOAL text file (its ranks are read from num_ranks)")
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    m = _NUM_RANKS.search(head)
    if not m:
        raise InputError(f"{path}: no num_ranks line; is it a GOAL file?")
    return int(m.group(1))
