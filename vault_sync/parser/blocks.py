"""The block structure of a page body, line by line: which lines are code or HTML comments
(masked from link and tag scanning), and the headings (ATX and setext).

CommonMark's block rules, simplified (lists and block quotes are only partly modelled): fenced
and indented code, HTML-comment blocks, headings. A line scanner, not markdown-it, for the
cold-sync budget (TECH-NOTES §4; :mod:`vault_sync.parser.body`). Total: no ``str`` makes it
raise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vault_sync.page import Heading

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


@dataclass(slots=True)
class _Blocks:
    """The state of the block pass of :func:`scan_blocks` over one body's lines.

    ``hidden[i]``: line ``i`` is code or comment; ``headings``: found so far. ``fence``: the
    open fence as ``(char, length, deepest closing indent)``; ``column`` / ``quoted``: the
    container of an open fence or comment block — a list item's content column (a line
    indented less ends it) and whether it is in a block quote (a line without ``>`` ends it).
    ``open_para``: an open paragraph (indented code cannot interrupt it); ``para``: the lines
    of the open top-level paragraph (for setext headings).
    """

    first_line: int
    hidden: list[bool]
    headings: list[Heading] = field(default_factory=list)
    fence: tuple[str, int, int] | None = None
    in_comment: bool = False
    in_code: bool = False
    in_list: bool = False
    column: int = 0
    quoted: bool = False
    open_para: bool = False
    para: list[str] = field(default_factory=list)

    def inside(self, i: int, line: str) -> bool:
        """Whether line ``i`` belongs to the open fence or comment block (and is hidden)."""
        if _leaves(line, self.column, self.quoted):
            self.fence, self.in_comment = None, False
            return False
        self.hidden[i], self.open_para = True, False
        if self.fence is not None and _fence_closes(line, *self.fence):
            self.fence = None
        elif self.in_comment:
            self.in_comment = "-->" not in line
        return True

    def block_line(self, i: int, line: str, stripped: str) -> None:
        """A non-blank line starting with a character in ``_BLOCK_START``."""
        indent = _indent(line) if line[0] in " \t" else 0
        if indent >= 4 and (self.in_code or not (self.open_para or self.in_list)):
            self.hidden[i] = self.in_code = True
            return
        was_open, self.in_code, self.open_para = self.open_para, False, True
        item = stripped[0] in "-*+0123456789" and _LIST_ITEM.match(line) is not None
        top = indent == 0 and not item  # a block here ends an open list
        self.in_list = self.in_list or item
        quote = _QUOTE.match(line) if stripped[0] == ">" else None
        content = line[quote.end() :] if quote else line
        if self._fence(i, content, quote is not None, item, top):
            return
        if "<!--" in content and self._comment(i, content, quote is not None, item, top):
            return
        if self._heading(i, line, stripped, top):
            return
        if item:
            self.in_list, self.para = True, []
        elif quote:
            self.in_list, self.para = self.in_list and not top, []
        else:  # a paragraph line starting with a block character (`code`, 2024, <b>, ...)
            self.in_list = self.in_list and not (top and not was_open)
            if not self.in_list:
                self.para.append(line)

    def _fence(self, i: int, content: str, quoted: bool, item: bool, top: bool) -> bool:
        """Open a fence at line ``i`` when its content starts one."""
        fenced = _FENCE.match(content) if "``" in content or "~~" in content else None
        if not (fenced and (self.in_list or quoted or _indent(fenced[1]) < 4)):
            return False
        char, info = fenced[2][0], fenced[3]
        if char != "~" and "`" in info:  # a backtick fence's info string has no backtick
            return False
        width = len(fenced[1].expandtabs(4))
        self.fence = (char, len(fenced[2]), width + 3)
        self.in_list = self.in_list and not top
        self.column, self.quoted = (width if self.in_list or item else 0), quoted
        self.hidden[i], self.para, self.open_para = True, [], False
        return True

    def _comment(self, i: int, content: str, quoted: bool, item: bool, top: bool) -> bool:
        """Open an HTML comment block (type 2) at line ``i`` when its content starts one."""
        opened = (_COMMENT_IN_LIST if self.in_list else _COMMENT_BLOCK).match(content)
        if not opened:
            return False
        self.hidden[i], self.para, self.open_para = True, [], False
        self.in_list = self.in_list and not top
        self.in_comment = "-->" not in content[opened.end() :]
        self.column = len(opened[1].expandtabs(4)) if item else 1 if self.in_list else 0
        self.quoted = quoted
        return True

    def _heading(self, i: int, line: str, stripped: str, top: bool) -> bool:
        """Collect an ATX heading at line ``i``, or a setext one underlining the paragraph."""
        atx = _ATX.match(line) if stripped[0] == "#" else None
        if atx:
            text = _ATX_CLOSE.sub("", atx[2] or "").strip()
            if text:
                self.headings.append(Heading(len(atx[1]), text, self.first_line + i))
            self.para, self.open_para = [], False
            self.in_list = self.in_list and not top
            return True
        para = self.para
        setext = _SETEXT.match(line) if para and not self.in_list and stripped[0] in "=-" else None
        if not setext:
            return False
        text = " ".join(p.strip() for p in para)
        level = 1 if setext[1][0] == "=" else 2
        self.headings.append(Heading(level, text, self.first_line + i - 1))
        self.para, self.open_para = [], False
        return True


def scan_blocks(lines: list[str], first_line: int) -> tuple[list[bool], list[Heading]]:
    """Mark the lines of fenced / indented code and HTML-comment blocks; collect headings.

    A simplified CommonMark block pass (spec 0.31 §4): fences of 3+ backticks or tildes
    (unclosed ones run to the end), indented code after a blank line outside lists, HTML
    blocks of type 2 (``<!--`` at a line start, through the line holding ``-->``), ATX and
    setext headings at the top level. Lists are tracked only to tell list continuation from
    indented code; a paragraph line right after a list item is a lazy continuation.
    """
    state = _Blocks(first_line, [False] * len(lines))
    for i, line in enumerate(lines):
        if (state.fence is not None or state.in_comment) and state.inside(i, line):
            continue
        if not line or line[0] not in _BLOCK_START:  # plain text: the common case
            if line:
                state.in_list = state.in_list and state.open_para  # a lazy continuation, or
                state.in_code, state.open_para = False, True  # the list ends
                state.para.append(line)
            else:
                state.open_para, state.para = False, []
            continue
        stripped = line.lstrip(" \t")
        if not stripped:
            state.open_para, state.para = False, []
            continue
        state.block_line(i, line, stripped)
    return state.hidden, state.headings
