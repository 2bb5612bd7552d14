"""The live section of a study's report: every ``netsens validate`` written into the
study's results directory (``netsens validate --results DIR`` writes to
``DIR/validate/APP-AXIS/``) appears beside the simulated curves, its live and
simulated slowdown curves in one figure (PNG and PDF next to the report's others)
and its error per point.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from netsens.errors import InputError

# What the section reads of a validation.json.
NEEDED = {"app", "ranks", "axis", "points", "repeats", "mpi", "machine"}


def validations(results_dir: Path | None) -> list[tuple[Path, dict[str, Any]]]:
    """The validations stored under ``results_dir/validate/``, by path; an unreadable
    one is an error naming its file."""
    if results_dir is None:
        return []
    found = []
    for path in sorted((results_dir / "validate").glob("*/validation.json")):
        try:
            result = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise InputError(f"{path}: unreadable validation ({e})") from None
        if not isinstance(result, dict) or not NEEDED <= result.keys():
            raise InputError(f"{path}: not a validation written by netsens validate")
        found.append((path, result))
    return found


def section_html(found: list[tuple[Path, dict[str, Any]]], figure_dir: Path) -> str:
    """The section of the validations ``found`` (see :func:`validations`; figures
    written to ``figure_dir``), or "" without any."""
    from netsens.live.validate import points_table_html, validation_figure  # noqa: PLC0415
    from netsens.report.draw import save_matplotlib  # noqa: PLC0415

    if not found:
        return ""
    parts = [
        '<section id="live"><h2>Live against simulated</h2>',
        '<p class="lead">Each validation ran the same sweep on real MPI, the value '
        "injected by the netsens PMPI library, and in simulation on the machine "
        "calibrated live (netsens validate). Error = simulated slowdown / live slowdown "
        "- 1.</p>",
    ]
    for path, result in found:
        fig = validation_figure(result)
        save_matplotlib(fig, figure_dir)
        worst = max(abs(p["error"]) for p in result["points"])
        parts.append(
            f"<h3>{html.escape(result['app'])}, {html.escape(str(result['ranks']))} ranks, "
            f"{html.escape(result['axis'])} (largest error {100 * worst:.1f} %)</h3>"
            f'<figure><img src="figures/{html.escape(fig.name)}.png" width="800">'
            f"<figcaption>{html.escape(fig.caption)} "
            f'<a href="figures/{html.escape(fig.name)}.pdf">PDF</a> · '
            f'<a href="figures/{html.escape(fig.name)}.png">PNG</a> · '
            f"from {html.escape(str(path.parent))}</figcaption></figure>"
            + points_table_html(result)
        )
    parts.append("</section>")
    return "".join(parts)
