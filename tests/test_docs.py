"""The documentation site and the examples in it: `mkdocs build --strict` passes (and
fails on a broken link), the generated CLI and API pages hold every command and the
public functions, and the examples in the pages run (documentation that cannot rot)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from netsens.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MKDOCS = Path(sys.executable).with_name("mkdocs")


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(site.parent)}
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        cwd=config.parent,
        env=env,
        timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    proc = build(ROOT / "mkdocs.yml", out)
    assert proc.returncode == 0, proc.stderr
    return out


def text_of(page: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.read_text()))


def test_every_page_is_built(site):
    for page in DOCS.rglob("*.md"):
        relative = page.relative_to(DOCS).with_suffix("")
        html = site / ("index.html" if relative.name == "index" else relative / "index.html")
        assert html.is_file(), html


def test_the_cli_reference_holds_every_command(site):
    text = text_of(site / "reference/cli/index.html")
    for name in COMMANDS:
        assert f"netsens {name}" in text, name
    # run's own options, read from its click command, not from a page
    assert "--goal" in text and "--json" in text


def test_the_api_reference_is_generated_from_the_docstrings(site):
    import netsens
    from netsens.api import run

    text = text_of(site / "reference/api/index.html")
    # run's first docstring line, as rendered (its ``code`` marks become tags)
    first_line = run.__doc__.split("\n", 1)[0].replace("``", "")
    assert first_line in text, first_line
    for name in ("RunResult", "run_study", "results", "Study", "InputError"):
        assert name in text and hasattr(netsens, name)


def test_a_broken_link_fails_the_build(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(ROOT / "python", copy / "python", ignore=shutil.ignore_patterns("*.so"))
    (copy / "docs/guides/broken.md").write_text("# Broken\n\nSee [nothing](nothing.md).\n")
    proc = build(copy / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    assert "nothing.md" in proc.stderr


def test_the_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert "make run" in text and "make test" in text
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def block(page: str, heading: str, language: str) -> str:
    """The first ``language`` code block after ``heading`` in docs page ``page``."""
    section = (DOCS / page).read_text().split(heading, 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def test_platform_file_example_reads_back(tmp_path):
    from netsens.engine import platform_toml

    path = tmp_path / "platform.toml"
    path.write_text(block("reference/platform-file.md", "# The platform file format", "toml"))
    resolved = platform_toml(str(path))
    assert 'clusters = "2x16"' in resolved
    assert 'latency = "3ms"' in resolved
    assert 'G = "80ps/B"' in resolved  # 100 Gbit/s = 12.5 GB/s = 80 ps per byte


def test_python_api_example_runs(capsys):
    example = block("concepts/rank-programs.md", "## From Python", "python")
    exec(compile(example, "rank-programs.md", "exec"), {})
    out = capsys.readouterr().out
    assert "True" in out and "halo" in out and "compute" in out


def test_study_example_is_a_valid_study(tmp_path):
    """3 workloads; L has 8 values of which 5 us is now1997's own (the baseline) and o 3
    of which 2.9 us is: 1 + 7 + 2 = 10 points per (workload, ranks, seed). The apps run
    at 8 and 32 ranks with 3 seeds, the GOAL file at its own 2 ranks with 3 seeds:
    (2 x 2 x 3 + 3) x 10 = 150 points."""
    from netsens.study.definition import Study

    example = block("guides/studies.md", "# Studies", "toml")
    example = example.replace("examples/goal/", str(ROOT / "examples/goal") + "/")
    path = tmp_path / "study.toml"
    path.write_text(example)
    points = Study.from_toml(path).points()
    assert len(points) == 150
    assert {p.ranks for p in points if p.kind == "app"} == {8, 32}
