"""A page's date, as DESIGN §5.6 defines it: its ``date`` key, else its newest evidence
``at``, else ``valid_from`` — never the file's mtime, which differs between clones.

Dates are compared as ISO calendar days (``YYYY-MM-DD`` text sorts as the days do); a value
that does not start with a valid ISO date is ignored. Pure functions, no I/O.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable
from typing import Any

_DAY = re.compile(r"\s*(\d{4}-\d{2}-\d{2})")


def day_of(value: Any) -> str | None:
    """The ISO day (``YYYY-MM-DD``) a date or datetime text starts with, or ``None``."""
    if not isinstance(value, str):
        return None
    return _day_of_text(value)


@functools.lru_cache(maxsize=8192)  # a vault repeats its dates: brief reads ~50k at 10k pages
def _day_of_text(value: str) -> str | None:
    m = _DAY.match(value)
    if m is None:
        return None
    try:
        datetime.date.fromisoformat(m[1])
    except ValueError:
        return None
    return m[1]


def page_date(
    frontmatter: dict[str, Any], evidence_at: Iterable[Any], valid_from: Any
) -> str | None:
    """The page's day: ``date`` key, else the newest evidence ``at``, else ``valid_from``."""
    own = day_of(frontmatter.get("date"))
    if own is not None:
        return own
    newest = None  # one pass, no list: brief computes every page's day (10,000 at 10k pages)
    for at in evidence_at:
        day = day_of(at)
        if day is not None and (newest is None or day > newest):
            newest = day
    return newest if newest is not None else day_of(valid_from)


def days_between(earlier: str, later: str) -> int:
    """Whole days from ``earlier`` to ``later`` (ISO days; negative when reversed)."""
    return (datetime.date.fromisoformat(later) - datetime.date.fromisoformat(earlier)).days
