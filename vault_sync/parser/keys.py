"""The known frontmatter keys (DESIGN §2): one table, and the checks derived from it.

:class:`_Known` is the table: one field per known key, its validated type and default, and
(as ``Annotated`` metadata) the reading of its raw YAML value
(:mod:`vault_sync.parser.readings`). From it are derived the typed record itself (a named
tuple), the pydantic models (:func:`_reference_models`, the reference) and the plain-Python
fast checks (``_FAST_CHECKS``), so adding a key is one line. Evidence entries, string or
mapping form, are read here too (``_evidence``).

House rule: a well-kept library beats our own code, but inside the core speed budgets decide.
Importing pydantic and building the models costs ~60 ms, ~20% of a one-page-change sync (0.34 s
at 10k pages), for pages that nearly all hold valid values; so the fast checks accept the
plainly valid values (the same values pydantic gives: hypothesis properties in
``tests/test_parser.py`` pin it), and pydantic is imported only for a page with a value it must
judge, whose messages become the warnings.
"""

from __future__ import annotations

import enum
import functools
import re
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from vault_sync.page import (
    EVIDENCE_KINDS,
    REFERENCES,
    RELATION_TYPES,
    Evidence,
    Issue,
    Kind,
    Status,
)
from vault_sync.parser.frontmatter import _Front, _warning
from vault_sync.parser.readings import (
    _DATE,
    _ENUM,
    _LINKS,
    _LIST,
    _TAGS,
    _TEXT,
    _TEXTS,
    _TITLE,
    _enum_value,
    _Reading,
    _Refused,
    _scalar_value,
)

if TYPE_CHECKING:
    from pydantic import BaseModel


class _Known(NamedTuple):
    """The frontmatter keys the page model knows (DESIGN §2): **the one table** of them.

    Each field is a key with its validated type, its :class:`_Reading` and its default; the
    pydantic model (:func:`_reference_models`) and the fast checks (``_FAST_CHECKS``) are
    derived from these fields, so adding a key is one line here. An instance holds one page's
    validated values. A named tuple, not a frozen dataclass: with 17 fields, the frozen
    ``__init__`` costs 2 us of every page, this 0.4 us.
    """

    title: Annotated[str | None, _TITLE] = None
    id: Annotated[str | None, _TEXT] = None
    kind: Annotated[Kind | None, _ENUM] = None
    status: Annotated[Status | None, _ENUM] = None
    project: Annotated[str | None, _TEXT] = None
    tags: Annotated[tuple[str, ...], _TAGS] = ()
    aliases: Annotated[tuple[str, ...], _TEXTS] = ()
    valid_from: Annotated[str | None, _DATE] = None
    valid_to: Annotated[str | None, _DATE] = None
    evidence: Annotated[tuple[Any, ...], _LIST] = ()
    causes: Annotated[tuple[str, ...], _LINKS] = ()
    fixes: Annotated[tuple[str, ...], _LINKS] = ()
    contradicts: Annotated[tuple[str, ...], _LINKS] = ()
    supersedes: Annotated[tuple[str, ...], _LINKS] = ()
    superseded_by: Annotated[tuple[str, ...], _LINKS] = ()
    related: Annotated[tuple[str, ...], _LINKS] = ()
    references: Annotated[tuple[str, ...], _LINKS] = ()


#: Per known key: ``(validated type, reading)``, read off :class:`_Known`'s annotations.
_KEY_TYPES: dict[str, tuple[Any, _Reading]] = {
    key: typing.get_args(hint)[:2]
    for key, hint in typing.get_type_hints(_Known, include_extras=True).items()
}
#: Frontmatter keys whose values become typed links (DESIGN §2).
_RELATION_KEYS: tuple[str, ...] = (*RELATION_TYPES, REFERENCES)
_KNOWN = frozenset(_Known._fields)
#: The known keys that are no relation (``title``, ``kind``, ``status``, ``tags``,
#: ``evidence``...): never a relation type an agent may write (``link X status Y``).
NON_RELATION_KEYS: frozenset[str] = _KNOWN - frozenset(_RELATION_KEYS)


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


def _type_check(hint: Any) -> Callable[[Any], Any]:
    """The fast check of a value read for a field typed ``hint``: what pydantic checks (no
    coercion), returning the validated value or raising :class:`_Refused`.

    Raises:
        TypeError: ``hint`` is a type the fast checks do not know (at import: a new key's type
            needs its check here).
    """
    if hint == str | None:
        return _text_or_none
    if hint == tuple[str, ...]:
        return _texts
    if hint == tuple[Any, ...]:
        return tuple
    args = typing.get_args(hint)
    if len(args) == 2 and args[1] is type(None) and issubclass(args[0], enum.Enum):
        return functools.partial(_member, {member.value: member for member in args[0]})
    raise TypeError(f"no fast check for a known key of type {hint}")


def _fast_check(hint: Any, reading: _Reading) -> Callable[[Any], Any]:
    """The value pydantic's model gives for a raw value it plainly accepts: the same reading
    functions with the type check pydantic adds between them; :class:`_Refused` else."""
    before, check, after = reading.before, _type_check(hint), reading.after
    if after is None:
        return lambda value: check(before(value))

    def checked(value: Any) -> Any:
        try:
            return after(check(before(value)))
        except ValueError:
            raise _Refused from None

    return checked


#: Per known key, its fast check (:func:`_fast_check`).
_FAST_CHECKS: dict[str, Callable[[Any], Any]] = {
    key: _fast_check(hint, reading) for key, (hint, reading) in _KEY_TYPES.items()
}


@functools.cache
def _reference_models() -> tuple[type[BaseModel], type[BaseModel]]:
    """The pydantic models of the known keys and of one evidence entry, built on first use.

    They are the reference: every value the fast checks (:func:`_known_fast`,
    :func:`_evidence_fast`) cannot plainly accept is validated here, and pydantic's messages
    become the warnings. The known keys' model has :class:`_Known`'s fields, types, readings
    and defaults, in order.
    """
    from pydantic import AfterValidator, BeforeValidator, ConfigDict, create_model

    def model(name: str, doc: str, fields: dict[str, tuple[Any, _Reading, Any]]) -> Any:
        annotated: dict[str, Any] = {
            key: (
                Annotated[
                    hint,
                    BeforeValidator(reading.before),
                    *(() if reading.after is None else (AfterValidator(reading.after),)),
                ],
                default,
            )
            for key, (hint, reading, default) in fields.items()
        }
        config = ConfigDict(extra="ignore", frozen=True)
        return create_model(name, __config__=config, __doc__=doc, **annotated)

    known_keys = model(
        "_KnownKeys",
        "The frontmatter keys the page model knows (DESIGN §2), as validated types.",
        {key: (*types, _Known._field_defaults[key]) for key, types in _KEY_TYPES.items()},
    )
    evidence_entry = model(
        "_EvidenceEntry",
        "The mapping form of one evidence entry: ``{kind, source, at, note}``.",
        {
            "kind": (str, _ENUM, ...),
            "source": (str, _TEXT, ...),
            "at": (str | None, _TEXT, None),
            "note": (str | None, _TEXT, None),
        },
    )
    return known_keys, evidence_entry


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


def evidence_key(entry: Any) -> tuple[str, str] | None:
    """``(kind, source)`` of one raw ``evidence`` item (string or mapping form, as
    :func:`_evidence` reads it), or ``None`` when it names no kind and source."""
    item = _evidence_item(entry)
    return None if item is None else (item[0], item[1])


def _evidence_item(entry: Any) -> _EvidenceFields | None:
    """``(kind, source, at, note)`` of one raw ``evidence`` item, or ``None`` if invalid."""
    fields: dict[str, Any] | None = None
    if isinstance(entry, str):
        m = _EVIDENCE_TEXT.match(entry)
        fields = {"kind": m[1], "source": m[2], "at": m[3]} if m else None
    elif isinstance(entry, dict):
        fields = entry
        if "kind" not in entry and "source" not in entry and len(entry) == 1:
            ((kind, source),) = entry.items()  # `- session: abc` read as a mapping
            fields = {"kind": kind, "source": source}
    return _evidence_fast(fields) or _evidence_checked(fields)


def _evidence(front: _Front, entries: tuple[Any, ...], issues: list[Issue]) -> list[Evidence]:
    """Evidence entries in string (``kind:source @at``) or mapping form, deduplicated."""
    lines = front.value_lines.get("evidence", [])
    key_line = front.key_lines.get("evidence", front.first_line)
    found: dict[tuple[str, str], Evidence] = {}
    for i, entry in enumerate(entries):
        line = lines[i] if i < len(lines) else key_line
        item = _evidence_item(entry)
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
