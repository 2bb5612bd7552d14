"""Long runs report progress every 2^20 events, and can be stopped from the callback
(the CLI's Ctrl-C takes the same path)."""

import pytest

from netsens.engine import run_goal_text

EVERY = 1 << 20


def dissemination_goal(p: int) -> str:
    """A dissemination barrier: round k sends to i+2^k and receives from i-2^k."""
    lines = [f"num_ranks {p}"]
    rounds = p.bit_length() - 1
    for i in range(p):
        lines.append(f"rank {i} {{")
        for k in range(rounds):
            d = 1 << k
            lines.append(f"s{k}: send 1b to {(i + d) % p} tag {k}")
            lines.append(f"r{k}: recv 1b from {(i - d) % p} tag {k}")
            if k:
                lines.append(f"s{k} requires r{k - 1}")
        lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def big_barrier() -> str:
    # 2^15 ranks x 15 rounds x 2 ops = 983,040 ops; with 491,520 arrivals that is
    # over 2^20 events, so the callback runs at least once.
    return dissemination_goal(1 << 15)


def test_progress_reports_events_and_ops(big_barrier):
    calls = []
    result = run_goal_text(big_barrier, matrix=False, progress=lambda *a: calls.append(a))
    assert result["events"] >= EVERY
    assert len(calls) == result["events"] // EVERY
    events, now_ps, done, total = calls[0]
    assert events == EVERY
    assert total == 983_040
    assert 0 < done < total
    # Barrier rounds cost o + L + o = 5.5 us each on the loggopsim preset: 15 rounds.
    assert 0 < now_ps <= result["makespan_ps"] == 15 * 5_500_000


def test_exception_in_progress_stops_the_run(big_barrier):
    def stop(*_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_goal_text(big_barrier, matrix=False, progress=stop)
