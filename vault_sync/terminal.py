"""Text shown on a terminal: page text never drives the terminal (issue 16, item 4).

A page, a file name or a title may hold escape sequences — ECMA-48 (ISO 6429) control
functions: CSI (``ESC [`` … a final byte, colours and cursor moves), OSC (``ESC ]`` …
``BEL`` or ``ST``: window titles, hyperlinks, clipboard writes on some terminals), the string
controls DCS, SOS, PM and APC (``ESC P``/``X``/``^``/``_`` … ``ST``), two-byte escapes, and
their 8-bit C1 forms (U+0080-U+009F, ``\\x9b`` for CSI). Printed raw they can retitle a
window, hide text or plant a link; :func:`strip_controls` removes every such sequence whole,
so that what is left can be shown (or escaped) safely. Layer 0: no imports from the package.
"""

from __future__ import annotations

import re
import unicodedata

#: The sequences, in ECMA-48's grammar (5.4, 5.6, 8.3.89-8.3.143). A string control runs to
#: its terminator (BEL also ends OSC, as xterm accepts), or to the end of the text when it
#: is not closed (a terminal would swallow the rest too). Every alternative is a run of one
#: character class, so the scan is linear in the text's length.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI: parameters, intermediates, final byte
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC ... BEL or ST
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS SOS PM APC
    r"|\x1b[ -/]*[0-~]?"  # other escapes: ESC, intermediates, a final byte
    r"|[\x80-\x9f]"  # remaining C1 controls
)


#: The pattern, for other scans that drop these sequences (:mod:`vault_sync.plaintext`).
SEQUENCE_PATTERN = _SEQUENCE.pattern


def strip_controls(text: str) -> str:
    """``text`` without terminal control sequences (see the module docstring).

    Other control characters (a newline, a tab, NUL) are kept: callers decide how a line
    shows them. Linear time.
    """
    if "\x1b" not in text and not any("\x80" <= c <= "\x9f" for c in text):
        return text
    return _SEQUENCE.sub("", text)


def cells(char: str) -> int:
    """Terminal columns one character takes: 2 for East Asian wide and full-width ones (UAX
    #11), 0 for combining marks, else 1."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def fit_width(text: str, columns: int) -> str:
    """``text`` (one line) cut to ``columns`` terminal columns (:func:`cells`), ending with
    ``…`` when cut; returned as is when it fits or ``columns`` < 2."""
    if columns < 2 or len(text) <= columns // 2:  # fits whatever its characters' widths
        return text
    used = 0
    for at, char in enumerate(text):
        used += cells(char)
        if used > columns - 1:
            rest = sum(cells(c) for c in text[at:])
            return text if used - cells(char) + rest <= columns else text[:at] + "…"
    return text
