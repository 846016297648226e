"""URL-encoded secrets, for the sanitizer: ``%2B``, ``%2F``, ``%3D`` inside a value.

A token pasted from a URL, a form body or a log keeps its percent-encoding (RFC 3986 §2.1):
``token=Zm9vYmFy%2BYmF6%2FcXV4%3D`` is the base64 ``Zm9vYmFy+YmF6/cXV4=``, and
``secret: %2Fabc%2Bdef…`` was judged as written — a value starting with ``%`` read as a
Windows ``%VAR%`` placeholder, and no vendor body allows ``%``. :func:`percent_view` is the
text with each run of percent-escapes of printable ASCII (``%21``-``%7E``, not the blank
``%20``) decoded where the run touches an ASCII letter or digit (inside a would-be token), a
:class:`~.rendered.View` mapped back to the raw text: the rules judge the decoded value, and
what they find is redacted in the raw text, escapes and all. ``None`` (no view) for a text
without such a run (one ``in`` scan). Linear: one regex pass. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.sanitize.rendered import Edit, View, edited_view

#: A run of percent-escapes of printable ASCII but the blank, not after a ``%``: ``%%`` is no
#: escape (``%%26`` closing an Obsidian ``%%…%%`` comment glued to a token's second half was
#: decoded to ``%&``, so the markup view no longer saw the comment: the full leak audit).
_ESCAPES = re.compile(r"(?<!%)(?:%(?:2[1-9A-Fa-f]|[3-6][0-9A-Fa-f]|7[0-9A-Ea-e])){1,256}")


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def percent_view(text: str) -> View | None:
    """``text`` with each run of percent-escapes inside a would-be token decoded (the module
    docstring), or ``None`` when it holds none."""
    if "%" not in text:
        return None
    edits: list[Edit] = []
    for m in _ESCAPES.finditer(text):
        start, end = m.span()
        if not ((start and _alnum(text[start - 1])) or (end < len(text) and _alnum(text[end]))):
            continue  # `100%` then prose, `%2F` alone: not inside a token
        raw = m.group()
        edits.append(
            (start, end, "".join(chr(int(raw[i + 1 : i + 3], 16)) for i in range(0, len(raw), 3)))
        )
    return edited_view(text, edits)
