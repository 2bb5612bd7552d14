"""The wheel `make wheel` builds installs into a fresh virtual environment on a PATH
without cargo and runs there: the command line and the Python API, with end times
derived by hand (not copied from netsens's output)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / "target" / "wheels"
BARRIER = ROOT / "examples" / "goal" / "dissemination16.goal"
# Each of the 16-rank dissemination barrier's log2(16) = 4 rounds costs o + L + o on
# the loggopsim preset (o = 1.5 us, L = 2.5 us): 22 us; with L = 5 us, 32 us.
BARRIER_PS = 4 * (1_500_000 + 2_500_000 + 1_500_000)
BARRIER_L5_PS = 4 * (1_500_000 + 5_000_000 + 1_500_000)


def the_wheel() -> Path:
    wheels = sorted(WHEELS.glob("netsens-*.whl"), key=lambda p: p.stat().st_mtime)
    assert wheels, f"no wheel in {WHEELS}: `make wheel` builds it (make test does)"
    return wheels[-1]


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the wheel installed, and an environment whose PATH holds the
    venv and the system's binaries only (no cargo, no rustc, no .venv)."""
    home = tmp_path_factory.mktemp("wheel")
    env_dir = home / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(env_dir)], check=True)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, str(the_wheel())], check=True, timeout=900)
    path = f"{env_dir / 'bin'}:/usr/bin:/bin"
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}
    for tool in ("cargo", "rustc", "maturin"):
        assert shutil.which(tool, path=path) is None, tool
    return env_dir, env


def test_the_wheel_holds_the_native_module_and_the_package():
    import zipfile

    names = zipfile.ZipFile(the_wheel()).namelist()
    assert any(n.startswith("netsens/_core") and n.endswith(".so") for n in names)
    assert "netsens/__init__.py" in names
    assert any(n.startswith("netsens/cli") for n in names)
    # `netsens compare`'s presets are data files beside their module: every one is in it.
    presets = sorted(p.name for p in (ROOT / "python/netsens/compare/networks").glob("*.toml"))
    assert presets and all(f"netsens/compare/networks/{p}" in names for p in presets), presets


def in_venv(venv: tuple[Path, dict[str, str]], cwd: Path, program: str, *args: str):
    """``program`` of the venv's bin/ run with the cargo-less environment, in ``cwd``
    (away from the checkout, so its python/ is not on the path)."""
    env_dir, env = venv
    return subprocess.run(
        [str(env_dir / "bin" / program), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_the_command_line_runs_from_the_wheel(venv, tmp_path):
    proc = in_venv(venv, tmp_path, "netsens", "run", "--goal", str(BARRIER), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["makespan_ps"] == BARRIER_PS
    bad = in_venv(venv, tmp_path, "netsens", "run", "--goal", str(BARRIER), "--L", "5")
    assert bad.returncode == 2 and bad.stderr.startswith("netsens: error: ")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_the_python_api_runs_from_the_wheel(venv, tmp_path):
    script = (
        "import netsens\n"
        f"r = netsens.run({str(BARRIER)!r}, overrides={{'L': '5us'}})\n"
        "print(r.makespan_ps, netsens.__file__)\n"
    )
    proc = in_venv(venv, tmp_path, "python", "-c", script)
    assert proc.returncode == 0, proc.stderr
    makespan, module = proc.stdout.split()
    assert int(makespan) == BARRIER_L5_PS
    # netsens came from the venv, not from the checkout's python/ directory
    env_dir, _ = venv
    assert Path(module).is_relative_to(env_dir), module
    assert os.fspath(ROOT / "python") not in module


def test_compare_on_every_preset_runs_from_the_wheel(venv, tmp_path):
    # The presets' files come from the installed package: the barrier on all of them.
    # Its 4 rounds of o + L + o on the seeds' NOW (o = 2.9 us, L = 5 us) are 43.2 us.
    proc = in_venv(
        venv, tmp_path, "netsens", "compare", str(BARRIER), "--network", "all",
        "--results", str(tmp_path / "r"), "--json", "--quiet",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {r["network"]: r for r in json.loads(proc.stdout)["networks"]}
    wanted = {p.stem for p in (ROOT / "python/netsens/compare/networks").glob("*.toml")}
    assert wanted <= set(rows) and {"now1997", "das1998"} <= set(rows)
    assert rows["now1997"]["makespan_ps"] == 4 * (2_900_000 + 5_000_000 + 2_900_000)
