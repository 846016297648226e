"""Linear-time regexes for patterns a user writes (``[sanitize] extra_patterns`` and ``allow``).

Python's ``re`` backtracks: ``(a+)+$`` on 32 ``a`` and a ``b`` runs for hours (issue 14
fault 6). Patterns from the config are therefore compiled with RE2 (``google-re2``, Google's
automaton-based engine), which matches in time linear in the text whatever the pattern, and
refuses what it cannot do in linear time: backreferences (``\\1``), lookaround (``(?=…)``,
``(?<!…)``), possessive repeats and atomic groups. Syntax: github.com/google/re2/wiki/Syntax
(mostly Python's; ``\\Z`` is written ``\\z``, and ``$`` means the end of the text unless
``(?m)``).

:func:`compile_linear` compiles; :meth:`LinearPattern.spans` yields each match's span and its
``secret`` group's span, as offsets into the ``str`` searched (RE2 works on UTF-8 bytes; the
offsets are mapped back in one pass, so the whole search stays linear).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import re2

Span = tuple[int, int]

#: RE2's memory budget per compiled pattern, in bytes (its default, 8 MiB): a pattern whose
#: automaton needs more (``(a{1000}){1000}``) is refused at compile time.
MAX_MEM_BYTES = 8 << 20

#: The group whose text is redacted when a pattern has one (else the whole match).
SECRET_GROUP = "secret"


class LinearPattern:
    """One compiled RE2 pattern.

    Args:
        pattern: RE2 syntax (see the module docstring).

    Raises:
        ValueError: RE2 cannot compile the pattern (a syntax error, or a construct it cannot
            match in linear time); the message is RE2's, one line.
    """

    def __init__(self, pattern: str) -> None:
        options = re2.Options()
        options.max_mem = MAX_MEM_BYTES
        options.log_errors = False
        try:
            self._regex: Any = re2.compile(pattern, options)
        except re2.error as exc:
            raw = exc.args[0] if exc.args else ""
            message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            raise ValueError(" ".join(message.split()) or "invalid pattern") from exc
        self.pattern = pattern
        self._group: int = self._regex.groupindex.get(SECRET_GROUP, 0)

    @property
    def has_secret_group(self) -> bool:
        """Whether the pattern has a group named ``secret``."""
        return self._group != 0

    def spans(self, text: str) -> Iterator[tuple[Span, Span]]:
        """Every non-overlapping match, left to right.

        Args:
            text: any ``str`` (lone surrogates included).

        Yields:
            ``(match span, secret span)`` as ``[start, end)`` character offsets into ``text``;
            the secret span is the ``secret`` group's (``(-1, -1)`` when that group did not
            take part in the match), else the match's own. Empty matches are skipped.
        """
        data = text.encode("utf-8", "surrogatepass")
        ascii_only = len(data) == len(text)
        last_byte = last_char = 0
        for m in self._regex.finditer(data):
            whole, secret = m.span(), m.span(self._group)
            if whole[0] == whole[1]:
                continue  # redacts nothing; and RE2 tries one at each byte, inside a character
            if ascii_only:
                yield whole, secret
                continue
            chars: dict[int, int] = {}
            for offset in sorted({*whole, *secret} - {-1}):  # ascending, each >= last_byte
                last_char += len(data[last_byte:offset].decode("utf-8", "surrogatepass"))
                last_byte = offset
                chars[offset] = last_char
            yield (
                (chars[whole[0]], chars[whole[1]]),
                (chars.get(secret[0], -1), chars.get(secret[1], -1)),
            )


def compile_linear(pattern: str) -> LinearPattern:
    """Compile ``pattern`` with RE2 (see :class:`LinearPattern`; raises ``ValueError``)."""
    return LinearPattern(pattern)


#: Ordinary words a pattern for secrets has no business matching all of: one that matches
#: inside each would redact ordinary prose (``\w+``, ``.+``, ``[a-z0-9]+``).
PLAIN_WORDS = ("the", "Note", "2024", "über")


def too_broad(pattern: LinearPattern) -> str | None:
    """Why a pattern for secrets would redact what is no secret, or ``None``: it matches the
    empty string (``a*``: a match at every position of every text), or inside each of
    :data:`PLAIN_WORDS` (it would redact every page's prose)."""
    if any(True for _ in pattern._regex.finditer(b"")):
        return "matches the empty string (a match at every position of every page)"
    if all(any(True for _ in pattern.spans(word)) for word in PLAIN_WORDS):
        return f"matches any text (each of {', '.join(PLAIN_WORDS)}): it would redact every page"
    return None
