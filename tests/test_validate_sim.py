"""The simulated side of ``netsens validate`` is computed, not measured: the program's
computation is measured once, and every simulated point charges that record."""

from __future__ import annotations

import pytest

from netsens.errors import InputError
from netsens.live import validate as V

MACHINE = """name = "machine"
base = "loggopsim"
rendezvous = "handshake"

[cluster]
L = "0ps"
o = "2000000ps"
g = "1500000ps"
G = "350ps/B"
O = "0ps/B"
S = "1125899906842624B"
"""


def test_recorded_work_is_the_median_of_each_piece():
    runs = [
        {"measured_work": [[5, 1], [7]]},
        {"measured_work": [[3, 9], [8]]},
        {"measured_work": [[4, 2], [6]]},
    ]
    assert V._recorded_work(runs) == [[4, 2], [7]]
    # Two runs: the upper of the two middle values.
    assert V._recorded_work(runs[:2]) == [[5, 9], [8]]


def test_recorded_work_refuses_runs_whose_work_differs():
    with pytest.raises(InputError, match="differed between runs"):
        V._recorded_work([{"measured_work": [[1, 2]]}, {"measured_work": [[1]]}])


def test_simulated_side_is_computed_from_one_record(tmp_path, monkeypatch):
    # Live runs stand in as a fixed result (the live side is not what this tests). The
    # computation is measured once per validation: given the same record, a second
    # validation computes the same simulated curve to the ps, and it rises with every
    # step of o.
    machine = tmp_path / "machine.toml"
    machine.write_text(MACHINE)
    live_result = {"makespan_ps": 3_000_000_000, "ranks": [{"compute_ps": 1_000_000_000}] * 2}

    def run_live(*_args, repeat, **_kwargs):
        return live_result | {"makespans_ps": [live_result["makespan_ps"]] * repeat}

    monkeypatch.setattr(V, "run_live", run_live)
    monkeypatch.setattr(V, "machine_cores", lambda: 2)
    records = []
    measure_once = V._recorded_work

    def spy(runs):
        records.append(measure_once(runs))
        return records[-1]

    monkeypatch.setattr(V, "_recorded_work", spy)
    values = ["0us", "25us", "50us", "75us", "100us"]
    first = V.validate("radb", 2, "o", values, str(machine), repeats=3)
    assert len(records) == 1 and len(records[0]) == 2 and all(records[0])
    monkeypatch.setattr(V, "_recorded_work", lambda runs: records[0])
    second = V.validate("radb", 2, "o", values, str(machine), repeats=3)
    sim = [p["simulated_ps"] for p in first["points"]]
    assert sim == [p["simulated_ps"] for p in second["points"]]
    assert first["cpu_speed"] == second["cpu_speed"]
    assert all(a < b for a, b in zip(sim, sim[1:], strict=False)), sim
    # Every live point is the baseline here, so each error is the simulated slowdown - 1.
    slowdowns = [p["simulated_slowdown"] for p in first["points"]]
    assert slowdowns[0] == 1.0
    assert [round(p["error"], 9) for p in first["points"]] == [round(s - 1, 9) for s in slowdowns]
