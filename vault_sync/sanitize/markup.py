"""The text as its plain-text views show it, for the sanitizer (fresh-user report, kinds 1, 3).

Snippets and briefing lines show a page as plain text (:func:`vault_sync.plaintext.to_plain`:
no emphasis markers, comments, ``${…}`` expressions, backticks, HTML tags, link syntax). Markup
*inside* a token (``ghp_Zk3m**vX2p…**``, ``ghp_Zk3m<!-- x -->vX2p…``) hides it from every rule,
yet the plain text shows it whole. Invisible format characters (U+200B-U+200D, U+2060, U+00AD,
U+FEFF, bidi controls: Unicode Cf) inside a token do the same: the output looks whole. And a
token hard-wrapped at a line end (``ghp_u8jzPde0IgxLd6Gn`` / ``cfBAepfJBd0Kh8oOOL8d``) reads as
one to a person. :func:`markup_view` is the text with that markup and those characters
dropped, and such line breaks joined, with a map back (a :class:`~.rendered.View`), so a
token whole in the view is found and its pieces redacted in the text.

What is joined across a line break: a run of token characters that begins with a known
vendor prefix (a vendor rule's literal: ``ghp_``, ``glpat-``, ``sk-``, ``AKIA``…) and ends
the line, with the run that begins the next line (after at most 8 blanks): never two runs of
ordinary words, and never a value known only by the name before it (``password: …``), whose
end cannot be told from the next line's first word.

Built only where needed: a cheap search for markup or an invisible character between two
token characters comes first (:func:`may_join`); the view is made only when dropping something
really joins two token characters (else ``None``, and the rules run on the text alone).
Wrapped tokens are looked for from each line break (:func:`wrap_view`). Linear time. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from typing import Any

from vault_sync.plaintext import Plain, to_plain
from vault_sync.sanitize.rendered import View
from vault_sync.terminal import SEQUENCE_PATTERN

#: Characters of a token: a seam between two of them is a join.
_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=~"
_TOKEN = frozenset(_TOKEN_CHARS)
#: Separators inside a credential (``user:password@host``, a password's ``$&!#%``): a seam
#: beside one is a join when a token character stands on its other side (``5cff6df2**:bb74…``
#: split a Sidekiq credential: full leak audit, issue 14), so prose (``**Note**: x``) is none.
_SEPARATORS = ":@$%&!#"
#: Invisible format characters (Unicode Cf a reader never sees): soft hyphen, Arabic letter
#: mark, Mongolian vowel separator, zero-width space/non-joiner/joiner, LRM/RLM, bidi
#: embeddings and isolates, word joiner and invisible operators, BOM / zero-width no-break.
INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_INVISIBLE = re.compile(f"[{INVISIBLE}]+")
#: What :func:`to_plain` drops inside a line (one unit each): an emphasis run, a comment
#: (HTML's or Obsidian's ``%%…%%``), a
#: ``${…}`` expression, an HTML tag, a terminal sequence or control character, an invisible
#: character, a backtick, a link's or wikilink's opening (``[``, ``[[``, ``[[page|``) or
#: closing (``](url)``, ``]]``) part. In RE2 syntax (``\\z``: the text's end), and each
#: bounded run of :func:`to_plain`'s (``${`` … 4,096 characters ``}``) left unbounded: RE2
#: takes no repeat over 1,000, and a wider unit only makes the gate a wider superset.
_DROPPED = (
    rf"(?:\*{{1,3}}|~~|==|<!--.*?(?:-->|\z)|%%.*?(?:%%|\z)|\$\{{[^}}\n]*\}}|</?[A-Za-z][^<>\n]*>"
    rf"|{SEQUENCE_PATTERN}|[\x00-\x08\x0b-\x1f\x7f]|[{INVISIBLE}]|`"
    r"|!?\[\[[^\]|\n]*\||!?\[\[?|\]\([^)\n]*\)|\]\])"
)
_TOKEN_CLASS = "[A-Za-z0-9_.+/=~-]"
#: Where dropping markup may join a token: a run of such units between two token characters
#: (``c**d``, ``c<!-- x -->d``, ``c`d``, ``d](u)e``, ``c\u200bd``), or a token character and
#: a separator (``5cff6df2**:bb74``). A superset of the joins :func:`to_plain` makes (an
#: underscore it drops is kept: :func:`_underscores`); the exact test is on its result.
#: Searched with RE2 (an automaton: time linear in the text whatever the input), not
#: Python's backtracking ``re``: there the lazy comment ran to the text's end from every
#: ``<!--`` (``'x ' + '<!--' * 20000``, 80 KB: 19 s of sync) and the run of units
#: backtracked through every way to split a run of ``*`` (``'a' + '*' * 30 + ' '``: hours).
#: ~300 MB/s on page text, 2x the ``re`` gate it replaces.
GLUE_PATTERN = (
    f"(?s){_TOKEN_CLASS}[{_SEPARATORS}]?{_DROPPED}+(?:{_TOKEN_CLASS}|[{_SEPARATORS}]{_TOKEN_CLASS})"
)


@functools.cache
def _glue() -> Any:
    """:data:`GLUE_PATTERN` compiled by RE2 (loaded on the first page that needs it: ~4 ms)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(GLUE_PATTERN, options)


def may_join(text: str) -> bool:
    """Whether dropping markup might join two token characters of ``text`` (the cheap gate
    of :func:`markup_view`: :data:`GLUE_PATTERN`). Linear time. A lone surrogate is read as
    ``?``, which is neither a token character nor markup, as the surrogate is not."""
    return _glue().search(text.encode("utf-8", "replace")) is not None


#: A line break between two token characters (the next line's blanks taken in), with 4+
#: token characters after it. The run of token characters that ends the line before is
#: ``line[len(line.rstrip(_TOKEN_CHARS)):]``, when 4+ long: a regex ``[…]{4,}\Z`` searched
#: from each start in the line took 1.3 s of the 10k-page vault's path check (one line per
#: path part), and ~40 us a page.
_BREAK = re.compile(r"\n[ \t]{0,8}(?=[A-Za-z0-9_.+/=~-]{4})")  # a literal first: fast


@functools.cache
def _prefixed() -> re.Pattern[str]:
    """A known vendor prefix (``ghp_``, ``glpat-``, ``sk-``, ``AKIA``…: a vendor rule's
    literal, :func:`~.vendor.vendor_prefixes`) beginning a run or a part of one after a
    character that is not a letter or digit; case-insensitive."""
    from vault_sync.sanitize.vendor import vendor_prefixes

    words = sorted(vendor_prefixes(), key=lambda w: (-len(w), w))
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(map(re.escape, words)) + ")", re.IGNORECASE)


@functools.cache
def _any_prefix() -> Any:
    """Every vendor prefix of :func:`_prefixed`, lowercased, as one RE2 pattern (bytes), to
    search the lowercased ASCII view of a text: a superset of :func:`_prefixed`'s matches
    in its runs (ASCII), one linear pass (a text without a prefix has no wrapped token)."""
    import re2

    from vault_sync.sanitize.vendor import vendor_prefixes

    words = {w.lower() for w in vendor_prefixes()}
    if not all(w.isascii() for w in words):
        return None  # no gate: under IGNORECASE a non-ASCII letter may match ASCII (ſ, s)
    options = re2.Options()
    options.log_errors = False
    return re2.compile(b"|".join(re.escape(w.encode("ascii")) for w in sorted(words)), options)


def _wraps(text: str, found: Collection[int]) -> list[tuple[int, int]]:
    """Raw ``(start, end)`` of each line break (with the next line's blanks) inside a wrapped
    vendor token (see the module docstring); not one right after a token the rules found
    whole (``found``: the ends of the findings on the text), whose next line is prose."""
    gate = _any_prefix()
    if gate is not None and gate.search(text.encode("ascii", "replace").lower()) is None:
        return []
    prefixed = _prefixed()
    out = []
    runs: dict[str, bool] = {}  # each run searched once (a path's parts share their end)
    for m in _BREAK.finditer(text):
        end = m.start() - (text.endswith("\r", 0, m.start()))
        if end in found or not end or text[end - 1] not in _TOKEN:
            continue
        line = text[text.rfind("\n", 0, end) + 1 : end]
        run = line[len(line.rstrip(_TOKEN_CHARS)) :]
        if len(run) < 4:
            continue
        wrapped = runs.get(run)
        if wrapped is None:
            wrapped = runs[run] = prefixed.search(run) is not None
        if wrapped:
            out.append((end, m.end()))
    return out


def wrap_view(text: str, found: Collection[int] = ()) -> View | None:
    """``text`` with the line breaks inside wrapped vendor tokens dropped (see the module
    docstring), or ``None`` when it has none. ``found``: the end offsets of the findings the
    rules made on ``text`` (a break right after one is no wrap)."""
    if "\n" not in text:
        return None
    spans = _wraps(text, found)
    if not spans:
        return None
    out: list[str] = []
    segments: list[tuple[int, int, int, bool]] = []
    size = pos = 0
    for start, end in [*spans, (len(text), len(text))]:
        if pos < start:
            segments.append((size, pos, start, True))
            out.append(text[pos:start])
            size += start - pos
        pos = end
    return View("".join(out), tuple(segments), tuple(s[0] for s in segments))


def markup_view(text: str) -> View | None:
    """``text`` as its plain-text views show it — markup and invisible characters dropped —
    mapped back to ``text``; ``None`` when that joins no two token characters (the common
    case: then the rules need not run twice)."""
    if not may_join(text):
        return None
    plain = to_plain(text)
    segments: list[tuple[int, int, int, bool]] = []
    out: list[str] = []
    size = 0
    joined = False
    last_end = -1
    for view_start, view_end, raw_start, raw_end, copied in _pieces(plain):
        chunk = plain.text[view_start:view_end]
        for part_start, part_end in _visible(chunk) if copied else [(0, len(chunk))]:
            if not part_start < part_end:
                continue
            begin = raw_start + part_start if copied else raw_start
            end = raw_start + part_end if copied else raw_end
            if out and begin != last_end:
                for at, stop in _underscores(text, last_end, begin):
                    segments.append((size, at, stop, True))
                    out.append(text[at:stop])
                    size += stop - at
                if not joined:
                    joined = _seam_joins(out, chunk[part_start : part_start + 2])
            segments.append((size, begin, end, copied))
            out.append(chunk[part_start:part_end])
            size += part_end - part_start
            last_end = end
    if out and last_end < len(text):  # an underscore ending the text (``…cJcUQ_``)
        for at, stop in _underscores(text, last_end, len(text))[:1]:
            if at == last_end:
                segments.append((size, at, stop, True))
                out.append(text[at:stop])
    if not joined:
        return None
    return View("".join(out), tuple(segments), tuple(s[0] for s in segments))


def _seam_joins(before: list[str], after: str) -> bool:
    """Whether the view's text so far (``before``, its parts) joins the text that follows a
    dropped stretch (``after``: its first two characters) into one would-be token: a token
    character each side, or a separator (:data:`_SEPARATORS`) with a token character beyond
    it."""
    tail = before[-1][-2:]
    if len(tail) < 2 and len(before) > 1:
        tail = (before[-2] + tail)[-2:]
    left = tail[-1:] in _TOKEN or (tail[-1:] in _SEPARATORS and tail[:1] in _TOKEN)
    right = after[:1] in _TOKEN or (after[:1] in _SEPARATORS and after[1:2] in _TOKEN)
    return (
        bool(tail)
        and bool(after)
        and left
        and right
        and not (tail[-1] in _SEPARATORS and after[0] in _SEPARATORS)
    )


def _underscores(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of ``_`` that begin or end the dropped stretch ``text[start:end]``:
    :func:`to_plain` drops an underscore beside punctuation as an emphasis marker, but beside
    a token (``n8_`code```, ``x_<!-- c -->y``, ``**_x``) it reads as itself in Obsidian
    (CommonMark makes no emphasis there), so the view keeps it, as the token is shown."""
    out = []
    head = start
    while head < end and text[head] == "_":
        head += 1
    if head > start:
        out.append((start, head))
    tail = end
    while tail > head and text[tail - 1] == "_":
        tail -= 1
    if tail < end:
        out.append((tail, end))
    return out


def _visible(chunk: str) -> list[tuple[int, int]]:
    """The parts of ``chunk`` between runs of invisible characters."""
    if chunk.isascii():
        return [(0, len(chunk))]
    out, pos = [], 0
    for m in _INVISIBLE.finditer(chunk):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(chunk)))
    return out


def _pieces(plain: Plain) -> list[tuple[int, int, int, int, bool]]:
    """``(view start, view end, source start, source end, copied)`` of each run of the plain
    text, in order: copied runs map character for character, inserted texts to their whole
    markup."""
    marks: list[tuple[int, int, tuple[int, int] | None]] = [(p, s, None) for p, s in plain.runs]
    marks += [(a, c, (b, d)) for a, b, c, d in plain.inserted if b > a]
    marks.sort(key=lambda m: m[0])
    out = []
    for i, (at, source, insert) in enumerate(marks):
        stop = marks[i + 1][0] if i + 1 < len(marks) else len(plain.text)
        if insert is None:
            if stop > at:
                out.append((at, stop, source, source + (stop - at), True))
        elif insert[0] > at:
            out.append((at, insert[0], source, insert[1], False))
    return out
