"""Snippets cut from part of the window equal the whole window's (issue 10's query speed).

:func:`vault_sync.snippets.make_snippet` converts only the lines around the matched words
when no markup in the window can span a line break, and converts the whole window when the
cut would read past that part. Every snippet here is compared with the one cut from the whole
window, the conversion before that change (``_part`` returning the window).
"""

from __future__ import annotations

import random

import pytest

from vault_sync import snippets
from vault_sync.snippets import ELLIPSIS, Snippet, make_snippet

_WORDS = ["alpha", "beta", "gamma", "delta", "retry", "storm", "policy", "x", "a_b", "Ωmega"]
_PIECES = [
    "{w}",
    "**{w}**",
    "[{w} notes](some/long/path/to/a/page/called/{w}%20with%20spaces%20in%20it.md)",
    "[[{w} page#Heading|{w}]]",
    "[[{w} page#^b0]]",
    "`{w}_code`",
    "[REDACTED:api_key]",
    "${{query {w}}}",
    "--- ...",
    "| {w} |",
]
_LINES = ["## {w} heading", "- item {w}", "> [!note] {w}", "```", "1. {w}", "***", "{p}"]


def _body(rng: random.Random, lines: int) -> str:
    """A Markdown body of ``lines`` lines mixing prose and every construct plaintext rewrites."""
    out = []
    for _ in range(lines):
        shape = rng.choice(_LINES + ["{p}"] * 6)
        prose = " ".join(
            rng.choice(_PIECES).format(w=rng.choice(_WORDS)) for _ in range(rng.randint(0, 30))
        )
        out.append(shape.format(w=rng.choice(_WORDS), p=prose))
    return "\n".join(out)


def _whole(monkeypatch: pytest.MonkeyPatch, *args: object, **kwargs: object) -> Snippet:
    """The snippet cut from the whole window (the conversion before parts)."""
    with monkeypatch.context() as m:
        m.setattr(snippets, "_part", lambda _body, lo, hi, _s, _e: (lo, hi, (0, 0)))
        return make_snippet(*args, **kwargs)  # type: ignore[arg-type]


def _fragment(body: str, rng: random.Random) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """A passage of up to 160 bytes at a word of ``body`` and the words in it, as UTF-8 byte
    offsets (what tantivy's snippet generator gives)."""
    encoded = body.encode()
    words = [i for i in range(len(encoded)) if encoded[i : i + 1].isalpha()]
    start = rng.choice(words)
    end = min(len(encoded), start + rng.randint(5, 160))
    while end < len(encoded) and (encoded[end] & 0xC0) == 0x80:
        end += 1  # never inside a character
    marks = []
    at = start
    while at < end:
        if encoded[at : at + 1].isalpha() and (at == start or not encoded[at - 1 : at].isalpha()):
            stop = at
            while stop < end and encoded[stop : stop + 1].isalpha():
                stop += 1
            if rng.random() < 0.4:
                marks.append((at, stop))
            at = stop
        at += 1
    return (start, end), marks or [(start, start + 1)]


def test_a_part_gives_the_whole_windows_snippet(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(10)
    parts = fallbacks = 0
    real_part, real_in = snippets._part, snippets._snippet_in

    def counting_part(*args: object) -> tuple[int, int, tuple[int, int]]:
        nonlocal parts
        found = real_part(*args)  # type: ignore[arg-type]
        parts += found[2] != (0, 0)
        return found

    def counting_in(*args: object) -> Snippet | None:
        nonlocal fallbacks
        cut = real_in(*args)  # type: ignore[arg-type]
        fallbacks += cut is None
        return cut

    for n in range(400):
        body = _body(rng, rng.randint(1, 60))
        if not any(ch.isalpha() for ch in body):
            continue
        fragment, marks = _fragment(body, rng)
        literals = [rng.choice(_WORDS), "storm"]
        monkeypatch.setattr(snippets, "_part", counting_part)
        monkeypatch.setattr(snippets, "_snippet_in", counting_in)
        got = make_snippet(body, fragment, marks, literals)
        near = rng.randrange(len(body))
        got_literal = make_snippet(body, None, [], literals, near=near)
        monkeypatch.undo()
        assert got == _whole(monkeypatch, body, fragment, marks, literals), n
        assert got_literal == _whole(monkeypatch, body, None, [], literals, near=near), n
    assert parts > 300  # most windows were converted in part ...
    assert fallbacks > 5  # ... and some parts were too short


def test_no_letter_in_the_part_before_the_cut_converts_the_whole_window() -> None:
    body = "Intro words here.\n" + "--- ... ---\n" * 60 + "storm here\n" + "x y\n" * 90
    at = body.encode().index(b"storm")
    got = make_snippet(body, (at, at + 5), [(at, at + 5)], ["storm"])
    assert got.text.startswith(ELLIPSIS + "storm")  # "Intro" is outside the part
    assert got.highlights == ((1, 6),)


def test_no_letter_in_the_part_after_the_cut_converts_the_whole_window() -> None:
    body = "x y\n" * 90 + "the storm\n" + "--- ... ---\n" * 60 + "Outro words.\n"
    at = body.encode().index(b"storm")
    got = make_snippet(body, (at, at + 5), [(at, at + 5)], ["storm"])
    assert got.text.endswith(" --" + ELLIPSIS)  # "Outro" is outside the part


def test_a_highlight_looked_for_past_the_part_converts_the_whole_window() -> None:
    # "Tasks" inside the link's target shows no copied character: the nearest "Tasks" in the
    # plain text is looked for, the one ending the line above (outside the cut: no
    # highlight), not the one after the link that the part alone would find
    link = "[[Recurring Tasks#Order|zz]]"
    after = " words words words words Tasks more\n"
    body = "words " * 40 + "Tasks\n" + "some words [a](" + "u" * 200 + ")" + link + after
    body += "tail words\n" * 120
    at = body.encode().index(b"Tasks#")
    fragment = (body.encode().index(b"[[Recurring"), body.encode().index(b" more"))
    got = make_snippet(body, fragment, [(at, at + 5)], ["Tasks"])
    assert got.highlights == ()
    assert got.text.startswith(ELLIPSIS + "azz words words words words Tasks more")


def test_markup_across_lines_converts_the_whole_window() -> None:
    body = "<!-- a comment\n" + "hidden words\n" * 40 + "-->\n" + "storm after it\n" * 80
    inside = body.encode().index(b"hidden words", 400)
    part = snippets._part(body, 0, len(body), inside, inside + 6)
    assert part == (0, len(body), (0, 0))
    got = make_snippet(body, (inside, inside + 6), [(inside, inside + 6)], ["hidden"])
    assert "hidden" not in got.text  # inside the comment: not shown
