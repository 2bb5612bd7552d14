"""``netsens report``: the command that writes a study's report (see :mod:`netsens.report.page`).

Registered in :mod:`netsens.cli.main`; plotly and
matplotlib are imported only when the command runs, so other commands start fast.
"""

from pathlib import Path

import click


@click.command("report")
@click.argument("source", metavar="STUDY.toml|RESULTS_DIR", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for report.html and figures/  [default: <results dir>/report]",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    metavar="N",
    help="Processes for the one-run section's recorded runs  [default: every core]",
)
def report(source: Path, out_dir: Path | None, jobs: int | None) -> None:
    """Write a study's report: one HTML page and its figures as PNG and PDF.

    Give a study file (its results directory is read) or a results directory
    (the one `netsens sweep` fills). The page, report.html, is self-contained and
    works offline: slowdown against each swept parameter per workload, the models
    against the measurements, each workload's communication matrix and message-size
    histogram at the baseline, the communication table and the fitted models, every
    axis with its unit. figures/ holds the same figures as PNG and PDF for papers.
    The one-run section records each workload's run once, in parallel on --jobs
    processes. Prints the path of report.html.
    """
    from netsens.report.page import write_report

    def progress(message: str) -> None:
        click.echo(f"netsens report: {message}", err=True)

    click.echo(write_report(source, out_dir, progress=progress, jobs=jobs))
