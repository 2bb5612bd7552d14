"""The ACE dispersion figure, like the seed's Figure 1: per EA, the distribution of
each rank's T_comm over the cycles (box plots), and the predicted against the actual
run time; written as PNG (200 dpi) and PDF with matplotlib (imported only here)."""

from pathlib import Path
from typing import Any

US = 1e6  # ps per us
MS = 1e9  # ps per ms


def dispersion_figure(
    result: dict[str, Any], directory: Path, name: str = "ace-dispersion"
) -> list[Path]:
    """Draw ``result`` (what :func:`netsens.ace.emulator.ace` returns) into ``directory`` as
    ``<name>.png`` and ``<name>.pdf``; return both paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    eas = result["eas"]
    directory.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(
        {"font.size": 9, "pdf.fonttype": 42, "axes.spines.top": False, "axes.spines.right": False}
    ):
        figure, axes = plt.subplots(
            1,
            len(eas) + 1,
            figsize=(3.2 * (len(eas) + 1), 3.4),
            layout="constrained",
            squeeze=False,
        )
        for ax, ea in zip(axes[0], eas, strict=False):
            ranks = ea["per_rank"]
            ax.boxplot(
                [[t / US for t in r["comm_cycles_ps"]] for r in ranks],
                tick_labels=[str(r["rank"]) for r in ranks],
                showfliers=True,
                flierprops={"markersize": 2},
            )
            ax.set_title(f"EA {ea['ea']}: {ea['pattern']}, load {ea['load'] * 100:g} %")
            ax.set_xlabel("rank")
            ax.set_ylabel("T_comm per cycle (us)")
            ax.tick_params(axis="x", labelsize=7)
        ax = axes[0][-1]
        x = range(len(eas))
        ax.bar(
            [i - 0.2 for i in x], [ea["predicted_ps"] / MS for ea in eas], 0.4, label="predicted"
        )
        ax.bar([i + 0.2 for i in x], [ea["actual_ps"] / MS for ea in eas], 0.4, label="actual")
        for i, ea in zip(x, eas, strict=True):
            ax.annotate(
                f"{ea['error'] * 100:+.1f} %",
                (i + 0.2, ea["actual_ps"] / MS),
                ha="center",
                va="bottom",
            )
        ax.set_xticks(list(x), [f"EA {ea['ea']}" for ea in eas])
        ax.set_ylabel("run time (ms)")
        ax.set_title("predicted vs actual")
        ax.legend(frameon=False)
        paths = [directory / f"{name}.png", directory / f"{name}.pdf"]
        figure.savefig(paths[0], dpi=200, metadata={"Software": None})
        figure.savefig(paths[1], metadata={"CreationDate": None})
        plt.close(figure)
    return paths
