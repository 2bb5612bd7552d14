"""`netsens calibrate`, run as a subprocess exactly as a user runs it: in simulation the
seeds' LogP calibration recovers every dialled parameter it can observe within 1%, and
names the ones it cannot."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PARAMETERS = ["L", "o_s", "o_r", "g", "G", "O", "S", "o_s_stream", "o_r_stream", "G_long"]


def netsens(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def calibrate_json(*args: object) -> dict:
    proc = netsens("calibrate", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def by_name(result: dict) -> dict[str, dict]:
    return {p["name"]: p for p in result["parameters"]}


@pytest.mark.parametrize("preset", ["loggopsim", "now1997"])
def test_presets_recovered_within_one_percent(preset):
    result = calibrate_json("--platform", preset)
    assert result["platform_name"] == preset
    params = by_name(result)
    assert list(params) == PARAMETERS
    for name, p in params.items():
        assert p["measured"] is not None, f"{name}: {p['why']}"
        assert abs(p["measured"] - p["dialled"]) <= 0.01 * p["dialled"], p
        assert p["bound"] is None and p["why"] is None
    for key in ("alpha", "beta"):
        line = result[key]
        assert abs(line["measured"] - line["model"]) <= 0.01 * line["model"], (key, line)


def test_overrides_are_what_is_measured():
    params = by_name(calibrate_json("--L", "7us", "--o", "100ns", "--S", "4KiB"))
    assert params["L"]["measured"] == params["L"]["dialled"] == 7_000_000
    assert params["o_s"]["measured"] == params["o_r"]["measured"] == 100_000
    assert params["o_s_stream"]["measured"] == params["o_r_stream"]["measured"] == 100_000
    assert params["S"]["measured"] == 4096


def test_unobservable_gap_is_flagged_with_its_bound():
    # g < o and no per-byte NIC cost: every burst is CPU-bound, so only g <= o is known.
    g = by_name(calibrate_json("--g", "500ns", "--G", "0ns/B"))["g"]
    assert g["measured"] is None and g["relative_error"] is None
    assert g["bound"] == {"kind": "at_most", "value": 1_500_000}
    assert "g <= o" in g["why"]


def test_table_output():
    proc = netsens("calibrate", "--platform", "now1997")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for text in ("calibration of platform now1997", "parameter", "dialled", "measured", "error"):
        assert text in out
    assert "5.8 us" in out and "26.316 ns/B" in out and "65,536 B" in out
    assert "alpha" in out and "beta" in out
    hidden = netsens("calibrate", "--g", "500ns", "--G", "0ns/B").stdout
    assert "not observable" in hidden and "<= 1.5 us" in hidden and "g <= o" in hidden


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--L", "5"], 'L: "5" has no unit'),
        (["--bogus", "1"], "No such option '--bogus'"),
        (["--S", "1B"], "rendezvous"),
        (["--platform", "nosuch"], "nosuch"),
        (["--runs", "3"], "--runs: only with --live"),
        (["--reps", "40", "--save", "m.toml"], "--reps, --save: only with --live"),
        (["--live", "--runs", "0"], "0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, says):
    proc = netsens("calibrate", *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("netsens: error: ") and says in lines[0]


def test_the_saved_o_is_the_streaming_one_when_measured():
    # A calibration as `calibrate --live` returns it (ps): the saved o is the mean of
    # the streaming o_s and o_r, (1.6 + 1.8) / 2 = 1.7 us, the single message's mean
    # (2.4 + 2.0) / 2 = 2.2 us beside it; an older calibration without the streaming
    # pair saves the single message's. Negative L (noise around 0) is saved as 0.
    from netsens.live.validate import machine_toml, saved_values

    def param(name, measured):
        return {"name": name, "measured": measured, "bound": None}

    single = [param("L", -2e6), param("o_s", 2.4e6), param("o_r", 2.0e6), param("g", 1.5e6)]
    single += [param("G", 100.0), param("O", 0.0), param("S", 256.0)]
    streaming = single + [param("o_s_stream", 1.6e6), param("o_r_stream", 1.8e6)]
    saved = saved_values({"parameters": streaming})
    assert saved["o"] == 1.7e6 and saved["o_ping_pong"] == 2.2e6 and saved["L"] == 0
    assert 'o = "1700000ps"' in machine_toml({"parameters": streaming})
    assert saved_values({"parameters": single})["o"] == 2.2e6


def test_the_saved_g_is_the_long_messages_when_measured():
    # The 16-core machine's first calibration (ps/B): the eager sizes' slope 2127.8,
    # O = 64.4; with a long messages' G of 104 (a quarter to all of 1 MiB) the platform
    # says G = 104 ps/B and keeps 2127.8 as G_short; unmeasured (not observable), the
    # eager sizes' slope is saved as before.
    from netsens.live.validate import machine_toml, saved_values

    def param(name, measured, bound=None):
        return {"name": name, "measured": measured, "bound": bound}

    base = [param("L", 0.0), param("o_s", 2.164e6), param("o_r", 3.257e6), param("g", 1.24e6)]
    base += [param("G", 2127.8), param("O", 64.4), param("S", 256.0)]
    long = saved_values({"parameters": [*base, param("G_long", 104.0)]})
    assert long["G"] == 104.0 and long["G_short"] == 2127.8
    assert 'G = "104.000ps/B"' in machine_toml({"parameters": [*base, param("G_long", 104.0)]})
    # The second calibration's O (529 ps/B, from eager bursts) exceeds the long slope:
    # G_long is then the bound G <= 104 ps/B, and saved as such.
    bounded = param("G_long", None, {"kind": "at_most", "value": 104.0})
    assert saved_values({"parameters": [*base, bounded]})["G"] == 104.0
    # Without two long sizes above the eager limit, the eager sizes' slope.
    none = param("G_long", None, {"kind": "at_least", "value": 0.0})
    kept = saved_values({"parameters": [*base, none]})
    assert kept["G"] == 2127.8 and "G_short" not in kept


def test_a_failed_jobs_reason_is_its_last_line_that_says_something():
    # Open MPI frames its messages in rules of dashes: the reason is not the rule.
    from netsens.live.run import launcher_error as failure_reason

    banner = (
        "--------------------------------------------------------------------------\n"
        "Primary job  terminated normally, but 1 process returned\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "--------------------------------------------------------------------------\n"
        "--------------------------------------------------------------------------\n"
        "mpirun noticed that process rank 1 with PID 0 on node box exited on signal 9 (Killed).\n"
        "--------------------------------------------------------------------------\n\n"
    )
    assert failure_reason(banner) == (
        "mpirun noticed that process rank 1 with PID 0 on node box exited on signal 9 (Killed)."
    )
    assert failure_reason("netsens-mpi-run: error: x\n") == "netsens-mpi-run: error: x"
    assert failure_reason("-----\n\n") is None


def test_the_saved_platform_takes_the_handshake_above_the_mpis_copy_limit(tmp_path):
    # The 16-core machine's first calibration in set C (ps, ps/B): o the mean of the
    # streaming pair, (1.96 + 2.488) / 2 = 2.224 us; the long messages' slope
    # G_long = 199.758 ps/B; Open MPI's vader limit 4096 B. Saved: S = 4096 B with the
    # handshake, its control messages at the machine's o (2224000 ps) and O the long
    # slope, not the eager O of 1415.918 ps/B; without the limit, every message eager.
    from netsens.engine import platform_toml
    from netsens.live.validate import EAGER_ALWAYS, machine_toml

    def param(name, measured, bound=None):
        return {"name": name, "measured": measured, "bound": bound}

    base = [param("L", 0.0), param("o_s", 2.3e6), param("o_r", 2.1e6), param("g", 1.963001e6)]
    base += [param("G", 2127.8), param("O", 1415.918), param("S", 256.0)]
    base += [param("o_s_stream", 1.96e6), param("o_r_stream", 2.488e6)]
    calibration = {"parameters": [*base, param("G_long", 199.758)]}
    saved = tomllib.loads(machine_toml(calibration, cores=16, copy_limit=4096))
    assert saved["rendezvous"] == "handshake"
    assert saved["cluster"] == {
        "L": "0ps",
        "o": "2224000ps",
        "g": "1963001ps",
        "G": "199.758ps/B",
        "O": "199.758ps/B",
        "S": "4096B",
        "o_control": "2224000ps",
    }
    # The engine reads it back, and --o moves o alone (the live o + 50 us runs).
    path = tmp_path / "machine.toml"
    path.write_text(machine_toml(calibration, copy_limit=4096))
    shown = tomllib.loads(platform_toml(path, {"o": "52224000ps"}))["cluster"]
    assert (shown["o"], shown["o_control"], shown["S"]) == ("52224ns", "2224ns", "4KiB")
    # Set C's G_long was the bound G <= 199.758 ps/B (the eager O was larger): the slope
    # is measured all the same, and O takes it.
    bounded = {"parameters": [*base, param("G_long", None, {"kind": "at_most", "value": 199.758})]}
    assert tomllib.loads(machine_toml(bounded, copy_limit=4096))["cluster"] == saved["cluster"]
    # No limit, or no long sizes (G_long at least 0): every message eager, the eager O.
    none = {"parameters": [*base, param("G_long", None, {"kind": "at_least", "value": 0.0})]}
    for cluster in (
        tomllib.loads(machine_toml(calibration))["cluster"],
        tomllib.loads(machine_toml(none, copy_limit=4096))["cluster"],
    ):
        assert cluster["S"] == f"{EAGER_ALWAYS}B" and "o_control" not in cluster
        assert cluster["O"] == "1415.918ps/B"


def test_open_mpis_eager_limit_is_read_from_ompi_info():
    from netsens.live.copy_limit import parse_ompi_info

    text = (
        "mca:btl:vader:param:btl_vader_max_send_size:value:32768\n"
        "mca:btl:vader:param:btl_vader_eager_limit:value:4096\n"
        "mca:btl:vader:param:btl_vader_eager_limit:source:default\n"
    )
    assert parse_ompi_info(text, "vader") == 4096
    assert parse_ompi_info(text.replace("vader", "sm"), "sm") == 4096
    assert parse_ompi_info(text, "sm") is None
    assert parse_ompi_info("mca:btl:vader:param:btl_vader_eager_limit:value:x\n", "vader") is None
    assert parse_ompi_info("mca:btl:vader:param:btl_vader_eager_limit:value:0\n", "vader") is None


def test_the_copy_limit_comes_from_the_ompi_info_on_path(tmp_path, monkeypatch):
    # A stand-in ompi_info that knows only Open MPI 5's `sm` transport: vader gives
    # nothing, sm gives 8192 B; MPICH's limit is not read.
    from netsens.live.copy_limit import CopyLimit, copy_limit

    tool = tmp_path / "ompi_info"
    line = "mca:btl:sm:param:btl_sm_eager_limit:value:8192"
    tool.write_text(f'#!/bin/sh\n[ "$4" = sm ] && echo "{line}"\nexit 0\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert copy_limit("openmpi") == CopyLimit(8192, "Open MPI btl_sm_eager_limit")
    assert copy_limit("mpich") is None
    monkeypatch.setenv("PATH", str(tmp_path / "none"))
    assert copy_limit("openmpi") is None


def _run(o_s, g=None, g_bound=None, s_bytes=4096.0, beta=1.0):
    """One run's calibration as netsens-mpi-run writes it (ps, ps/B, B)."""

    def param(name, unit, measured, bound=None):
        why = None if bound is None else f"why {name}"
        return {"name": name, "unit": unit, "dialled": 0.0, "measured": measured,
                "relative_error": None, "bound": bound, "why": why}  # fmt: skip

    gap = param("g", "ps", g, None if g_bound is None else {"kind": "at_most", "value": g_bound})
    return {
        "platform_name": "machine",
        "parameters": [param("o_s", "ps", o_s), gap, param("S", "B", s_bytes)],
        "alpha": {"unit": "ps", "measured": 10.0 * o_s, "model": 0.0},
        "beta": {"unit": "ps/B", "measured": beta, "model": 0.0},
    }


def test_runs_combine_into_each_parameters_trimmed_mean():
    from netsens.live.calibrate import combine

    runs = [
        _run(3.2e6, g=2.0e6, s_bytes=256.0, beta=7.0),
        _run(4.9e6, g_bound=5.0e6, s_bytes=4096.0, beta=1.0),
        _run(5.1e6, g=3.0e6, s_bytes=4039.0, beta=2.0),
    ]
    one = combine(runs)
    params = {p["name"]: p for p in one["parameters"]}
    # An overhead measured in every run: the lowest (noise only adds to it).
    assert params["o_s"]["measured"] == 3.2e6 and params["o_s"]["bound"] is None
    # Any other value measured in two of three: the mean of the two, the bound dropped.
    assert params["g"]["measured"] == 2.5e6 and params["g"]["bound"] is None
    assert params["g"]["why"] is None
    # A size is one some run measured (the lower median).
    assert params["S"]["measured"] == 4039.0
    # The line's terms: the mean of three, nothing left out.
    assert one["alpha"]["measured"] == pytest.approx(4.4e7)
    assert one["beta"]["measured"] == pytest.approx(10 / 3)
    # Bounded in most runs: the bounds' mean, with the reason.
    runs = [_run(1.0, g_bound=4.0e6), _run(1.0, g=1.0e6), _run(1.0, g_bound=6.0e6)]
    gap = {p["name"]: p for p in combine(runs)["parameters"]}["g"]
    assert gap["measured"] is None and gap["why"] == "why g"
    assert gap["bound"] == {"kind": "at_most", "value": 5.0e6}
    # Five runs: the highest and the lowest left out (an outlier moves nothing), then
    # the mean; one run is itself.
    five = combine([_run(v) for v in (1.0, 90.0, 3.0, 5.0, 4.0)])
    assert five["alpha"]["measured"] == 40.0 and five["parameters"][0]["measured"] == 1.0
    assert combine([runs[1]]) == runs[1]


def test_no_runs_is_an_input_error():
    from netsens.errors import InputError
    from netsens.live.calibrate import combine

    with pytest.raises(InputError):
        combine([])
