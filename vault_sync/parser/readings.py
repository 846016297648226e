"""How the raw YAML value of a known frontmatter key is read: one :class:`_Reading` per kind.

A reading normalises a raw value (``before``: scalars to stripped text, tags split on commas
and spaces, links stripped of ``[[ ]]``, a value made a list) and may refuse the result
(``after``: a date that names no real day). :mod:`vault_sync.parser.keys` gives each known key
its reading, and uses it both in the pydantic models (``BeforeValidator`` /
``AfterValidator``) and in its plain-Python fast checks, so the two read a value alike.
Pure functions on values; no page, no issue.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from vault_sync.page_dates import ISO_DATE as _ISO_DATE

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


class _Refused(Exception):
    """A value the fast checks leave to pydantic (which may still accept it)."""


class _Reading(NamedTuple):
    """How a known key's raw YAML value is read, by pydantic and by the fast check alike.

    ``before`` normalises the raw value (pydantic's ``BeforeValidator``); then the value must
    have the key's type (in :class:`_Known`), and ``after``, if any, may refuse it with a
    ``ValueError`` (an ``AfterValidator``).
    """

    before: Callable[[Any], Any]
    after: Callable[[Any], Any] | None = None


_TITLE = _Reading(_title_value)
_TEXT = _Reading(_scalar_value)
_DATE = _Reading(_scalar_value, _iso_date)
_ENUM = _Reading(_enum_value)
_TEXTS = _Reading(_text_list)
_TAGS = _Reading(_tag_list)
_LINKS = _Reading(_link_list)
_LIST = _Reading(_as_list)
