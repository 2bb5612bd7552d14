"""`--o-control`: the o of the rendezvous handshake's control messages
(docs/concepts/platforms.md), from the command line. Expected times derived by hand
from LOGGP.md's rules on the `loggopsim` preset (L=2500 g=1000 ns, G=6 ns/B, O=0,
S=65535 B) with the handshake: one message of 100000 B (k = 99999), receive posted
at 0. The end is the receiver's: the data's arrival + o + 99999·6 ns."""

import json
from pathlib import Path

from cli_run import netsens, one_error_line

NS = 1000  # ps per ns

# One message of 100000 B from rank 0 to rank 1.
GOAL = "num_ranks 2\n" + "".join(
    f"rank {r} {{\nl1: {op} 100000b {way} {1 - r} tag 0\n}}\n"
    for r, op, way in ((0, "send", "to"), (1, "recv", "from"))
)


def makespan_ns(goal: Path, *flags: str) -> int:
    proc = netsens("run", "--goal", goal, "--rendezvous", "handshake", "--json", *flags)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["makespan_ps"] // NS


def test_o_control_charges_the_handshake_apart_from_the_data(tmp_path):
    goal = tmp_path / "long.goal"
    goal.write_text(GOAL)
    # o = 51.5 us everywhere: RTS 51500 + 2500 → receiver 105500; CTS → 157000, arrives
    # 159500 → sender 211000; data → 262500, arrives 265000 → 265000 + 51500 + 599994.
    assert makespan_ns(goal, "--o", "51.5us") == 916_494
    # Control messages at 1.5 us: RTS arrives 4000 → 5500; CTS arrives 9500 → 11000;
    # data → 62500, arrives 65000 → 65000 + 51500 + 599994 = 716494.
    assert makespan_ns(goal, "--o", "51.5us", "--o-control", "1.5us") == 716_494


def test_o_control_without_a_unit_is_one_error_line(tmp_path):
    goal = tmp_path / "long.goal"
    goal.write_text(GOAL)
    line = one_error_line(netsens("run", "--goal", goal, "--o-control", "2"))
    assert line == 'netsens: error: o_control: "2" has no unit; write a time such as 5us'
