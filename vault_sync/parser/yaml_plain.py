"""A YAML frontmatter block loaded with every scalar as written: the loader and its fast path.

The block is loaded with a ``CSafeLoader`` subclass (:func:`_text_loader`) whose
bool/int/float/timestamp resolvers are removed, so every scalar stays the text the person wrote
(``10:00``, ``no``, ``1.10``, ``010``, offset datetimes: case F8); null, ``~`` and empty stay
``None``. Blocks of simple ``key: value`` and list lines, which YAML can read only one way, skip
PyYAML (:func:`_simple_front`; PyYAML is imported only for the other blocks), and the usual
nodes skip its constructor (:func:`_node_plain`): both give what the loader gives, pinned by
hypothesis properties in ``tests/test_parser.py``. Values are copied out as str / None / list
/ dict only, within :data:`_MAX_NODES` values and :data:`_MAX_DEPTH` levels. Splitting the
block off a page and reporting its problems is :mod:`vault_sync.parser.frontmatter`.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import yaml

_NULL_TAG = "tag:yaml.org,2002:null"
_MERGE_TAG = "tag:yaml.org,2002:merge"
#: Copying the parsed mapping stops past this many values or this depth (alias bombs, cycles).
_MAX_NODES = 10_000
_MAX_DEPTH = 32


class _Loader(Protocol):
    """What the general path uses of the loader that :func:`_text_loader` builds."""

    duplicates: list[tuple[str, int]]  # (key, 0-based line in the block)

    def get_single_node(self) -> yaml.Node | None: ...
    def construct_document(self, node: yaml.Node | None) -> Any: ...
    def dispose(self) -> None: ...


def _construct_untagged(loader: Any, node: yaml.Node) -> Any:
    """An unknown explicit tag's node (``!foo x``) as its plain scalar, list or mapping."""
    import yaml  # loaded already: only the general path's loader calls this

    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    assert isinstance(node, yaml.MappingNode)
    return loader.construct_mapping(node)


@functools.cache
def _text_loader() -> Callable[[str], _Loader]:
    """The loader class of the general path, built on first use.

    Importing PyYAML costs ~10 ms at every sync's start, and most pages' frontmatter is read
    by :func:`_simple_front` without it, so it is imported only when a block is not simple.
    """
    import yaml

    class _TextLoader(yaml.CSafeLoader):
        """``CSafeLoader`` that keeps scalars as written and records duplicate keys.

        Only the null and merge (``<<``) implicit resolvers are kept; bool, int, float,
        timestamp and value (``=``) are removed (TECH-NOTES §3), so ``no`` stays ``"no"``.
        Unknown explicit tags (``!foo x``) load as their plain scalar, list or mapping.
        """

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.duplicates: list[tuple[str, int]] = []  # (key, 0-based line in the block)

        def construct_mapping(
            self, node: yaml.MappingNode, deep: bool = False
        ) -> dict[Hashable, Any]:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                    if key_node.value in seen:
                        self.duplicates.append((key_node.value, key_node.start_mark.line))
                    seen.add(key_node.value)
            return super().construct_mapping(node, deep)

        def resolve(self, kind: type[yaml.Node], value: str, implicit: Any) -> str:
            """``BaseResolver.resolve`` for our resolvers, without its per-node list building.

            The C composer calls it once per node (~18 per page: 0.16 s of a 10k-page sync);
            only a plain scalar starting with a kept resolver's first character (``~``, ``n``,
            ``N``, ``<`` or empty) needs the regexes, so only those go to the original. No path
            resolvers are registered here, so every other node gets its kind's default tag.
            """
            if kind is yaml.ScalarNode and implicit[0] and value[:1] in resolved_first:
                return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call,no-any-return]
            return default_tags[kind]

    _TextLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag in (_NULL_TAG, _MERGE_TAG)]
        for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
    }
    #: First characters of plain scalars that one of the kept implicit resolvers may claim.
    resolved_first = frozenset(k for k, v in _TextLoader.yaml_implicit_resolvers.items() if v)
    default_tags = {
        yaml.ScalarNode: _TextLoader.DEFAULT_SCALAR_TAG,
        yaml.SequenceNode: _TextLoader.DEFAULT_SEQUENCE_TAG,
        yaml.MappingNode: _TextLoader.DEFAULT_MAPPING_TAG,
    }

    _TextLoader.add_constructor(None, _construct_untagged)
    return _TextLoader


class _TooComplex(Exception):
    """The frontmatter holds more than ``_MAX_NODES`` values or nests deeper than allowed."""


class _Unusual(Exception):
    """A node :func:`_node_plain` leaves to PyYAML's constructor (and :func:`_plain`)."""


_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"


def _node_plain(node: yaml.Node, budget: list[int], depth: int = 0) -> Any:
    """The value :func:`_plain` would copy out of ``construct_document(node)``, read straight
    off the composed nodes; raises :class:`_Unusual` for anything else.

    Speed: PyYAML's pure-Python constructor plus the copy cost ~0.08 ms per page, twice what
    this walk costs. It covers the usual frontmatter (plain, quoted and null scalars, lists,
    mappings with distinct string keys) and leaves explicit tags, merge keys, null or complex
    keys, duplicate keys and anything over ``_plain``'s limits (counted the same way) to the
    general path, which then decides exactly as before. A hypothesis property in
    ``tests/test_parser.py`` checks both paths agree.
    """
    import yaml  # loaded already: only the general path gets here

    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        raise _Unusual
    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        if tag == _STR_TAG:
            return node.value
        if tag == _NULL_TAG:
            return None
    elif isinstance(node, yaml.SequenceNode):
        if tag == _SEQ_TAG:
            return [_node_plain(item, budget, depth + 1) for item in node.value]
    elif tag == _MAP_TAG:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag != _STR_TAG or not isinstance(key, str) or key in out:
                raise _Unusual
            out[key] = _node_plain(value_node, budget, depth + 1)
        return out
    raise _Unusual


def _plain(value: Any, budget: list[int], depth: int = 0) -> Any:
    """Copy a loaded YAML value into str / None / list / dict only (JSON-safe, acyclic)."""
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        raise _TooComplex
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return {_key_text(k): _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v, budget, depth + 1) for v in value]
    return _scalar_str(value)


def _scalar_str(value: Any) -> str:
    """Text of a scalar made by an explicit tag (``!!int 5``, ``!!binary ...``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.date):  # datetime too
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _key_text(key: Any) -> str:
    return "" if key is None else key if isinstance(key, str) else _scalar_str(key)


# The frontmatter most pages have, read without PyYAML (speed: composing the nodes alone
# costs 20 us a page, 0.2 s of a 10k-page sync, plus the garbage of ~50 node and mark objects):
# lines of `key: value`, `key: [a, "b"]`, `key:` (null) and `key:` + `- item` lines, where
# every scalar is plain text that YAML can only read one way (no indicator, comment, escape,
# tab or line break) or quoted without escapes. Anything else returns None and goes to
# PyYAML; tests/test_parser.py checks both agree on generated blocks.
_PLAIN_KEY = r"([A-Za-z_][A-Za-z0-9_-]*)"
#: Plain scalars: block context (``,`` and ``:`` before a non-blank allowed), flow context.
_BLOCK_PLAIN = r"[\w./(](?:(?:[\w ./()+,@-]|:(?=[\w./(@+-]))*[\w./()+,@-])?"
_FLOW_PLAIN = r"[\w./(](?:[\w ./()+@-]*[\w./()+@-])?"
_NOT_QUOTABLE = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"
_QUOTED = rf"\"[^\"\\{_NOT_QUOTABLE}]*\"|'[^'{_NOT_QUOTABLE}]*'"
_FLOW_ITEM = rf"(?:{_FLOW_PLAIN}|{_QUOTED})"
_SIMPLE_KEY_LINE = re.compile(
    rf"{_PLAIN_KEY}:(?: +(?:({_BLOCK_PLAIN})|({_QUOTED})"
    rf"|\[ *((?:{_FLOW_ITEM} *(?:, *{_FLOW_ITEM} *)*)?)\]))? *"
)
_SIMPLE_ITEM_LINE = re.compile(rf"( *)- +(?:({_BLOCK_PLAIN})|({_QUOTED})) *")
_FLOW_ITEMS = re.compile(rf"({_FLOW_PLAIN})|{_QUOTED}")
_NULL_WORDS = frozenset({"null", "Null", "NULL"})


def _simple_front(block: str) -> tuple[dict[str, Any], dict[str, int], dict[str, list[int]]] | None:
    """``(mapping, key_lines, value_lines)`` of a simple block, as the general path reads it
    (lines are 1-based file lines, the block starting on line 2); ``None`` when not simple."""
    lines = block.split("\n")
    if lines.pop() != "" or not lines:  # a block is whole lines, each ending with "\n"
        return None
    mapping: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    value_lines: dict[str, list[int]] = {}
    open_key: str | None = None  # a `key:` without a value: null, or a list of `- item` lines
    indent = ""
    for number, line in enumerate(lines, 2):
        m = _SIMPLE_KEY_LINE.fullmatch(line)
        if m is not None:
            key = m[1]
            if key in mapping or key in _NULL_WORDS:
                return None
            key_lines[key], open_key = number, None
            if m[2] is not None:
                mapping[key] = None if m[2] in _NULL_WORDS else m[2]
            elif m[3] is not None:
                mapping[key] = m[3][1:-1]
            elif m[4] is not None:
                items = [
                    (None if item[1] in _NULL_WORDS else item[1])
                    if item[1] is not None
                    else item[0][1:-1]
                    for item in _FLOW_ITEMS.finditer(m[4])
                ]
                mapping[key] = items
                value_lines[key] = [number] * len(items)
                continue
            else:
                mapping[key], open_key = None, key
            value_lines[key] = [number]
            continue
        m = _SIMPLE_ITEM_LINE.fullmatch(line)
        if m is None or open_key is None:
            return None
        items = mapping[open_key]
        if items is None:  # the first item: the key's value is a list after all
            items = mapping[open_key] = []
            value_lines[open_key] = []
            indent = m[1]
        elif m[1] != indent:
            return None
        items.append((None if m[2] in _NULL_WORDS else m[2]) if m[2] is not None else m[3][1:-1])
        value_lines[open_key].append(number)
    values = sum(len(v) if isinstance(v, list) else 0 for v in mapping.values())
    if not mapping or 1 + len(mapping) + values > _MAX_NODES:
        return None
    return mapping, key_lines, value_lines
