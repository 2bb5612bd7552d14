"""examples/notebooks/tour.ipynb runs top to bottom at tiny sizes (nbclient), so the
notebook never rots; its own cells check what they show against figures derived by
hand (the barrier's rounds, the slowdown at L = 40 us, the ring replay's slope)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "notebooks" / "tour.ipynb"


def execute(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": NOTEBOOK.parent}}
    )
    return client.execute()


def test_the_tour_runs_at_tiny_size():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert "SIZE = " in nb.cells[1].source
    nb.cells[1].source = 'SIZE = "tiny"'
    execute(nb)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the plot drew
    assert "makespan 22.0 us, with L = 5 us 32.0 us" in "".join(
        o.get("text", "") for o in outputs if o.output_type == "stream"
    )


def test_a_failing_cell_fails_the_test():
    """The notebook's checks are real: a wrong expectation stops the execution."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.insert(2, nbformat.v4.new_code_cell("assert 4 * 5_500_000 == 23_000_000"))
    with pytest.raises(CellExecutionError):
        execute(nb)
