"""The markup scan's start test (``plaintext.MARKUP_STARTS``) changes no match: it only lets the
scan reject, at once, positions where no alternative can start (issue 10: query speed)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vault_sync import plaintext

EXAMPLE_VAULT = Path(__file__).resolve().parent.parent / "example-vault"
#: The bare alternation, as the scan was before the start test.
BARE = re.compile(plaintext.MARKUP_ALTERNATIVES, re.MULTILINE | re.DOTALL)
#: Characters that start, end or sit inside some alternative, plus plain letters, digits
#: (ASCII and other scripts' decimal digits), blanks, controls and C1 controls.
ALPHABET = list("aZ_1٣ \t\n\r*~=|!#>-+.)<$`{}[]()^:/%xX\\\x00\x07\x1b\x7f\x85\x9b\x9c\x9dé中")


def _matches(
    pattern: re.Pattern[str], text: str
) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in pattern.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_the_start_test_keeps_every_match(text: str) -> None:
    assert _matches(plaintext._MARKUP, text) == _matches(BARE, text)


def test_the_start_test_keeps_every_match_on_the_example_vault() -> None:
    pages = sorted(EXAMPLE_VAULT.rglob("*.md"))
    assert len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert _matches(plaintext._MARKUP, text) == _matches(BARE, text), page.name


def test_a_lone_emphasis_marker_is_text() -> None:
    # a marker with no other of its character in its paragraph cannot be emphasis (CommonMark
    # and Obsidian show it): kept, so `Kd2&fG6*hJ0l` reads as written (fresh-user report)
    plain = plaintext.to_plain
    assert plain("Kd2&fG6*hJ0l").text == "Kd2&fG6*hJ0l"
    assert plain("a ~~b and x==y").text == "a ~~b and x==y"
    assert plain("a _b").text == "a _b"
    assert plain("a *b* and **c**").text == "a b and c"
    assert plain("a ~~b~~ ==c==").text == "a b c"
    # partners are looked for in the paragraph: across its lines, never across a blank line
    assert plain("G6*h\nb *c\n\nd*e").text == "G6h\nb c\n\nd*e"
    # counted, not paired: a third marker beside a pair is dropped too (a part of the
    # paragraph a snippet or a briefing converts never drops one the whole page keeps)
    assert plain("G6*h *x*").text == "G6h x"


def test_a_kept_lone_marker_is_kept_in_every_part_of_its_paragraph() -> None:
    # snippets convert some lines of a page, a briefing a paragraph's lines joined: a
    # marker the whole page keeps is kept there too, so no output joins what the
    # sanitizer's view (the whole page) saw apart
    text = "line *one\nG6*h two\nc* three\n\nKd2&fG6*hJ0l alone\n"
    whole = plaintext.to_plain(text).text
    lines = text.split("\n")
    for i in range(len(lines)):
        for j in range(i + 1, len(lines) + 1):
            parts = ["\n".join(lines[i:j])]
            if all(x.strip() for x in lines[i:j]):  # a briefing joins one paragraph's lines
                parts.append(" ".join(x.strip() for x in lines[i:j]))
            for part in parts:
                if "Kd2&fG6*hJ0l" in part:
                    assert "Kd2&fG6*hJ0l" in plaintext.to_plain(part).text
    assert "Kd2&fG6*hJ0l" in whole and "G6h" in whole


def test_obsidian_comments_are_hidden_as_its_reading_view_hides_them() -> None:
    """``%%…%%`` is an Obsidian comment (a fresh user saw ``%% secret comment … %%`` in a
    snippet): inline or over lines, an unclosed one hides the rest of the text (as Obsidian
    and an unclosed HTML comment do); inside inline code it is code, and stays."""
    plain = plaintext.to_plain
    assert plain("a %%note to self%% b").text == "a  b"
    assert plain("a\n%%\nhidden\n\nlines\n%%\nb").text == "a\n\nb"
    assert plain("keep %% the rest is hidden").text == "keep "
    assert plain("format `%%d` and `100%%`").text == "format %%d and 100%%"
    got = plain("x %%c%% y")
    assert got.to_plain(7) == 2 and got.text[got.to_plain(8)] == "y"  # the map skips it
