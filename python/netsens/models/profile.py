"""How a program communicates: the characterisation of Martin's Table 3.2 / 4.1.

From one run's counters: messages and bytes per rank (mean and max), the share of
reads (gets: round trips), writes (stores, puts, active messages), bulk
(point-to-point sends) and collective messages, messages per rank per millisecond of
run time, the median and mean message size, plus the balance matrix and the size
histogram as data.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from netsens.api import RunResult

# Which primitive counts make up each class of message. A get is one round trip
# (request and reply), counted once, as the seed counts reads.
CLASSES = {
    "reads": ("get",),
    "writes": ("store", "put", "am"),
    "bulk": ("send",),
    "collective": ("coll_send",),
}


@dataclass
class CommunicationProfile:
    """One program's communication, per rank unless said otherwise."""

    workload: str
    ranks: int
    makespan_ps: int
    messages_mean: float
    messages_max: int
    bytes_mean: float
    bytes_max: int
    # Share of each class of message (reads, writes, bulk, collective), summing to 1
    # when the program sent any.
    shares: dict[str, float]
    messages_per_ms: float
    # The size bin holding the median message (sizes are kept in power-of-two bins).
    median_bytes_lo: int
    median_bytes_hi: int
    mean_bytes: float
    matrix: pl.DataFrame = field(repr=False)
    histogram: pl.DataFrame = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("matrix", "histogram")}
        d["matrix"] = self.matrix.to_dicts()
        d["histogram"] = self.histogram.to_dicts()
        return d


def class_shares(totals: Mapping[str, int]) -> dict[str, float] | None:
    """Share of each class of message (:data:`CLASSES`) among primitive totals, summing
    to 1; None when there are no such messages (a GOAL schedule has no primitives)."""
    per_class = {name: sum(totals.get(p, 0) for p in prims) for name, prims in CLASSES.items()}
    everything = sum(per_class.values())
    return {name: n / everything for name, n in per_class.items()} if everything else None


def median_bin(histogram: Iterable[Mapping[str, int]]) -> tuple[int, int] | None:
    """``(lo_bytes, hi_bytes)`` of the size bin holding the median message; None when
    there are no messages."""
    bins = sorted(histogram, key=lambda b: b["lo_bytes"])
    total = sum(b["messages"] for b in bins)
    seen = 0
    for b in bins:
        seen += b["messages"]
        if total and seen >= (total + 1) // 2:
            return b["lo_bytes"], b["hi_bytes"]
    return None


def characterize(result: RunResult) -> CommunicationProfile:
    """The communication profile of a finished run."""
    ranks = result.ranks
    counts = result.primitives.group_by("primitive").agg(pl.col("count").sum())
    total = dict(zip(counts["primitive"].to_list(), counts["count"].to_list(), strict=True))
    shares = class_shares(total) or {name: 0.0 for name in CLASSES}
    hist = result.histogram
    lo, hi = median_bin(hist.iter_rows(named=True)) or (0, 0)
    makespan_ms = result.makespan_ps / 1e9
    messages_mean = float(ranks["sent_messages"].mean()) if len(ranks) else 0.0
    w = result.workload
    return CommunicationProfile(
        workload=w.get("app") or w.get("file", "?"),
        ranks=result.num_ranks,
        makespan_ps=result.makespan_ps,
        messages_mean=messages_mean,
        messages_max=int(ranks["sent_messages"].max() or 0),
        bytes_mean=float(ranks["sent_bytes"].mean()) if len(ranks) else 0.0,
        bytes_max=int(ranks["sent_bytes"].max() or 0),
        shares=shares,
        messages_per_ms=messages_mean / makespan_ms if makespan_ms else 0.0,
        median_bytes_lo=lo,
        median_bytes_hi=hi,
        mean_bytes=result.bytes / result.messages if result.messages else 0.0,
        matrix=result.matrix,
        histogram=hist,
    )
