"""The sweep's own process stores the points its workers hand over, in a thread of its
own, so that giving the workers their next points never waits for the disk.

A point costs three fsyncs to store (``netsens.study.store``), 5-15 ms on a shared
disk, longer than many points take to run (a replay of ft or is: 5 ms): storing in the
loop that hands out points would leave workers idle behind it. The thread stores the
points in the order they were handed over, releases each one's claim, and only then
calls ``stored`` (which counts it): a point is counted once it is on disk. After a
failure (a full disk) it stores nothing more, and the next ``put`` or ``close``
raises that error.
"""

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from netsens.study import claims, store


def store_handed_over(root: Path, point: Any, outcome: Any) -> None:
    """Store the point a worker handed over (``outcome.data``, if any) and release its
    claim (``outcome.holder``)."""
    if outcome.data is None:
        return
    assert outcome.holder is not None
    try:
        store.store_point(root, point.point_id, outcome.data)
    finally:
        claims.release(root, point.point_id, outcome.holder)


class Storer:
    """A thread storing handed-over points in order; ``stored(point, outcome)`` runs in
    it after each."""

    def __init__(self, root: Path, stored: Callable[[Any, Any], None]) -> None:
        self.root, self.stored = root, stored
        self.queue: queue.SimpleQueue[tuple[Any, Any] | None] = queue.SimpleQueue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._store_each, name="netsens-storer", daemon=True)
        self.thread.start()

    def put(self, point: Any, outcome: Any) -> None:
        """Store ``point`` after those put before it; raises an earlier store's error."""
        self._raise()
        self.queue.put((point, outcome))

    def close(self) -> None:
        """Store every point put so far, end the thread; raises a store's error."""
        if self.thread.is_alive():
            self.queue.put(None)
            self.thread.join()
        self._raise()

    def close_quietly(self) -> None:
        """``close``, keeping quiet about a store's error (the sweep stops with another)."""
        try:
            self.close()
        except Exception:
            pass

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _store_each(self) -> None:
        while (item := self.queue.get()) is not None:
            if self.error is not None:
                continue  # nothing more after a failure: the sweep stops
            try:
                store_handed_over(self.root, *item)
                self.stored(*item)
            except BaseException as e:  # handed to the sweep's loop by put or close
                self.error = e
