"""`netsens ace` as a user runs it, the TOML form and `netsens.ace` from Python: ring's
figures by hand, and bad specifications as one line with exit code 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import netsens

ROOT = Path(__file__).resolve().parent.parent
RING = "pattern=ring,size=1001B,load=50%,iterations=10,ranks=0-3,reps=2"


def netsens_cli(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "netsens", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def check_ring(ea: dict) -> None:
    # loggopsim (L 2.5 us, o 1.5 us, G 6 ns/B): a ring exchange of n bytes costs
    # 2o + L + (n-1)G, so alpha = 5.494 us and beta = 6 ns/B; at 1001 B 11.5 us, the
    # 4-rank barrier 2 x (o + L + o) = 11 us, load 50 %: T_comp 22.5 us, 10 cycles 450 us.
    assert ea["alpha_ps"] == pytest.approx(5_494_000)
    assert ea["beta_ps_per_byte"] == pytest.approx(6000)
    assert (ea["t_comm_ps"], ea["t_sync_ps"], ea["t_comp_ps"]) == (
        11_500_000,
        11_000_000,
        22_500_000,
    )
    assert ea["actual_ps"] == 450_000_000
    assert ea["comm"]["sd_ps"] == 0


def test_json_gives_ring_by_hand():
    proc = netsens_cli("ace", "--ea", RING, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["world"] == 4
    check_ring(result["eas"][0])
    assert [r["rank"] for r in result["eas"][0]["per_rank"]] == [0, 1, 2, 3]


def test_table_names_units():
    proc = netsens_cli("ace", "--ea", RING)
    assert proc.returncode == 0, proc.stderr
    assert "5.494 us" in proc.stdout and "450 us" in proc.stdout and "6 ns/B" in proc.stdout


def test_python_api_takes_mappings():
    spec = {"pattern": "ring", "size": "1001B", "load": "50%", "iterations": 10, "ranks": "0-3"}
    check_ring(netsens.ace([spec])["eas"][0])


def test_toml_file(tmp_path):
    path = tmp_path / "ace.toml"
    path.write_text(
        'platform = "loggopsim"\n[[ea]]\npattern = "ring"\nsize = "1001B"\nload = "50%"\n'
        'iterations = 10\nranks = "0-3"\nreps = 2\n'
        '[[ea]]\npattern = "bcast"\nsize = "1KiB"\nload = "20%"\niterations = 5\nranks = "4-7"\n'
    )
    proc = netsens_cli("ace", "--file", path, "--json")
    assert proc.returncode == 0, proc.stderr
    eas = json.loads(proc.stdout)["eas"]
    assert [ea["pattern"] for ea in eas] == ["ring", "bcast"]
    check_ring(eas[0])  # the bcast on ranks 4-7 shares no resource with it


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ea", "pattern=spiral,size=1KiB,load=30%,ranks=0-3"], 'unknown pattern "spiral"'),
        (["--ea", "pattern=ring,size=1KiB,load=0%,ranks=0-3"], "above 0%"),
        (["--ea", "pattern=ring,size=1KiB,load=100%,ranks=0-3"], "below 100%"),
        (
            [
                "--ea",
                "pattern=ring,size=1KiB,load=9%,ranks=0-3",
                "--ea",
                "pattern=ring,size=1KiB,load=9%,ranks=2-5",
            ],
            "overlap: rank 2",
        ),
        (
            ["--platform", "das1998", "--ea", "pattern=ring,size=1KiB,load=9%,ranks=0-40"],
            "past the platform's 32 ranks",
        ),
        (
            ["--platform", "das1998", "--ranks", "40", "--ea", RING],
            "more than platform das1998's 32 ranks",
        ),
        (["--ea", "pattern=ring,size=1KiB,load=9%,ranks=0-3,color=red"], 'unknown key "color"'),
        ([], "at least one --ea"),
        (["--seed", "-1", "--ea", RING], "seed: must be between 0 and 2^64-1"),
        (["--ranks", "0", "--ea", RING], "ranks: must be between 1 and 2^32-1"),
        (["--file", "no-such-ace.toml"], "no-such-ace.toml"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, message):
    proc = netsens_cli("ace", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("netsens: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert message in proc.stderr


def test_bad_toml_key(tmp_path):
    path = tmp_path / "ace.toml"
    path.write_text('platfrom = "loggopsim"\n[[ea]]\npattern = "ring"\n')
    proc = netsens_cli("ace", "--file", path)
    assert proc.returncode == 2 and 'unknown key "platfrom"' in proc.stderr
    path.write_text(
        'seed = "one"\n[[ea]]\npattern = "ring"\nsize = "1KiB"\nload = "9%"\nranks = "0-3"\n'
    )
    proc = netsens_cli("ace", "--file", path)
    assert proc.returncode == 2 and "seed: must be between" in proc.stderr, proc.stderr


def test_dispersion_figure_png_and_pdf(tmp_path):
    proc = netsens_cli(
        "ace",
        "--ea",
        "pattern=bcast,size=4KiB,load=50%,iterations=20,ranks=0-7",
        "--ea",
        "pattern=ring,size=1KiB,load=20%,iterations=20,ranks=8-11",
        "--figure",
        tmp_path,
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    png, pdf = tmp_path / "ace-dispersion.png", tmp_path / "ace-dispersion.pdf"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert str(png) in proc.stderr and json.loads(proc.stdout)["world"] == 12


ACE_GUIDE = ROOT / "docs" / "guides" / "ace.md"
PLATFORMS = ROOT / "docs" / "concepts" / "platforms.md"


def test_guide_worked_example_reproduces_the_seed_finding(capsys):
    """The ACE guide's Python example: mean T_comm within 3 % of the jitter-free
    run while its sd and the run time grow with the jitter's sd."""
    section = ACE_GUIDE.read_text().split("**The seed's finding.**", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(example, "ace.md", "exec"), {})
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 4
    means, sds, runs = ([float(r[i]) for r in rows] for i in (-4, -3, -2))
    assert all(abs(m - means[0]) / means[0] < 0.03 for m in means)
    assert sds[0] == 0 and sds == sorted(sds) and len(set(sds)) == 4
    assert runs == sorted(runs) and len(set(runs)) == 4


def test_platforms_variability_example_reads_back(tmp_path):
    section = PLATFORMS.read_text().split("## Background traffic and soft faults", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "p.toml"
    path.write_text('base = "loggopsim"\n[shape]\nclusters = "2x4"\n[wan]\nlatency = "1ms"\n')
    path.write_text(path.read_text() + 'bandwidth = "1MB/s"\n' + example)
    toml = netsens.platform_toml(str(path))
    assert "[[noise.background]]" in toml and 'interval = "exponential(2ms)"' in toml
    assert "[[noise.faults]]" in toml and "factor = 10.0" in toml
    example_file = netsens.platform_toml(str(ROOT / "examples/platforms/ace-variability.toml"))
    assert example_file.count("[[noise.background]]") == 2


def test_ace_study_writes_rows_and_figure(tmp_path):
    study = tmp_path / "ace.toml"
    study.write_text(
        'name = "tiny"\nranks = "0-7"\nsize = "4KiB"\niterations = 40\npatterns = ["ring"]\n'
        'loads = ["50%"]\njitter_sd = ["0us", "2us"]\n'
    )
    proc = netsens_cli("ace", "--study", study)
    assert proc.returncode == 0, proc.stderr
    import polars as pl

    rows = pl.read_parquet(tmp_path / "results/tiny/ace.parquet")
    assert rows["jitter_sd"].to_list() == ["0us", "2us"]
    # Without jitter every cycle is the same; with it T_comm spreads and the run slows.
    assert rows["comm_sd_ps"][0] == 0 and rows["comm_sd_ps"][1] > 0
    assert rows["actual_ps"][1] > rows["actual_ps"][0]
    assert (tmp_path / "results/tiny/report/ace-error.png").read_bytes()[:4] == b"\x89PNG"
    study.write_text('patterns = "ring"\n')
    proc = netsens_cli("ace", "--study", study)
    assert proc.returncode == 2 and "patterns must be a non-empty list" in proc.stderr
