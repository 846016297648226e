"""The date stage (issue 10, item 2): time phrases read as spans of days, and the ranking
that moves pages whose day is near them (real index, real sidecar, the CLI as a subprocess)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Result, query_paths
from vault_sync.time_phrases import TimeSpan, closeness, time_spans

Cli = Callable[..., Result]

#: A Saturday: weekday arithmetic and "this/last" boundaries are checked against it.
NOW = "2023-05-20"


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("what did we do two weeks ago", [("two weeks ago", "2023-05-03", "2023-05-09")]),
        ("a couple of days ago", [("a couple of days ago", "2023-05-18", "2023-05-18")]),
        ("several months ago", [("several months ago", "2023-01-05", "2023-02-04")]),
        ("and yesterday?", [("yesterday", "2023-05-19", "2023-05-19")]),
        ("the day before yesterday", [("the day before yesterday", "2023-05-18", "2023-05-18")]),
        ("today", [("today", "2023-05-20", "2023-05-20")]),
        ("last Saturday", [("last Saturday", "2023-05-13", "2023-05-13")]),
        ("last monday", [("last monday", "2023-05-15", "2023-05-15")]),
        ("in March", [("in March", "2023-03-01", "2023-03-31")]),
        ("in July", [("in July", "2022-07-01", "2022-07-31")]),
        ("last May", [("last May", "2022-05-01", "2022-05-31")]),
        ("May 2022", [("May 2022", "2022-05-01", "2022-05-31")]),
        ("on 3 June, 2023", [("3 June, 2023", "2023-06-03", "2023-06-03")]),
        ("on 8 May", [("8 May", "2023-05-08", "2023-05-08")]),
        ("June 9th", [("June 9th", "2022-06-09", "2022-06-09")]),
        ("see 2023-05-08", [("2023-05-08", "2023-05-08", "2023-05-08")]),
        ("in 2022", [("in 2022", "2022-01-01", "2022-12-31")]),
        ("the past month", [("past month", "2023-04-20", "2023-05-20")]),
        ("the past 3 days", [("past 3 days", "2023-05-17", "2023-05-20")]),
        ("last week", [("last week", "2023-05-08", "2023-05-14")]),
        ("this week", [("this week", "2023-05-15", "2023-05-20")]),
        ("last weekend", [("last weekend", "2023-05-13", "2023-05-14")]),
        ("last month", [("last month", "2023-04-01", "2023-04-30")]),
        ("last year", [("last year", "2022-01-01", "2022-12-31")]),
        ("last summer", [("last summer", "2022-06-01", "2022-08-31")]),
        ("this winter", [("this winter", "2022-12-01", "2023-02-28")]),
        # no such day: the month is still named
        ("31 February 2023", [("February 2023", "2023-02-01", "2023-02-28")]),
        (
            "between 3 May 2023 and last week",
            [("3 May 2023", "2023-05-03", "2023-05-03"), ("last week", "2023-05-08", "2023-05-14")],
        ),
    ],
)
def test_each_phrase_names_its_days(text: str, spans: list[tuple[str, str, str]]) -> None:
    assert time_spans(text, NOW) == [TimeSpan(*span) for span in spans]


@pytest.mark.parametrize(
    "text",
    [
        "may I ask about retries",  # a modal verb, not a month
        "we march on",
        "recently",
        "on Friday",  # no "last": which Friday is a guess
        "the second attempt",
        "retry storm in the payment worker",
    ],
)
def test_words_that_name_no_day_give_no_span(text: str) -> None:
    assert time_spans(text, NOW) == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789 -/,.adeghijklmnorstuwyAMJ"), max_size=60))
def test_any_text_gives_ordered_valid_spans(text: str) -> None:
    """Property: whatever the text, no error, and every span is a real, ordered pair of days."""
    for span in time_spans(text, NOW):
        assert span.start <= span.end
        assert span.days >= 1
        assert span.phrase in text


def test_closeness_is_one_inside_and_falls_to_zero_at_the_reach() -> None:
    may = TimeSpan("in May", "2023-05-01", "2023-05-31")  # 31 days: reach 15.5
    day = TimeSpan("8 May", "2023-05-08", "2023-05-08")  # 1 day: reach is the slack, 3
    assert closeness([may], "2023-05-17", 3.0) == 1.0
    assert closeness([day], "2023-05-09", 3.0) == pytest.approx(2 / 3)
    assert closeness([day], "2023-05-11", 3.0) == 0.0
    assert closeness([day], "2023-04-01", 3.0) == 0.0
    assert closeness([may], "2023-06-03", 3.0) == pytest.approx(1 - 3 / 15.5)
    assert closeness([day, may], "2023-05-08", 3.0) == 1.0
    assert closeness([], "2023-05-08", 3.0) == 0.0


DIARY = "---\nkind: session\ndate: {date}\n---\nWe talked about the garden and the roses.\n"


def test_a_time_phrase_lifts_the_page_of_that_day(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """Equal words: without a time phrase the path decides; "two weeks ago" lifts the page
    dated then, counted back from --now; no-dates in a config leaves the order alone."""
    vault = make_vault(
        {
            "a.md": DIARY.format(date="2023-04-02"),
            "b.md": DIARY.format(date="2023-05-06T13:56:00"),
            "c.md": DIARY.format(date="2023-05-19"),
        }
    )
    assert query_paths(cli, vault, "garden roses", "--now", NOW) == ["a.md", "b.md", "c.md"]
    assert query_paths(cli, vault, "garden roses two weeks ago", "--now", NOW)[0] == "b.md"
    assert query_paths(cli, vault, "garden roses yesterday", "--now", NOW)[0] == "c.md"
    assert query_paths(cli, vault, "garden roses in April", "--now", NOW)[0] == "a.md"
    out = cli("--vault", str(vault), "query", "roses yesterday", "--json", "--explain",
              "--now", NOW)  # fmt: skip
    top = out.json()["hits"][0]["explain"]
    assert top["dates"] == {
        "day": "2023-05-19",
        "spans": [{"phrase": "yesterday", "start": "2023-05-19", "end": "2023-05-19"}],
    }
    assert top["date_factor"] == 1.5  # 1 + date_weight 0.5 x closeness 1
    (vault / "vault-sync.toml").write_text("[ranking]\ndate_weight = 0\n")
    assert query_paths(cli, vault, "garden roses yesterday", "--now", NOW) == [
        "a.md",
        "b.md",
        "c.md",
    ]


#: Words of the phrases and words near them, for the check below: each anchor, a count, a
#: unit, a month, a season, a weekday, digits, and words holding an anchor's letters.
_WORDS = [
    "ago", "last", "past", "this", "today", "yesterday", "previous", "may", "Sept.", "June",
    "two", "a few", "weeks", "month", "year", "in", "the", "2023", "3rd", "2023-05-08",
    "summer", "Saturday", "mayor", "retry",
]  # fmt: skip


def test_text_the_quick_check_passes_over_names_no_time() -> None:
    # the patterns are compiled only for text _may_name_time lets through: it must let
    # through every text a pattern matches (here, every run of up to three of the words)
    from vault_sync import time_phrases

    for n in (1, 2, 3):
        for words in itertools.product(_WORDS, repeat=n):
            text = " ".join(words)
            if not time_phrases._may_name_time(text):
                assert not any(p.search(text) for _, p in time_phrases._patterns()), text


def test_a_query_naming_no_time_compiles_no_pattern() -> None:
    from vault_sync import time_phrases

    time_phrases._patterns.cache_clear()
    assert time_spans("retry storm bristork", NOW) == []
    assert time_phrases._patterns.cache_info().misses == 0
    assert time_spans("retry storm last week", NOW) != []
    assert time_phrases._patterns.cache_info().misses == 1
