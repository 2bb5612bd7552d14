"""The run's tables and headline, drawn as rich draws them but without importing rich.

rich costs ``netsens run`` about a third of its start-up (its console and table modules)
for three small tables. A :class:`TextTable` holds the two shapes the run prints (a
grid of labels and values; a titled table with a heavy header line) and a
:class:`TextLine` a line of styled pieces; :func:`netsens.cli.console.print_blocks` writes
them as text when it can say for sure what rich would write, and gives them to rich
(both are rich renderables, through ``__rich__``) when it cannot. ``render`` knows
rich's layout only for text that fits: one line per cell and per title, nothing wider
than the page; it returns ``None`` otherwise. tests/test_text_table.py holds the text
equal to rich's on random tables, plain and styled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

# The SGR codes of the styles used (rich's "table.header" is bold, "table.title" italic).
SGR = {"bold": "1", "italic": "3"}
# rich's HEAVY_HEAD box: top, header row, header rule, body row, bottom.
TOP, HEAD, RULE, ROW, BOTTOM = ("┏━┳┓", "┃ ┃┃", "┡━╇┩", "│ ││", "└─┴┘")


def _styled(text: str, style: str | None, ansi: bool) -> str:
    """A piece of text as one rich segment: wrapped in its style's SGR codes on a terminal."""
    if not (text and style and ansi):
        return text
    return f"\x1b[{SGR[style]}m{text}\x1b[0m"


def _plain(text: str) -> bool:
    """Text whose width is its length and that rich prints as it is: printable ASCII."""
    return text.isascii() and text.isprintable()


def _justify(text: str, width: int, justify: str) -> str:
    return text.rjust(width) if justify == "right" else text.ljust(width)


class TextLine:
    """A line of (text, style) pieces, e.g. a headline with the platform in bold."""

    def __init__(self, *pieces: tuple[str, str | None]) -> None:
        self.pieces = pieces

    def render(self, width: int, ansi: bool) -> list[str] | None:
        text = "".join(t for t, _ in self.pieces)
        if not _plain(text) or len(text) > width:
            return None  # rich would wrap it
        return ["".join(_styled(t, s, ansi) for t, s in self.pieces)]

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text.assemble(*self.pieces)


class TextTable:
    """A table of text cells: ``TextTable(title=...)`` is rich's default ``Table`` (heavy
    header, bold header, italic title, one space of padding), ``TextTable.grid()``
    rich's ``Table.grid(padding=(0, 2))`` (no box, two spaces between columns)."""

    def __init__(self, title: str | None = None, *, grid: bool = False) -> None:
        self.title = title
        self.is_grid = grid
        self.columns: list[tuple[str, str, str | None]] = []  # header, justify, style
        self.rows: list[tuple[str, ...]] = []

    @classmethod
    def grid(cls) -> TextTable:
        return cls(grid=True)

    def add_column(
        self, header: str = "", *, justify: str = "left", style: str | None = None
    ) -> None:
        self.columns.append((header, justify, style))

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)

    def _padding(self, index: int) -> tuple[int, int]:
        """Left and right padding of column ``index``: rich's grid collapses its two
        spaces between columns into one gap and pads no edge; the table pads each side."""
        if self.is_grid:
            return 0, (2 if index < len(self.columns) - 1 else 0)
        return 1, 1

    def render(self, width: int, ansi: bool) -> list[str] | None:
        """The lines rich draws at ``width`` (with SGR codes when ``ansi``), or ``None``
        when rich would have to wrap something."""
        texts = [*self.rows] if self.is_grid else [tuple(c[0] for c in self.columns), *self.rows]
        cells = [cell for row in texts for cell in row] + [self.title or ""]
        if not all(_plain(cell) and cell == cell.strip() for cell in cells):
            return None  # rich strips the spaces around a justified cell or title
        pads = [self._padding(i) for i in range(len(self.columns))]
        content = [max((len(row[i]) for row in texts), default=0) for i in range(len(pads))]
        if not all(content):
            return None  # rich draws an empty column its own way
        widths = [c + left + right for c, (left, right) in zip(content, pads, strict=True)]
        table_width = sum(widths) + (0 if self.is_grid else len(widths) + 1)
        if table_width > width or len(self.title or "") > table_width:
            return None
        lines = []
        if self.title:
            left = (table_width - len(self.title)) // 2  # as rich centres: the odd space right
            title = " " * left + self.title.ljust(table_width - left)
            lines.append(_styled(title, "italic", ansi))

        def row(cells: tuple[str, ...], edges: str, header: bool) -> str:
            parts = []
            for cell, (_, justify, style), w, (left, right) in zip(
                cells, self.columns, widths, pads, strict=True
            ):
                style = "bold" if header else style
                parts.append(
                    _styled(" " * left, style, ansi)
                    + _styled(_justify(cell, w - left - right, justify), style, ansi)
                    + _styled(" " * right, style, ansi)
                )
            if self.is_grid:
                return "".join(parts)
            return edges[0] + edges[2].join(parts) + edges[3]

        def rule(edges: str) -> str:
            return edges[0] + edges[2].join(edges[1] * w for w in widths) + edges[3]

        if not self.is_grid:
            lines += [rule(TOP), row(texts[0], HEAD, header=True), rule(RULE)]
        lines += [row(cells, ROW, header=False) for cells in self.rows]
        if not self.is_grid:
            lines.append(rule(BOTTOM))
        return lines

    def __rich__(self) -> Table:
        from rich.table import Table
        from rich.text import Text

        # Text, not str: rich would read brackets in a cell as markup.
        title = Text(self.title, style="table.title") if self.title else None
        table = Table.grid(padding=(0, 2)) if self.is_grid else Table(title=title)
        for header, justify, style in self.columns:
            table.add_column(Text(header), justify=justify, style=style)  # type: ignore[arg-type]
        for cells in self.rows:
            table.add_row(*(Text(cell) for cell in cells))
        return table


def render_blocks(blocks: list[Any], width: int, ansi: bool) -> str | None:
    """The blocks (TextLine, TextTable) as rich prints them one after another, or
    ``None`` if any needs rich."""
    out = []
    for block in blocks:
        lines = block.render(width, ansi)
        if lines is None:
            return None
        out += lines
    return "".join(line + "\n" for line in out)
