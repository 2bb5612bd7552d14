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

from netsens.engine import ParseFn, ProgressFn
from netsens.units_format import format_bytes, format_time

# How long a run goes before its bar appears: under it, no bar (and no rich to load).
SHOW_AFTER_S = 0.2


class _Bar:
    """A rich progress bar, started by a timer or by the first ``update``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.progress: Any = None
        self.task: Any = None
        self.parse_task: Any = None
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
            if self.parse_task is not None:
                self.progress.update(self.parse_task, visible=False)
            detail = f"{events:,} events, virtual time {format_time(now_ps)}"
            total = ops_total or None
            self.progress.update(
                self.task, completed=ops_done, total=total, detail=detail, visible=True
            )

    def parsed(self, done: int, total: int) -> None:
        """A GOAL file's parse: its own line, until the simulation's first report."""
        with self.lock:
            if self.progress is None:
                self._start()
            if self.parse_task is None:
                self.progress.update(self.task, visible=False)
                self.parse_task = self.progress.add_task("parsing", total=total, detail="")
            detail = f"{format_bytes(done)} of {format_bytes(total)}"
            self.progress.update(self.parse_task, completed=done, total=total, detail=detail)

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
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
        )
        progress = Progress(*columns, console=Console(stderr=True), transient=True)
        progress.start()
        detail = "0 events, virtual time 0 ns"
        self.task = progress.add_task("simulating", total=None, detail=detail)
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
    with run_progress() as (progress, _parsing):
        yield progress


@contextmanager
def run_progress() -> Iterator[tuple[ProgressFn | None, ParseFn | None]]:
    """``progress_bar``'s callback and one that shows a GOAL file's parse (every
    64 MiB of text) before the simulation starts; (None, None) off a terminal."""
    if not sys.stderr.isatty():
        yield None, None
        return
    bar = _Bar()
    try:
        yield bar.update, bar.parsed
    finally:
        bar.stop()
