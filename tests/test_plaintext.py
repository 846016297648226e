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
ALPHABET = list("aZ_1٣ \t\n\r*~=|!#>-+.)<$`{}[]()^:/xX\\\x00\x07\x1b\x7f\x85\x9b\x9c\x9dé中")


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
