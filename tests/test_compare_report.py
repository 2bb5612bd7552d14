"""The report of `netsens compare` (docs/guides/compare.md): its three figures draw in
headless Chromium (Debian's, driven by playwright as tests/test_report.py does) with no
console error and no request outside the page; the PNG and PDF of each lie beside it;
the bars carry the numbers of the comparison."""

import json
import subprocess
import sys
from pathlib import Path

from test_compare import one_message, tree
from test_report import drawn_in_chromium

from netsens.compare.report import FIGURES, figure_data

ROOT = Path(__file__).resolve().parent.parent


def test_the_report_draws_in_a_real_browser(tmp_path):
    near = tree(tmp_path, "near", "100ns")
    tapered = tree(tmp_path, "tapered", "100ns", 'taper = "2:1"\n')
    out = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "compare", one_message(tmp_path), "-n",
         f"{near},{tapered},now1997", "--results", tmp_path / "r", "--report", out, "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    page_path = out / "report.html"
    for name in FIGURES:
        for ext in ("png", "pdf"):
            assert (out / "figures" / f"{name}.{ext}").stat().st_size > 1000
    doc = json.loads((out / "compare.json").read_text())
    data = figure_data(doc)
    # Nothing is shared by one message within a leaf: 4200 ns on both trees; the NOW:
    # o + L + o + 1000 B at 38 MB/s (the bulk G, rounded to the ps per message).
    assert data["run_time_us"][:2] == [4.2, 4.2]
    assert abs(data["run_time_us"][2] - (2.9 + 5 + 2.9 + 1000 / 38)) < 1e-3

    with drawn_in_chromium(page_path) as (page, ids):
        assert ids == [f"fig-{n}" for n in FIGURES]
        state = page.evaluate(
            """ids => ids.map(id => {
                const d = document.getElementById(id);
                return {id, bars: d.querySelectorAll('g.point').length,
                        traces: d.data.length, y: d.data.map(t => Array.from(t.y))};
            })""",
            ids,
        )
        rows = page.evaluate(
            "Array.from(document.querySelectorAll('#networks tr')).map(r => r.innerText)"
        )
    run, path, load = state
    assert run["y"] == [data["run_time_us"]]
    assert run["bars"] == 3
    # Stacked: the shares of each network's path add up to 100 %; on the trees o is
    # 2000 of 4200 ns.
    totals = [sum(t[i] for t in path["y"]) for i in range(3)]
    assert [round(t, 9) for t in totals] == [100.0] * 3
    assert data["stacked_pct"]["o"][0] == 100 * 2000 / 4200
    # Link load: the two trees' host links carry the message; the NOW has no bars.
    assert load["traces"] >= 1 and all(y[2] == 0 for y in load["y"])
    assert len(rows) == 4 and "no shared links" in rows[3]
