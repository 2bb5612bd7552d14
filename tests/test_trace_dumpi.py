"""DUMPI traces on the command line: a `.meta` and its `.bin` files written here with
Python's struct (the layout of sst-dumpi's dumpi/common/io.c and dumpiio.c), replayed
to the times crates/netsens-trace/tests/allprof.rs derives by hand for the same
program, described by ``netsens trace info``, turned into GOAL, and bad ones refused
in one line."""

import json
import struct
from pathlib import Path

from cli_run import netsens, one_error_line

NETWORK = ("--L", "5us", "--o", "1us", "--g", "0us", "--G", "6ns/B", "--O", "0ns/B")
MAGIC, END_OF_STREAM, WORLD, DOUBLE = 0xFFAADD44554D5049, 293, 2, 14
SEND, IRECV, RECV, WAIT, ALLREDUCE, INIT, FINALIZE = 0, 12, 1, 13, 65, 124, 125


def record(label: int, start_us: float, end_us: float, args: bytes) -> bytes:
    """A call record: label, mask (statuses, wall times, thread), thread 0, times."""

    def time(us: float) -> bytes:
        ns = round(us * 1000)
        return struct.pack(">HI", ns // 10**9, ns % 10**9)

    return struct.pack(">HBH", label, 0x49, 0) + time(start_us) + time(end_us) + args


def status(nbytes: int, source: int, tag: int) -> bytes:
    return struct.pack(">IIiBBi", 1, nbytes, source, 0, 0, tag)


def p2p(peer: int, tag: int) -> bytes:
    """One double to or from `peer` with `tag` on MPI_COMM_WORLD."""
    return struct.pack(">iHiiH", 1, DOUBLE, peer, tag, WORLD)


def rank_file(records: list[bytes]) -> bytes:
    body = struct.pack(">II", 0, 1_700_000_000) + b"".join(records)
    data = struct.pack(">Q", MAGIC) + body + struct.pack(">H", END_OF_STREAM)
    header = len(data)
    data += bytes([0, 8, 0]) + struct.pack(">QH4sH4sII", 0, 4, b"host", 4, b"user", 0, 0)
    sizes = len(data)
    sizes_table = [8 if t == DOUBLE else 1 for t in range(15)]
    data += struct.pack(">16I", 15, *sizes_table)
    return data + struct.pack(">8Q", MAGIC, sizes, 0, 0, header, 8, 0, 0)


def allreduce(start: float, end: float) -> bytes:
    return record(ALLREDUCE, start, end, struct.pack(">iHBH", 1, DOUBLE, 3, WORLD))


RANKS = [
    [
        record(INIT, 990, 1000, struct.pack(">I", 0)),
        record(SEND, 1003, 1004, p2p(1, 7)),
        record(IRECV, 1010, 1010, p2p(-1, -1) + struct.pack(">I", 5)),
        record(WAIT, 1012, 1040, struct.pack(">I", 5) + status(8, 1, 9)),
        allreduce(1041, 1050),
        record(FINALIZE, 1050, 1050, b""),
    ],
    [
        record(INIT, 1990, 2000, struct.pack(">I", 0)),
        record(RECV, 2005, 2020, p2p(0, 7) + status(8, 0, 7)),
        record(SEND, 2022, 2023, p2p(0, 9)),
        allreduce(2030, 2040),
        record(FINALIZE, 2040, 2040, b""),
    ],
]


def write_dumpi(directory: Path) -> Path:
    directory.mkdir()
    meta = directory / "run.meta"
    meta.write_text(
        "hostname=host\nnumprocs=2\nfileprefix=run\nversion=0\nsubversion=8\nsubsubversion=0\n"
    )
    for rank, records in enumerate(RANKS):
        (directory / f"run-{rank:04}.bin").write_bytes(rank_file(records))
    return meta


def test_a_dumpi_trace_is_a_workload_of_replay_trace_info_and_to_goal(tmp_path):
    meta = write_dumpi(tmp_path / "dumpi")
    proc = netsens("replay", meta, *NETWORK, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [r["end_ps"] // 1000 for r in result["ranks"]] == [27084, 27126]
    assert result["workload"]["tracer"] == "DUMPI"
    proc = netsens("trace", "info", meta, "--json")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert (info["tracer"], info["ranks"]) == ("DUMPI", 2)
    goal = tmp_path / "dumpi.goal"
    proc = netsens("trace", "to-goal", meta, goal)
    assert proc.returncode == 0, proc.stderr
    # the wildcard receive took the source and tag its status recorded
    assert "recv 8b from 1 tag" in goal.read_text()


def test_bad_dumpi_traces_are_one_line_naming_the_file(tmp_path):
    meta = write_dumpi(tmp_path / "dumpi")
    cut = meta.parent / "run-0001.bin"
    cut.write_bytes(cut.read_bytes()[:-30])
    assert "run-0001.bin: truncated" in one_error_line(netsens("replay", meta))
    cut.unlink()
    assert "run-0001.bin: missing" in one_error_line(netsens("trace", "info", meta))


def test_trace_info_shows_the_time_between_calls_beside_the_replayed_compute(tmp_path):
    # rank 0: 3 + 6 + 2 + 1 us between its calls, rank 1: 5 + 2 + 7 us (the Rust
    # side's tests/compute_span.rs); replay charges exactly that, on the wall clock
    meta = write_dumpi(tmp_path / "dumpi")
    info = json.loads(netsens("trace", "info", meta, "--json").stdout)
    ranks = info["ranks_measured"]
    assert [r["between_calls_ps"] // 1000 for r in ranks] == [12000, 14000]
    assert [r["replayed_compute_ps"] // 1000 for r in ranks] == [12000, 14000]
    assert (info["compute_clock"], info["replay_refused"]) == ("wall", None)
    text = netsens("trace", "info", meta).stdout
    assert "between calls" in text and "replayed compute (wall)" in text
    assert "12 us" in text and "14 us" in text


def test_group_calls_are_read_and_damaged_records_are_one_line(tmp_path):
    # an MPI_Group_incl (label 76: group, count, ranks, new group) beside the program:
    # read past by its layout, the replay unchanged
    incl = record(76, 1001, 1001, struct.pack(">HiIiiH", 5, 2, 2, 1, 0, 6))
    RANKS[0].insert(1, incl)
    try:
        meta = write_dumpi(tmp_path / "dumpi")
        result = json.loads(netsens("replay", meta, *NETWORK, "--json").stdout)
        assert [r["end_ps"] // 1000 for r in result["ranks"]] == [27084, 27126]
        # the same record with a label libdumpi never writes
        RANKS[0][1] = struct.pack(">H", 400) + incl[2:]
        meta = write_dumpi(tmp_path / "damaged")
        line = one_error_line(netsens("replay", meta))
        assert "run-0000.bin: damaged: record 2 at byte" in line
        assert "400, not a DUMPI function label" in line
    finally:
        del RANKS[0][1]
