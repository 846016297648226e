"""The sections stored for the passage scorer (issue 10): counts read from them are the
counts of the analyzer run at query time, exactly, whatever the tokens hold."""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter

from vault_sync.index import CJK_ANALYZER, EN_ANALYZER, analyzer
from vault_sync.index.section_terms import (
    decode,
    encode,
    escape,
    needle,
    occurrences,
    section_spans,
    streams,
)

BODY = (
    "Intro running runs\n\n## Retry storms\n\nRetry the retry; retries stormed.\n\n"
    "## 哈哈哈 and 雾凇\n\n哈哈哈哈，雾凇\\n\x1d\x1e\x1f 雾\n凇 ⒜\n\n## ---\n\n"
    "## 分\x1c隔\n\n词\x1c\n"
)
ANALYZERS = [analyzer(EN_ANALYZER), analyzer(CJK_ANALYZER)]


def _expected(body: str, name: str) -> list[tuple[Counter[str], Counter[tuple[str, ...]], int]]:
    """What the scorer computed at query time before: counts of the analyzer's tokens."""
    out = []
    for a, b in section_spans(body):
        tokens = analyzer(name).analyze(body[a:b])
        out.append((Counter(tokens), Counter(itertools.pairwise(tokens)), len(tokens)))
    return out


def test_counts_read_from_the_stored_text_are_the_analyzers_counts() -> None:
    blocks = decode(encode(BODY, ANALYZERS))
    assert len(blocks) == 2
    for (lengths, text), name in zip(blocks, (EN_ANALYZER, CJK_ANALYZER), strict=True):
        expected = _expected(BODY, name)
        assert lengths == [n for _u, _p, n in expected]
        spans = section_spans(BODY)
        for (a, b), stream in zip(spans, streams(text), strict=True):
            tokens = analyzer(name).analyze(BODY[a:b])  # each token escaped, then joined
            joined = "\n" + "\n\n".join(map(escape, tokens)) + "\n" if tokens else ""
            assert stream == joined.encode()
        for stream, (unigrams, pairs, _n) in zip(streams(text), expected, strict=True):
            for token, tf in unigrams.items():
                assert occurrences(stream, needle([token])) == tf, (name, token)
            for pair, tf in pairs.items():
                assert occurrences(stream, needle(pair)) == tf, (name, pair)
            assert occurrences(stream, needle(["absent"])) == 0


def test_repeated_tokens_count_every_overlapping_pair() -> None:
    ((_lengths, text),) = decode(encode("哈哈哈哈", [analyzer(CJK_ANALYZER)]))
    assert occurrences(streams(text)[0], needle(["哈", "哈"])) == 3
    assert occurrences(streams(text)[0], needle(["哈"])) == 4


def test_escape_is_one_to_one_on_the_marks() -> None:
    tokens = ["\\", "\\n", "\n", "\\\\", "\x1d", "\\d", "\x1e", "\x1f", "a\nb", "plain"]
    assert len({escape(t) for t in tokens}) == len(tokens)
    assert all("\n" not in escape(t) and "\x1e" not in escape(t) for t in tokens)
    assert escape("plain") == "plain"


def test_a_page_of_no_section_and_sections_of_no_token() -> None:
    assert decode(encode("", ANALYZERS[:1])) == [([], b"")]
    assert decode(encode("   \n", ANALYZERS[:1])) == [([], b"")]
    ((lengths, text),) = decode(encode("## ---\n\n## !!\n", ANALYZERS[:1]))
    assert lengths == [0, 0]
    assert streams(text) == [b"", b""]


def _reference_spans(body: str) -> list[tuple[int, int]]:
    """Sections as first defined: cut before each ``^#{1,6}\\s`` line, blank ones dropped."""
    starts = [0, *(m.start() for m in re.finditer(r"^#{1,6}\s", body, re.MULTILINE) if m.start())]
    cut = itertools.pairwise([*starts, len(body)])
    return [(a, b) for a, b in cut if body[a:b].strip()]


def test_sections_are_cut_where_heading_lines_start() -> None:
    rng = random.Random(5)
    pieces = ["#", "# ", "\n", " ", "a", "\t", "##", "\n#", "#######", "\r", "\u3000", "\x1c"]
    bodies = [BODY, "# Title\n\ntext\n## A\n\n## \n#no\n###### six\n####### seven\n"]
    bodies += ["".join(rng.choice(pieces) for _ in range(rng.randrange(30))) for _ in range(3000)]
    for body in bodies:
        assert section_spans(body) == _reference_spans(body), repr(body)
