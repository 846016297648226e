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
from dataclasses import dataclass
from urllib.parse import unquote

from vault_sync.page import EMBEDS, REFERENCES, Heading, Link, LinkOrigin, path_id

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
#: it must start with, so giving characters back could never lead to another match.
_MD_LINK_PATTERN = (
    r"(!?)\[((?:[^\[\]\\\n]++|\\.|\[(?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+\])*+)\]"
    r"\([ \t]*(?:<([^<>\n]*+)>|((?:[^\s()\\]++|\\.|\([^\s()]*+\))*+))"
    r"(?:[ \t]*\n?[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"
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
_FIELD_LINE = re.compile(
    r"^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:\[[ xX]\][ \t]+)?"
    r"([^\W\d][\w \-/]*?)[ \t]*::(.*)$",
    re.MULTILINE,
)
_FIELD_INLINE = re.compile(
    r"\[([^\W\d][\w \-/]*?)[ \t]*::((?:[^\[\]\n]|\[\[[^\[\]\n]*\]\])*)\]"
    r"|\(([^\W\d][\w \-/]*?)[ \t]*::((?:[^()\[\]\n]|\[\[[^\[\]\n]*\]\])*)\)"
)
# Block-level patterns, matched per line (after CRs are normalised away).
_FENCE = re.compile(r"([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(`{3,}|~{3,})(.*)")
_QUOTE = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+")
_COMMENT_BLOCK = re.compile(r"( {0,3}(?:(?:[-*+]|\d{1,9}[.)])[ \t]{1,4})?)<!--")
_COMMENT_IN_LIST = re.compile(r"([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]{1,4})?)<!--")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*\Z")
_ATX_CLOSE = re.compile(r"(?:\A|[ \t]+)#+\Z")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*\Z")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|\Z)")


#: First characters of lines that may be more than a paragraph line.
_BLOCK_START = frozenset(" \t>`~<#=-*+0123456789")


def _indent(line: str) -> int:
    """Leading indentation in columns, a tab advancing to the next multiple of 4."""
    cols = 0
    for ch in line:
        if ch == " ":
            cols += 1
        elif ch == "\t":
            cols += 4 - cols % 4
        else:
            break
    return cols


def _fence_closes(line: str, char: str, length: int, max_indent: int) -> bool:
    """Whether ``line`` closes a fence of ``length`` ``char``s (indented at most ``max_indent``)."""
    quote = _QUOTE.match(line)
    content = line[quote.end() :] if quote else line
    if _indent(content) > max_indent:
        return False
    content = content.lstrip(" \t")
    run = len(content) - len(content.lstrip(char))
    return run >= length and not content[run:].strip(" \t")


def _leaves(line: str, column: int, quoted: bool) -> bool:
    """Whether a non-blank ``line`` ends the list item or block quote holding a block."""
    stripped = line.lstrip(" \t")
    if not stripped:
        return False
    if quoted:
        return stripped[0] != ">"
    return column > 0 and _indent(line) < column


def _scan_blocks(lines: list[str], first_line: int) -> tuple[list[bool], list[Heading]]:
    """Mark the lines of fenced / indented code and HTML-comment blocks; collect headings.

    A simplified CommonMark block pass (spec 0.31 §4): fences of 3+ backticks or tildes
    (unclosed ones run to the end), indented code after a blank line outside lists, HTML
    blocks of type 2 (``<!--`` at a line start, through the line holding ``-->``), ATX and
    setext headings at the top level. Lists are tracked only to tell list continuation from
    indented code; a paragraph line right after a list item is a lazy continuation.
    """
    hidden = [False] * len(lines)
    headings: list[Heading] = []
    fence: tuple[str, int, int] | None = None  # (char, length, deepest closing indent)
    in_comment = in_code = in_list = False
    # The container of an open fence or comment block: a list item's content column (a line
    # indented less ends it) and whether it is in a block quote (a line without ">" ends it).
    column, quoted = 0, False
    open_para = False  # an open paragraph: indented code cannot interrupt it
    para: list[str] = []  # lines of the open top-level paragraph (for setext headings)
    for i, line in enumerate(lines):
        if (fence is not None or in_comment) and not _leaves(line, column, quoted):
            hidden[i], open_para = True, False
            if fence is not None and _fence_closes(line, *fence):
                fence = None
            elif in_comment:
                in_comment = "-->" not in line
            continue
        fence, in_comment = None, False
        if not line or line[0] not in _BLOCK_START:  # plain text: the common case
            if line:
                in_list = in_list and open_para  # a lazy continuation line, else the list ends
                in_code = False
                open_para = True
                para.append(line)
            else:
                open_para, para = False, []
            continue
        stripped = line.lstrip(" \t")
        if not stripped:
            open_para, para = False, []
            continue
        indent = _indent(line) if line[0] in " \t" else 0
        if indent >= 4 and (in_code or not (open_para or in_list)):
            hidden[i] = in_code = True
            continue
        was_open, in_code, open_para = open_para, False, True
        item = stripped[0] in "-*+0123456789" and _LIST_ITEM.match(line) is not None
        top = indent == 0 and not item  # a block here ends an open list
        in_list = in_list or item
        quote = _QUOTE.match(line) if stripped[0] == ">" else None
        content = line[quote.end() :] if quote else line
        fenced = _FENCE.match(content) if "``" in content or "~~" in content else None
        if fenced and (in_list or quote or _indent(fenced[1]) < 4):
            char, info = fenced[2][0], fenced[3]
            if char == "~" or "`" not in info:
                width = len(fenced[1].expandtabs(4))
                fence = (char, len(fenced[2]), width + 3)
                in_list = in_list and not top
                column, quoted = (width if in_list or item else 0), quote is not None
                hidden[i], para, open_para = True, [], False
                continue
        opened = None
        if "<!--" in content:
            opened = (_COMMENT_IN_LIST if in_list else _COMMENT_BLOCK).match(content)
        if opened:
            hidden[i], para, in_list, open_para = True, [], in_list and not top, False
            in_comment = "-->" not in content[opened.end() :]
            column = len(opened[1].expandtabs(4)) if item else 1 if in_list else 0
            quoted = quote is not None
            continue
        atx = _ATX.match(line) if stripped[0] == "#" else None
        if atx:
            text = _ATX_CLOSE.sub("", atx[2] or "").strip()
            if text:
                headings.append(Heading(len(atx[1]), text, first_line + i))
            para, in_list, open_para = [], in_list and not top, False
            continue
        setext = _SETEXT.match(line) if para and not in_list and stripped[0] in "=-" else None
        if setext:
            text = " ".join(p.strip() for p in para)
            headings.append(Heading(1 if setext[1][0] == "=" else 2, text, first_line + i - 1))
            para, open_para = [], False
            continue
        if item:
            in_list, para = True, []
        elif quote:
            in_list, para = in_list and not top, []
        else:  # a paragraph line starting with a block character (`code`, 2024, <b>, ...)
            in_list = in_list and not (top and not was_open)
            if not in_list:
                para.append(line)
    return hidden, headings


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


def _field_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, edge type)`` of Dataview inline-field values (``key:: value``)."""
    spans = [(m.start(2), m.end(2), _edge_type(m[1])) for m in _FIELD_LINE.finditer(text)]
    for m in _FIELD_INLINE.finditer(text):
        key, group = (m[1], 2) if m[1] is not None else (m[3], 4)
        spans.append((m.start(group), m.end(group), _edge_type(key)))
    return spans


def _inline_end(text: str, pos: int, tick_len: int | None) -> int:
    """End offset of the code span (``tick_len`` backticks) or comment opened before ``pos``.

    Returns -1 when it is not closed within its paragraph (the opener is then literal text).
    """
    if tick_len is not None:  # most code spans close on their own line
        line_end = text.find("\n", pos)
        for run in _TICKS.finditer(text, pos, len(text) if line_end < 0 else line_end):
            if len(run[0]) == tick_len:
                return run.end()
        if line_end < 0:
            return -1
    line_start = text.rfind("\n", 0, pos) + 1
    if _ATX_START.match(text, line_start):  # a heading is one line
        limit = text.find("\n", pos)
    else:
        para = _PARA_END.search(text, pos)
        limit = para.start() if para else -1
    limit = len(text) if limit < 0 else limit
    if tick_len is None:  # <!-- ... -->; "<!-->" and "<!--->" are whole comments (0.31)
        for short in (">", "->"):
            if text.startswith(short, pos):
                return pos + len(short)
        end = text.find("-->", pos, limit)
        return -1 if end < 0 else end + 3
    for run in _TICKS.finditer(text, pos, limit):
        if len(run[0]) == tick_len:
            return run.end()
    return -1


#: Longest ``${...}`` expression masked, in characters: past it, ``${`` is literal text.
_EXPR_MAX_CHARS = 10_000


def _expr_end(text: str, pos: int) -> int:
    """End offset of a SilverBullet ``${...}`` expression whose ``{`` ends at ``pos``, or -1.

    SilverBullet pages embed Space Lua expressions such as ``${query[[from index.pages()]]}``,
    where ``[[ ]]`` is a Lua long string, not a wikilink: like code spans, these expressions
    hold no links (found on silverbullet-docs, where they made 38 false unresolved links).
    Braces must balance within ``_EXPR_MAX_CHARS`` and before a blank line, else the ``${`` is
    plain text.
    """
    depth = 1
    limit = min(len(text), pos + _EXPR_MAX_CHARS)
    i = pos
    while i < limit:
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == "\n" and text.startswith("\n", i + 1):
            return -1
        i += 1
    return -1


def _scan_body(body: str, first_line: int, path: str) -> _Body:
    """Headings, links and inline tags of a body whose first line is file line ``first_line``."""
    text = body.replace("\r\n", "\n").replace("\r", "\n") if "\r" in body else body
    lines = text.split("\n")
    hidden, headings = _scan_blocks(lines, first_line)
    if True in hidden:
        text = "\n".join("" if hide else line for line, hide in zip(lines, hidden, strict=True))
    fields = _field_spans(text) if "::" in text else []
    line, counted = first_line, 0  # the file line of offset `counted` (token starts only rise)
    links: list[Link] = []
    tags: list[str] = []

    def typed(start: int, edge: str, origin: LinkOrigin) -> tuple[str, LinkOrigin]:
        for lo, hi, field_edge in fields:
            if lo <= start < hi:
                return field_edge, LinkOrigin.INLINE_FIELD
        return edge, origin

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
        if kind == "tick" or kind == "cmt":
            end = _inline_end(text, pos, len(m[0]) if kind == "tick" else None)
            pos = end if end >= 0 else pos
        elif kind == "expr":
            end = _expr_end(text, pos)
            pos = end if end >= 0 else pos
        elif kind == "tag":
            if not m[0][1:].isdigit():
                tags.append(m[0][1:])
        elif kind == "wiki":
            parts = _wikilink(m[_WIKI_AT + 2], m[_WIKI_AT + 3], path)
            if parts is not None:
                edge, origin = EMBEDS if m[_WIKI_AT + 1] else REFERENCES, LinkOrigin.WIKILINK
                if fields:
                    edge, origin = typed(start, edge, origin)
                target, anchor, display = parts
                line, counted = line + text.count("\n", counted, start), start
                links.append(Link(target, edge, line, anchor, display, origin))
        elif kind == "md":
            dest = m[_MD_AT + 3] if m[_MD_AT + 3] is not None else m[_MD_AT + 4]
            local = _markdown_target(dest.replace("\\", "") if "\\" in dest else dest, path)
            if local is not None:
                edge, origin = EMBEDS if m[_MD_AT + 1] else REFERENCES, LinkOrigin.MARKDOWN
                if fields:
                    edge, origin = typed(start, edge, origin)
                shown = m[_MD_AT + 2].strip() or None
                line, counted = line + text.count("\n", counted, start), start
                links.append(Link(local[0], edge, line, local[1], shown, origin))
            pos, skip_at, skip_to = m.start(_MD_AT + 2), m.end(_MD_AT + 2), m.end()
    return _Body(headings, links, tags)
