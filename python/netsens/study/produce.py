"""How a sweep produces an application's point: by running its program, or by running
the schedule the program issued at another point of the same sweep.

A program whose ops cannot depend on timing (no wildcard receive, no test, no read of
its clock, no active message) issues the same ops, waiting for the same completions, at any network
parameters. The first point a worker process runs for a (workload, size, ranks, seed,
platform) runs the program and records that schedule; the worker's later points of the
same key run the schedule instead, and the engine decides every queue order again at
their parameters, so each result is the program's own, to the picosecond. A point whose
platform shows the program something else (another eager limit S, other clusters) runs
the program again and records a second schedule. A program whose ops can depend on
timing runs in full at every point. Each stored point says which it was (``produced``):

- ``recorded``: the program ran here and its schedule was recorded;
- ``replay``: a schedule recorded at another point of the sweep ran here;
- ``full``: the program ran in full (its ops can depend on timing, or full runs were
  asked for); GOAL files, traces, jobs and live points always run as they are.
"""

import json
from collections import OrderedDict
from typing import Any

from netsens import _core
from netsens.engine import check_memory_limit, run_app

RECORDED = "recorded"
REPLAY = "replay"
FULL = "full"

# Schedules one worker keeps, in bytes of their ops: the newest is always kept.
CACHE_BYTES = 512 * 2**20

Key = tuple[Any, ...]


class ScheduleCache:
    """The schedules a worker process recorded, newest last, within CACHE_BYTES; and
    the keys whose programs cannot be recorded (their ops can depend on timing)."""

    def __init__(self, limit_bytes: int = CACHE_BYTES) -> None:
        self.limit = limit_bytes
        self.schedules: OrderedDict[Key, list[Any]] = OrderedDict()
        self.timing_dependent: set[Key] = set()

    def candidates(self, key: Key) -> list[Any]:
        found = self.schedules.get(key, [])
        if found:
            self.schedules.move_to_end(key)
        return list(found)

    def add(self, key: Key, schedule: Any) -> None:
        # A key keeps its newest schedules first (at most 4: one per platform shape a
        # study sweeps is the usual case, e.g. a one-cluster baseline and 4 x 8).
        kept = [schedule, *self.schedules.get(key, [])][:4]
        self.schedules[key] = kept
        self.schedules.move_to_end(key)
        while len(self.schedules) > 1 and self._bytes() > self.limit:
            self.schedules.popitem(last=False)

    def _bytes(self) -> int:
        return sum(s.nbytes for kept in self.schedules.values() for s in kept)


# The worker process's schedules (each worker is its own process).
_CACHE = ScheduleCache()


def key_of(point: Any) -> Key:
    """What a recorded schedule is for: everything the program is run with except the
    platform's overrides (the replay itself checks what of them the program sees)."""
    return (
        point.app,
        point.variant,
        point.size or "small",
        point.ranks,
        point.seed,
        point.platform_path,
    )


def app_point(point: Any, full: bool = False, cache: ScheduleCache | None = None) -> dict[str, Any]:
    """The result of application point ``point`` as ``run_app`` gives it, with
    ``produced`` saying how it was got; ``full`` runs the program at every point."""
    size = point.size or "small"
    if full or key_of(point) in (cache or _CACHE).timing_dependent:
        result = run_app(
            point.app,
            point.ranks,
            size,
            point.platform_path,
            point.overrides,
            point.seed,
            variant=point.variant,
        )
        return {**result, "produced": FULL}
    cache = cache or _CACHE
    key = key_of(point)
    check_memory_limit()
    for schedule in cache.candidates(key):
        text = _core.replay_app_schedule(schedule, point.platform_path, dict(point.overrides))
        if text is not None:
            return {**json.loads(text), "produced": REPLAY}
    text, schedule = _core.record_app_schedule(
        point.app,
        point.ranks,
        size,
        point.platform_path,
        dict(point.overrides),
        point.seed,
        variant=point.variant,
    )
    if schedule is None:
        cache.timing_dependent.add(key)
        return {**json.loads(text), "produced": FULL}
    cache.add(key, schedule)
    return {**json.loads(text), "produced": RECORDED}
