"""The README's platform file is a working platform (documentation that cannot rot)."""

import re
from pathlib import Path

from netsens.engine import platform_toml

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_platform_example_reads_back(tmp_path):
    text = README.read_text()
    example = re.search(r"### A platform file\n\n```toml\n(.*?)```", text, re.S).group(1)
    path = tmp_path / "platform.toml"
    path.write_text(example)
    resolved = platform_toml(str(path))
    assert 'clusters = "2x16"' in resolved
    assert 'latency = "3ms"' in resolved
    assert 'G = "80ps/B"' in resolved  # 100 Gbit/s = 12.5 GB/s = 80 ps per byte


def test_readme_python_api_example_runs(capsys):
    text = README.read_text()
    section = text.split("## Rank programs", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(example, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "True" in out and "halo" in out and "compute" in out


def test_readme_study_example_is_a_valid_study(tmp_path):
    """3 workloads; L has 8 values of which 5 us is now1997's own (the baseline) and o 3
    of which 2.9 us is: 1 + 7 + 2 = 10 points per (workload, ranks, seed). The apps run
    at 8 and 32 ranks with 3 seeds, the GOAL file at its own 2 ranks with 3 seeds:
    (2 x 2 x 3 + 3) x 10 = 150 points."""
    from netsens.study.definition import Study

    section = README.read_text().split("## Studies", 1)[1]
    example = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    example = example.replace("examples/goal/", str(README.parent / "examples/goal") + "/")
    path = tmp_path / "study.toml"
    path.write_text(example)
    points = Study.from_toml(path).points()
    assert len(points) == 150
    assert {p.ranks for p in points if p.kind == "app"} == {8, 32}
