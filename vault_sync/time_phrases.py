"""Time phrases in a query, read as spans of calendar days (issue 10, item 2: the date stage).

"two weeks ago", "last Saturday", "in March", "May 2023", "on 3 June, 2023", "2023-05-08",
"in 2022", "the past month", "last summer" — each becomes a :class:`TimeSpan` of ISO days,
relative phrases counted back from a reference day (``query --now``, else today). A phrase
that names no day, month or year ("recently", "on Friday" with no "last") gives no span:
guessing would move pages on words that carry no date.

Layer 1 (STYLE.md), pure: text and a day in, spans out; no I/O. Our own matcher, not
``dateparser.search.search_dates``: that finds dates in free text by trying every language's
words at tens of milliseconds per query (the whole query budget is 5 ms) and reads words such
as "may" or "second" as dates; these few patterns are the ones the LoCoMo and LongMemEval
questions use (docs/eval.md, "The date stage").
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass

#: English month names (``calendar.month_name`` in the C locale, without importing it).
_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTHS = {name: n for n, name in enumerate(_MONTH_NAMES, 1)}
_MONTHS |= {name[:3]: n for n, name in enumerate(_MONTH_NAMES, 1)}
_MONTHS["sept"] = 9
_WEEKDAYS = {
    name: n
    for n, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
#: Counts written as words ("a couple of" is two, "a few" three, "several" four).
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
#: Days of a unit, for "N units ago" (a month as 30 days, a year as 365).
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
#: Half-width of the span "N units ago" names, by unit (days): about that day, that week,
#: that month, that year.
_AGO_HALF = {"day": 0, "week": 3, "month": 15, "year": 182}
#: Northern seasons by their first month (meteorological: spring March-May, ...).
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
#: Words before a bare month or year that make it a date ("in May", "since 2021").
_LEAD = r"(?:in|during|of|since|from|until|till|by|through|before|after|early|mid|late|this)"

_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_COUNT = r"(?P<count>\d{1,3}|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + ")"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAYNUM = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_SOURCES = [
    ("iso", r"\b(?P<year>\d{4})-(?P<mon>\d\d)-(?P<day>\d\d)\b"),
    ("day", rf"\b{_DAYNUM}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b"),
    ("day", rf"\b{_MONTH}\s+{_DAYNUM}(?:,?\s+{_YEAR})?\b"),
    ("month", rf"\b{_MONTH},?\s+{_YEAR}\b"),
    ("ago", rf"\b{_COUNT}\s+(?P<unit>day|week|month|year)s?\s+ago\b"),
    ("yesterday", r"\b(?:the\s+day\s+before\s+)?yesterday\b"),
    ("today", r"\btoday\b"),
    ("past", rf"\b(?:past|last)\s+{_COUNT}\s+(?P<unit>day|week|month|year)s?\b"),
    ("last", r"\b(?P<which>last|past|previous|this)\s+(?P<unit>week(?:end)?|month|year)\b"),
    ("weekday", r"\blast\s+(?P<weekday>" + "|".join(_WEEKDAYS) + r")\b"),
    ("season", r"\b(?P<which>last|this)\s+(?P<season>" + "|".join(_SEASONS) + r")\b"),
    ("lastmonth", rf"\blast\s+{_MONTH}\b"),
    ("month", rf"\b{_LEAD}\s+(?:the\s+)?{_MONTH}\b"),
    ("month", r"\b(?P<month>" + "|".join(n for n in _MONTHS if len(n) > 3 and n != "sept")
     + r")\b"),
    ("year", rf"\b(?:{_LEAD}|year)\s+(?:the\s+year\s+)?{_YEAR}\b"),
]  # fmt: skip
#: What every pattern needs, one at least: a digit, or one of these words. An ASCII query with
#: none of them names no time, and its patterns are not compiled (~3 ms of a fresh process).
_ANCHORS = ("ago", "yesterday", "today", "past", "last", "previous", "this", *_MONTHS)


@functools.cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The phrase patterns, compiled on first use: ``(kind, pattern)`` in matching order."""
    return [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _SOURCES]


def _may_name_time(text: str) -> bool:
    """False only when ``text`` is ASCII and holds no digit and no :data:`_ANCHORS` word
    (then no pattern can match; other text is always matched against the patterns: case
    folding outside ASCII, ``ſ`` for ``s``, is the regex engine's)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(c.isdigit() for c in lowered) or any(word in lowered for word in _ANCHORS)


@dataclass(frozen=True)
class TimeSpan:
    """The days a time phrase names, both ends included.

    Attributes:
        phrase: the words as the query wrote them.
        start, end: ISO days (``YYYY-MM-DD``), ``start <= end``.
    """

    phrase: str
    start: str
    end: str

    def distance(self, day: str) -> int:
        """Whole days from ``day`` (ISO) to the nearest end of the span; 0 inside it."""
        if day < self.start:
            return (_date(self.start) - _date(day)).days
        if day > self.end:
            return (_date(day) - _date(self.end)).days
        return 0

    @property
    def days(self) -> int:
        """How many days the span holds (at least 1)."""
        return (_date(self.end) - _date(self.start)).days + 1


def time_spans(text: str, now: str) -> list[TimeSpan]:
    """The time phrases of ``text``, each as the days it names, in the order they appear;
    a phrase inside one already read ("May" in "3 May 2023") is not read again.

    Args:
        text: the query as written.
        now: the reference day (ISO ``YYYY-MM-DD``) relative phrases count back from, and
            the year of a day or month written without one (the latest not after ``now``).

    Returns:
        The spans; empty when the text names no time. Impossible dates ("31 February") and
        bare month names that are also words ("may", "march" in lower case) are skipped.
    """
    if not _may_name_time(text):
        return []
    today = _date(now)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, TimeSpan]] = []
    for kind, pattern in _patterns():
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            span = _span(kind, m, today)
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append((m.start(), TimeSpan(m[0], span[0].isoformat(), span[1].isoformat())))
    return [span for _, span in sorted(found, key=lambda f: f[0])]


_Days = tuple[datetime.date, datetime.date]


def _span(kind: str, m: re.Match[str], today: datetime.date) -> _Days | None:
    groups = m.groupdict()
    try:
        if kind == "iso":
            day = datetime.date(int(m["year"]), int(m["mon"]), int(m["day"]))
            return day, day
        if kind in ("day", "month", "lastmonth"):
            return _calendar(kind, groups, m[0], today)
        if kind == "ago":
            unit = m["unit"].lower()
            center = today - datetime.timedelta(days=_count(m["count"]) * _UNIT_DAYS[unit])
            half = datetime.timedelta(days=_AGO_HALF[unit])
            return center - half, center + half
        if kind == "yesterday":
            back = 2 if m[0].lower().startswith("the") else 1
            return (today - datetime.timedelta(days=back),) * 2
        if kind == "today":
            return today, today
        if kind == "past":
            days = _count(m["count"]) * _UNIT_DAYS[m["unit"].lower()]
            return today - datetime.timedelta(days=days), today
        if kind == "last":
            return _unit_span(m["which"].lower(), m["unit"].lower(), today)
        if kind == "weekday":
            back = (today.weekday() - _WEEKDAYS[m["weekday"].lower()] - 1) % 7 + 1
            return (today - datetime.timedelta(days=back),) * 2
        if kind == "season":
            return _season(m["which"].lower(), _SEASONS[m["season"].lower()], today)
        if kind == "year":
            year = int(m["year"])
            return datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    except (ValueError, OverflowError):  # "31 February", a year 0; a span before year 1 or
        return None  # after 9999 (`--now 0001-01-05 "last week"`): read as plain words
    raise AssertionError(kind)


def _calendar(
    kind: str, groups: dict[str, str | None], words: str, today: datetime.date
) -> _Days | None:
    name = (groups["month"] or "").lower().rstrip(".")
    month = _MONTHS[name]
    bare = kind == "month" and groups.get("year") is None
    if bare and words[:1].islower() and words.lower() == name:
        return None  # "may", "march" alone in lower case are words
    given = groups.get("year")
    year = int(given) if given else None
    if kind == "day":
        day = int(groups["day"] or 0)
        year = year or _latest_year(today, month, day)
        date = datetime.date(year, month, day)
        return date, date
    if year is None:
        year = today.year if month <= today.month else today.year - 1
        if kind == "lastmonth" and month >= today.month:
            year = today.year - 1
    last = _last_day(year, month)
    return datetime.date(year, month, 1), datetime.date(year, month, last)


def _latest_year(today: datetime.date, month: int, day: int) -> int:
    """The year of the latest ``month``/``day`` not after ``today``."""
    return today.year if (month, day) <= (today.month, today.day) else today.year - 1


def _unit_span(which: str, unit: str, today: datetime.date) -> _Days:
    """ "last week" is the calendar week before this one (Monday to Sunday), "the past week"
    the seven days up to today, "this week" this calendar week up to today; and so for
    weekends, months and years."""
    one = datetime.timedelta(days=1)
    if which == "past" and unit != "weekend":
        return today - datetime.timedelta(days=_UNIT_DAYS[unit]), today
    if unit in ("week", "weekend"):
        monday = today - datetime.timedelta(days=today.weekday())
        if which != "this":
            monday -= datetime.timedelta(days=7)
        if unit == "weekend":
            return monday + 5 * one, monday + 6 * one
        return monday, min(monday + 6 * one, today)
    if unit == "month":
        first = today.replace(day=1)
        if which == "this":
            return first, today
        end = first - one
        return end.replace(day=1), end
    if which == "this":
        return today.replace(month=1, day=1), today
    return datetime.date(today.year - 1, 1, 1), datetime.date(today.year - 1, 12, 31)


def _season(which: str, first_month: int, today: datetime.date) -> _Days:
    """The season's three months: "this" the one that began latest not after today, "last"
    the latest that has ended before today."""

    def bounds(year: int) -> _Days:
        start = datetime.date(year, first_month, 1)
        end_month = (first_month + 1) % 12 + 1
        end_year = year + (1 if end_month < first_month else 0)
        last_day = _last_day(end_year, end_month)
        return start, datetime.date(end_year, end_month, last_day)

    years = range(today.year, today.year - 3, -1)
    if which == "this":
        return next(bounds(y) for y in years if bounds(y)[0] <= today)
    return next(bounds(y) for y in years if bounds(y)[1] < today)


def _count(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _COUNTS[word]


def _last_day(year: int, month: int) -> int:
    """The number of days of ``month`` (1-12) in ``year``."""
    import calendar  # here: only a query that names a time needs it

    return calendar.monthrange(year, month)[1]


def _date(day: str) -> datetime.date:
    return datetime.date.fromisoformat(day)


def closeness(spans: list[TimeSpan] | tuple[TimeSpan, ...], day: str, slack_days: float) -> float:
    """How near ``day`` (ISO) is to the nearest of ``spans``, in [0, 1]: 1 inside a span,
    falling linearly to 0 at ``max(slack_days, span days / 2)`` days outside it (a page is
    often written a day or two after what it tells of); 0 when there are no spans."""
    best = 0.0
    for span in spans:
        reach = max(slack_days, span.days / 2)
        best = max(best, 1.0 - span.distance(day) / reach)
    return max(best, 0.0)
