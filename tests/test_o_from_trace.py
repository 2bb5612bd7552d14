"""``netsens replay --o-from-trace``: replay at the o the traced program paid per
message, from an archive written event by event, with the o and the replay's end
derived by hand; bad combinations and traces that cannot tell it refused in one line.

The program: rank 0 posts an ``MPI_Isend`` of 1 B to rank 1 (0-1 us), computes 1 us
and completes it in an ``MPI_Test`` (2-2.5 us): the send paid 1 + 0.5 = 1.5 us. Rank 1
posts an ``MPI_Irecv`` (0-0.5 us), computes 0.5 us, polls in vain (1-1.2 us, then
waits) and completes the receive in an ``MPI_Test`` (3-3.3 us): 0.5 + 0.3 = 0.8 us.
o paid = (1.5 + 0.8) / 2 = 1.15 us. On L = 5 us, g = 0 and no per-byte cost, the
message leaves rank 0 after o, arrives L later and is received in o: the replay ends
at L + 2 o = 7.3 us, and at 5 + 2 x 51.15 = 107.3 us with 50 us of o injected.
"""

import json

from cli_run import netsens, one_error_line

from netsens import _core

US = 1_000_000
NETWORK = ("--L", "5us", "--g", "0us", "--G", "0ns/B", "--O", "0ns/B")
REGIONS = ["MPI_Isend", "MPI_Irecv", "MPI_Test", "MPI_Wait"]
ISEND, IRECV, TEST, WAIT = range(4)


def call(rank, region, enter_ns, leave_ns, inside=()):
    """Rank ``rank``'s call from ``enter_ns`` to ``leave_ns`` with the message events
    ``inside`` (kind, bytes, request) at its start."""
    peer = 1 - rank
    events = [(rank, "enter", enter_ns * 1000, region, peer, 0, 0)]
    events += [(rank, kind, enter_ns * 1000, region, peer, b, req) for kind, b, req in inside]
    return [*events, (rank, "leave", leave_ns * 1000, region, peer, 0, 0)]


def polling_program(tmp_path, completion=TEST):
    events = [
        *call(0, ISEND, 0, 1000, [("isend", 1, 1)]),
        *call(0, completion, 2000, 2500, [("isend_done", 0, 1)]),
        *call(1, IRECV, 0, 500, [("irecv_post", 0, 1)]),
        *call(1, TEST, 1000, 1200),
        *call(1, completion, 3000, 3300, [("irecv_done", 1, 1)]),
    ]
    return _core.write_trace_archive(str(tmp_path / "t"), 2, REGIONS, events)


def replay(*args):
    proc = netsens("replay", *args, *NETWORK, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_replay_at_the_o_the_trace_paid_and_with_o_injected_on_top(tmp_path):
    anchor = polling_program(tmp_path)
    result = replay(anchor, "--o-from-trace")
    assert result["workload"]["o_from_trace"] == {
        "o_paid_ps": 1_150_000,
        "o_injected_ps": 0,
        "ends": 2,
        "up_to_bytes": result["platform"]["cluster"]["eager_limit"],
    }
    assert result["platform"]["cluster"]["overhead"] == 1_150_000
    assert result["makespan_ps"] == 7_300_000
    slow = replay(anchor, "--o-from-trace", "--o-injected", "50us")
    assert slow["workload"]["o_from_trace"]["o_injected_ps"] == 50 * US
    assert slow["makespan_ps"] == 107_300_000
    text = netsens("replay", anchor, *NETWORK, "--o-from-trace", "--o-injected", "50us")
    assert text.returncode == 0, text.stderr
    assert "o from the trace: 1.15 us paid per message end (2 ends" in text.stdout
    assert "+ 50 us injected" in text.stdout


def test_without_the_flag_the_platforms_o_is_used_as_before(tmp_path):
    anchor = polling_program(tmp_path)
    result = replay(anchor, "--o", "2us")
    assert "o_from_trace" not in result["workload"]
    assert result["makespan_ps"] == 9 * US  # L + 2 o


def test_bad_combinations_and_traces_that_cannot_tell_are_one_line(tmp_path):
    anchor = polling_program(tmp_path)
    line = one_error_line(netsens("replay", anchor, "--o", "2us", "--o-from-trace"))
    assert "--o and --o-from-trace both set o" in line
    line = one_error_line(netsens("replay", anchor, "--o-injected", "50us"))
    assert "--o-injected adds to the o of --o-from-trace" in line
    line = one_error_line(netsens("replay", anchor, "--o-from-trace", "--o-injected", "50"))
    assert 'o-injected: "50" has no unit' in line
    # Every message completed by a wait: its time mixes waiting with work.
    (tmp_path / "waits").mkdir()
    waits = polling_program(tmp_path / "waits", completion=WAIT)
    line = one_error_line(netsens("replay", waits, "--o-from-trace"))
    assert "no message of at most" in line and "completed by an MPI_Test*" in line
    # Messages above the platform's S are left to the per-byte costs.
    line = one_error_line(netsens("replay", anchor, "--o-from-trace", "--S", "0B"))
    assert "no message of at most 0 B" in line
