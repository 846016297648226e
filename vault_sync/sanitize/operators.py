"""A name's operator written in two more ways, for the sanitizer (fresh-user report 5,
findings 2 and 3): a Dataview inline field and a no-break space before the colon.

The name rules (:mod:`.names`, :mod:`.pairs`, :mod:`.labelled`) read ``name: value``. Two
spellings of that colon kept their value:

- a Dataview inline field (blacksmithgu.github.io/obsidian-dataview, "Adding Metadata":
  ``key:: value``, on its own line, in a list item, or bracketed ``[key:: value]`` /
  ``(key:: value)``), with the space after ``::`` the documentation writes (and blanks
  before it: ``Password :: value``, recheck 5). The rules read
  the first ``:`` as the operator and ``: value`` as the value, which no gate passes. The
  view drops the first colon of a ``::`` that follows a name character and is followed by a
  blank, so every rule that reads ``key: v`` reads ``key:: v`` too (``key::v`` already was);
- French typography: a no-break space (U+00A0) or narrow no-break space (U+202F, U+2007)
  before (or after) the colon, ``Mot de passe\\u202f: X``, which French keyboards and
  autocorrect type. The view writes an ordinary space for each one touching a ``:`` or
  ``：`` (and for an ideographic space, U+3000, which CJK input methods type);
- an arrow as the operator (``password → X``, ``⇒``, ``⟶``; recheck 5), read as ``:``.

:func:`operator_view` is the text with both rewritten (a :class:`~.rendered.View` mapped
back to the raw text: a value found there is redacted in the raw text, the ``::`` and the
no-break space left); ``None`` when the text holds neither (two ``in`` scans and a set
test). Linear: one bounded regex pass each. Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.sanitize.rendered import Edit, View, edited_view

#: A Dataview field's ``::`` after a name (a letter, digit, ``_``, ``-``, ``*``, ``"``, a
#: non-ASCII letter), at most two blanks between (``Password :: X``, which Dataview reads
#: too), and before a blank: the blanks and the first colon are dropped.
_DATAVIEW = re.compile(r"(?<=[\w*\"'`-])[ \t]{0,2}:(?=:[ \t])")
#: No-break spaces touching a colon (ASCII or full-width).
_NO_BREAK = re.compile(
    r"[\u00a0\u202f\u2007\u3000]{1,8}(?=[ \t]{0,4}[:\uff1a])"
    r"|(?<=[:\uff1a])[\u00a0\u202f\u2007\u3000]{1,8}"
)
_NO_BREAK_CHARS = ("\u00a0", "\u202f", "\u2007", "\u3000")
#: An arrow as a name's operator (``password → X``), after a name character: read as ``:``.
_ARROW = re.compile(r"(?<=[\w*\"'`)-])[ \t]{0,2}[\u2192\u21d2\u27f6](?=[ \t]{0,4}\S)")
_ARROWS = ("\u2192", "\u21d2", "\u27f6")


def operator_view(text: str) -> View | None:
    """``text`` with a Dataview ``key:: value`` read as ``key: value`` and no-break spaces
    by a colon read as spaces (the module docstring), mapped back to ``text``; ``None`` when
    it has neither.

    Args:
        text: any text.
    """
    edits: list[Edit] = []
    if ":: " in text or "::\t" in text:
        edits.extend((m.start(), m.end(), "") for m in _DATAVIEW.finditer(text))
    if not text.isascii() and any(c in text for c in _NO_BREAK_CHARS):
        for m in _NO_BREAK.finditer(text):
            edits.append((m.start(), m.end(), " " * (m.end() - m.start())))
    if not text.isascii() and any(c in text for c in _ARROWS):
        edits.extend((m.start(), m.end(), ":") for m in _ARROW.finditer(text))
    return edited_view(text, edits)
