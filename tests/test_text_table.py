"""The run's tables drawn without rich are the text rich draws (netsens.cli.text_table):
compared with rich itself, the second method, on random tables, on a page (no styles,
160 columns) and on terminals of random widths (SGR styles); what the text renderer
cannot draw exactly it leaves to rich."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from netsens.cli.console import PIPE_WIDTH, RICH_ENVIRONMENT
from netsens.cli.text_table import TextLine, TextTable, render_blocks

GOAL = Path(__file__).resolve().parent.parent / "examples" / "goal" / "pingpong.goal"
ASCII = st.characters(min_codepoint=32, max_codepoint=126)
# Cells as the run writes them: printable, no spaces around (rich strips those; the
# text renderer leaves such a table to rich, tested below).
CELL = st.text(alphabet=ASCII, min_size=1, max_size=12).map(str.strip).filter(bool)


def examples(strategy: st.SearchStrategy, count: int) -> list:
    """``count`` values drawn from ``strategy``."""
    found: list = []

    @settings(max_examples=count, deadline=None, database=None)
    @given(strategy)
    def collect(value: object) -> None:
        found.append(value)

    collect()
    return found


def rich_text(blocks: list, width: int, terminal: bool) -> str:
    """What rich prints for the blocks at ``width``, styled when ``terminal``."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        force_terminal=terminal,
        color_system="standard" if terminal else None,
        highlight=False,
    )
    for block in blocks:
        console.print(block)
    return out.getvalue()


@st.composite
def tables(draw: st.DrawFn) -> TextTable:
    grid = draw(st.booleans())
    table = TextTable.grid() if grid else TextTable(title=draw(st.none() | CELL))
    columns = draw(st.integers(min_value=1, max_value=6))
    for _ in range(columns):
        table.add_column(
            draw(CELL),
            justify=draw(st.sampled_from(["left", "right"])),
            style=draw(st.sampled_from([None, "bold"])),
        )
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        table.add_row(*(draw(CELL) for _ in range(columns)))
    return table


PIECE = st.text(alphabet=ASCII, max_size=12)
LINES = st.lists(st.tuples(PIECE, st.sampled_from([None, "bold"])), min_size=1, max_size=4).map(
    lambda pieces: TextLine(*pieces)
)


@settings(max_examples=300, deadline=None)
@given(blocks=st.lists(tables() | LINES, min_size=1, max_size=3))
def test_on_a_page_the_text_is_rich_s(blocks):
    text = render_blocks(blocks, PIPE_WIDTH, ansi=False)
    if text is not None:
        assert text == rich_text(blocks, PIPE_WIDTH, terminal=False)


@settings(max_examples=300, deadline=None)
@given(blocks=st.lists(tables() | LINES, min_size=1, max_size=3), width=st.integers(10, 120))
def test_on_a_terminal_the_styled_text_is_rich_s(blocks, width):
    text = render_blocks(blocks, width, ansi=True)
    if text is not None:
        assert text == rich_text(blocks, width, terminal=True)


def run_like_tables() -> list:
    """The run's blocks for 2 ranks (values as format_time writes them)."""
    summary = TextTable.grid()
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("makespan", "11 us")
    summary.add_row("messages", "2")
    ranks = TextTable(title="per rank")
    ranks.add_column("rank", justify="right")
    ranks.add_column("end", justify="right")
    ranks.add_row("0", "11 us")
    ranks.add_row("1", "7 us")
    return [
        TextLine(("pingpong.goal: 2 ranks on platform ", None), ("loggopsim", "bold")),
        summary,
        ranks,
    ]


def test_the_run_s_tables_are_drawn_by_hand_as_rich_draws_them():
    # Not only in the random cases: the run's own shape is drawn by hand, at both widths.
    blocks = run_like_tables()
    assert render_blocks(blocks, PIPE_WIDTH, ansi=False) == rich_text(blocks, PIPE_WIDTH, False)
    assert render_blocks(blocks, 80, ansi=True) == rich_text(blocks, 80, True)
    # Bold is ESC[1m, the title italic ESC[3m (worked out from rich's theme).
    styled = render_blocks(blocks, 80, ansi=True)
    assert "\x1b[1mloggopsim\x1b[0m" in styled and "\x1b[3m" in styled


def test_what_rich_would_wrap_is_left_to_rich():
    wide = TextTable(title="t")
    wide.add_column("x" * 30)
    assert wide.render(20, ansi=False) is None  # the table is 34 columns wide
    long_title = TextTable(title="a title longer than its table")
    long_title.add_column("x")
    assert long_title.render(160, ansi=False) is None
    assert TextLine(("é", None)).render(160, ansi=False) is None  # width not its length
    assert TextLine(("x" * 21, None)).render(20, ansi=False) is None
    padded = TextTable()
    padded.add_column(" x")
    assert padded.render(160, ansi=False) is None  # rich would strip the space
    empty = TextTable()
    empty.add_column("")
    assert empty.render(160, ansi=True) is None


def test_most_random_tables_are_drawn_by_hand():
    # The comparisons above skip what the renderer leaves to rich: most must be drawn.
    drawn = [render_blocks([t], 80, ansi=True) is not None for t in examples(tables(), 200)]
    assert sum(drawn) > 100


def netsens_run(*args: str, **env: str) -> str:
    """`netsens run ARGS` with stdout a pipe; ``env`` added to a clean environment."""
    base = {k: v for k, v in os.environ.items() if k not in RICH_ENVIRONMENT}
    proc = subprocess.run(
        [sys.executable, "-m", "netsens", "run", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**base, **env},
    )
    return proc.stdout


@pytest.mark.parametrize(
    "args",
    [["--goal", str(GOAL)], ["--app", "stencil", "--ranks", "20", "--size", "tiny"]],
    ids=["pingpong", "stencil-20"],
)
def test_the_run_prints_by_hand_what_rich_prints(args):
    # COLUMNS hands the printing to rich (netsens.cli.console); on a pipe rich still uses
    # 160 columns, so the two must be the same text: the per-rank, the over-ranks and
    # the per-phase tables.
    by_hand = netsens_run(*args)
    assert by_hand == netsens_run(*args, COLUMNS="160")
    assert "┏" in by_hand and "\x1b" not in by_hand
    # FORCE_COLOR makes rich style a pipe; the text renderer then leaves it to rich.
    assert "\x1b[1m" in netsens_run(*args, FORCE_COLOR="1")
