"""The body of a page: headings, wikilinks, Markdown links and ``#tags``, by a line scanner.

A line-based scanner with precompiled regexes, not markdown-it: markdown-it over every page
costs half of the 10k-page cold-sync budget (TECH-NOTES §4: 2.0 s vs 0.30 s for a regex over
masked text, both finding the same 28,888 links). One pass over the lines masks fenced and
indented code and HTML-comment blocks (CommonMark block rules, simplified: lists and block
quotes are only partly modelled) and collects headings; one left-to-right token scan over the
masked text then skips code spans, inline comments and escapes while it collects wikilinks,
Markdown links and ``#tags``, so that whichever construct starts first wins, as in markdown-it.
``tests/test_parser.py`` checks the scanner against markdown-it plus the TECH-NOTES §4
wikilink rule. Total: no ``str`` makes it raise.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from vault_sync.page import EMBEDS, REFERENCES, Heading, Link, LinkOrigin, path_id
from vault_sync.parser.blocks import scan_blocks

#: A lower-case letter or digit followed by a capital: where a camelCase key splits.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _edge_type(key: str) -> str:
    """Edge type of a custom key or inline field: snake_case of the key as written.

    camelCase, kebab-case and spaces all become ``_``-separated lower case, so the same
    relation written ``dependsOn``, ``depends-on`` or ``depends on`` is one edge type, and
    ``supersededBy`` (SilverBullet's spelling) is the ``superseded_by`` relation.
    """
    return "_".join(_CAMEL_BOUNDARY.sub(" ", key).replace("-", " ").lower().split())


#: ``(!)[[inner|display]]``: the wikilink rule of TECH-NOTES §4 (no brackets, one line),
#: ``(!?)\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]``, with possessive runs instead of lazy
#: ones: the same matches, since a run can only end where ``|`` or ``]`` stops it, without a
#: regex step per character (0.3 s -> 0.2 s for the scan of 10k pages). ``tests/test_parser.py``
#: checks both forms agree.
_WIKI_PATTERN = r"(!?)\[\[([^\[\]|\n]++)(?:\|([^\[\]\n]++))?\]\]"
_WIKI_WHOLE = re.compile(r"\s*" + _WIKI_PATTERN + r"\s*\Z")
#: ``[label](dest "title")``: label on one line with one level of nested brackets. Runs and
#: repeats are possessive for speed (as above): each stops only at a character the part after
#: it must start with, so giving characters back could never lead to another match. The
#: blanks before a title, once ``[ \t]*\n?[ \t]+``, are written so that no split of a run
#: of blanks is tried twice (that was quadratic in the run, issue 14, fault 5): blanks then an
#: optional line end and blanks, or a line end and blanks, or none after an empty destination
#: whose leading blanks were taken (the lookbehinds: a blank, not an escaped one ending the
#: destination). The same links match.
_MD_LINK_PATTERN = (
    r"(!?)\[((?:[^\[\]\\\n]++|\\.|\[(?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+\])*+)\]"
    r"\([ \t]*+(?:<([^<>\n]*+)>|((?:[^\s()\\]++|\\.|\([^\s()]*+\))*+))"
    r"(?:(?:[ \t]++(?:\n[ \t]++)?|\n[ \t]++|(?<=[ \t])(?<!\\[ \t]))"
    r"(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*+\)"
)
#: One alternative per inline construct; the leftmost wins, as in a CommonMark inline scan.
#: The leading lookahead lets the engine skip plain text 5x faster (measured: 10 ms instead
#: of 49 ms over the obsidian-tasks-docs corpus). A ``[`` is tried as a whole wikilink, then
#: a whole Markdown link, then alone (``link``: neither, so it is literal text): the same
#: order the scan used to try with two more ``match`` calls per bracket (0.1 s per 10k pages).
_TOKEN = re.compile(
    r"(?=[\\`<!\[#$])(?:"
    r"(?P<esc>\\[!-/:-@\[-`{-~])"
    r"|(?P<tick>`+)"
    r"|(?P<cmt><!--)"
    r"|(?P<expr>\$\{)"
    r"|(?P<wiki>" + _WIKI_PATTERN + r")"
    r"|(?P<md>" + _MD_LINK_PATTERN + r")"
    r"|(?P<link>!?\[)"
    r"|(?P<tag>\#(?<![^\s(\[]\#)\w[\w/\-]*)"  # Obsidian tag rule, TECH-NOTES §4
    r")"
)
#: Where a ``_TOKEN`` match may start: its first characters, less a ``#`` that cannot start a
#: tag (heading marks). A plain character class first lets the engine skip text fast.
_TOKEN_START = re.compile(r"[\\`<!\[#$](?:(?<!#)|(?<![^\s(\[]#)(?=\w))")
#: Where the groups of a wikilink and a Markdown link start in ``_TOKEN``'s matches.
_WIKI_AT = _TOKEN.groupindex["wiki"]
_MD_AT = _TOKEN.groupindex["md"]
_TICKS = re.compile(r"`+")
#: Where a paragraph ends: code spans and inline comments never cross it.
_PARA_END = re.compile(
    r"\n(?:[ \t]*(?:\n|\Z)| {0,3}#{1,6}(?:[ \t]|\n|\Z)|[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t])"
)
_ATX_START = re.compile(r" {0,3}#{1,6}(?:[ \t]|\n|\Z)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
#: Dataview inline fields. A key's run is possessive: the lazy run it replaces re-tried
#: ``[ \t]*::`` after every character, quadratic over a run of spaces (issue 14, fault 5).
#: Both find the same fields; the possessive key may end in spaces, which ``_edge_type``
#: drops.
_FIELD_LINE = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?"
    r"([^\W\d][\w \-/]*+)[ \t]*::(.*)$",
    re.MULTILINE,
)
_FIELD_INLINE = re.compile(
    r"\[([^\W\d][\w \-/]*+)[ \t]*::((?:[^\[\]\n]|\[\[[^\[\]\n]*\]\])*+)\]"
    r"|\(([^\W\d][\w \-/]*+)[ \t]*::((?:[^()\[\]\n]|\[\[[^\[\]\n]*\]\])*+)\)"
)


def _wikilink(inner: str, display: str | None, path: str) -> tuple[str, str, str | None] | None:
    """Split a wikilink's inner text: ``(target, anchor, display)``; ``None`` when empty.

    ``t#H`` -> anchor ``#H``; ``t#^b`` and ``t^b`` -> ``#^b``; an empty target is the page
    itself (``[[#H]]``). A trailing ``\\`` (a ``|`` escaped inside a table) is dropped.
    """
    if "#" not in inner and "^" not in inner and "\\" not in inner:  # [[Page]]: most links
        target = inner.strip()
        if not target:
            return None
        return target, "", (display.strip() or None) if display is not None else None
    page, hashed, heading = inner.strip().partition("#")
    page, caret, block = page.partition("^")
    anchor = ""
    if caret:
        anchor = "#^" + block.strip() + (hashed + heading if hashed else "")
    elif hashed:
        anchor = "#" + heading.strip().rstrip("\\")
    target = page.strip().rstrip("\\").strip()
    if anchor in ("#", "#^"):
        anchor = ""
    if not target and not anchor:
        return None
    shown = display.strip() if display is not None else None
    return target or path_id(path), anchor, shown or None


def _markdown_target(dest: str, path: str) -> tuple[str, str] | None:
    """A local Markdown link destination -> ``(vault-relative target, anchor)``, else ``None``.

    Percent-decoded; relative to the linking page's folder (a leading ``/``: the vault root),
    normalised with :func:`posixpath.normpath`. Schemes (``https:``, ``mailto:``) and ``//``
    are not local. ``#anchor`` alone is the page itself.
    """
    dest = dest.strip()
    if not dest or dest.startswith("//") or _SCHEME.match(dest):
        return None
    raw, hashed, fragment = dest.partition("#")
    anchor = "#" + unquote(fragment) if hashed and fragment else ""
    raw = unquote(raw.partition("?")[0])
    if not raw:
        return (path, anchor) if anchor else None
    if raw.startswith("/"):
        target = posixpath.normpath(raw.lstrip("/"))
    else:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), raw))
    return None if target in (".", "") else (target, anchor)


@dataclass
class _Body:
    """What the body half produces."""

    headings: list[Heading]
    links: list[Link]
    tags: list[str]


class _Fields:
    """Dataview inline-field values (``key:: value``): which one holds an offset, by bisection.

    Line fields come first, then bracketed ones (``[key:: value]``, ``(key:: value)``), as the
    scan has always preferred; each kind is sorted and never overlaps itself, so a lookup is
    two bisections, not a pass over every field per link (quadratic on a page of fields).
    """

    def __init__(self, text: str) -> None:
        self.kinds: list[tuple[list[int], list[tuple[int, str]]]] = []
        line = [(m.start(2), m.end(2), _edge_type(m[1])) for m in _FIELD_LINE.finditer(text)]
        inline = []
        for m in _FIELD_INLINE.finditer(text):
            key, group = (m[1], 2) if m[1] is not None else (m[3], 4)
            inline.append((m.start(group), m.end(group), _edge_type(key)))
        for spans in (line, inline):
            self.kinds.append(([lo for lo, _, _ in spans], [(hi, e) for _, hi, e in spans]))

    def edge_at(self, offset: int) -> str | None:
        """Edge type of the field value holding ``offset``, or ``None``."""
        for starts, rest in self.kinds:
            i = bisect_right(starts, offset) - 1
            if i >= 0 and offset < rest[i][0]:
                return rest[i][1]
        return None


def field_keys(text: str) -> list[str]:
    """Every Dataview inline-field key in ``text`` as written (``key:: v``, ``[key:: v]``,
    ``(key:: v)``), code blocks included: for the sanitizer (:func:`vault_sync.parser.
    written_keys`), which drops the links of a key holding a secret."""
    keys = [m[1] for m in _FIELD_LINE.finditer(text)]
    keys += [m[1] if m[1] is not None else m[3] for m in _FIELD_INLINE.finditer(text)]
    return keys


#: Longest ``${...}`` expression masked, in characters: past it, ``${`` is literal text.
_EXPR_MAX_CHARS = 10_000
_BRACES = re.compile(r"[{}]")


class _Ahead:
    """The leftmost occurrence at or after ``pos`` for rising ``pos``: each found once.

    ``find(pos)`` returns the leftmost start at or after ``pos`` (-1: none). An answer stays
    right for every later ``pos`` up to it (nothing starts between), so a scan whose offsets
    only rise costs one pass over the text in all, not one per opener (issue 14, fault 5).
    A ``pos`` below the last one is answered afresh. The pattern must not look behind.
    """

    def __init__(self, find: Callable[[int], int]) -> None:
        self.find = find
        self.since, self.found = -1, -1

    def at(self, pos: int) -> int:
        """Leftmost occurrence at or after ``pos``, or -1."""
        if not (self.since <= pos and (pos <= self.found or self.found < 0 <= self.since)):
            self.since, self.found = pos, self.find(pos)
        return self.found


class _Closers:
    """Where code spans, inline comments and ``${...}`` expressions close, in linear time.

    Each closing delimiter is found with an index built once per page (tick runs by length,
    matched braces) or a forward-only search (:class:`_Ahead`), never a rescan per opener:
    ``'${ ' * 40000`` took 38 s, ``'`a\\n' * 40000`` 58 s before, now 0.08 s and 0.14 s
    (CPU, issue 14, fault 5).
    Offsets passed in must rise, as the token scan's do.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.newline = _Ahead(lambda pos: text.find("\n", pos))
        self.blank = _Ahead(lambda pos: text.find("\n\n", pos))
        self.comment = _Ahead(lambda pos: text.find("-->", pos))
        self.para = _Ahead(lambda pos: m.start() if (m := _PARA_END.search(text, pos)) else -1)
        self.line_from, self.line_start = 0, 0
        self.ticks: dict[int, list[int]] | None = None
        self.braces: dict[int, int] | None = None

    def _start_of_line(self, pos: int) -> int:
        """Offset of the line holding ``pos`` (amortised: offsets rise)."""
        if pos < self.line_from:
            self.line_from, self.line_start = 0, 0
        cut = self.text.rfind("\n", self.line_from, pos)
        self.line_from, self.line_start = pos, cut + 1 if cut >= 0 else self.line_start
        return self.line_start

    def _limit(self, pos: int) -> int:
        """End of the paragraph (of the line, for a heading) holding ``pos``."""
        if _ATX_START.match(self.text, self._start_of_line(pos)):  # a heading is one line
            limit = self.newline.at(pos)
        else:
            limit = self.para.at(pos)
        return len(self.text) if limit < 0 else limit

    def code_end(self, pos: int, ticks: int) -> int:
        """End of the code span of ``ticks`` backticks opened just before ``pos``, or -1.

        It closes at the next run of exactly as many backticks within its paragraph
        (CommonMark 0.31 §6.1); ``pos`` follows a whole run, so later runs are whole too.
        """
        if self.ticks is None:
            self.ticks = {}
            for run in _TICKS.finditer(self.text):
                self.ticks.setdefault(len(run[0]), []).append(run.start())
        runs = self.ticks.get(ticks, [])
        i = bisect_left(runs, pos)
        if i == len(runs):
            return -1
        close = runs[i]
        line_end = self.newline.at(pos)
        if line_end < 0 or close < line_end or close < self._limit(pos):
            return close + ticks  # most code spans close on their own line: no limit needed
        return -1

    def comment_end(self, pos: int) -> int:
        """End of the HTML comment opened by ``<!--`` just before ``pos``, or -1.

        ``<!-->`` and ``<!--->`` are whole comments (CommonMark 0.31); else the first
        ``-->`` within the paragraph closes it.
        """
        for short in (">", "->"):
            if self.text.startswith(short, pos):
                return pos + len(short)
        end = self.comment.at(pos)
        return end + 3 if 0 <= end < self._limit(pos) else -1

    def skip(self, kind: str, pos: int, width: int) -> int:
        """Where scanning goes on after a code span (``kind`` ``"tick"``, ``width`` backticks),
        inline comment (``"cmt"``) or ``${…}`` expression (``"expr"``) opened just before
        ``pos``: past its closer, or ``pos`` itself when it has none (then it is text)."""
        if kind == "tick":
            end = self.code_end(pos, width)
        else:
            end = self.comment_end(pos) if kind == "cmt" else self.expr_end(pos)
        return end if end >= 0 else pos

    def expr_end(self, pos: int) -> int:
        """End of a SilverBullet ``${...}`` expression whose ``{`` ends at ``pos``, or -1.

        SilverBullet pages embed Space Lua expressions such as ``${query[[from
        index.pages()]]}``, where ``[[ ]]`` is a Lua long string, not a wikilink: like code
        spans, these expressions hold no links (found on silverbullet-docs, where they made 38
        false unresolved links). The ``}`` matching the ``{`` must come within
        ``_EXPR_MAX_CHARS`` and before a blank line, else the ``${`` is plain text.
        """
        if self.braces is None:
            self.braces, stack = {}, []
            for brace in _BRACES.finditer(self.text):
                if brace[0] == "{":
                    stack.append(brace.start())
                elif stack:
                    self.braces[stack.pop()] = brace.start()
        close = self.braces.get(pos - 1, -1)
        if close < 0 or close >= pos + _EXPR_MAX_CHARS:
            return -1
        blank = self.blank.at(pos)
        return -1 if 0 <= blank < close else close + 1


def _scan_body(body: str, first_line: int, path: str) -> _Body:
    """Headings, links and inline tags of a body whose first line is file line ``first_line``."""
    text = body.replace("\r\n", "\n").replace("\r", "\n") if "\r" in body else body
    lines = text.split("\n")
    hidden, headings = scan_blocks(lines, first_line)
    if True in hidden:
        text = "\n".join("" if hide else line for line, hide in zip(lines, hidden, strict=True))
    fields = _Fields(text) if "::" in text else None
    closers = _Closers(text)
    line, counted = first_line, 0  # the file line of offset `counted` (token starts only rise)
    links: list[Link] = []
    tags: list[str] = []

    def typed(start: int, edge: str, origin: LinkOrigin) -> tuple[str, LinkOrigin]:
        field_edge = fields.edge_at(start) if fields is not None else None
        return (edge, origin) if field_edge is None else (field_edge, LinkOrigin.INLINE_FIELD)

    pos, skip_at, skip_to = 0, -1, -1  # skip a Markdown link's destination once past its label
    # _TOKEN.search(text, pos), split in two for speed: a pattern starting with a character
    # class lets the regex engine skip plain text with its tight charset loop, which the
    # lookahead in _TOKEN does not get (0.24 s vs 0.28 s over the 10k-page vault).
    while (at := _TOKEN_START.search(text, pos)) is not None:
        m = _TOKEN.match(text, at.start())
        if m is None:
            pos = at.start() + 1
            continue
        start = m.start()
        if 0 <= skip_at <= start:
            pos, skip_at = max(pos, skip_to), -1
            continue
        kind = m.lastgroup
        pos = m.end()
        if kind == "tick" or kind == "cmt" or kind == "expr":
            pos = closers.skip(kind, pos, len(m[0]))
        elif kind == "tag":
            if not m[0][1:].isdigit():
                tags.append(m[0][1:])
        elif kind == "wiki":
            parts = _wikilink(m[_WIKI_AT + 2], m[_WIKI_AT + 3], path)
            if parts is not None:
                edge, origin = EMBEDS if m[_WIKI_AT + 1] else REFERENCES, LinkOrigin.WIKILINK
                if fields is not None:
                    edge, origin = typed(start, edge, origin)
                target, anchor, display = parts
                line, counted = line + text.count("\n", counted, start), start
                links.append(Link(target, edge, line, anchor, display, origin))
        elif kind == "md":
            dest = m[_MD_AT + 3] if m[_MD_AT + 3] is not None else m[_MD_AT + 4]
            local = _markdown_target(dest.replace("\\", "") if "\\" in dest else dest, path)
            if local is not None:
                edge, origin = EMBEDS if m[_MD_AT + 1] else REFERENCES, LinkOrigin.MARKDOWN
                if fields is not None:
                    edge, origin = typed(start, edge, origin)
                shown = m[_MD_AT + 2].strip() or None
                line, counted = line + text.count("\n", counted, start), start
                links.append(Link(local[0], edge, line, local[1], shown, origin))
            pos, skip_at, skip_to = m.start(_MD_AT + 2), m.end(_MD_AT + 2), m.end()
    return _Body(headings, links, tags)
