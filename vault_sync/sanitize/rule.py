"""What a scrubbing rule is: labels in precedence order, ``Rule``, spans and the token format.

The lowest module of :mod:`vault_sync.sanitize`: the vendor rules (:mod:`.vendor`, built from
the data table :mod:`vault_sync.secret_rules`), the name-keyed rules (:mod:`.names`) and the
structural ones (:mod:`.structural`) are all :class:`Rule` values, run by :mod:`.search`.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from vault_sync.secret_rules import vendor_labels

#: The structural labels, tried after every vendor label, in precedence order (DESIGN §8).
STRUCTURAL_LABELS: tuple[str, ...] = (
    "url_credentials",
    "auth_header",
    "bearer_token",
    "password_hash",
    "env_secret",
    "api_key",
    "cli_credentials",
    "seed_phrase",
    "kubernetes_secret",
    "credential_path",
    "custom",
)


@functools.cache
def labels() -> tuple[str, ...]:
    """Every label, in precedence order (DESIGN §8): vendor labels (``secret_formats.toml``)
    first, then :data:`STRUCTURAL_LABELS`; the earlier label wins an overlap."""
    return (*vendor_labels(), *STRUCTURAL_LABELS)


@functools.cache
def label_rank() -> dict[str, int]:
    """``{label: rank}``: a lower rank wins an overlap (:func:`labels`)."""
    return {label: rank for rank, label in enumerate(labels())}


#: A redaction token as written by :func:`scrub`; text inside one is never matched again.
TOKEN_RE = re.compile(r"\[REDACTED:[a-z_]{1,32}\]")


WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
WORD_DASH = WORD | {"-"}
ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

Span = tuple[int, int]
SpanFn = Callable[[str, "re.Match[str]"], "Span | None"]


class LazyPattern:
    """A regular expression compiled on its first :meth:`match`, not when made.

    A rule's regex runs only where one of its triggers occurs, and most of the ~200 built-in
    rules never fire in a given text: compiling all of them took ~20 ms of every process
    that scrubs (a ``reinforce``, a one-page ``sync``). The rows' patterns are checked to
    compile by ``tests/test_secret_rules.py``; ``compiled()`` compiles on demand.

    ``re.ASCII`` always: a token, a name and the boundary around them are ASCII, so the word,
    digit and space classes are the ASCII ones. With Unicode ones a token glued to a
    non-ASCII letter (``ghp_…です``, ``AIza…é``) failed its right boundary (a lookahead for
    no word character) and was left whole (found by a fresh user).

    Attributes:
        pattern: the pattern text (``re`` syntax).
        flags: ``re`` flags, besides ``re.ASCII``.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet; a race compiles it twice,
        harmlessly).

        Raises:
            re.error: the pattern does not compile.
        """
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags | re.ASCII)
        return self._compiled

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.match`` of the compiled pattern."""
        return (self._compiled or self.compiled()).match(text, pos, endpos)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"


@dataclass(frozen=True)
class Rule:
    """One pattern, tried only where one of its triggers occurs.

    Attributes:
        label: the label of what it finds.
        regex: matched (``regex.match``) at each trigger occurrence, not searched; a
            :class:`LazyPattern`, compiled when first matched.
        triggers: lowercase ASCII literals, each the start of a match of ``regex`` (found with
            ``bytes.find`` in a lowercased ASCII view: far cheaper than a regex scan,
            TECH-NOTES §9).
        span: checks a match and returns the span to redact, or ``None``.
        back: maps a trigger offset to where a match starts, for patterns whose literal is
            not their first character (default: the trigger offset itself).
        before: characters that may not precede a match (checked before the regex runs, so
            a run like ``eyJeyJeyJ…`` costs one attempt, not one per trigger).
        pre: a cheaper check of the text before the match start, run before the regex.
        dispatch: tried at the starts of long token-like runs (:mod:`.search`) instead of by a
            search of the whole text for each trigger (most vendor formats: 150 more
            substring scans per page would triple the cost of scrubbing).
        keyed: tried only at the vendor words of the name before an assigned value
            (:mod:`.search`), not by a search of the whole text for each trigger.
        spare: whether a match's text is a placeholder to leave (default
            :func:`~vault_sync.placeholders.too_regular`; a password's value has its own,
            :func:`~vault_sync.placeholders.password_placeholder`).
        bounded: the pattern ends with a right boundary (a negative lookahead); a match
            directly followed by one of our tokens is then refused, since the token may stand
            for text the boundary refused (the mirror of ``before`` and :func:`after_token`).
    """

    label: str
    regex: LazyPattern
    triggers: tuple[str, ...]
    span: SpanFn
    back: Callable[[str, int], int] | None = None
    before: frozenset[str] = frozenset()
    pre: Callable[[str, int], bool] | None = None
    dispatch: bool = False
    bounded: bool = False
    keyed: bool = False
    spare: Callable[[str], bool] | None = None


def whole(text: str, m: re.Match[str]) -> Span | None:
    """Redact the whole match."""
    return m.span()


def group(index: int, check: Callable[[str], bool] | None = None) -> SpanFn:
    """Redact one group, if its text passes ``check``."""

    def span(text: str, m: re.Match[str]) -> Span | None:
        value = m.group(index)
        if not value or (check is not None and not check(value)):
            return None
        return m.span(index)

    return span


def after_token(text: str, start: int) -> bool:
    """Whether ``start`` follows one of our own ``[REDACTED:…]`` tokens directly.

    Redacting turns the characters before a match into ``]``; a rule that refuses a match
    glued to a word must refuse it glued to a token too, or a second pass would find what the
    first pass rightly left (``…key.pgpass`` -> ``[REDACTED:openai_key].pgpass``): scrubbing
    must be idempotent (found by the long hypothesis run).
    """
    if not text.endswith("]", 0, start):
        return False
    opening = text.rfind("[REDACTED:", max(0, start - 45), start)
    return opening >= 0 and TOKEN_RE.fullmatch(text, opening, start) is not None


def cut_end(text: str, end: int) -> int:
    """Where to cut ``text`` to keep at most ``end`` characters without cutting inside one
    of our ``[REDACTED:…]`` tokens: ``end``, or the start of the token it falls inside (a
    title clamped to 60 characters showed ``[REDACTED:github_toke…``, which reads as neither
    the token nor text: found by a fresh user). Looks back at most one token's length."""
    opening = text.rfind("[REDACTED:", max(0, end - 44), end)
    if opening < 0:
        return end
    token = TOKEN_RE.match(text, opening)
    return opening if token is not None and token.end() > end else end


def before_token(text: str, end: int) -> bool:
    """Whether one of our own ``[REDACTED:…]`` tokens starts at ``end`` (see :class:`Rule`
    ``bounded``): ``AIza…-----BEGIN PRIVATE KEY-----`` keeps its key unredacted (glued to
    ``-``), so ``AIza…[REDACTED:private_key]`` must too (found by the hypothesis run)."""
    return text.startswith("[REDACTED:", end) and TOKEN_RE.match(text, end) is not None


def capped_end(rest: re.Pattern[str], text: str, start: int, end: int, cap: int) -> int:
    """Where a value read from ``start`` to ``end`` really ends: ``end``, or, when the rule
    read its cap of ``cap`` characters (bounded repeats keep each attempt linear), the end of
    the run of ``rest`` (one possessive character class, ``[…]*+``) after it — a longer
    secret is redacted whole, never cut (issue 14). Linear however many triggers share a
    long run: :mod:`.search` never tries a rule again inside its last span."""
    if end - start < cap:
        return end
    return rest.match(text, end).end()  # type: ignore[union-attr]
