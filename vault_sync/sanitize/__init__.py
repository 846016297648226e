"""Typed redaction: ``scrub(text) -> (text, findings)`` (DESIGN §8, Invariant 6).

Each secret is replaced by ``[REDACTED:<label>]``. A :class:`Finding` holds the label and the
offsets of the redacted span in the *input*, never the secret; callers turn offsets into lines
with :func:`line_of`.

Labels, in precedence order (:func:`labels`): vendor-specific formats first, then structural
shapes, then ``custom`` (config ``sanitize.extra_patterns``). Where two candidates overlap, the
earlier label wins, then the longer match; the loser keeps only the parts outside the winner
that still hold a letter or digit, so precedence decides the label but never un-redacts
anything. Examples:

- ``Authorization: Bearer ghp_…`` → ``Authorization: Bearer [REDACTED:github_token]`` (the
  header's credential is exactly the token, so ``auth_header`` has nothing left);
- ``https://deploy:ghp_…@github.com`` → ``https://[REDACTED:url_credentials]:[REDACTED:github_token]@github.com``;
- ``OPENAI_API_KEY="sk-…"`` → ``OPENAI_API_KEY="[REDACTED:openai_key]"``.

Config ``sanitize.allow`` entries (each used both as an RE2 regex, when it compiles, and as a
literal) protect what they cover: a candidate lying wholly inside an allow match is not
redacted, and no other candidate may redact over it either (so an allowed example token inside
an ``Authorization`` header stays whole). An allow match that only touches part of a candidate
does not protect it.

Properties (tested in ``tests/test_sanitize.py``): idempotent; never matches inside (or using the
text of) its own ``[REDACTED:…]`` tokens; never raises on ``str`` input (an invalid custom or
allow regex is skipped with a warning — ``load_config`` already rejects custom ones); linear
time: config patterns run on RE2 (:mod:`vault_sync.linear_regex`), and the built-in rules are
stdlib ``re`` patterns without nested quantifiers, every repeat bounded or possessive, and each
rule run only when one of its lowercase trigger literals occurs in the text (one cheap ``in``
scan per trigger, TECH-NOTES §9), so clean text costs a ``str.lower`` and a few substring
searches.

The package, lowest first: :mod:`.rule` (labels, :class:`~.rule.Rule`, the token format),
:mod:`.vendor` (the vendor rules, from the data table :mod:`vault_sync.secret_rules`),
:mod:`.names` (secrets known by the name before them), :mod:`.commands` (passwords given
to a command as an argument), :mod:`.structural` (URL, header,
manifest and key-file rules), :mod:`.overlaps` (precedence: candidates -> findings),
:mod:`.search` (where the built-in rules run), :mod:`.rendered` and :mod:`.markup` (the text
as read: escapes undone, markup and invisible characters dropped, wrapped vendor tokens
joined — rules run on it too, and a token found there has its raw pieces redacted),
:mod:`.repeats` (every other place a found value occurs is a finding too); this module:
:class:`Scrubber`, :func:`scrub`.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from vault_sync.sanitize.encoded import percent_view
from vault_sync.sanitize.labelled import label_view
from vault_sync.sanitize.layout import layout_view
from vault_sync.sanitize.markup import markup_view, wrap_view
from vault_sync.sanitize.nextline import nextline_view
from vault_sync.sanitize.operators import operator_view
from vault_sync.sanitize.overlaps import Candidate, Finding, Spans, resolve
from vault_sync.sanitize.rendered import Chain, View, rendered_view
from vault_sync.sanitize.repeats import add_values, values_of, with_repeats
from vault_sync.sanitize.rule import (
    STRUCTURAL_LABELS,
    TOKEN_RE,
    Span,
    cut_end,
    label_rank,
    labels,
)
from vault_sync.sanitize.search import builtin_candidates
from vault_sync.sanitize.spoken import spoken_view

if TYPE_CHECKING:
    from vault_sync.config import Config
    from vault_sync.linear_regex import LinearPattern

__all__ = [
    "STRUCTURAL_LABELS",
    "TOKEN_RE",
    "Finding",
    "Scrubber",
    "cut_end",
    "labels",
    "line_of",
    "lines_of",
    "scrub",
    "shared_scrubber",
]

logger = logging.getLogger(__name__)

#: Where a path glues words: each part after one is scrubbed as if it began the name. ``/``
#: too, and in every folder of the path, not only the file name (a folder named
#: ``keys-sk_live_…`` kept its key: found by a fresh user).
_NAME_GLUE = re.compile(r"[-_ ./]")
#: A page's extension, cut off for a second look at its path (:meth:`Scrubber.scrub_names`).
_PAGE_EXTENSION = re.compile(r"\.(?:md|markdown)\Z", re.IGNORECASE)


#: The view steps after :func:`~.markup.wrap_view`, in order (:func:`_view`).
_STEPS: tuple[Callable[[str], View | None], ...] = (
    *(rendered_view, operator_view, percent_view, nextline_view, spoken_view),
    *(layout_view, label_view, markup_view),
)


def _view(text: str, findings: tuple[Finding, ...]) -> View | Chain | None:
    """The text as read (:mod:`.markup`: wrapped vendor tokens joined — not after one of
    ``findings``, the raw text's; :mod:`.rendered`: escapes, references, full-width forms
    undone; :mod:`.encoded`: percent-escapes inside a token decoded; :mod:`.layout`: a name
    and its value apart joined; :mod:`.labelled`: labels
    written plainly; :mod:`.markup`: markup and invisible characters dropped as the plain-text
    views drop them), each step on the one before; ``None`` when no step changes a would-be token
    (the common case)."""
    views: list[View] = []
    wrapped = wrap_view(text, {f.end for f in findings})
    if wrapped is not None:
        views.append(wrapped)
    for step in _STEPS:
        view = step(views[-1].text if views else text)
        if view is not None:
            views.append(view)
    if not views:
        return None
    return views[0] if len(views) == 1 else Chain(tuple(views))


def _with_rendered(
    findings: tuple[Finding, ...], view: View | Chain, seen: tuple[Finding, ...]
) -> tuple[tuple[Finding, ...], list[Finding]]:
    """The raw text's findings plus those of its rendered view (:func:`_view`), each mapped
    to the raw pieces it is made of, less what a raw finding already covers (a name-keyed
    rule may see only the half of a value before the markup inside it: the rest is still
    redacted); sorted, not overlapping. Also the view findings that added something (their
    values are looked for again: :mod:`.repeats`)."""
    if not seen:
        return findings, []
    out = list(findings)
    kept: list[Finding] = []
    size = max((e for f in seen for _, e in view.pieces(f.start, f.end)), default=0)
    taken = Spans(max(size, max((f.end for f in findings), default=0)))
    for f in findings:
        taken.add(f.start, f.end)
    for f in seen:
        added = False
        for start, end in view.pieces(f.start, f.end):
            for gap in taken.gaps(start, end):
                taken.add(*gap)
                out.append(Finding(f.label, *gap))
                added = True
        if added:
            kept.append(f)
    return tuple(sorted(out, key=lambda f: f.start)), kept


def _redact_spans(name: str, found: list[Finding]) -> str:
    """``name`` with the union of ``found`` (findings of any of its parts, at offsets in the
    name: :meth:`Scrubber.scrub_names`) redacted: each run of overlapping findings is one
    token, labelled as the first (longest at its start). A secret found only in one glued
    part stays redacted beside one found only in another, or in the whole name (issue 14)."""
    merged: list[Finding] = []
    for f in sorted(found, key=lambda f: (f.start, -f.end)):
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.label, last.start, max(last.end, f.end))
        else:
            merged.append(f)
    parts: list[str] = []
    pos = 0
    for f in merged:
        parts += [name[pos : f.start], f"[REDACTED:{f.label}]"]
        pos = f.end
    parts.append(name[pos:])
    return "".join(parts)


def _applied(text: str, findings: tuple[Finding, ...]) -> tuple[str, tuple[Finding, ...]]:
    """``text`` with each of ``findings`` (sorted, not overlapping) replaced by its token."""
    if not findings:
        return text, ()
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.label}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), findings


def line_of(text: str, offset: int) -> int:
    """Return the 1-based line of ``offset`` in ``text`` (for mapping findings to file lines)."""
    return text.count("\n", 0, max(0, offset)) + 1


def lines_of(text: str, offsets: Sequence[int]) -> list[int]:
    """The 1-based lines of ``offsets`` in ``text``, in their order: :func:`line_of` of each,
    but each newline counted once (``line_of`` per finding counted from the start each time:
    O(findings x text), 4,000 findings on a 230 KB page cost 1 s)."""
    lines = [0] * len(offsets)
    at, line = 0, 1
    for i in sorted(range(len(offsets)), key=offsets.__getitem__):
        offset = max(0, offsets[i])
        if offset > at:
            line += text.count("\n", at, offset)
            at = offset
        lines[i] = line
    return lines


class Scrubber:
    """Scrubs text with the built-in rules plus a config's custom and allow patterns.

    Compile one per config and reuse it for every page: ``Scrubber.from_config(cfg).scrub(t)``.

    Args:
        extra_patterns: RE2 regexes (:mod:`vault_sync.linear_regex`: linear time, so a
            catastrophic pattern such as ``(a+)+$`` cannot hang a sync) redacted as ``custom``
            (the whole match, or the group named ``secret`` when the pattern has one). Ones
            RE2 refuses are skipped with a warning (``load_config`` already rejects them).
        allow: RE2 regexes or literals never redacted (see the module docstring); an entry
            RE2 cannot compile is a literal only.
    """

    def __init__(self, extra_patterns: Sequence[str] = (), allow: Sequence[str] = ()) -> None:
        self._custom = tuple(p for p in map(_compile, extra_patterns) if p is not None)
        self._allow_literals = tuple(a for a in allow if a)
        self._allow_regexes = tuple(p for p in map(_compile, self._allow_literals) if p)

    @classmethod
    def from_config(cls, config: Config) -> Scrubber:
        """The scrubber of ``config.sanitize_extra_patterns`` and ``config.sanitize_allow``,
        compiled once per process (:func:`shared_scrubber`): every caller (sync, ``status``,
        ``lint``, an echoed query) shares it."""
        return shared_scrubber(tuple(config.sanitize_extra_patterns), tuple(config.sanitize_allow))

    def scrub(self, text: str) -> tuple[str, tuple[Finding, ...]]:
        """Redact secrets in ``text``, each wherever its value repeats (:mod:`.repeats`).

        Args:
            text: any text.

        Returns:
            The text with each secret replaced by ``[REDACTED:<label>]``, and the findings
            sorted by offset (offsets into ``text``). Clean text is returned as is.
        """
        findings, view, values = self._found(text)
        return _applied(text, with_repeats(text, view, values, findings))

    def scrub_together(self, texts: Sequence[str]) -> list[tuple[str, tuple[Finding, ...]]]:
        """:meth:`scrub` each of ``texts`` that belong together (one command's arguments, one
        transcript's texts): a value found in any of them is redacted wherever it occurs in
        all of them (a password found in a tool's output, repeated in the command that made
        it).

        Returns:
            ``(scrubbed text, findings)`` per text, in order.
        """
        found = [self._found(text) for text in texts]
        values: dict[str, str] = {}
        for _, _, own in found:
            for value, label in own.items():
                values.setdefault(value, label)
        return [
            _applied(text, with_repeats(text, view, values, findings))
            for text, (findings, view, _) in zip(texts, found, strict=True)
        ]

    def _found(self, text: str) -> tuple[tuple[Finding, ...], View | Chain | None, dict[str, str]]:
        """The rules' findings on ``text`` and on its rendered view (mapped to ``text``), the
        view, and the values found (``{value: label}``: as written, and as rendered)."""
        allow = self._allow_spans if self._allow_literals else None
        candidates = self._candidates(text)
        findings = resolve(text, candidates, allow) if candidates else ()
        view = _view(text, findings)
        seen: list[Finding] = []
        if view is not None:
            found = resolve(view.text, self._candidates(view.text), allow)
            findings, seen = _with_rendered(findings, view, found)
        if not findings:
            return (), view, {}
        values = values_of(text, findings)
        if view is not None:
            for f in seen:
                add_values(values, view.text[f.start : f.end], f.label)
        return findings, view, values

    def scrub_names(self, names: Sequence[str]) -> dict[str, str]:
        """Find names (file paths) that hold a secret, in one pass over all of them.

        Args:
            names: names without newlines (vault-relative paths).

        Returns:
            ``{name: redacted name}`` for each name with a finding; clean names are left out.
        """
        # A path glues words with `-`, `_`, `.`, spaces or `/` (`notes-glpat-…`,
        # `keys-sk_live_…/note.md`): each part after one, in any folder, is also scrubbed on
        # its own, as if it began the name.
        # A page's path is scrubbed without its `.md` too: a value ending in a file
        # extension is spared after a password name (`password=Fo10sPX5zYKrh.md` kept its
        # password: fresh-user report 3).
        variants: list[tuple[int, int, int]] = []  # (name index, part start, part end)
        for index, name in enumerate(names):
            ends = [len(name)]
            page = _PAGE_EXTENSION.search(name)
            if page is not None:
                ends.append(page.start())
            for end in ends:
                variants.append((index, 0, end))
                variants.extend((index, m.end(), end) for m in _NAME_GLUE.finditer(name, 0, end))
        joined = "\n".join(names[i][at:end] for i, at, end in variants)
        _, findings = self.scrub(joined)
        if not findings:
            return {}
        starts = [0]
        for _i, at, end in variants:
            starts.append(starts[-1] + end - at + 1)
        by_name: dict[str, list[Finding]] = {}  # from all of a name's parts, at name offsets
        for f in findings:
            k = bisect.bisect_right(starts, f.start) - 1
            i, at, _end = variants[k]
            shift, name = at - starts[k], names[i]
            # a token whose rule takes dots (gitlab's `glpat-….01.…`) ran into `.md`: the
            # extension is no secret, and a path is shown with it (watch --json-log showed
            # `notes/[REDACTED:gitlab_token]`, a path no file has)
            page = _PAGE_EXTENSION.search(name)
            end = min(f.end + shift, page.start()) if page is not None else f.end + shift
            by_name.setdefault(name, []).append(Finding(f.label, f.start + shift, end))
        return {name: _redact_spans(name, found) for name, found in by_name.items()}

    def _candidates(self, text: str) -> list[Candidate]:
        """Every rule match whose checks pass, before overlaps are resolved."""
        out = builtin_candidates(text)
        rank = label_rank()["custom"]
        for pattern in self._custom:  # RE2: linear time whatever the user wrote
            for whole, (s, e) in pattern.spans(text):
                if s < e:
                    out.append(Candidate(rank, s, e, "custom", whole))
        return out

    def _allow_spans(self, text: str) -> list[Span]:
        """Spans of ``text`` the allow entries cover (each as a literal and as an RE2 regex)."""
        spans: list[Span] = []
        for literal in self._allow_literals:
            i = text.find(literal)
            while i >= 0:
                spans.append((i, i + len(literal)))
                i = text.find(literal, i + 1)
        for pattern in self._allow_regexes:
            spans.extend(whole for whole, _ in pattern.spans(text) if whole[1] > whole[0])
        return spans


def _compile(pattern: str) -> LinearPattern | None:
    """A config pattern, compiled with RE2 (linear time, issue 14); ``None`` if RE2 refuses it."""
    from vault_sync.linear_regex import compile_linear  # RE2 loads only when patterns exist

    try:
        return compile_linear(pattern)
    except ValueError as exc:
        logger.warning("sanitize: skipping invalid pattern %r: %s", pattern, exc)
        return None


@functools.lru_cache(maxsize=32)
def shared_scrubber(extra_patterns: tuple[str, ...], allow: tuple[str, ...]) -> Scrubber:
    """The :class:`Scrubber` of these patterns, compiled once per process (cached)."""
    return Scrubber(extra_patterns, allow)


def scrub(
    text: str, *, extra_patterns: Sequence[str] = (), allow: Sequence[str] = ()
) -> tuple[str, tuple[Finding, ...]]:
    """Replace each secret in ``text`` with ``[REDACTED:<label>]`` (DESIGN §8).

    Args:
        text: any text.
        extra_patterns: RE2 regexes redacted as ``custom`` (see :class:`Scrubber`).
        allow: RE2 regexes or literals never redacted.

    Returns:
        ``(scrubbed text, findings)``; findings are sorted by ``start`` and hold offsets into
        ``text``, never the secret.
    """
    return shared_scrubber(tuple(extra_patterns), tuple(allow)).scrub(text)
