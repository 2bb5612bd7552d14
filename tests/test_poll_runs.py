"""``netsens replay --poll-runs work``: polls that found nothing and ended in a send
charged as the rank's compute, on an archive written event by event, the ends derived
by hand; bad combinations refused in one line.

The program: rank 0 probes five times without success (1 us each, at 0, 2, 4, 6 and
8 us) before it sends rank 1 one byte at 10 us, then receives rank 1's answer; rank 1
receives at 0 and answers at once. On L = 5 us, o = 1 us, g = 0 and no per-byte cost:
with the polls left out (the default) rank 0 sends at 0, rank 1 receives at
o + L + o = 7 us and answers, rank 0 receives at 7 + o + L + o = 14 us. As work, the
probes (5 us), the gaps between them (4 us) and the gap before the send (1 us) are
compute: every time moves by 10 us, 24 us; less 0.5 us of the tracer's inside each
probe, 21.5 us.
"""

import json

from cli_run import netsens, one_error_line

from netsens import _core

US = 1_000_000
NETWORK = ("--L", "5us", "--o", "1us", "--g", "0us", "--G", "0ns/B", "--O", "0ns/B")
REGIONS = ["MPI_Iprobe", "MPI_Send", "MPI_Recv"]
IPROBE, SEND, RECV = range(3)


def call(rank, region, enter_us, inside=()):
    """Rank ``rank``'s call of 1 us from ``enter_us`` with the message events ``inside``."""
    peer = 1 - rank
    at = enter_us * US
    events = [(rank, "enter", at, region, peer, 0, 0)]
    events += [(rank, kind, at, region, peer, 1, 0) for kind in inside]
    return [*events, (rank, "leave", at + US, region, peer, 0, 0)]


def prober_before_send(tmp_path):
    events = [e for i in range(5) for e in call(0, IPROBE, 2 * i)]
    events += [*call(0, SEND, 10, ["send"]), *call(0, RECV, 11, ["recv"])]
    events += [*call(1, RECV, 0, ["recv"]), *call(1, SEND, 1, ["send"])]
    return _core.write_trace_archive(str(tmp_path / "t"), 2, REGIONS, events)


def replay(*args):
    proc = netsens("replay", *args, *NETWORK, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_polls_before_a_send_left_out_by_default_or_charged_as_work(tmp_path):
    anchor = prober_before_send(tmp_path)
    assert replay(anchor)["makespan_ps"] == 14 * US
    assert replay(anchor, "--poll-runs", "wait")["makespan_ps"] == 14 * US
    work = replay(anchor, "--poll-runs", "work")
    assert work["makespan_ps"] == 24 * US
    assert work["workload"]["poll_runs_charged_ps"] == [9 * US, 0]
    less = replay(anchor, "--poll-runs", "work", "--tracer-call", "500ns")
    assert less["makespan_ps"] == 21 * US + US // 2
    text = netsens("replay", anchor, *NETWORK, "--poll-runs", "work")
    assert text.returncode == 0, text.stderr
    assert "polls that were no wait" in text.stdout and "4.5 us per rank" in text.stdout


def test_bad_combinations_are_one_line(tmp_path):
    anchor = prober_before_send(tmp_path)
    line = one_error_line(netsens("replay", anchor, "--tracer-call", "500ns"))
    assert 'tracer_call: applies to poll_runs "work" only' in line
    line = one_error_line(netsens("replay", anchor, "--poll-runs", "work", "--tracer-call", "5"))
    assert "has no unit" in line
    proc = netsens("replay", anchor, "--poll-runs", "charged")
    assert proc.returncode == 2 and "'charged' is not one of 'wait', 'work'" in proc.stderr
