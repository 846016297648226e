"""Edit one frontmatter key of a page by line-level splice, copying every other byte.

The editor of agent writes (DESIGN §7, Invariant 5; issue 11). A whole-block YAML round trip
re-serialises 179 of 189 SilverBullet frontmatter blocks and 18 of 103 Obsidian Tasks blocks
differently (measured), so it cannot be the editor: here only the lines of the one key that
changes are rendered, in the page's own style (its list indentation and flow or block lists,
its line endings), and every other byte is copied. The result is parsed again and must give
the old mapping plus exactly the change, else the edit is refused
(:class:`~vault_sync.errors.EditRefusedError`) and nothing is written.

Minimal edits, by what changed:

- items appended to a block list: one ``- item`` line each after the list's last line; to a
  one-line flow list: ``, item`` before its closing ``]`` (the other items kept as written);
- items removed from a block list: those items' lines only, with the comment lines directly
  above each at its indentation (its own comment); from a one-line flow list: each item's own
  text and one separator, the other items' bytes (their quoting) kept;
- a key removed: its lines, with the comment lines directly above it at column 0 (a comment
  set off by a blank line, and the comments after its value, stay);
- a one-line scalar changed: its value only (its trailing ``# comment`` kept);
- any other change of a key: that key's lines (its key line through its last value line,
  comments and blank lines after it kept) rendered again, a trailing comment of the key line
  kept on the new key line; a new key goes before the closing ``---`` (above the comment lines
  at column 0 that end the block, so removing the key again leaves them); a page without
  frontmatter gets a new block at its top (after a BOM).

Where a value ends and its comment starts on a key line is read from PyYAML's own scanner
(:func:`_value_tokens`), never guessed by a pattern.

Values are strings, lists of strings, or (evidence items) flat mappings of strings; a string
is written plain when YAML reads it back as the same text, else double-quoted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from vault_sync.errors import EditRefusedError
from vault_sync.page import Severity
from vault_sync.parser.frontmatter import FrontmatterMap, frontmatter_map, parse_frontmatter

#: A line and its ending: ``\r\n``, ``\r`` or ``\n`` (the breaks the parser counts), or none.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")
_ITEM_INDENT = re.compile(r"( *)- ")
_COMMENT_OR_BLANK = re.compile(r"[ \t]*(?:#.*)?(?:\r\n|\r|\n)?\Z")
_COMMENT_LINE = re.compile(r"([ \t]*)#")
#: A comment line at column 0 (no block scalar's line: those are indented).
_CLOSING_COMMENT = re.compile(r"#")
_INDENT = re.compile(r"[ \t]*")
#: Characters a double-quoted YAML scalar must escape besides ``"`` and ``\``: C0/C1 controls,
#: DEL, and the line and paragraph separators (YAML folds them inside quotes).
_ESCAPE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")

#: Indentation of a new block list when the page has none to copy (Obsidian's own).
DEFAULT_ITEM_INDENT = "  "

Value = str | list[Any] | dict[str, str]
DELETE: Any = object()  # the new value that removes a key


@dataclass(frozen=True)
class _Page:
    """A page cut into lines (each with its ending), with its frontmatter map."""

    lines: list[str]
    front: FrontmatterMap
    newline: str
    bom: str


def _cut(text: str) -> _Page:
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines = [m[0] for m in _LINE.finditer(text[len(bom) :]) if m[0]]
    first = lines[0] if lines else "\n"
    newline = "\r\n" if first.endswith("\r\n") else "\r" if first.endswith("\r") else "\n"
    return _Page(lines, frontmatter_map(text), newline, bom)


def _quoted(value: str) -> str:
    """A double-quoted YAML scalar of ``value`` (JSON's escapes, which YAML reads alike)."""
    return _ESCAPE.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(value, ensure_ascii=False))


def render_scalar(value: str, *, flow: bool = False) -> str:
    """``value`` as a YAML scalar: plain when the parser reads that back as the same text
    (in a flow list when ``flow``), else double-quoted."""
    if value and value == value.strip() and "\n" not in value and "\r" not in value:
        probe = f"---\nk: [{value}]\n---\n" if flow else f"---\nk: {value}\n---\n"
        mapping = parse_frontmatter(probe)[0]
        if mapping == ({"k": [value]} if flow else {"k": value}):
            return value
    return _quoted(value)


def render_item(value: Any) -> str:
    """A list item as a YAML flow value: a scalar, or a flat mapping ``{k: v, ...}``."""
    if isinstance(value, dict):
        inner = ", ".join(f"{k}: {render_scalar(str(v), flow=True)}" for k, v in value.items())
        return "{" + inner + "}"
    return render_scalar(str(value), flow=True)


def _render_key(key: str, value: Value, style: str, indent: str, nl: str) -> list[str]:
    """The lines of ``key: value``; lists in ``style`` ``"flow"`` or ``"block"``."""
    if not isinstance(value, list):
        return [f"{key}: {render_scalar(str(value))}{nl}"]
    if style == "flow" or not value:
        return [f"{key}: [{', '.join(render_item(v) for v in value)}]{nl}"]
    return [f"{key}:{nl}", *(f"{indent}- {render_item(v)}{nl}" for v in value)]


def _extent(page: _Page, key: str) -> tuple[int, int]:
    """0-based ``(first, end)`` line range of ``key``: its key line through its last value
    line, the comment and blank lines that follow it left out."""
    front, lines = page.front, page.lines
    assert front.block is not None
    start = front.key_lines[key] - 1
    later = [n - 1 for n in front.key_lines.values() if n - 1 > start]
    end = min(later, default=front.block[1] - 1)
    last_value = max([start, *(n - 1 for n in front.value_lines.get(key, []))])
    while end - 1 > last_value and _COMMENT_OR_BLANK.match(lines[end - 1]):
        end -= 1
    return start, end


def _own_comments(lines: list[str], first: int, at: int) -> int:
    """The first line of the comment lines that belong to line ``at`` (0-based): those
    directly above it (no blank line between) at its own indentation, none above line
    ``first``; ``at`` itself when there are none. A removed key or list item takes them
    along; a comment set off by a blank line, or indented otherwise, is not its own."""
    indent = _INDENT.match(lines[at])
    own = indent[0] if indent else ""
    while at > first:
        m = _COMMENT_LINE.match(lines[at - 1])
        if m is None or m[1] != own:
            break
        at -= 1
    return at


def _item_indent(page: _Page) -> str:
    """The indentation of the page's block list items (its first one), else the default."""
    assert page.front.block is not None
    for line in page.lines[page.front.block[0] : page.front.block[1] - 1]:
        m = _ITEM_INDENT.match(line)
        if m:
            return m[1]
    return DEFAULT_ITEM_INDENT


def _is_block_list(page: _Page, key: str) -> bool:
    start, end = _extent(page, key)
    line = page.lines[start].rstrip("\r\n")
    comment = _key_line_comment(line, key)
    return end - start > 1 and line[: len(line) - len(comment)].rstrip().endswith(":")


def _spliced(page: _Page, key: str, old: Any, new: Any) -> list[str]:
    """The page's lines with ``key`` changed from ``old`` (``DELETE``: absent) to ``new``."""
    lines, front, nl = list(page.lines), page.front, page.newline
    if front.block is None:  # no frontmatter: a new block at the top
        rendered = _render_key(key, new, "block", DEFAULT_ITEM_INDENT, nl)
        return [f"---{nl}", *rendered, f"---{nl}", *lines]
    if old is DELETE:  # a new key, before the closing line and the comments that end the block
        close = front.block[1] - 1
        while close - 1 > front.block[0] - 1 and _CLOSING_COMMENT.match(lines[close - 1]):
            close -= 1  # (above them, they are no comment of the new key, which removing it took)
        if close > 0 and not lines[close - 1].endswith(("\n", "\r")):
            lines[close - 1] += nl
        lines[close:close] = _render_key(key, new, "block", _item_indent(page), nl)
        return lines
    start, end = _extent(page, key)
    if new is DELETE:
        del lines[_own_comments(lines, front.block[0], start) : end]
        return lines
    block = _is_block_list(page, key)
    items = front.value_lines.get(key, [])
    if block and isinstance(old, list) and isinstance(new, list) and len(items) == len(old):
        if new[: len(old)] == old and len(new) > len(old):  # appended items
            indent = _ITEM_INDENT.match(lines[items[0] - 1])
            pad = indent[1] if indent else _item_indent(page)
            if not lines[end - 1].endswith(("\n", "\r")):
                lines[end - 1] += nl
            lines[end:end] = [f"{pad}- {render_item(v)}{nl}" for v in new[len(old) :]]
            return lines
        kept = _removed_only(old, new)
        if kept is not None and new and len(set(items)) == len(items):  # one item per line
            starts = [n - 1 for n in items] + [end]
            cuts = []
            for i in (i for i, keep in enumerate(kept) if not keep):
                stop = starts[i + 1]  # the item's lines; comment lines after it stay
                while stop - 1 > starts[i] and _COMMENT_OR_BLANK.match(lines[stop - 1]):
                    stop -= 1
                cuts.append((_own_comments(lines, start + 1, starts[i]), stop))
            for a, b in reversed(cuts):  # computed on the old lines, cut from the end
                del lines[a:b]
            return lines
    if not block and end - start == 1:
        one = _one_line(lines[start], key, old, new)
        if one is not None:
            lines[start] = one
            return lines
    style = "block" if block or not isinstance(old, list) else "flow"
    ending = lines[end - 1][len(lines[end - 1].rstrip("\r\n")) :] or nl
    rendered = _render_key(key, new, style, _item_indent(page), ending)
    comment = _key_line_comment(lines[start], key)
    if comment:
        first = rendered[0].rstrip("\r\n")
        rendered[0] = first + comment + rendered[0][len(first) :]
    lines[start:end] = rendered
    return lines


def _value_tokens(line: str, key: str) -> tuple[list[Any], int] | None:
    """PyYAML's scanner tokens of the value on a one-line ``key: value  # comment`` and the
    index where the value starts; ``None`` when the line does not scan alone (a value that
    goes on below it) or holds no value."""
    import yaml  # the parser loads it already; imported here to keep start-up light

    try:
        tokens = list(yaml.scan(line))
    except yaml.YAMLError:
        return None
    names = [type(t).__name__ for t in tokens]
    if (
        names[:5]
        != [
            "StreamStartToken",
            "BlockMappingStartToken",
            "KeyToken",
            "ScalarToken",
            "ValueToken",
        ]
        or getattr(tokens[3], "value", None) != key
    ):
        return None
    value = [t for t in tokens[5:] if type(t).__name__ not in ("BlockEndToken", "StreamEndToken")]
    if not value:
        return None
    return value, tokens[4].end_mark.index


def _key_line_comment(line: str, key: str) -> str:
    """The trailing ``  # comment`` of a key line (its value's own text left out), or ``""``."""
    body = line.rstrip("\r\n")
    scanned = _value_tokens(body, key)
    end = scanned[0][-1].end_mark.index if scanned else len(f"{key}:")
    rest = body[end:]
    m = re.search(r"[ \t]+#.*\Z", rest)
    return m[0] if m and not rest[: m.start()].strip() else ""


def _one_line(line: str, key: str, old: Any, new: Any) -> str | None:
    """``line`` (a key with its whole value on it) with the value changed, the rest of its
    bytes (a trailing comment, the other items of a flow list) copied; ``None`` when this
    change cannot be made in place."""
    body = line.rstrip("\r\n")
    scanned = _value_tokens(body, key)
    if scanned is None:
        return None
    tokens, _ = scanned
    start, end = tokens[0].start_mark.index, tokens[-1].end_mark.index
    tail = line[end:]
    if isinstance(new, str) and not isinstance(old, list) and len(tokens) == 1:
        return f"{body[:start]}{render_scalar(new)}{tail}"
    if not (isinstance(old, list) and isinstance(new, list)):
        return None
    spans = _flow_items(tokens)
    if spans is None or len(spans) != len(old):
        return None
    close = tokens[-1].start_mark.index  # the closing "]"
    if new[: len(old)] == old and len(new) > len(old):  # appended
        added = ", ".join(render_item(v) for v in new[len(old) :])
        head = body[:close].rstrip()
        joint = "" if head.endswith("[") else ", "
        return f"{head}{joint}{added}{line[close:]}"
    kept = _removed_only(old, new)
    if kept is None:
        return None
    if not new:
        return body[: tokens[0].end_mark.index] + line[close:]
    first = kept.index(True)
    cuts = [(spans[0][0], spans[first][0])] if first else []
    cuts += [(spans[i - 1][1], spans[i][1]) for i in range(first + 1, len(kept)) if not kept[i]]
    for a, b in reversed(cuts):
        line = line[:a] + line[b:]
    return line


def _flow_items(tokens: list[Any]) -> list[tuple[int, int]] | None:
    """``(start, end)`` character span of each item of a one-line flow list's tokens (the
    first is its ``[``, the last its ``]``), or ``None`` when they are no flow list."""
    names = [type(t).__name__ for t in tokens]
    if names[0] != "FlowSequenceStartToken" or names[-1] != "FlowSequenceEndToken":
        return None
    spans: list[tuple[int, int]] = []
    depth, item = 0, None
    for token, name in zip(tokens[1:-1], names[1:-1], strict=True):
        if depth == 0 and name == "FlowEntryToken":
            if item is None:
                return None  # an empty item ("[a, , b]"): not edited in place
            spans.append(item)
            item = None
            continue
        depth += name.endswith(("SequenceStartToken", "MappingStartToken"))
        depth -= name.endswith(("SequenceEndToken", "MappingEndToken"))
        if name == "KeyToken" and token.start_mark.index == token.end_mark.index:
            continue  # an implied key: no text of its own
        a, b = token.start_mark.index, token.end_mark.index
        item = (a, b) if item is None else (item[0], b)
    if item is not None:
        spans.append(item)
    return spans


def _removed_only(old: list[Any], new: list[Any]) -> list[bool] | None:
    """Which items of ``old`` stay when ``new`` is ``old`` with some items removed (in
    order), else ``None``."""
    kept, j = [], 0
    for item in old:
        if j < len(new) and new[j] == item:
            kept.append(True)
            j += 1
        else:
            kept.append(False)
    return kept if j == len(new) and not all(kept) else None


def splice_key(text: str, key: str, new: Any, *, path: str) -> str:
    """``text`` with frontmatter ``key`` set to ``new`` (``DELETE`` removes it).

    Args:
        text: the whole decoded page.
        key: a top-level key (``[A-Za-z_][A-Za-z0-9_-]*``).
        new: a string, a list of strings or flat string mappings, or :data:`DELETE`.
        path: the page's vault path, for error messages.

    Returns:
        The new text; ``text`` itself when the key already holds ``new``.

    Raises:
        EditRefusedError: the frontmatter does not parse (names the line), the key is not a
            plain name, or the spliced text does not parse back to the old mapping with
            exactly this change (nothing is written then).
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
        raise EditRefusedError(f"{path}: {key!r} is not a frontmatter key vault-sync writes")
    page = _cut(text)
    if page.front.block is None and page.lines and page.lines[0].rstrip("\r\n").rstrip() == "---":
        raise EditRefusedError(
            f"{path}:1: frontmatter opened on line 1 is never closed by a --- line; not edited"
        )
    errors = [i for i in page.front.issues if i.severity is Severity.ERROR]
    if errors:
        line = f":{errors[0].line}" if errors[0].line else ""
        raise EditRefusedError(f"{path}{line}: {errors[0].message}; not edited")
    old = page.front.mapping.get(key, DELETE)
    if old == new:
        return text
    result = page.bom + "".join(_spliced(page, key, old, new))
    expected = dict(page.front.mapping)
    if new is DELETE:
        expected.pop(key, None)
    else:
        expected[key] = new
    again = frontmatter_map(result)
    body_before = _body(text, page.front)
    if again.mapping != expected or _body(result, again) != body_before:
        at = page.front.key_lines.get(key, 1)
        raise EditRefusedError(
            f"{path}:{at}: editing {key!r} here would change more than that key; not edited"
        )
    return result


def _body(text: str, front: FrontmatterMap) -> str:
    """The text after the frontmatter block (the whole text without one), BOM dropped."""
    lines = [m[0] for m in _LINE.finditer(text.lstrip("\ufeff")) if m[0]]
    return "".join(lines[front.block[1] :]) if front.block else "".join(lines)
