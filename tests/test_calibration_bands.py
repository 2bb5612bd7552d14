"""scripts/calibration_bands.py: the per-byte cost by size band from calibrations run
with several largest sizes (scripts/fidelity16_rerun.sh size-bands)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "calibration_bands.py"
spec = importlib.util.spec_from_file_location("calibration_bands", SCRIPT)
bands = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bands)


def param(name, measured, bound=None):
    return {"name": name, "measured": measured, "bound": bound, "unit": "ps/B"}


def calibration(s, o, g_long, g_long_bound=None):
    s_bound = None if s is not None else {"kind": "at_least", "value": 0}
    return {
        "parameters": [
            param("S", s, s_bound),
            param("O", o),
            param("G_long", g_long, g_long_bound),
        ]
    }


def test_band_spans_a_quarter_of_the_largest_size_above_s():
    # M = 4096 B, S = 256 B: the long fit's sizes start at max(4096/4, 257) = 1024 B;
    # G_long not observable, bounded by the slope 168 ps/B: that slope is the band's.
    row = bands.band(calibration(256, 1416.0, None, {"kind": "at_most", "value": 168.0}), 4096)
    assert row == {
        "from_B": 1024,
        "to_B": 4096,
        "S_B": 256,
        "O_ps_per_B": 1416.0,
        "slope_ps_per_B": 168.0,
    }
    # S = 3000 B lies above a quarter of 4096: the band starts at S + 1 = 3001 B.
    assert bands.band(calibration(3000, 0.0, 10170.0), 4096)["from_B"] == 3001
    # S not observable (every size eager): a quarter of M, 2048 / 4 = 512 B.
    assert bands.band(calibration(None, 0.0, 200.0), 2048)["from_B"] == 512
    # A lower bound on G_long says nothing of the slope.
    bound = {"kind": "at_least", "value": 0.0}
    assert bands.band(calibration(256, 0.0, None, bound), 4096)["slope_ps_per_B"] is None


def run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_table_in_ns_per_byte_sorted_by_largest_size(tmp_path):
    small, large = tmp_path / "small", tmp_path / "large"
    small.mkdir()
    large.mkdir()
    (small / "calibration.json").write_text(json.dumps(calibration(256, 1416.0, 1500.0)))
    bound = {"kind": "at_most", "value": 199.758}
    (large / "calibration.json").write_text(json.dumps(calibration(256, 1416.0, None, bound)))
    out = run(f"1048576={large}", f"2048={small}")
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()[2:]
    # 2048 B: from max(512, 257) = 512 B; 1 MiB: from 256 KiB. Slopes 1.5 and 0.2 ns/B.
    assert rows == [
        "| 512 B–2 KiB | 256 B | 1.416 | 1.500 |",
        "| 256 KiB–1 MiB | 256 B | 1.416 | 0.200 |",
    ]


def test_bad_input_is_one_line_and_exit_code_2(tmp_path):
    for args, says in [
        (["x=" + str(tmp_path)], "expected BYTES=DIR"),
        ([f"4096={tmp_path}"], "No such file"),
    ]:
        out = run(*args)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.splitlines()) == 1 and says in out.stderr, out.stderr
    (tmp_path / "calibration.json").write_text(json.dumps({"parameters": [param("O", 1.0)]}))
    out = run(f"4096={tmp_path}")
    assert out.returncode == 2 and "no S among its parameters" in out.stderr
    (tmp_path / "calibration.json").write_text("{")
    out = run(f"4096={tmp_path}")
    assert out.returncode == 2 and "not JSON" in out.stderr
