"""Seeded GOAL schedules the sensitivity analysis is tried on (none written by hand):

    python scripts/sensitivity_schedules.py pipeline OUT.goal [--ranks 8 --chunks 16 --bytes 8192]
    python scripts/sensitivity_schedules.py pairs OUT.goal [--ranks 32 --rounds 24 --seed 1]

``pipeline``: rank 0 sends ``chunks`` chunks to rank 1, each rank forwards every chunk
to the next as soon as it has it. ``pairs``: each round every rank is paired at random
with another; the two exchange one message each way, its size drawn log-uniformly from
1 B to ``max_bytes``; a rank's next round waits for its receive.
"""

import argparse
import math
import random
from collections.abc import Iterator


def pipeline(ranks: int = 8, chunks: int = 16, nbytes: int = 8192) -> Iterator[str]:
    """Chunk k goes from rank i to rank i + 1 once rank i has received it (rank 0
    has them all); each rank takes its chunks in order."""
    yield f"num_ranks {ranks}\n"
    for i in range(ranks):
        lines = [f"rank {i} {{\n"]
        for k in range(chunks):
            if i > 0:
                lines.append(f"r{k}: recv {nbytes}b from {i - 1} tag 0\n")
                if k:
                    lines.append(f"r{k} requires r{k - 1}\n")
            if i < ranks - 1:
                lines.append(f"s{k}: send {nbytes}b to {i + 1} tag 0\n")
                if i > 0:
                    lines.append(f"s{k} requires r{k}\n")
                if k:
                    lines.append(f"s{k} requires s{k - 1}\n")
        lines.append("}\n")
        yield "".join(lines)


def pairs(
    ranks: int = 32, rounds: int = 24, max_bytes: int = 200_000, seed: int = 1
) -> Iterator[str]:
    """Each round a random perfect matching (an odd rank out sits the round out);
    the partners exchange one message each way, sizes log-uniform in [1, max_bytes]."""
    rng = random.Random(seed)
    ops: list[list[str]] = [[] for _ in range(ranks)]
    last: list[str | None] = [None] * ranks
    for r in range(rounds):
        order = list(range(ranks))
        rng.shuffle(order)
        for a, b in zip(order[0::2], order[1::2], strict=False):
            for src, dst in ((a, b), (b, a)):
                size = max(1, round(math.exp(rng.uniform(0.0, math.log(max_bytes)))))
                ops[src].append(f"s{r}: send {size}b to {dst} tag {r}\n")
                ops[dst].append(f"r{r}: recv {size}b from {src} tag {r}\n")
            for x in (a, b):
                if last[x] is not None:
                    ops[x].append(f"s{r} requires {last[x]}\nr{r} requires {last[x]}\n")
                last[x] = f"r{r}"
    yield f"num_ranks {ranks}\n"
    for i in range(ranks):
        yield f"rank {i} {{\n" + "".join(ops[i]) + "}\n"


def write(path: str, blocks: Iterator[str]) -> None:
    with open(path, "w") as f:
        f.writelines(blocks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=("pipeline", "pairs"))
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--chunks", type=int, default=16)
    ap.add_argument("--bytes", type=int, default=8192)
    ap.add_argument("--rounds", type=int, default=24)
    ap.add_argument("--max-bytes", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.kind == "pipeline":
        write(a.out, pipeline(a.ranks or 8, a.chunks, a.bytes))
    else:
        write(a.out, pairs(a.ranks or 32, a.rounds, a.max_bytes, a.seed))


if __name__ == "__main__":
    main()
