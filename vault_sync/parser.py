"""Parse one Markdown page into a :class:`~vault_sync.page.Page` (DESIGN §2).

Two halves, both total (no ``str`` input makes them raise; a hypothesis property pins it):

* **Frontmatter.** An own splitter (a ``---`` line at the very start, closed by ``---`` or
  ``...``; BOM and CRLF tolerated) keeps the body's offset and first line, which
  python-frontmatter loses (it strips the text: TECH-NOTES §3). The block is loaded with a
  ``CSafeLoader`` subclass whose bool/int/float/timestamp resolvers are removed, so every scalar
  stays the text the person wrote (``10:00``, ``no``, ``1.10``, ``010``, offset datetimes:
  case F8); null, ``~`` and empty stay ``None``. Blocks of simple ``key: value`` and list
  lines, which YAML can read only one way, skip PyYAML (``_simple_front``; PyYAML is imported
  only for the other blocks), and the usual nodes skip its constructor (``_node_plain``): both
  give what the loader gives, pinned by hypothesis properties. Known keys are then checked
  with pydantic models (the reference), which a plain-Python check of the valid shapes skips
  (``_known_fast``, ``_evidence_fast``: same values, pinned by hypothesis properties), so
  pydantic is imported only for a page with a value it must judge; every problem becomes an
  :class:`~vault_sync.page.Issue` with its 1-based file line.
* **Body.** A line-based scanner with precompiled regexes, not markdown-it: markdown-it over
  every page costs half of the 10k-page cold-sync budget (TECH-NOTES §4: 2.0 s vs 0.30 s for a
  regex over masked text, both finding the same 28,888 links). One pass over the lines masks
  fenced and indented code and HTML-comment blocks (CommonMark block rules, simplified: lists
  and block quotes are only partly modelled) and collects headings; one left-to-right token
  scan over the masked text then skips code spans, inline comments and escapes while it
  collects wikilinks, Markdown links and ``#tags``, so that whichever construct starts first
  wins, as in markdown-it. ``tests/test_parser.py`` checks the scanner against markdown-it
  plus the TECH-NOTES §4 wikilink rule.
"""

from __future__ import annotations

import datetime
import functools
import logging
import posixpath
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, Protocol
from urllib.parse import unquote

from vault_sync.page import (
    EMBEDS,
    EVIDENCE_KINDS,
    REFERENCES,
    RELATION_TYPES,
    TITLE_MAX_CHARS,
    Evidence,
    Heading,
    Issue,
    Kind,
    Link,
    LinkOrigin,
    Page,
    Severity,
    Status,
    path_id,
    path_stem,
)

if TYPE_CHECKING:
    import yaml
    from pydantic import BaseModel

__all__ = ["parse_frontmatter", "parse_page"]

logger = logging.getLogger(__name__)

# --------------------------------------------------------------------------- frontmatter

_OPEN = re.compile(r"---[ \t]*(?:\r\n|\n)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\Z)", re.MULTILINE)
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

    def construct_untagged(loader: _TextLoader, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        assert isinstance(node, yaml.MappingNode)
        return loader.construct_mapping(node)

    _TextLoader.add_constructor(None, construct_untagged)
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


def _split(text: str) -> tuple[str | None, str, int]:
    """Split off a frontmatter block: ``(block or None, body, index of the block's 1st line)``.

    The returned body starts right after the closing line; without a complete block the body
    is the whole text (minus leading BOMs) and the block is ``None``.
    """
    opened = _OPEN.match(text)
    if opened is None:
        return None, text, 0
    closed = _CLOSE.search(text, opened.end())
    if closed is None:
        return None, text, 0
    return text[opened.end() : closed.start()], text[closed.end() :], closed.end()


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


def _read_front(text: str) -> _Front:
    """Split and load the frontmatter of ``text`` (BOMs already removed)."""
    block, body, body_start = _split(text)
    front = _Front(body=body, body_line=1 + _breaks(text[:body_start]))
    if block is None:
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
        except _Unusual:
            data = loader.construct_document(node)
            mapping = _plain(data, [_MAX_NODES])
    except _TooComplex:
        front.issues.append(_error("frontmatter_too_complex", "frontmatter too large", first))
        return front
    except Exception as exc:  # yaml, encoding, recursion errors: all are bad input
        problem, context = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
        line = file_line(problem.line) if problem is not None else first
        if context is not None and (problem is None or line == last):  # an unclosed [ or {
            line = file_line(context.line)
        why = getattr(exc, "problem", None) or getattr(exc, "context", None) or type(exc).__name__
        front.issues.append(_error("yaml_error", f"invalid YAML in frontmatter: {why}", line))
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


def _error(code: str, message: str, line: int | None, key: str | None = None) -> Issue:
    return Issue(Severity.ERROR, code, message, line, key)


def _warning(code: str, message: str, line: int | None, key: str | None = None) -> Issue:
    return Issue(Severity.WARNING, code, message, line, key)


# --------------------------------------------------------------------------- known keys

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?\Z")
_TAG_SPLIT = re.compile(r"[,\s]+")


def _flat_text(value: Any) -> str:
    """A value as one line of text: lists joined by ``", "`` (DESIGN §2, case F4c)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(t for v in value if (t := _flat_text(v)))
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_flat_text(v)}" for k, v in value.items())
    return " ".join(str(value).split())


def _title_value(value: Any) -> str | None:
    return _flat_text(value) or None


def _scalar_value(value: Any) -> Any:
    """Scalars to stripped text or ``None``; lists and mappings pass on (pydantic rejects them)."""
    if value is None or isinstance(value, list | dict):
        return value
    return str(value).strip() or None


def _enum_value(value: Any) -> Any:
    value = _scalar_value(value)
    return value.lower() if isinstance(value, str) else value


def _text_list(value: Any, split: re.Pattern[str] | None = None) -> Any:
    """A string or a (nested) list of scalars -> list of non-empty stripped strings."""
    if value is None:
        return []
    if isinstance(value, str):
        parts = split.split(value) if split else [value]
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list):
        return [t for v in value if not isinstance(v, dict) for t in _text_list(v, split)]
    return value  # a mapping: pydantic reports it


def _tag_list(value: Any) -> Any:
    tags = _text_list(value, _TAG_SPLIT)
    return [t.lstrip("#") for t in tags if t.lstrip("#")] if isinstance(tags, list) else tags


def _link_list(value: Any) -> Any:
    """Relation values: ``"[[X]]"`` or a list of them; YAML's ``[[X]]`` (a nested list) too."""
    if isinstance(value, list):
        return [
            f"[[{v[0]}]]" if isinstance(v, list) and len(v) == 1 and isinstance(v[0], str) else v
            for v in value
        ]
    return [] if value is None else [value]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _iso_date(value: str | None) -> str | None:
    """An ISO 8601 date (or datetime) that names a real day: ``2020-13-45`` is refused."""
    if value is None:
        return value
    try:
        if not _ISO_DATE.match(value):
            raise ValueError
        datetime.date.fromisoformat(value[:10])
    except ValueError:
        raise ValueError("expected an ISO date such as 2026-03-01") from None
    return value


class _Known(NamedTuple):
    """The frontmatter keys the page model knows (DESIGN §2), as validated values.

    The fields, their types and defaults are those of the pydantic model built by
    :func:`_reference_models` (a test pins that they agree). A named tuple, not a frozen
    dataclass: with 17 fields, the frozen ``__init__`` costs 2 us of every page, this 0.4 us.
    """

    title: str | None = None
    id: str | None = None
    kind: Kind | None = None
    status: Status | None = None
    project: str | None = None
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    valid_from: str | None = None
    valid_to: str | None = None
    evidence: tuple[Any, ...] = ()
    causes: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


#: Frontmatter keys whose values become typed links (DESIGN §2).
_RELATION_KEYS: tuple[str, ...] = (*RELATION_TYPES, REFERENCES)
_KNOWN = frozenset(_Known._fields)


@functools.cache
def _reference_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """The pydantic models of the known keys and of one evidence entry, built on first use.

    They are the reference: every value the fast checks (:func:`_known_fast`,
    :func:`_evidence_fast`) cannot plainly accept is validated here, and pydantic's messages
    become the warnings. House rule: a well-kept library beats our own code, but inside the
    core speed budgets decide: importing pydantic and building these models costs ~60 ms,
    ~20% of a one-page-change sync (0.34 s at 10k pages), for pages that nearly all hold
    valid values. So pydantic is imported only when a page needs it (hypothesis properties
    in ``tests/test_parser.py`` check both paths agree).
    """
    from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict

    _Title = Annotated[str | None, BeforeValidator(_title_value)]
    _Text = Annotated[str | None, BeforeValidator(_scalar_value)]
    _Date = Annotated[str | None, BeforeValidator(_scalar_value), AfterValidator(_iso_date)]
    _Texts = Annotated[tuple[str, ...], BeforeValidator(_text_list)]
    _Tags = Annotated[tuple[str, ...], BeforeValidator(_tag_list)]
    _Links = Annotated[tuple[str, ...], BeforeValidator(_link_list)]

    class _KnownKeys(BaseModel):
        """The frontmatter keys the page model knows (DESIGN §2), as validated types."""

        model_config = ConfigDict(extra="ignore", frozen=True)

        title: _Title = None
        id: _Text = None
        kind: Annotated[Kind | None, BeforeValidator(_enum_value)] = None
        status: Annotated[Status | None, BeforeValidator(_enum_value)] = None
        project: _Text = None
        tags: _Tags = ()
        aliases: _Texts = ()
        valid_from: _Date = None
        valid_to: _Date = None
        evidence: Annotated[tuple[Any, ...], BeforeValidator(_as_list)] = ()
        causes: _Links = ()
        fixes: _Links = ()
        contradicts: _Links = ()
        supersedes: _Links = ()
        superseded_by: _Links = ()
        related: _Links = ()
        references: _Links = ()

    class _EvidenceEntry(BaseModel):
        """The mapping form of one evidence entry: ``{kind, source, at, note}``."""

        model_config = ConfigDict(extra="ignore", frozen=True)

        kind: Annotated[str, BeforeValidator(_enum_value)]
        source: Annotated[str, BeforeValidator(_scalar_value)]
        at: _Text = None
        note: _Text = None

    return _KnownKeys, _EvidenceEntry


class _Refused(Exception):
    """A value the fast checks leave to pydantic (which may still accept it)."""


def _text_or_none(value: Any) -> str | None:
    if value is None or type(value) is str:
        return value
    raise _Refused


def _texts(values: Any) -> tuple[str, ...]:
    if type(values) is list and all(type(v) is str for v in values):
        return tuple(values)
    raise _Refused


def _member(members: dict[str, Any], value: Any) -> Any:
    if value is None:
        return None
    if type(value) is str and value in members:
        return members[value]
    raise _Refused


_KINDS = {kind.value: kind for kind in Kind}
_STATUSES = {status.value: status for status in Status}


def _date_or_none(value: Any) -> str | None:
    try:
        return _iso_date(_text_or_none(value))
    except ValueError:
        raise _Refused from None


#: Per known key: the value pydantic's model gives for a raw value it plainly accepts, the
#: same validator functions followed by the type check pydantic adds; :class:`_Refused` else.
_FAST_CHECKS: dict[str, Callable[[Any], Any]] = {
    "title": lambda v: _text_or_none(_title_value(v)),
    "id": lambda v: _text_or_none(_scalar_value(v)),
    "kind": lambda v: _member(_KINDS, _enum_value(v)),
    "status": lambda v: _member(_STATUSES, _enum_value(v)),
    "project": lambda v: _text_or_none(_scalar_value(v)),
    "tags": lambda v: _texts(_tag_list(v)),
    "aliases": lambda v: _texts(_text_list(v)),
    "valid_from": lambda v: _date_or_none(_scalar_value(v)),
    "valid_to": lambda v: _date_or_none(_scalar_value(v)),
    "evidence": lambda v: tuple(_as_list(v)),
    **{key: (lambda v: _texts(_link_list(v))) for key in _RELATION_KEYS},
}


def _known_fast(data: dict[str, Any]) -> _Known | None:
    """The known keys of ``data`` (known keys only) as pydantic gives them, when every value is
    plainly valid; ``None`` when one is not (pydantic then decides and words the warnings)."""
    try:
        return _Known(**{key: _FAST_CHECKS[key](value) for key, value in data.items()})
    except _Refused:
        return None


def _known_checked(data: dict[str, Any], front: _Front, issues: list[Issue]) -> _Known:
    """The known keys validated by pydantic; each bad key is reported (with its line) and
    dropped, and the rest is validated again."""
    from pydantic import ValidationError

    known_keys = _reference_models()[0]
    data = dict(data)
    while True:
        try:
            return _Known(**dict(known_keys.model_validate(data)))
        except ValidationError as exc:
            errors = exc.errors()
            if not any(err["loc"] and err["loc"][0] in data for err in errors):
                return _Known()  # nothing left to drop (not expected: all fields default)
            for err in errors:
                key = str(err["loc"][0]) if err["loc"] else ""
                shown = data.get(key)
                value = f" {shown[:60]!r}" if isinstance(shown, str) else ""
                issues.append(
                    _warning(
                        "invalid_value",
                        f"{key}:{value} is not valid ({err['msg']}); the key is ignored",
                        front.key_lines.get(key),
                        key,
                    )
                )
                data.pop(key, None)


def _validate_known(front: _Front, issues: list[Issue]) -> _Known:
    """Validate the known keys; a bad key is reported (with its line) and falls back."""
    data = {k: v for k, v in front.mapping.items() if k in _KNOWN}
    known = _known_fast(data)
    return known if known is not None else _known_checked(data, front, issues)


_EVIDENCE_TEXT = re.compile(r"\s*([A-Za-z][\w-]*)\s*:\s*(.+?)(?:\s+@(\S+))?\s*\Z", re.DOTALL)

_EvidenceFields = tuple[str, str, str | None, str | None]


def _evidence_fast(fields: dict[str, Any] | None) -> _EvidenceFields | None:
    """``(kind, source, at, note)`` as the evidence model gives them, when plainly valid;
    ``None`` when not (pydantic then decides)."""
    if fields is None or "kind" not in fields or "source" not in fields:
        return None
    kind, source = _enum_value(fields["kind"]), _scalar_value(fields["source"])
    if type(kind) is not str or type(source) is not str:
        return None
    try:
        at, note = (
            _text_or_none(_scalar_value(fields.get("at"))),
            _text_or_none(_scalar_value(fields.get("note"))),
        )
    except _Refused:
        return None
    return kind, source, at, note


def _evidence_checked(fields: Any) -> _EvidenceFields | None:
    """``(kind, source, at, note)`` validated by pydantic; ``None`` when invalid."""
    from pydantic import ValidationError

    try:
        item = dict(_reference_models()[1].model_validate(fields))
    except ValidationError:
        return None
    return item["kind"], item["source"], item["at"], item["note"]


def _evidence(front: _Front, entries: tuple[Any, ...], issues: list[Issue]) -> list[Evidence]:
    """Evidence entries in string (``kind:source @at``) or mapping form, deduplicated."""
    lines = front.value_lines.get("evidence", [])
    key_line = front.key_lines.get("evidence", front.first_line)
    found: dict[tuple[str, str], Evidence] = {}
    for i, entry in enumerate(entries):
        line = lines[i] if i < len(lines) else key_line
        fields: dict[str, Any] | None = None
        if isinstance(entry, str):
            m = _EVIDENCE_TEXT.match(entry)
            if m:
                fields = {"kind": m[1], "source": m[2], "at": m[3]}
        elif isinstance(entry, dict):
            fields = entry
            if "kind" not in entry and "source" not in entry and len(entry) == 1:
                ((kind, source),) = entry.items()  # `- session: abc` read as a mapping
                fields = {"kind": kind, "source": source}
        item = _evidence_fast(fields) or _evidence_checked(fields)
        if item is None:
            issues.append(
                _warning("invalid_evidence", "evidence entry needs a kind and a source "
                         "(`kind:source @date` or {kind, source, at, note})", line, "evidence")
            )  # fmt: skip
            continue
        kind, source, at, note = item
        if kind not in EVIDENCE_KINDS:
            issues.append(
                _warning("unknown_evidence_kind", f"unknown evidence kind {kind[:40]!r} "
                         f"(known: {', '.join(EVIDENCE_KINDS)})", line, "evidence")
            )  # fmt: skip
        found.setdefault((kind, source), Evidence(kind, source, line, at, note))
    return list(found.values())


#: A lower-case letter or digit followed by a capital: where a camelCase key splits.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _edge_type(key: str) -> str:
    """Edge type of a custom key or inline field: snake_case of the key as written.

    camelCase, kebab-case and spaces all become ``_``-separated lower case, so the same
    relation written ``dependsOn``, ``depends-on`` or ``depends on`` is one edge type, and
    ``supersededBy`` (SilverBullet's spelling) is the ``superseded_by`` relation.
    """
    return "_".join(_CAMEL_BOUNDARY.sub(" ", key).replace("-", " ").lower().split())


def _frontmatter_links(front: _Front, known: _Known, path: str, issues: list[Issue]) -> list[Link]:
    """Typed links of relation keys, then of other keys whose values are all wikilinks."""
    links: list[Link] = []

    def add(key: str, values: Iterable[Any], edge: str, report: bool) -> None:
        lines = front.value_lines.get(key, [])
        key_line = front.key_lines.get(key, front.first_line)
        for i, value in enumerate(values):
            line = lines[i] if i < len(lines) else key_line
            m = _WIKI_WHOLE.match(value) if isinstance(value, str) else None
            link = _wikilink(m[2], m[3], path) if m else None
            if link is not None:
                target, anchor, display = link
                links.append(Link(target, edge, line, anchor, display, LinkOrigin.FRONTMATTER))
            elif report:
                issues.append(
                    _warning("invalid_relation", f"{key}: expected a wikilink such as "
                             '"[[Page]]"; the value is ignored', line, key)
                )  # fmt: skip

    for key in _RELATION_KEYS:
        # DESIGN §2: `references:` is an edge only where its values are wikilinks; other values
        # (file paths, URLs, as in silverbullet-docs) are plain metadata, not a mistake.
        values = getattr(known, key)
        if values:  # most pages have none of the 7 keys: skip the call (50 ms per 10k pages)
            add(key, values, key, report=key != REFERENCES)
    for key, value in front.mapping.items():
        if key in _KNOWN:
            continue
        values = value if isinstance(value, list) else [value]
        if values and all(isinstance(v, str) and _WIKI_WHOLE.match(v) for v in values):
            add(key, values, _edge_type(key), report=False)
    return links


# --------------------------------------------------------------------------- body

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


# --------------------------------------------------------------------------- the page


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    """First-seen order, duplicates removed case-insensitively."""
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(value.casefold(), value)
    return tuple(seen.values())


def parse_page(text: str, path: str) -> Page:
    """Parse one Markdown page. Total: any ``str`` gives a :class:`Page`, problems as issues.

    Args:
        text: the decoded file text (read with ``utf-8-sig``; a leading U+FEFF is ignored
            anyway). CRLF and CR line ends are accepted.
        path: the vault-relative POSIX path with ``.md``; NFC-normalised here if it is not.

    Returns:
        The page (DESIGN §2): title from frontmatter ``title`` (stringified, lists joined by
        ``", "``), else the first H1, else the file stem, clamped to
        :data:`~vault_sync.page.TITLE_MAX_CHARS`; links with 1-based file lines, frontmatter
        relations first; ``issues`` holds YAML errors (the page is still built from its body
        and file name) and warnings for duplicate keys, invalid known keys, clamped titles and
        bad evidence entries.
    """
    if not unicodedata.is_normalized("NFC", path):
        path = unicodedata.normalize("NFC", path)
    front = _read_front(text.lstrip("\ufeff"))
    issues = front.issues
    known = _validate_known(front, issues)
    links = _frontmatter_links(front, known, path, issues)
    evidence = _evidence(front, known.evidence, issues)
    body = _scan_body(front.body, front.body_line, path)
    links.extend(body.links)

    title_line = front.key_lines.get("title")
    title = known.title
    if not title:
        h1 = next((h for h in body.headings if h.level == 1), None)
        title, title_line = (h1.text, h1.line) if h1 else (path_stem(path) or path, None)
    if len(title) > TITLE_MAX_CHARS:
        issues.append(
            _warning("title_clamped", f"title longer than {TITLE_MAX_CHARS} characters "
                     f"({len(title)}): clamped", title_line, "title")
        )  # fmt: skip
        title = title[:TITLE_MAX_CHARS]

    if known.valid_from and known.valid_to and known.valid_from[:10] > known.valid_to[:10]:
        issues.append(
            _warning("invalid_value", f"valid_from {known.valid_from} is after valid_to "
                     f"{known.valid_to}", front.key_lines.get("valid_from"), "valid_from")
        )  # fmt: skip

    return Page(
        path=path,
        id=known.id or path_id(path) or path,
        title=title,
        kind=(known.kind or Kind.NOTE).value,
        status=(known.status or Status.ACTIVE).value,
        project=known.project,
        tags=_unique([*known.tags, *body.tags]),
        aliases=_unique(known.aliases),
        valid_from=known.valid_from,
        valid_to=known.valid_to,
        headings=tuple(body.headings),
        links=tuple(links),
        evidence=tuple(evidence),
        frontmatter=front.mapping,
        body=front.body,
        body_line=front.body_line,
        issues=tuple(issues),
    )
