"""The body scanner is linear in the page's length on hostile text (issue 14, fault 5).

Each family repeats an opener that never (or only far away) closes, the shape that made a
rescan per opener quadratic: ``'${ ' * 40000`` (120 KB) took 26 s and held the writer lock.
A size and 4x that size are timed in CPU seconds (``time.process_time``, best of 2, so
other processes' load does not count): linear code costs about 4x, quadratic 16x. An
absolute bound catches a linear scan with a huge constant (``${`` rescanned up to 10,000
characters per opener: 4x, but 4 s for 40 KB).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import best_cpu_seconds
from vault_sync.page import REFERENCES, LinkOrigin
from vault_sync.parser import parse_page
from vault_sync.parser.body import _EXPR_MAX_CHARS

#: name -> text of about ``n`` characters.
HOSTILE: dict[str, Callable[[int], str]] = {
    "expr-space": lambda n: "${ " * (n // 3),
    "expr": lambda n: "${" * (n // 2),
    "expr-lines": lambda n: "${\n" * (n // 3),
    "tick-a": lambda n: "`a " * (n // 3),
    "double-tick-a": lambda n: "``a" * (n // 3),
    "tick-per-line": lambda n: "`a\n" * (n // 3),
    "tick-runs-growing": lambda n: "".join("`" * k + " " for k in range(1, n))[:n],
    "heading-ticks": lambda n: "# " + "".join("`" * k + " " for k in range(1, n))[:n],
    "wikilink-open": lambda n: "[[" * (n // 2),
    "wikilink-pipe": lambda n: "[[a|" * (n // 4),
    "comment": lambda n: "<!--" * (n // 4),
    "comment-inline": lambda n: "a <!--" * (n // 6),
    "comment-per-line": lambda n: "a <!--\n" * (n // 7),
    "md-link-open": lambda n: "[a](" * (n // 4),
    "md-bracket": lambda n: "[" * n,
    "md-dest-blanks": lambda n: "[a](b" + " " * n,
    "md-empty-dest-blanks": lambda n: "[a](" + " " * n,
    "hash": lambda n: "#" * n,
    "tags": lambda n: " #a" * (n // 3),
    "field": lambda n: "a:: " * (n // 4),
    "field-key-blanks": lambda n: "a" + " " * n + "\n::",
    "field-bracket-blanks": lambda n: "[a" + " " * n + "\n::",
    "field-paren-blanks": lambda n: "(a" + " " * n + "\n::",
    "field-bracket-open": lambda n: "[a:: " * (n // 5),
    "field-links": lambda n: "a:: [[b]]\n" * (n // 10),
    "field-inline-links": lambda n: "[a:: [[b]]] " * (n // 12),
    "escapes": lambda n: "\\[" * (n // 2),
    "embeds-open": lambda n: "![" * (n // 2),
}
SMALL_CHARS, BIG_CHARS = 10_000, 40_000
#: 40 KB of any family parses in 0.003-0.05 s (measured on the 2-core dev machine); the old
#: scanner took 0.6-65 s on the families it was slow on.
BIG_MAX_SECONDS = 0.5


def _seconds(text: str) -> float:
    """CPU seconds to parse ``text`` as a page, best of 2."""
    return best_cpu_seconds(lambda: parse_page(text, "p.md"))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_body_scan_is_linear(name: str) -> None:
    small = _seconds(HOSTILE[name](SMALL_CHARS))
    big = _seconds(HOSTILE[name](BIG_CHARS))
    assert big < BIG_MAX_SECONDS, f"{name}: {big:.2f}s for {BIG_CHARS} characters"
    assert big <= 8 * small + 0.02, f"{name}: {small:.4f}s -> {big:.4f}s for 4x the input"


def test_hostile_pages_still_parse_exactly() -> None:
    """The linear rules give the answers the rescanning ones did."""
    assert parse_page("${ " * 1000, "p.md").links == ()
    closed = parse_page("${ {[[A]]} }" + " [[B]]", "p.md")
    assert [link.target for link in closed.links] == ["B"]
    too_long = "${" + "x" * _EXPR_MAX_CHARS + "[[C]]}"  # its "}" too far: literal text
    assert [link.target for link in parse_page(too_long, "p.md").links] == ["C"]
    just_fits = "${" + "x" * (_EXPR_MAX_CHARS - 6) + "[[C]]} [[D]]"
    assert [link.target for link in parse_page(just_fits, "p.md").links] == ["D"]
    blank = parse_page("${ [[D]]\n\n} [[E]]", "p.md")
    assert [link.target for link in blank.links] == ["D", "E"]
    spans = parse_page("`a\n`[[F]]` [[G]]\n\n`[[H]]", "p.md")
    assert [link.target for link in spans.links] == ["F", "G", "H"]  # "`a\n`" is the span
    comments = parse_page("a <!-- [[I]]\n-->[[J]] <!-- [[K]]\n\n[[L]]", "p.md")
    assert [link.target for link in comments.links] == ["J", "K", "L"]  # K's: unclosed
    fields = parse_page("a:: [[M]]\n" * 3 + "[[N]] [b c  :: [[O]]]", "p.md")
    assert [(ln.target, ln.type, ln.origin) for ln in fields.links] == [
        *[("M", "a", LinkOrigin.INLINE_FIELD)] * 3,
        ("N", REFERENCES, LinkOrigin.WIKILINK),
        ("O", "b_c", LinkOrigin.INLINE_FIELD),
    ]


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ('[a]( "t") [b](x.md "t") [c](x.md\n  "t")', ['"t"', "x.md", "x.md"]),
        ('[a](x\\ "t") [b](x\\ ) [c](y.md)', ['x "t"', "x", "y.md"]),  # escaped blanks
        ("[a](y.md" + " " * 50 + ")", ["y.md"]),
    ],
)
def test_markdown_link_titles(text: str, targets: list[str]) -> None:
    assert [link.target for link in parse_page(text, "p.md").links] == targets
