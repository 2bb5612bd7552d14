"""Which point each worker of a local sweep runs next.

A worker keeps the schedules it recorded (``netsens.study.produce``), so a key's points
are cheapest on the worker that recorded its schedule: on any other, the program runs
again to record it there (mg's first run costs as much as 700 of its replays). The
dispatcher therefore gives each key to one worker, its *owner*, which runs the key's
points one after another; a worker with nothing of its own takes a key nobody has
begun, in the study's order. A key whose program turned out to depend on timing (its
points run in full: nothing to keep) and a point that is not an application's belong
to no one: any worker takes them, in the study's order, once it has nothing of its own and no
key is left to begin -- points that fit anywhere are best kept for the end, where
they even out the workers' last minutes. Only when none is left either does a worker
share another worker's key (the one with the most points left), at the cost of one
recording, so that no core idles while points wait.

With ``full`` (every point's program in full), nothing is kept and the points go out
round-robin across workloads (``interleaved``).
"""

from collections import deque
from typing import Any

from netsens.study import produce

Key = tuple[Any, ...]


def key_of(point: Any) -> Key:
    """The key of the schedule that produces ``point``; a point that is not an
    application's has its workload for key (it never has a schedule)."""
    return produce.key_of(point) if point.kind == "app" else (point.workload,)


def interleaved(points: list[Any]) -> list[Any]:
    """The points taken round-robin across workloads: workloads differ in cost by 10x
    or more, so running them one after another would make the rate and ETA of the first
    minutes meaningless and leave cores idle at the end behind one slow workload."""
    by_workload: dict[str, list[Any]] = {}
    for point in points:
        by_workload.setdefault(point.workload, []).append(point)
    queues = list(by_workload.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


class Dispatcher:
    """The points not yet given out, by key, and which worker owns which key."""

    def __init__(self, points: list[Any], full: bool = False) -> None:
        self.left: dict[Key, deque[Any]] = {}
        self.owners: dict[Key, set[int]] = {}
        self.shared: set[Key] = set()  # keys any worker takes
        if full:
            # One queue, round-robin across workloads, shared by every worker.
            self.left[("all",)] = deque(interleaved(points))
            self.shared.add(("all",))
            return
        for point in points:
            key = key_of(point)
            self.left.setdefault(key, deque()).append(point)
            if point.kind != "app":
                self.shared.add(key)

    def __len__(self) -> int:
        return sum(map(len, self.left.values()))

    def next_for(self, worker: int) -> Any | None:
        """The point ``worker`` runs next, or None when every point has been given out."""
        keys = [k for k, q in self.left.items() if q]
        if not keys:
            return None
        own = [k for k in keys if k not in self.shared and worker in self.owners.get(k, ())]
        shared = [k for k in keys if k in self.shared]
        new = [k for k in keys if k not in self.owners and k not in self.shared]
        if own or new or shared:
            key = (own or new or shared)[0]
        else:
            key = max(keys, key=lambda k: len(self.left[k]))  # share the longest
        if key not in self.shared:
            self.owners.setdefault(key, set()).add(worker)
        return self.left[key].popleft()

    def ran(self, point: Any, how: str | None) -> None:
        """``point`` ran and was produced ``how``: a key run in full is nobody's."""
        if how == produce.FULL:
            self.shared.add(key_of(point))
