"""An HTML table whose header row names a secret, for the sanitizer's layout view
(:mod:`.layout`): ``<tr><th>user</th><th>password</th></tr>`` then ``<tr><td>bob</td>
<td>v</td></tr>`` kept its password (a fresh user's; the Markdown table of the same shape,
``| user | password |``, was read).

Each body cell under a header cell that names a secret is read as ``name: value`` (the
header's name inserted after the cell's opening tag, in the view only), so the name rules
judge the value as they judge a Markdown table's: a password's name takes a value with a
digit or a symbol, another a value that reads as generated (``<td>see vault</td>`` stays). A
header row is a ``<tr>`` whose cells are all ``<th>``; it holds until the next header row or
the table's end. Rows and cells are found by bounded patterns, each once (linear time).
Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vault_sync.sanitize.rendered import Edit

#: A row's or a cell's opening tag, and a table's end.
_TAG = re.compile(r"<(tr|td|th|/table)(?:[ \t\r\n][^<>]{0,256})?>", re.IGNORECASE)
#: A header cell's end: its closing tag, or the next cell's or row's opening one; looked
#: for in at most :data:`_HEADER_READ` characters.
_CELL_END = re.compile(r"</t[dh]>|<t[dhr][ \t\r\n>]|</tr>", re.IGNORECASE)
_HEADER_READ = 192
#: Markup around a header's text (``<b>``, ``**``): dropped before it is judged.
_INNER_TAG = re.compile(r"</?[a-z][^<>]{0,64}>", re.IGNORECASE)


def html_table_edits(
    text: str, edits: list[Edit], header_name: Callable[[str], str | None]
) -> None:
    """Add the edits that label each body cell under a secret-named header cell.

    Args:
        text: the page text (holds ``<th``, any case).
        edits: where to add ``(start, end, replacement)`` edits (insertions: start == end).
        header_name: the name a header cell's text gives its column (``"password"``,
            ``"secret"``), or ``None`` for a cell that names no secret.
    """
    rows: list[list[tuple[str, int]]] = []  # per row: (cell kind, end of its opening tag)
    for m in _TAG.finditer(text):
        kind = m.group(1).lower()
        if kind == "tr":
            rows.append([])
        elif kind == "/table":
            rows.append([])  # a table's end: no header holds past it
            _label_rows(text, rows, edits, header_name)
            rows = []
        elif rows:
            rows[-1].append((kind, m.end()))
    _label_rows(text, rows, edits, header_name)


def _label_rows(
    text: str,
    rows: list[list[tuple[str, int]]],
    edits: list[Edit],
    header_name: Callable[[str], str | None],
) -> None:
    """The edits of one table's ``rows`` (a header row's names hold for the rows below)."""
    names: dict[int, str] = {}
    for cells in rows:
        if cells and all(kind == "th" for kind, _ in cells):
            names = {}
            for column, (_, at) in enumerate(cells):
                stop = _CELL_END.search(text, at, min(len(text), at + _HEADER_READ))
                raw = text[at : stop.start()] if stop else ""
                name = header_name(_INNER_TAG.sub("", raw).strip(" \t\r\n*_`:"))
                if name is not None:
                    names[column] = name
            continue
        for column, (kind, at) in enumerate(cells):
            if kind == "td" and column in names:
                edits.append((at, at, f"{names[column]}: "))
