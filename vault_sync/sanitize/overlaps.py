"""Overlap resolution: candidates (rule matches) -> findings, by precedence (DESIGN §8).

Where two candidates overlap, the earlier label wins, then the longer match; the loser keeps
only the parts outside the winner that still hold a letter or digit, so precedence decides the
label but never un-redacts anything. Our own ``[REDACTED:…]`` tokens and allowed spans are
taken first, so nothing redacts over them. Linear: taken offsets are a bitmap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vault_sync.sanitize.rule import TOKEN_RE, Span


@dataclass(frozen=True)
class Finding:
    """One redaction: ``label`` and the ``[start, end)`` offsets of the secret in the input.

    Attributes:
        label: one of :func:`~vault_sync.sanitize.labels`.
        start: offset of the first redacted character in the input text.
        end: offset just past the last redacted character in the input text.
    """

    label: str
    start: int
    end: int


class Spans:
    """Taken ``[start, end)`` offsets of a text, as a bitmap: marking and querying a span cost
    O(its length) in C, so many overlapping candidates stay linear (a sorted list with
    inserts would not)."""

    def __init__(self, size: int) -> None:
        self.bits = bytearray(size)

    def add(self, start: int, end: int) -> None:
        self.bits[start:end] = b"\x01" * (end - start)

    def overlaps(self, start: int, end: int) -> bool:
        return self.bits.find(1, start, end) >= 0

    def gaps(self, start: int, end: int) -> list[Span]:
        """Parts of ``[start, end)`` not taken."""
        out: list[Span] = []
        pos = self.bits.find(0, start, end)
        while pos >= 0:
            stop = self.bits.find(1, pos, end)
            stop = end if stop < 0 else stop
            out.append((pos, stop))
            pos = self.bits.find(0, stop, end) if stop < end else -1
        return out


@dataclass(frozen=True)
class Candidate:
    """A match before precedence: redacted span, label, and the whole match as context."""

    rank: int
    start: int
    end: int
    label: str
    context: Span


def _covered(start: int, end: int, spans: list[Span]) -> bool:
    """Whether ``[start, end)`` lies wholly inside one of ``spans``."""
    return any(a <= start and end <= b for a, b in spans)


def trim(text: str, start: int, end: int) -> Span | None:
    """Shrink a leftover piece to its letters and digits; None if it has none."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None


def resolve(
    text: str, candidates: list[Candidate], allow: Callable[[str], list[Span]] | None = None
) -> tuple[Finding, ...]:
    """Apply protection (own tokens, allow) and precedence to ``candidates``.

    Args:
        text: the text the candidates were found in.
        candidates: every rule match, in the order found.
        allow: the allowed spans of a text (config ``sanitize.allow``), or ``None``.

    Returns:
        The findings, sorted by offset: a candidate lying wholly inside an allowed span, or
        whose match reads one of our own tokens, is dropped; the rest by precedence.
    """
    own = [m.span() for m in TOKEN_RE.finditer(text)] if "[REDACTED:" in text else []
    if own:  # a match that reads any of our own tokens, even as context, is ignored
        tokens = Spans(len(text))
        for span in own:
            tokens.add(*span)
        candidates = [c for c in candidates if not tokens.overlaps(*c.context)]
    spans = allow(text) if candidates and allow is not None else []
    allowed = [(c.start, c.end) for c in candidates if _covered(c.start, c.end, spans)]
    taken = Spans(len(text))
    for span in own + allowed:
        taken.add(*span)
    found: list[Finding] = []
    for c in sorted(candidates, key=lambda c: (c.rank, c.start - c.end, c.start)):
        if not taken.overlaps(c.start, c.end):
            taken.add(c.start, c.end)
            found.append(Finding(c.label, c.start, c.end))
            continue
        for gap in taken.gaps(c.start, c.end):  # the loser keeps what the winner left
            piece = trim(text, *gap)
            taken.add(*gap)  # punctuation trimmed off is settled too (keeps the map whole)
            if piece is not None:
                found.append(Finding(c.label, *piece))
    found.sort(key=lambda f: f.start)
    return tuple(found)
