"""A secret found once is hidden everywhere on its page (issue 17, DESIGN Invariant 6).

The sanitizer finds a secret where its format or its name shows it. The same value can sit
elsewhere on the page where neither shows (a password redacted on its ``PASSWORD=`` line and
repeated in prose), and every field derived from the page text (a title clamped to 512
characters, tags split on whitespace, a link target, an alias) may hold a piece of it that no
pattern recognises any more. :class:`FoundValues` holds the values found on one page and hides
them — whole, or any piece of :data:`PIECE` characters or more — in any text of that page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from vault_sync.sanitize import Finding
from vault_sync.sanitize.repeats import MIN_VALUE, generated, values_of

#: Shortest piece of a longer value hidden in a derived field: a cut-off or split-off part of
#: a secret (the leak audit looks for pieces of 12 characters).
PIECE = 10
#: What a piece is extended over, so no cut-off end of a secret stays beside its token.
_TOKEN_CHARS = re.compile(r"[^\s\[\]|#^\"'`<>(){},;]*")
#: Up to this many found values, each is searched for in a text by ``str.replace`` (C speed);
#: past it, one pass over the text looks each position up by its first :data:`MIN_VALUE`
#: characters: a value each searched for in each field cost O(values x text), and a page of
#: 4,000 ``## TOKEN=…`` lines (230 KB) took 1.5 s to clean, growing with its square.
SEARCHED = 16


class FoundValues:
    """The secret values found on one page, to hide in every text of that page.

    Args:
        text: the page text the findings were made on.
        findings: the sanitizer's findings on ``text``.
    """

    def __init__(self, text: str, findings: Sequence[Finding]) -> None:
        self.whole: dict[str, str] = values_of(text, findings)  # the values as found
        self.pieces: dict[str, str] = {}
        for value, label in self.whole.items():
            if not generated(value) or any(c.isspace() for c in value):
                continue  # a PEM block's pieces come from its base64 lines, not its header
            for i in range(len(value) - PIECE + 1):
                piece = value[i : i + PIECE]
                if not piece.isspace():
                    self.pieces.setdefault(piece.lower(), label)
        self._order = sorted(self.whole, key=len, reverse=True)
        self._by_head: dict[str, list[str]] = {}
        for secret in self._order:  # longest first under each head
            self._by_head.setdefault(secret[:MIN_VALUE], []).append(secret)

    def hide(self, value: str, *, pieces: bool = True) -> str:
        """``value`` with every found value redacted, and (``pieces``) every piece of one:
        for fields derived from the text (cut, split, normalised), not for the body itself.
        Linear in ``len(value)`` whatever the number of found values (:data:`SEARCHED`)."""
        if not self.whole or not value:
            return value
        if len(self._order) <= SEARCHED:
            for secret in self._order:
                if secret in value:
                    value = value.replace(secret, f"[REDACTED:{self.whole[secret]}]")
        else:
            value = self._hide_in_one_pass(value)
        if not pieces or len(value) < PIECE:
            return value
        return self._hide_pieces(value)

    def _hide_in_one_pass(self, value: str) -> str:
        """Every found value in ``value`` redacted, leftmost first, the longest at each place:
        each position looked up by its first :data:`MIN_VALUE` characters."""
        parts: list[str] = []
        pos = i = 0
        last = len(value) - MIN_VALUE
        get = self._by_head.get
        while i <= last:
            for secret in get(value[i : i + MIN_VALUE], ()):
                if value.startswith(secret, i):
                    parts += (value[pos:i], f"[REDACTED:{self.whole[secret]}]")
                    i = pos = i + len(secret)
                    break
            else:
                i += 1
        return "".join(parts) + value[pos:] if parts else value

    def _hide_pieces(self, value: str) -> str:
        low = value.lower()
        spans: list[tuple[int, int, str]] = []
        i, last = 0, len(value) - PIECE
        while i <= last:
            label = self.pieces.get(low[i : i + PIECE])
            if label is None:
                i += 1
                continue
            end = i + PIECE
            while end < len(value) and low[end - PIECE + 1 : end + 1] in self.pieces:
                end += 1
            start = i
            while start > 0 and value[start - 1] not in " \t\r\n[]|#^\"'`<>(){},;":
                start -= 1
            stretch = _TOKEN_CHARS.match(value, end)
            end = stretch.end() if stretch else end
            if spans and start <= spans[-1][1]:
                start = spans.pop()[0]
            spans.append((start, end, label))
            i = end
        if not spans:
            return value
        parts: list[str] = []
        pos = 0
        for start, end, label in spans:
            parts.append(value[pos:start])
            parts.append(f"[REDACTED:{label}]")
            pos = end
        parts.append(value[pos:])
        return "".join(parts)
