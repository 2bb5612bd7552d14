"""The progress bar of long runs, on stderr; the engine reports every 2^20 events.

Drawn once the run has taken SHOW_AFTER_S (or at the engine's first report, if that
comes first), so a short run imports no rich and draws nothing, and a long one shows
the bar while its GOAL file is still being read (the engine runs without the GIL).
Nothing either when stderr is not a terminal, so pipes and CI logs stay clean.
"""

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from netsens.engine import ProgressFn
from netsens.units_format import format_time

# How long a run goes before its bar appears: under it, no bar (and no rich to load).
SHOW_AFTER_S = 0.2


class _Bar:
    """A rich progress bar, started by a timer or by the first ``update``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.progress: Any = None
        self.task: Any = None
        self.stopped = False
        self.began = time.monotonic()  # rich's clock: the bar's elapsed time counts from here
        self.timer = threading.Timer(SHOW_AFTER_S, self._show)
        self.timer.daemon = True
        self.timer.start()

    def _show(self) -> None:
        with self.lock:
            if self.progress is None and not self.stopped:
                self._start()

    def update(self, events: int, now_ps: int, ops_done: int, ops_total: int) -> None:
        with self.lock:
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
        progress = Progress(*columns, console=Console(stderr=True), transient=True)
        progress.start()
        self.task = progress.add_task("run", total=None, events="0", now="0 ns")
        progress.tasks[0].start_time = self.began
        self.progress = progress  # set last: the bar is up

    def stop(self) -> None:
        self.timer.cancel()
        with self.lock:
            self.stopped = True
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
