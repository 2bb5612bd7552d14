"""Write the benchmark GOAL schedules as text (the shapes of
netsens_core::schedule::patterns, spelled out for the GOAL parser and LogGOPSim).

    python scripts/goal_gen.py exchange 1024 500 OUT.goal     # ranks, iterations
    python scripts/goal_gen.py dissemination 65536 OUT.goal   # ranks
"""

import sys
from collections.abc import Iterator


def exchange(ranks: int, iters: int, nbytes: int = 64, calc_ns: int = 1000) -> Iterator[str]:
    """Each iteration: compute, then send to both ring neighbours and receive from
    both; the next iteration's compute waits for this one's receives."""
    yield f"num_ranks {ranks}\n"
    for i in range(ranks):
        left, right = (i - 1) % ranks, (i + 1) % ranks
        lines = [f"rank {i} {{\n"]
        for it in range(iters):
            tag = it % 2
            lines.append(
                f"c{it}: calc {calc_ns}\n"
                f"s{it}: send {nbytes}b to {right} tag {tag}\n"
                f"t{it}: send {nbytes}b to {left} tag {tag}\n"
                f"r{it}: recv {nbytes}b from {left} tag {tag}\n"
                f"q{it}: recv {nbytes}b from {right} tag {tag}\n"
                f"s{it} requires c{it}\nt{it} requires c{it}\n"
                f"r{it} requires c{it}\nq{it} requires c{it}\n"
            )
            if it:
                lines.append(f"c{it} requires r{it - 1}\nc{it} requires q{it - 1}\n")
        lines.append("}\n")
        yield "".join(lines)


def dissemination(ranks: int, nbytes: int = 1) -> Iterator[str]:
    """Round k: send to i + 2^k, receive from i - 2^k; round k+1 waits for round k's
    receive."""
    yield f"num_ranks {ranks}\n"
    for i in range(ranks):
        lines = [f"rank {i} {{\n"]
        dist, k = 1, 0
        while dist < ranks:
            lines.append(
                f"s{k}: send {nbytes}b to {(i + dist) % ranks} tag 0\n"
                f"r{k}: recv {nbytes}b from {(i - dist) % ranks} tag 0\n"
            )
            if k:
                lines.append(f"s{k} requires r{k - 1}\nr{k} requires r{k - 1}\n")
            dist, k = dist * 2, k + 1
        lines.append("}\n")
        yield "".join(lines)


def main(argv: list[str]) -> None:
    kind, *numbers, out = argv
    blocks = exchange(*map(int, numbers)) if kind == "exchange" else dissemination(int(numbers[0]))
    with open(out, "w") as f:
        f.writelines(blocks)


if __name__ == "__main__":
    main(sys.argv[1:])
