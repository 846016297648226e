"""A secret found once is redacted wherever it repeats (issue 17; fresh-user report, kind 2).

A rule finds a secret where its format or its name shows it (``password: Zq8!vLm2#Rt5``); the
same value elsewhere (``echo Zq8!vLm2#Rt5``) shows neither, yet it is the same secret. So the
values of a text's findings are looked for again in the whole text — and, for texts that
belong together (one command's arguments, one transcript), in all of them — and every other
place one occurs becomes a finding of the same label. This is part of what
:meth:`~vault_sync.sanitize.Scrubber.scrub` returns, so every caller (sync, every write
command, ``import-session``, ``redact --write``, MCP) removes every copy, not only the one a
rule saw. Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from vault_sync.sanitize.overlaps import Finding, Spans, trim
from vault_sync.sanitize.rendered import Chain, View
from vault_sync.sanitize.rule import TOKEN_RE

#: Shortest value looked for again (issue 17: 8 characters or more; shorter ones are too
#: likely to be ordinary words or numbers elsewhere on the page).
MIN_VALUE = 8
#: The parts of a value looked for on their own: split at blanks, quotes and ``:`` (a PEM
#: block's lines; the password of ``curl -u user:password``, echoed elsewhere without its user).
_LINE_PARTS = re.compile(r"[^\s\"'`:]+")


def generated(part: str) -> bool:
    """A part of a value that reads as generated: a digit, or 16+ characters of mixed case
    (``-----BEGIN`` and ``PRIVATE`` do not)."""
    return any(c.isdigit() for c in part) or (
        len(part) >= 16 and any(c.isupper() for c in part) and any(c.islower() for c in part)
    )


def add_values(values: dict[str, str], value: str, label: str) -> None:
    """Add a found ``value`` (``label``) to ``values`` (``{value: label}``, the first label
    kept): the whole value when it has :data:`MIN_VALUE`+ characters (and without the
    emphasis markers around it), and each of its parts (:data:`_LINE_PARTS`) that reads as
    generated (a PEM block's base64 lines)."""
    if len(value) < MIN_VALUE:
        return
    values.setdefault(value, label)
    bare = value.strip("*_~=")  # `**X**` after a bold label: X repeats without its markers
    if bare != value and len(bare) >= MIN_VALUE:
        values.setdefault(bare, label)
    for part in _LINE_PARTS.findall(value):
        if len(part) >= MIN_VALUE and part != value and generated(part):
            values.setdefault(part, label)


def values_of(text: str, findings: Iterable[Finding]) -> dict[str, str]:
    """``{value: label}`` of the findings on ``text`` (:func:`add_values`)."""
    values: dict[str, str] = {}
    for f in findings:
        add_values(values, text[f.start : f.end], f.label)
    return values


def with_repeats(
    text: str, view: View | Chain | None, values: dict[str, str], findings: Sequence[Finding]
) -> tuple[Finding, ...]:
    """``findings`` plus every other place in ``text`` (or in its rendered ``view``, mapped
    back) where one of ``values`` occurs, labelled as that value; sorted, not overlapping.

    Longer values first; a place that overlaps a finding already made adds only its parts
    outside it that hold a letter or digit (as :mod:`.overlaps` does), so every copy of a value
    ends up redacted. Our own ``[REDACTED:…]`` tokens are never redacted over. Linear in the
    text per value (``str.find``); values are few (only pages with findings have any).
    """
    if not values:
        return tuple(findings)
    taken = Spans(len(text))
    for f in findings:
        taken.add(f.start, f.end)
    if "[REDACTED:" in text:
        for m in TOKEN_RE.finditer(text):
            taken.add(*m.span())
    out = list(findings)
    for start, end, value in _occurrences(text, view, values):
        label = values[value]
        if not taken.overlaps(start, end):
            taken.add(start, end)
            out.append(Finding(label, start, end))
            continue
        for gap in taken.gaps(start, end):
            piece = trim(text, *gap)
            taken.add(*gap)
            if piece is not None:
                out.append(Finding(label, *piece))
    out.sort(key=lambda f: f.start)
    return tuple(out)


#: Up to this many values, each is searched for by ``str.find`` (C speed); past it, one pass
#: over the text looks each position up by its first :data:`MIN_VALUE` characters, so a page
#: of thousands of ``TOKEN=…`` lines costs O(text), not O(values x text) (as
#: :class:`vault_sync.secret_values.FoundValues` does).
SEARCHED = 16


def _occurrences(
    text: str, view: View | Chain | None, values: dict[str, str]
) -> list[tuple[int, int, str]]:
    """Raw ``(start, end, value)`` of each occurrence of a value in ``text`` and in ``view``
    (mapped back, piece by piece): longer values first when searched one by one, else in
    text order, the longest at each place."""
    texts = [(text, None)] if view is None else [(text, None), (view.text, view)]
    out: list[tuple[int, int, str]] = []
    for where, through in texts:
        for start, end, value in _found_in(where, values):
            spans = [(start, end)] if through is None else through.pieces(start, end)
            out.extend((a, b, value) for a, b in spans)
    return out


def _found_in(text: str, values: dict[str, str]) -> list[tuple[int, int, str]]:
    """``(start, end, value)`` of each occurrence of one of ``values`` in ``text``."""
    out: list[tuple[int, int, str]] = []
    if len(values) <= SEARCHED:
        for value in sorted(values, key=len, reverse=True):
            i = text.find(value)
            while i >= 0:
                out.append((i, i + len(value), value))
                i = text.find(value, i + len(value))
        return out
    by_head: dict[str, list[str]] = {}
    for value in sorted(values, key=len, reverse=True):
        by_head.setdefault(value[:MIN_VALUE], []).append(value)
    get = by_head.get
    i, last = 0, len(text) - MIN_VALUE
    while i <= last:
        for value in get(text[i : i + MIN_VALUE], ()):
            if text.startswith(value, i):
                out.append((i, i + len(value), value))
                i += len(value)
                break
        else:
            i += 1
    return out
