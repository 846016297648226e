"""The frontmatter block of a page: split it off, load it, and report its problems by line.

An own splitter (a ``---`` line at the very start, closed by ``---`` or ``...``; a BOM, CRLF
and lone-CR line ends tolerated) keeps the body's offset and first line, which
python-frontmatter loses (it strips the text: TECH-NOTES §3). The block is loaded by
:mod:`vault_sync.parser.yaml_plain` (every scalar as written; the simple blocks most pages
have without PyYAML), here given the file line of every top-level key and list item
(:func:`frontmatter_map`, for the splice editor). Total: no ``str`` makes it raise; every
problem becomes an :class:`~vault_sync.page.Issue` with its 1-based file line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vault_sync.page import Issue, Severity
from vault_sync.parser.yaml_plain import (
    _MAX_NODES,
    _Loader,
    _node_plain,
    _plain,
    _simple_front,
    _text_loader,
    _TooComplex,
    _Unusual,
)

__all__ = ["parse_frontmatter"]

_OPEN = re.compile(r"---[ \t]*(?:\r\n|\n|\r)")
_LONE_CR = re.compile(r"\r(?!\n)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\Z)", re.MULTILINE)


@dataclass
class _Front:
    """What the frontmatter half produces; lines are 1-based file lines."""

    mapping: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    body_line: int = 1
    issues: list[Issue] = field(default_factory=list)
    key_lines: dict[str, int] = field(default_factory=dict)
    value_lines: dict[str, list[int]] = field(default_factory=dict)  # item lines of each key
    first_line: int = 1


def _breaks(text: str) -> int:
    """Count line breaks (``\\r\\n``, ``\\r`` or ``\\n``: one each), as YAML and editors do."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _split(text: str) -> tuple[str | None, str, int]:
    """Split off a frontmatter block: ``(block or None, body, index of the block's 1st line)``.

    The returned body starts right after the closing line; without a complete block the body
    is the whole text (minus leading BOMs) and the block is ``None``.
    """
    opened = _OPEN.match(text)
    if opened is None:
        return None, text, 0
    # lines ended by a lone CR (classic Mac OS; editors still offer it) are read as lines:
    # the block is found and loaded in a copy with each lone CR a LF (same offsets, so the
    # body and every line number are the file's)
    lines = _LONE_CR.sub("\n", text) if opened.group().endswith("\r") else text
    closed = _CLOSE.search(lines, opened.end())
    if closed is None:
        return None, text, 0
    return lines[opened.end() : closed.start()], text[closed.end() :], closed.end()


def _yaml_error(exc: Exception, file_line: Callable[[int], int], first: int, last: int) -> Issue:
    """The ``yaml_error`` issue of a block that failed to load, at the line YAML points to
    (for an unclosed ``[`` or ``{``, the line that opened it)."""
    problem, context = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
    line = file_line(problem.line) if problem is not None else first
    if context is not None and (problem is None or line == last):  # an unclosed [ or {
        line = file_line(context.line)
    why = getattr(exc, "problem", None) or getattr(exc, "context", None) or type(exc).__name__
    return _error("yaml_error", f"invalid YAML in frontmatter: {why}", line)


def _read_front(text: str) -> _Front:
    """Split and load the frontmatter of ``text`` (BOMs already removed)."""
    block, body, body_start = _split(text)
    front = _Front(body=body, body_line=1 + _breaks(text[:body_start]))
    if block is None:
        if _OPEN.match(text):  # read as body text, as Obsidian does; said, since edits refuse it
            front.issues.append(
                _warning(
                    "frontmatter_unclosed",
                    "frontmatter opened on line 1 is never closed by a --- line: read as body text",
                    1,
                )
            )
        return front
    simple = _simple_front(block)
    if simple is not None:
        front.mapping, front.key_lines, front.value_lines = simple
        return front
    import yaml  # the general path: a block _simple_front cannot read

    first = 2  # the line after the opening ``---``
    last = front.body_line - 1  # the closing line

    def file_line(mark_line: int) -> int:
        return min(max(first + mark_line, first), last)

    loader: _Loader | None = None
    try:
        loader = _text_loader()(block)
        node = loader.get_single_node()
        try:
            mapping = _node_plain(node, [_MAX_NODES]) if node is not None else None
        except _Unusual:  # explicit tags among them: each said, then read as plain text
            front.issues += _unknown_tags(node, file_line)
            data = loader.construct_document(node)
            mapping = _plain(data, [_MAX_NODES])
    except _TooComplex:
        front.issues.append(_error("frontmatter_too_complex", "frontmatter too large", first))
        return front
    except Exception as exc:  # yaml, encoding, recursion errors: all are bad input
        front.issues.append(_yaml_error(exc, file_line, first, last))
        return front
    finally:
        if loader is not None:
            loader.dispose()
    for key, line in loader.duplicates:
        front.issues.append(
            Issue(Severity.WARNING, "duplicate_key", f"duplicate key {key!r}: the last one wins",
                  file_line(line), key)
        )  # fmt: skip
    if mapping is None:
        return front
    if not isinstance(mapping, dict):
        kind = "a list" if isinstance(mapping, list) else "a scalar"
        front.issues.append(
            _error("frontmatter_not_mapping", f"frontmatter is {kind}, not a mapping", first)
        )
        return front
    front.mapping = mapping
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = str(key_node.value)
            front.key_lines[key] = file_line(key_node.start_mark.line)
            items = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            front.value_lines[key] = [file_line(n.start_mark.line) for n in items]
    return front


#: The tags of YAML 1.1's types (yaml.org/type), which the loader reads as their text; any
#: other tag (``!!python/object/apply:os.system``, ``!vault``) names a type of some program.
_TYPE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in (
        "str", "null", "bool", "int", "float", "timestamp", "binary",
        "seq", "map", "omap", "pairs", "set", "merge", "value",
    )
)  # fmt: skip


def _unknown_tags(node: Any, file_line: Callable[[int], int]) -> list[Issue]:
    """A ``yaml_tag`` warning for each node under ``node`` (a composed PyYAML node) whose tag
    is not one of :data:`_TYPE_TAGS`: it is never acted on (no code runs, no object is made),
    its value is read as plain text; at most :data:`_MAX_NODES` nodes are looked at."""
    out: list[Issue] = []
    stack: list[Any] = [node]
    seen: set[int] = set()
    while stack and len(seen) < _MAX_NODES:
        item = stack.pop()
        if id(item) in seen:
            continue  # an alias: the node it names was looked at
        seen.add(id(item))
        tag = str(item.tag)
        if tag not in _TYPE_TAGS and tag != "!":
            shown = "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:") else tag
            out.append(
                _warning(
                    "yaml_tag",
                    f"YAML tag {shown} is not applied: the value is read as plain text",
                    file_line(item.start_mark.line),
                )
            )
        if isinstance(item.value, list):  # a sequence's items, a mapping's (key, value) pairs
            for child in reversed(item.value):
                stack.extend(reversed(child) if isinstance(child, tuple) else [child])
    return sorted(out, key=lambda issue: issue.line or 0)


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str, int, tuple[Issue, ...]]:
    """Split and load a page's YAML frontmatter, keeping every scalar as written.

    Args:
        text: the whole decoded file; leading U+FEFF characters are ignored.

    Returns:
        ``(mapping, body, body_line, issues)``: the mapping (``{}`` when there is no block,
        it is empty or comment-only, or it failed to load), the text after the block (the whole
        text when there is no complete block), the 1-based file line where the body starts,
        and the errors (``yaml_error``, ``frontmatter_not_mapping``) and ``duplicate_key``
        warnings, each with its 1-based file line.
    """
    front = _read_front(text.lstrip("\ufeff"))
    return front.mapping, front.body, front.body_line, tuple(front.issues)


@dataclass(frozen=True)
class FrontmatterMap:
    """Where a page's frontmatter lives, for the line-splice editor (:mod:`vault_sync.splice`).

    Attributes:
        mapping: the loaded mapping, scalars as written (as :func:`parse_frontmatter`).
        key_lines: ``{key: 1-based file line}`` of each top-level key.
        value_lines: ``{key: [1-based file line of each list item, or of the value]}``.
        block: ``(opening line, closing line)``, 1-based, or ``None`` without a complete block.
        issues: the block's errors and warnings (an edit refuses a page with errors).
    """

    mapping: dict[str, Any]
    key_lines: dict[str, int]
    value_lines: dict[str, list[int]]
    block: tuple[int, int] | None
    issues: tuple[Issue, ...]


def frontmatter_map(text: str) -> FrontmatterMap:
    """The frontmatter of ``text`` (a whole decoded page, leading U+FEFF ignored) with the
    line of every top-level key and list item: see :class:`FrontmatterMap`."""
    stripped = text.lstrip("\ufeff")
    front = _read_front(stripped)
    block = None
    if _split(stripped)[0] is not None:
        block = (1, front.body_line - 1)
    return FrontmatterMap(
        front.mapping, front.key_lines, front.value_lines, block, tuple(front.issues)
    )


def _error(code: str, message: str, line: int | None, key: str | None = None) -> Issue:
    return Issue(Severity.ERROR, code, message, line, key)


def _warning(code: str, message: str, line: int | None, key: str | None = None) -> Issue:
    return Issue(Severity.WARNING, code, message, line, key)
