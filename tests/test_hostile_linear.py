"""Every scan of hostile text is linear in its length, across what a sync, a snippet and a
typed query do with it (issue 14, fault 5).

Each shape repeats an opener that never closes on one line (``<!--``, ``${``, ``[[``,
``](``, ``<span ``…), the shape that made a regex retried from every opener quadratic:
``'x ' + '<!--' * 20000`` (80 KB) took 19.5 s to sync, and a typed query of 5,000 ``<!--``
3.9 s (the sanitizer's markup gate, :mod:`vault_sync.sanitize.markup`, scanned to the end
of the text from each ``<!--``). A size and 4x that size are timed in CPU seconds
(``time.process_time``, best of 2, so other processes' load does not count): linear code
costs about 4x, quadratic 16x. The parser alone has its own families
(``tests/test_parser_linear.py``), the sanitizer's rules theirs (``tests/test_sanitize.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import REPO, best_cpu_seconds
from vault_sync.clean import clean_page
from vault_sync.errors import QuerySyntaxError
from vault_sync.index import document_fields
from vault_sync.parser import parse_page
from vault_sync.plaintext import to_plain
from vault_sync.retrieve import build_query
from vault_sync.sanitize import Scrubber, scrub
from vault_sync.snippets import make_snippet
from vault_sync.typed_text import scrub_typed

#: Openers that never close, each repeated on one line after a word (``x``), and some glued
#: to a token character before (``a<!--``: the sanitizer's gate looks for markup between
#: two token characters).
OPENERS = (
    *("<!--", "<!-- ", "a<!--", "-<!--", "<!--a", "<!---", "a<!--b", "a<!--\n"),
    *("${", "${ ", "a${", "[[", "[[a|", "a[[", "](", "a](", "[a](", "![["),
    *("<span ", "a<span ", "</", "`", "a`", "**", "a**", "~~", "==", "a==", "\x1b[", "a\x1b]"),
    *("\u200b", "a\u200b", "[", "]]", "a]]", "[REDACTED:", "a_", "|", "%%", "a%%", "%% "),
)
SMALL_CHARS, BIG_CHARS = 5_000, 20_000
EXAMPLE = REPO / "example-vault"


def _prepare(text: str) -> object:
    """What a sync does with a page's text before the index takes it: parse, sanitize
    every field, the index fields (``prepare.prepare_page`` without the file read)."""
    page = clean_page(parse_page(text, "p.md"), text, Scrubber())
    return document_fields(page, "0" * 64)


def _query(text: str) -> object:
    """What ``query`` does with typed text before the index: scrub it, read its clauses."""
    try:
        return build_query(scrub_typed(text))
    except QuerySyntaxError as exc:
        return str(exc)


STAGES: dict[str, Callable[[str], object]] = {
    "prepare": _prepare,
    "plain": to_plain,
    "snippet": lambda text: make_snippet(text, None, (), ["x"]),
    "query": _query,
}


def _seconds(stage: Callable[[str], object], text: str) -> float:
    """CPU seconds of ``stage(text)``, best of 2."""
    return best_cpu_seconds(lambda: stage(text))


def _text(opener: str, chars: int) -> str:
    return "x " + opener * (chars // len(opener))


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("opener", OPENERS)
def test_hostile_openers_cost_linear_time(stage: str, opener: str) -> None:
    small = _seconds(STAGES[stage], _text(opener, SMALL_CHARS))
    big = _seconds(STAGES[stage], _text(opener, BIG_CHARS))
    assert big <= 8 * small + 0.02, f"{opener!r}: {small:.4f}s -> {big:.4f}s for 4x the input"


#: Runs that a backtracking regex could split into its units in exponentially many ways
#: (``\\*{1,3}`` repeated: ``'a' + '*' * 25 + ' '`` took 0.6 s to scrub, 30 stars minutes):
#: a token character, the run, a blank. Sizes are small, so the old code fails fast.
RUNS = ("*", "[", "~", "=", "`", "\u200b")


@pytest.mark.parametrize("unit", RUNS)
def test_a_run_of_markup_is_not_split_every_way(unit: str) -> None:
    small = _seconds(scrub, "a" + unit * 6 + " ")
    big = _seconds(scrub, "a" + unit * 24 + " ")
    assert big <= 8 * small + 0.02, f"{unit!r}: {small:.4f}s -> {big:.4f}s for 4x the run"


def test_a_long_query_is_quoted_short() -> None:
    """The error for a query with no word quotes its first 60 characters and its length:
    it echoed all 20,000 characters of a typed ``'<!--' * 5000``."""
    with pytest.raises(QuerySyntaxError) as info:
        build_query("<!--" * 5000)
    assert str(info.value) == (f"no searchable words in query: {'<!--' * 15!r}… (20000 characters)")
    with pytest.raises(QuerySyntaxError, match=r"^no searchable words in query: '<!-- -->'$"):
        build_query("<!-- -->")


def test_hostile_openers_cost_about_what_page_text_of_their_length_costs() -> None:
    """Linear is not enough: each ``[[`` or ``[`` of ``'[[' * 10000`` was a start from which
    the link alternatives scanned their whole 512-character window (a link's text could
    hold ``[``), ~280x the cost of page text of the same length (an 80 KB page of ``[[``
    took 7 s to convert). A link's text and target now stop at ``[``, an expression at
    ``$``: every opener costs at most 40x what the example vault's own text costs (measured
    16x at worst, ``[a](``: a link's address may hold ``[`` still)."""
    page = "".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLE.rglob("*.md")))
    size = 20_000
    base = _seconds(to_plain, (page * (size // len(page) + 1))[:size])
    for opener in OPENERS:
        cost = _seconds(to_plain, _text(opener, size))
        assert cost <= 40 * base + 0.005, f"{opener!r}: {cost:.4f}s against {base:.4f}s"
