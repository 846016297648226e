"""A secret's name and its value apart on the page, for the sanitizer: a backslash line
continuation between them, or the name in a table's header row and the value below it.

The name rules (:mod:`.names`) read a value after its name on the same line. Two layouts kept
their value (audit of issue 17's leftovers):

- a backslash line continuation (Dockerfile ``ENV``, a shell line): ``ENV DB_PASSWORD \\``
  then the value on the next line, ``ENV DB_PASSWORD=\\`` likewise, or a value cut in two
  (``API_TOKEN=Kd8f\\`` then ``Lq2x…``). Docker and the shell read the lines as one; where a
  line ending in ``\\`` ends with a name of a secret (:data:`_NAMED_TAIL`: its word, then
  ``=``, ``:`` or blanks, then perhaps the start of the value), the view joins it to the next
  (the ``\\``, the line break and the next line's indent dropped). A ``\\`` ending any other
  line (a Markdown hard break, a command's other options) is left;
- a Markdown table whose header row names a secret (``| user | password |``, ``| API key
  |``, ``| Token |``; an HTML one: :mod:`.htmltables`) above a delimiter row: each body
  row's cell in that column is rewritten to ``| password: value |`` (the header's name,
  read as the name rules read it: a password's name takes a value with a digit or a symbol,
  another a value that reads as generated), so ``| stripe | see vault |`` stays. A column
  named only ``Key`` (a settings table's names) or a public key's name (``Primary key``,
  ``Public key``, ``Sort key``) is none.

:func:`layout_view` is the text with both rewritten, a :class:`~.rendered.View` mapped back
to the raw text (a value found there is redacted in the raw text, the ``\\`` and the cell's
pipes left). A typed query's lines are joined: there ``\\`` then blanks is a continuation
too, and a table flattened onto one line (``| Token | | --- | | X |``) is cut back into its
rows. ``None`` when the text has neither (a few ``in`` scans: ``\\``, a delimiter row's
``-|``, ``|-``…). Linear: each line is read once; each pattern is bounded, and a
continuation's name is looked for in at most :data:`_TAIL` characters before it. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.sanitize.htmltables import html_table_edits
from vault_sync.sanitize.rendered import Edit, View, edited_view

#: How much of a continued line is read back from its ``\\``.
_TAIL = 320
#: The end of a line continued by ``\\``: a name holding a secret's word, then ``=``, ``:``
#: or blanks, then perhaps the first part of the value (glued to the ``\\``).
_NAMED_TAIL = re.compile(
    r"(?i:pass(?:w(?:or)?d|phrase)?|pwd|psk|key|token|secret|creds?|credentials?|salt|pepper)"
    r"[\w.-]{0,32}[\"']?(?:[ \t]{0,4}[=:][ \t]{0,4}|[ \t]{1,8})[\"']?[^\s\"'=\\]{0,256}\Z"
)
_CONTINUATION = re.compile(r"\\(?:\r?\n[ \t]{0,64}|[ \t]{1,64}(?=[^\s\\]))")


def _continuation_edits(text: str, edits: list[Edit]) -> None:
    """Join each line continued by ``\\`` after a secret's name to the next line (or, on a
    line, to what follows ``\\`` and blanks: the lines of a typed query are joined, and a
    shell reads ``\\ `` as an escaped blank before the value)."""
    for m in _CONTINUATION.finditer(text):
        start = m.start()
        if start and text[start - 1] == "\\":
            continue  # `\\` then a break: an escaped backslash, no continuation
        line = text.rfind("\n", max(0, start - _TAIL), start) + 1 or max(0, start - _TAIL)
        if _NAMED_TAIL.search(text, line, start):
            edits.append((start, m.end(), ""))


#: A table's delimiter row (GFM): cells of ``-`` with optional ``:`` between pipes.
_DELIMITER = re.compile(r"[ \t]{0,3}\|?(?:[ \t]{0,8}:?-{1,64}:?[ \t]{0,8}\|){1,64}[ \t]{0,8}")
_DELIMITER_LAST = re.compile(r"[ \t]{0,8}:?-{1,64}:?[ \t]{0,8}")
#: A header cell that names a secret, and the name the rules are shown for it.
_SECRET_HEADER = re.compile(
    r"(?i:(?:[\w.-]{1,32}[ _-])?(?:(pass(?:w(?:or)?d|phrase|code)?|pwd)"
    r"|(secret|tokens?|creds?|credentials?|salt|pepper|api[ _-]?key|apikey|(?:secret|access"
    r"|private|license|signing|encryption|master)[ _-]?key)))(?:[ \t]{0,2}\([^()]{0,32}\))?"
)
_CELL = re.compile(r"(?<!\\)\|")
#: What a delimiter row holds (one ``in`` scan each before any line is read).
_DELIMITER_MARKS = ("-|", "|-", "- |", "| -", ":|", "|:")


def _cells(line: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` of each cell of a table row ``line`` (between its pipes; the
    outer pipes optional)."""
    bars = [m.start() for m in _CELL.finditer(line)]
    pos = len(line) - len(line.lstrip(" \t"))
    if bars and bars[0] == pos:
        pos, bars = pos + 1, bars[1:]
    cells: list[tuple[int, int]] = []
    for bar in bars:
        cells.append((pos, bar))
        pos = bar + 1
    if line[pos:].strip(" \t\r"):
        cells.append((pos, len(line.rstrip("\r"))))
    return cells


def _header_name(cell: str) -> str | None:
    """The name a header cell's text gives its column: ``password`` (a password's word),
    ``secret`` (another secret's), or ``None``."""
    m = _SECRET_HEADER.fullmatch(cell)
    return None if m is None else "password" if m.group(1) else "secret"


def _header_names(line: str) -> dict[int, str]:
    """``{column: name}`` for each header cell of ``line`` that names a secret."""
    names: dict[int, str] = {}
    for column, (start, end) in enumerate(_cells(line)):
        name = _header_name(line[start:end].strip(" \t*_`"))
        if name is not None:
            names[column] = name
    return names


#: Where a table flattened onto one line (a typed query's lines are joined) starts a row: a
#: pipe, blanks, a pipe (``| Token | | --- | | X |``); looked for only on a line that holds
#: an inline delimiter row.
_ROW_BREAK = re.compile(r"\|[ \t]{1,8}(?=\|)")
_INLINE_DELIMITER = re.compile(r"\|[ \t]{1,8}\|[ \t]{0,8}:?-{3}|-{3}:?[ \t]{0,8}\|[ \t]{1,8}\|")


def _rows(text: str) -> tuple[list[str], list[int]]:
    """The text's rows and their offsets: its lines, each line holding a whole table
    flattened onto it cut into the rows it was made of."""
    lines: list[str] = []
    offsets: list[int] = []
    at = 0
    for line in text.split("\n"):
        start = 0
        if ("| |" in line or "|  |" in line) and _INLINE_DELIMITER.search(line):
            for m in _ROW_BREAK.finditer(line):
                lines.append(line[start : m.start() + 1])
                offsets.append(at + start)
                start = m.end()
        lines.append(line[start:])
        offsets.append(at + start)
        at += len(line) + 1
    return lines, offsets


#: A delimiter row on a line of its own (found by one search of the text, not line by line).
_DELIMITER_ROW = re.compile(
    r"^[ \t]{0,3}\|?(?:[ \t]{0,8}:?-{1,64}:?[ \t]{0,8}\|){1,64}(?:[ \t]{0,8}:?-{1,64}:?)?"
    r"[ \t]{0,8}\r?$",
    re.MULTILINE,
)


def _body_edits(
    lines: list[str], offsets: list[int], i: int, names: dict[int, str], edits: list[Edit]
) -> None:
    """The edits of the body rows from ``lines[i]`` on, under the header ``names``."""
    while i < len(lines) and "|" in lines[i]:
        for column, (start, end) in enumerate(_cells(lines[i])):
            if column in names:
                cell = lines[i][start:end]
                blank = len(cell) - len(cell.lstrip(" \t"))
                at = offsets[i] + start
                edits.append((at, at + blank, f" {names[column]}: "))
        i += 1


def _table_edits(text: str, edits: list[Edit]) -> None:
    """Each body cell under a header cell that names a secret, rewritten to ``name: value``:
    the header above each delimiter row is read only when it names a secret's word."""
    for m in _DELIMITER_ROW.finditer(text):
        head_end = m.start() - 1
        if head_end <= 0:
            continue
        head_start = text.rfind("\n", 0, head_end) + 1
        header = text[head_start:head_end]
        if "|" not in header or not _SECRET_HEADER.search(header):
            continue
        names = _header_names(header)
        pos = m.end() + 1
        while names and pos < len(text):  # the body rows, one at a time
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            if "|" not in text[pos:end]:
                break
            _body_edits([text[pos:end]], [pos], 0, names, edits)
            pos = end + 1
    if ("| |" in text or "|  |" in text) and _INLINE_DELIMITER.search(text):
        lines, offsets = _rows(text)  # a table flattened onto one line
        for i in range(1, len(lines)):
            if "|" in lines[i] and _is_delimiter(lines[i].rstrip("\r")):
                names = _header_names(lines[i - 1]) if "|" in lines[i - 1] else {}
                _body_edits(lines, offsets, i + 1, names, edits)


def _is_delimiter(row: str) -> bool:
    """Whether ``row`` is a table's delimiter row (``|---|:--:|``, ``--- | ---``)."""
    m = _DELIMITER.match(row)
    rest = row[m.end() :] if m else row
    return (m is not None and not rest.strip()) or (
        m is not None and _DELIMITER_LAST.fullmatch(rest) is not None
    )


def layout_view(text: str) -> View | None:
    """``text`` with continued lines after a secret's name joined and the cells under a
    secret-named table header labelled (the module docstring), or ``None`` when it has none."""
    edits: list[Edit] = []
    if "\\" in text:
        _continuation_edits(text, edits)
    if any(s in text for s in _DELIMITER_MARKS):
        _table_edits(text, edits)
    if "<th" in text or "<TH" in text or "<Th" in text:
        html_table_edits(text, edits, _header_name)
    return edited_view(text, sorted(set(edits)))
