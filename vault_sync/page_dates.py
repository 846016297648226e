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
#: The shape of an ISO 8601 date or datetime a page holds (DESIGN §2): the extended form
#: ``YYYY-MM-DD``, then optionally ``T`` (or a space), the time, ``Z`` or an offset.
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?\Z")


def day_of(value: Any) -> str | None:
    """The ISO day (``YYYY-MM-DD``) a date or datetime text starts with, or ``None``."""
    if not isinstance(value, str):
        return None
    if len(value) == 10 and value[4] == "-" and value[7] == "-" and value.isascii():
        # the common case, a bare day: checked by the C parser alone (brief dates every
        # page of a vault, most of them distinct days the cache below would miss)
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            return None
        return value
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


#: What an option taking a date says when it is given something else.
ISO_DATE_SAID = "a date must be ISO 8601, e.g. 2026-03-04 or 2026-03-04T09:10:00+01:00"


def iso_day(text: str) -> str | None:
    """The day (``YYYY-MM-DD``, as written: an offset moves no date) of a whole ISO 8601 date
    or datetime text, or ``None`` when the text is not one. The one parser of every option
    and field that takes a date (``query --now`` / ``--as-of``, ``reinforce --at``, evidence
    ``@at``, a transcript's ``Date:``): the shape a page holds (:data:`ISO_DATE`, so what is
    accepted here is read back from a page), checked by Python 3.11's
    ``datetime.fromisoformat`` — ``Z``, offsets (``+01:00``) and fractional seconds are
    accepted, a day or time that does not exist is not; surrounding spaces are ignored.

    >>> iso_day("2026-03-04T23:10:00.5-05:00"), iso_day("9999-99-99"), iso_day("today")
    ('2026-03-04', None, None)
    """
    value = text.strip()
    if not ISO_DATE.match(value):
        return None
    try:
        return datetime.datetime.fromisoformat(value).date().isoformat()
    except ValueError:
        return None


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


@functools.lru_cache(maxsize=8192)  # brief ages every standing answer to one day: few pairs
def days_between(earlier: str, later: str) -> int:
    """Whole days from ``earlier`` to ``later`` (ISO days; negative when reversed)."""
    return (datetime.date.fromisoformat(later) - datetime.date.fromisoformat(earlier)).days
