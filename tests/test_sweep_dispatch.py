"""Which worker runs which point of a local sweep (netsens.study.dispatch): a recorded
key's points go to one worker, so its program runs once per sweep; a key run in full
and a GOAL file's points go to whichever worker asks; no worker goes without while
points wait; every point is given out exactly once.
"""

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from netsens.study import produce
from netsens.study.dispatch import Dispatcher, interleaved


def app(name: str, seed: int, i: int) -> SimpleNamespace:
    return SimpleNamespace(
        kind="app",
        workload=name,
        app=name,
        variant=None,
        size="small",
        ranks=32,
        seed=seed,
        platform_path="now1997",
        i=i,
        point_id=f"{name}-{seed}-{i}",
    )


def goal(name: str, i: int) -> SimpleNamespace:
    return SimpleNamespace(kind="goal", workload=name, i=i, point_id=f"{name}-{i}")


def label(point: SimpleNamespace | None) -> str | None:
    return None if point is None else point.point_id


def test_each_recorded_key_stays_with_the_worker_that_began_it() -> None:
    points = [app("radix", 0, i) for i in range(3)] + [app("mg", 0, i) for i in range(3)]
    d = Dispatcher(points)
    # Worker 0 begins radix, worker 1 the next key nobody has begun (mg).
    assert [label(d.next_for(w)) for w in (0, 1, 0, 1, 1, 0)] == [
        "radix-0-0",
        "mg-0-0",
        "radix-0-1",
        "mg-0-1",
        "mg-0-2",
        "radix-0-2",
    ]
    assert d.next_for(0) is None and d.next_for(1) is None and len(d) == 0


def test_an_idle_worker_shares_the_key_with_the_most_points_left() -> None:
    points = [app("radix", 0, i) for i in range(4)] + [app("ft", 0, 0), app("ft", 1, 0)]
    d = Dispatcher(points)
    assert label(d.next_for(0)) == "radix-0-0"
    assert label(d.next_for(1)) == "ft-0-0"
    assert label(d.next_for(1)) == "ft-1-0"  # a key nobody began, before sharing
    # Nothing of its own or unclaimed: it shares radix rather than idle.
    assert label(d.next_for(1)) == "radix-0-1"
    assert label(d.next_for(0)) == "radix-0-2"


def test_a_key_run_in_full_and_goal_files_belong_to_no_worker() -> None:
    points = [app("murphi", 0, i) for i in range(4)] + [goal("ping.goal", i) for i in range(2)]
    points += [app("is", 0, i) for i in range(2)]
    d = Dispatcher(points)
    first = d.next_for(0)
    assert label(first) == "murphi-0-0"
    # Until its first point says how it ran, murphi is worker 0's; a key nobody began
    # comes before the GOAL file's points, which any worker may take.
    assert label(d.next_for(1)) == "is-0-0"
    assert label(d.next_for(1)) == "is-0-1"
    assert label(d.next_for(1)) == "ping.goal-0"
    d.ran(first, produce.FULL)  # its ops can depend on timing: nothing kept
    assert label(d.next_for(1)) == "murphi-0-1"  # any worker's now
    assert label(d.next_for(1)) == "murphi-0-2"
    # No longer worker 0's own: the shared keys in the study's order.
    assert label(d.next_for(0)) == "murphi-0-3"
    assert label(d.next_for(0)) == "ping.goal-1"
    assert d.next_for(0) is None


def test_full_sweeps_hand_out_the_points_round_robin_across_workloads() -> None:
    points = (
        [app("a", 0, i) for i in range(3)] + [app("b", 0, 0)] + [app("c", 0, i) for i in range(2)]
    )
    d = Dispatcher(points, full=True)
    order = [label(d.next_for(w)) for w in (0, 1, 1, 1, 0, 0)]
    assert order == [label(p) for p in interleaved(points)]
    assert order == ["a-0-0", "b-0-0", "c-0-0", "a-0-1", "c-0-1", "a-0-2"]


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=6),
    asks=st.lists(st.integers(0, 2), min_size=0, max_size=60),
    full_keys=st.sets(st.integers(0, 5)),
)
def test_every_point_is_given_out_once_and_no_worker_waits_while_points_wait(
    sizes: list[int], asks: list[int], full_keys: set[int]
) -> None:
    points = [app(f"w{k}", 0, i) for k, n in enumerate(sizes) for i in range(n)]
    d = Dispatcher(points)
    given_out = []
    for worker in asks + [0] * len(points):  # then one worker takes what is left
        point = d.next_for(worker)
        if point is None:
            assert len(d) == 0  # None only when nothing waits
            continue
        given_out.append(point.point_id)
        how = produce.FULL if int(point.workload[1:]) in full_keys else produce.REPLAY
        d.ran(point, how)
    assert sorted(given_out) == sorted(p.point_id for p in points)
    # A key's points go out in the study's order.
    for k in range(len(sizes)):
        mine = [int(p.rsplit("-", 1)[1]) for p in given_out if p.startswith(f"w{k}-")]
        assert mine == sorted(mine)
