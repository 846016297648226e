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
    kept): the whole value when it has :data:`MIN_VALUE`+ characters, and each of its
    parts (:data:`_LINE_PARTS`) that reads as generated (a PEM block's base64 lines)."""
    if len(value) < MIN_VALUE:
        return
    values.setdefault(value, label)
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
    order = sorted(values, key=len, reverse=True)
    for value in order:
        label = values[value]
        for start, end in _places(text, view, value):
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


def _places(text: str, view: View | Chain | None, value: str) -> list[tuple[int, int]]:
    """Raw ``(start, end)`` of each occurrence of ``value`` in ``text`` and in ``view``."""
    out: list[tuple[int, int]] = []
    i = text.find(value)
    while i >= 0:
        out.append((i, i + len(value)))
        i = text.find(value, i + len(value))
    if view is not None:
        i = view.text.find(value)
        while i >= 0:
            out.extend(view.pieces(i, i + len(value)))
            i = view.text.find(value, i + len(value))
    return out
