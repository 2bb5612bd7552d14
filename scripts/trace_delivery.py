"""How long a traced program's messages took to reach a receiver that was polling for
them: from the sender's ``MPI_Isend`` to the end of the ``MPI_Iprobe`` that found the
message, for the messages whose receiver had already probed in vain (it was waiting).

    python scripts/trace_delivery.py TRACE.otf2

Reads the archive through ``otf2-print`` (one clock for all ranks: a trace of one
machine). Sends and receives of a (source, destination, tag) are paired in order, as
MPI matches them. Printed: per size band, the messages counted and the median and
90th percentile of that delivery time, in µs, to set beside the model's o + L + o.
"""

import re
import subprocess
import sys
from collections import defaultdict

BANDS: tuple[tuple[int, int | None], ...] = ((0, 256), (257, 4096), (4097, None))
FIELDS = re.compile(r"(Receiver|Sender|Tag|Length|Request): (\d+)")


def read_calls(anchor: str) -> dict[int, list]:
    """Each rank's calls in order: [name, enter µs, leave µs, [(record, fields)]]."""
    text = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, check=True)
    calls: dict[int, list] = defaultdict(list)
    for line in text.stdout.splitlines():
        part = line.split()
        if len(part) < 3 or not part[2].isdigit():
            continue
        record, rank, time_us = part[0], int(part[1]), int(part[2]) / 1e6
        if record == "ENTER":
            calls[rank].append([line.split('"')[1], time_us, time_us, []])
        elif record == "LEAVE":
            calls[rank][-1][2] = time_us
        elif calls[rank]:
            calls[rank][-1][3].append((record, dict(FIELDS.findall(line))))
    return calls


def deliveries(calls: dict[int, list]) -> list[tuple[float, int]]:
    """(delivery µs, bytes) of every message whose receiver was polling for it."""
    sends: dict[tuple, list] = defaultdict(list)
    receives: dict[tuple, list] = defaultdict(list)
    for rank, ranks_calls in calls.items():
        posted = {}
        for i, (_, enter, _, records) in enumerate(ranks_calls):
            for record, f in records:
                if record == "MPI_ISEND":
                    sends[(rank, int(f["Receiver"]), int(f["Tag"]))].append(enter)
                elif record == "MPI_IRECV_REQUEST":
                    posted[f["Request"]] = i
                elif record == "MPI_IRECV" and f["Request"] in posted:
                    j = posted.pop(f["Request"])
                    probes = [c[0] == "MPI_Iprobe" for c in ranks_calls[max(j - 2, 0) : j]]
                    polling = len(probes) == 2 and all(probes)
                    found = ranks_calls[j - 1][2] if polling else None
                    key = (int(f["Sender"]), rank, int(f["Tag"]))
                    receives[key].append((found, int(f["Length"])))
    return [
        (found - sent, size)
        for key, received in receives.items()
        for sent, (found, size) in zip(sends[key], received, strict=False)
        if found is not None
    ]


def main() -> None:
    rows = deliveries(read_calls(sys.argv[1]))
    print("| size | messages | median | 90th percentile |")
    print("|---|---|---|---|")
    for low, high in BANDS:
        band = sorted(d for d, size in rows if low <= size and (high is None or size <= high))
        name = f"{low}–{high} B" if high is not None else f"above {low - 1} B"
        if band:
            median, p90 = band[len(band) // 2], band[int(0.9 * (len(band) - 1))]
            print(f"| {name} | {len(band)} | {median:.2f} µs | {p90:.2f} µs |")


if __name__ == "__main__":
    main()
