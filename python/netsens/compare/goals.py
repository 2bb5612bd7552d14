"""GOAL schedules the comparison writes itself: the OSU-style ping-pong and streaming
bandwidth benchmarks that check a network preset against its published figures, and
the background all-to-all that shares a network with the program compared."""

from __future__ import annotations

from typing import Any


def ping_pong(size: int = 1, iterations: int = 10) -> str:
    """Two ranks, ``iterations`` round trips of ``size`` bytes (osu_latency): the
    makespan over ``2 * iterations`` is the half round trip."""
    r0 = []
    r1 = []
    for i in range(iterations):
        r0 += [f"s{i}: send {size}b to 1 tag {i}", f"r{i}: recv {size}b from 1 tag {i}"]
        r1 += [f"r{i}: recv {size}b from 0 tag {i}", f"s{i}: send {size}b to 0 tag {i}"]
        r0.append(f"r{i} requires s{i}")
        r1.append(f"s{i} requires r{i}")
        if i:
            r0.append(f"s{i} requires r{i - 1}")
            r1.append(f"r{i} requires s{i - 1}")
    return _goal(2, [r0, r1], f"ping-pong of {size} B, {iterations} round trips")


def streaming(size: int = 1 << 20, window: int = 64) -> str:
    """osu_bw: rank 0 sends ``window`` messages of ``size`` bytes back to back, rank 1
    answers with 1 byte once all have arrived; the bytes over the makespan (less the
    reply's half round trip) are the bandwidth."""
    r0 = [f"s{i}: send {size}b to 1 tag {i}" for i in range(window)]
    r0.append(f"ack: recv 1b from 1 tag {window}")
    r1 = [f"r{i}: recv {size}b from 0 tag {i}" for i in range(window)]
    r1.append(f"ack: send 1b to 0 tag {window}")
    r1 += [f"ack requires r{i}" for i in range(window)]
    return _goal(2, [r0, r1], f"streaming {window} messages of {size} B")


def all_to_all(ranks: int, size: int, rounds: int) -> str:
    """Every rank sends ``size`` bytes to every other, ``rounds`` times; a round's
    sends wait for the rank's receives of the round before (a background job that
    keeps the network busy)."""
    progs: list[list[str]] = []
    for r in range(ranks):
        lines: list[str] = []
        for k in range(rounds):
            for d in range(1, ranks):
                to, frm = (r + d) % ranks, (r - d) % ranks
                lines.append(f"s{k}_{d}: send {size}b to {to} tag {k}")
                lines.append(f"r{k}_{d}: recv {size}b from {frm} tag {k}")
                if k:
                    lines += [f"s{k}_{d} requires r{k - 1}_{e}" for e in range(1, ranks)]
        progs.append(lines)
    return _goal(ranks, progs, f"all-to-all of {size} B on {ranks} ranks, {rounds} rounds")


def _goal(ranks: int, progs: list[list[str]], title: str) -> str:
    out = [f"// {title}", f"num_ranks {ranks}", ""]
    for r, lines in enumerate(progs):
        out += [f"rank {r} {{", *lines, "}", ""]
    return "\n".join(out)


def measure_network(
    platform: str, overrides: dict[str, str] | None = None, size: int = 1
) -> dict[str, Any]:
    """netsens's own ping-pong (``size`` bytes, 1 by default) and streaming bandwidth
    (64 x 1 MiB) between hosts 0 and 1 of the network: ``half_round_trip_ps`` and
    ``bandwidth_Bps``."""
    from netsens.engine import run_goal_text

    over = dict(overrides or {})
    if "clusters" in over:
        over["clusters"] = "2"  # both ranks in one cluster: the network inside it
    iterations = 10
    pp = run_goal_text(ping_pong(size, iterations), "ping-pong", platform, over, matrix=False)
    half = pp["makespan_ps"] / (2 * iterations)
    size, window = 1 << 20, 64
    st = run_goal_text(streaming(size, window), "streaming", platform, over, matrix=False)
    # The 1-byte reply is one half round trip of the stream's end.
    moving = st["makespan_ps"] - half
    return {
        "half_round_trip_ps": half,
        "bandwidth_Bps": size * window / (moving * 1e-12),
    }
