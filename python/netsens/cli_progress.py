"""The progress bar of long runs, on stderr: the engine reports every 2^20 events.

Drawn from the first report on, so a short run imports no rich and draws nothing;
nothing either when stderr is not a terminal, so pipes and CI logs stay clean.
"""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from netsens.engine import ProgressFn
from netsens.units_format import format_time


class _Bar:
    """A rich progress bar started by the first call of ``update``."""

    def __init__(self) -> None:
        self.progress: Any = None
        self.task: Any = None

    def update(self, events: int, now_ps: int, ops_done: int, ops_total: int) -> None:
        if self.progress is None:
            self._start()
        self.progress.update(
            self.task,
            completed=ops_done,
            total=ops_total or None,
            events=f"{events:,}",
            now=format_time(now_ps),
        )

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        columns = (
            TextColumn("simulating"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[events]} events, virtual time {task.fields[now]}"),
            TimeElapsedColumn(),
        )
        self.progress = Progress(*columns, console=Console(stderr=True), transient=True)
        self.progress.start()
        self.task = self.progress.add_task("run", total=None, events="0", now="0 ns")

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@contextmanager
def progress_bar() -> Iterator[ProgressFn | None]:
    """The engine's progress callback: a bar on a terminal's stderr, else ``None``."""
    if not sys.stderr.isatty():
        yield None
        return
    bar = _Bar()
    try:
        yield bar.update
    finally:
        bar.stop()
