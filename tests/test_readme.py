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
