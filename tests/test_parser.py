"""Tests for :mod:`vault_sync.parser`: the case pages, the page rules, totality, a differential.

The case pages in ``tests/pages/`` are byte-exact copies of ``../shared/cases/pages/`` (one
file name is NFD on purpose); ``expected.json`` says what a correct engine reports.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from tests.conftest import corpus
from vault_sync.page import (
    EMBEDS,
    REFERENCES,
    RELATION_TYPES,
    TITLE_MAX_CHARS,
    LinkOrigin,
    Page,
    Severity,
    path_id,
)
from vault_sync.parser import body, frontmatter, keys, parse_frontmatter, parse_page

PAGES = Path(__file__).resolve().parent / "pages"


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


#: expected.json by NFC file name (its key for the NFD file is NFD).
EXPECTED: dict[str, dict[str, Any]] = {
    nfc(name): spec
    for name, spec in json.loads((PAGES / "expected.json").read_text("utf-8")).items()
}


def case_file(name: str) -> Path:
    """The case file whose name is ``name`` up to Unicode normalisation."""
    return next(p for p in PAGES.iterdir() if nfc(p.name) == nfc(name))


def parse_case(name: str, encoding: str = "utf-8-sig") -> Page:
    """Parse a case page the way the vault reads it: bytes, ``utf-8-sig``, NFC path."""
    return parse_page(case_file(name).read_bytes().decode(encoding), nfc(name))


def line_count(text: str) -> int:
    """Lines of a file, counting ``\\r\\n``, ``\\r`` and ``\\n`` as one break each."""
    text = text.lstrip("\ufeff")
    return 1 + text.count("\n") + text.count("\r") - text.count("\r\n")


def check_expected(page: Page, spec: dict[str, Any]) -> None:
    """Assert every key of an ``expected.json`` entry that the parser can answer."""
    if "title" in spec:
        assert page.title == spec["title"]
    if "tags" in spec:
        assert list(page.tags) == spec["tags"]
    if "kind" in spec:
        assert page.kind == spec["kind"]
    if "headings" in spec:
        assert [h.text for h in page.headings] == spec["headings"]
    if "frontmatter" in spec:
        assert dict(page.frontmatter) == spec["frontmatter"]
    for key, value in spec.get("frontmatter_text", {}).items():
        assert page.frontmatter[key] == value
    if "errors" in spec:
        assert len(page.errors) == spec["errors"], page.errors
    if "error_line" in spec:
        assert [e.line for e in page.errors] == [spec["error_line"]]
    if "warnings_at_least" in spec:
        assert len(page.warnings) >= spec["warnings_at_least"]
    if "body_contains" in spec:
        assert spec["body_contains"] in page.body
    if "title_max_chars" in spec:
        assert 0 < len(page.title) <= spec["title_max_chars"]
    if spec.get("title_is_string"):
        assert isinstance(page.title, str)
    if spec.get("indexed"):  # indexable from body and file name
        assert page.title and page.id and page.body.strip()
    for want in spec.get("links", []):
        keys = ("target", "type", "display", "anchor")
        assert any(
            all(getattr(link, k) == want[k] for k in keys if k in want) for link in page.links
        ), want
    for text in spec.get("not_links", []):
        assert all(text not in link.target for link in page.links)
    if spec.get("id_is_nfc"):
        assert page.id == nfc(page.id)


# --------------------------------------------------------------------------- the cases


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-8"])
def test_f1_bom(encoding: str) -> None:
    """A BOM before ``---`` (kept by a plain utf-8 decode too) hides no metadata."""
    page = parse_case("f1-bom.md", encoding)
    check_expected(page, EXPECTED["f1-bom.md"])
    assert page.frontmatter == {"title": "Lantern notes", "tags": ["alpha"]}
    assert page.body_line == 5


def test_f2_crlf() -> None:
    page = parse_case("f2-crlf.md")
    check_expected(page, EXPECTED["f2-crlf.md"])
    assert [(h.level, h.line) for h in page.headings] == [(1, 5)]
    assert page.body.startswith("# Heading here\r\n")  # the body is kept as written


def test_a_block_of_lone_cr_line_ends_is_frontmatter() -> None:
    """Classic Mac OS line ends (a lone CR) were read as body text: title, kind and tags were
    lost without a word."""
    text = "---\rtitle: Old Mac\rkind: decision\rtags: [a, b]\rx: {k: v}\r---\rBody\r# Head\r"
    page = parse_page(text, "x.md")
    assert (page.title, page.kind, page.tags) == ("Old Mac", "decision", ("a", "b"))
    assert (page.body, page.body_line, page.issues) == ("Body\r# Head\r", 7, ())
    assert [(h.text, h.line) for h in page.headings] == [("Head", 8)]
    assert frontmatter.frontmatter_map(text).key_lines == {"title": 2, "kind": 3, "tags": 4, "x": 5}
    dup = parse_page("---\rk: 1\rk: 2\r---\r", "d.md").issues
    assert [(i.code, i.line) for i in dup] == [("duplicate_key", 3)]


def test_an_unknown_yaml_tag_is_warned_of_by_line_and_read_as_text() -> None:
    """``!!python/…`` and other tags no YAML type names were dropped without a word; they are
    never applied (the loader is safe), and each is now a warning on its line."""
    text = (
        "---\ntitle: Py\nx: !!python/object/apply:os.system [echo hi]\nn: !!int 5\n"
        "y: &a !vault foo\nz: *a\nlist:\n  - !!python/name:os.system\n---\nbody\n"
    )
    page = parse_page(text, "p.md")
    assert page.frontmatter == {
        "title": "Py", "x": ["echo hi"], "n": "5", "y": "foo", "z": "foo",
        "list": [""],  # the tag is the whole `!!python/name:os.system`
    }  # fmt: skip
    assert [(i.severity, i.code, i.line, i.message) for i in page.issues] == [
        (Severity.WARNING, "yaml_tag", line, f"YAML tag {tag} is not applied: the value is"
         " read as plain text")
        for line, tag in [
            (3, "!!python/object/apply:os.system"), (5, "!vault"), (8, "!!python/name:os.system")
        ]
    ]  # fmt: skip
    assert "body" in page.body


def test_splice_keeps_lone_cr_line_ends() -> None:
    from vault_sync.splice import splice_key

    text = "---\rtitle: Old Mac\rstatus: active\r---\rBody\r"
    out = splice_key(text, "status", "superseded", path="x.md")
    assert out == "---\rtitle: Old Mac\rstatus: superseded\r---\rBody\r"


@pytest.mark.parametrize("name", ["f3a-empty-block.md", "f3b-comment-only.md"])
def test_f3_empty_and_comment_only_blocks(name: str) -> None:
    page = parse_case(name)
    check_expected(page, EXPECTED[name])
    assert page.issues == ()


@pytest.mark.parametrize(
    "name", ["f4a-title-number.md", "f4b-title-date.md", "f4c-title-list.md", "f4d-title-long.md"]
)
def test_f4_non_string_titles(name: str) -> None:
    page = parse_case(name)
    check_expected(page, EXPECTED[name])
    assert isinstance(page.title, str)


def test_f4d_long_title_is_clamped_with_a_warning() -> None:
    page = parse_case("f4d-title-long.md")
    assert len(page.title) == TITLE_MAX_CHARS
    assert [(w.code, w.line, w.key) for w in page.warnings] == [("title_clamped", 2, "title")]


@pytest.mark.parametrize("name", ["f5a-title-empty.md", "f5b-title-null.md"])
def test_f5_empty_or_null_title_falls_back(name: str) -> None:
    check_expected(parse_case(name), EXPECTED[name])


def test_f5_title_from_h1_names_a_page_by_its_first_h1() -> None:
    text = case_file("f5a-title-empty.md").read_bytes().decode("utf-8-sig")
    assert parse_page(text, "f5a-title-empty.md", title_from="h1").title == "Real heading"
    assert parse_page(text, "f5a-title-empty.md").title == "f5a-title-empty"
    # a SilverBullet-style page: its first H1 is a section, the page is named by its file
    page = parse_page("# Why\n\nBecause.\n\n## How\n", "Library/Std/Query.md")
    assert page.title == "Query"
    assert [h.text for h in page.headings] == ["Why", "How"]  # the H1 is searched as a heading
    assert parse_page("# Why\n", "Query.md", title_from="h1").title == "Why"
    assert parse_page("no heading\n", "Query.md", title_from="h1").title == "Query"


@pytest.mark.parametrize("value", ["~", "''", '""', "null", "   "])
def test_f5_every_missing_title_form(value: str) -> None:
    assert parse_page(f"---\ntitle: {value}\n---\nx\n", "dir/My stem.md").title == "My stem"


def test_f6_unquoted_colon_is_an_error_with_its_file_line() -> None:
    page = parse_case("f6-unquoted-colon.md")
    check_expected(page, EXPECTED["f6-unquoted-colon.md"])
    (error,) = page.errors
    assert error.code == "yaml_error" and error.severity is Severity.ERROR
    assert page.title == "f6-unquoted-colon"  # indexed from body and file name
    assert "Quarterly" in page.body and page.frontmatter == {}


def test_f7a_tab_indentation_is_an_error() -> None:
    page = parse_case("f7a-tab-indent.md")
    check_expected(page, EXPECTED["f7a-tab-indent.md"])
    assert [(e.code, e.line) for e in page.errors] == [("yaml_error", 3)]
    assert "Tabbed" in page.body


def test_f7b_tab_before_comment_is_valid() -> None:
    check_expected(parse_case("f7b-tab-before-comment.md"), EXPECTED["f7b-tab-before-comment.md"])


def test_f8_yaml11_scalars_stay_as_written() -> None:
    page = parse_case("f8-yaml11.md")
    check_expected(page, EXPECTED["f8-yaml11.md"])
    assert all(isinstance(v, str) for v in page.frontmatter.values())


def test_l1_link_forms() -> None:
    page = parse_case("l1-wikilinks.md")
    check_expected(page, EXPECTED["l1-wikilinks.md"])
    assert len(page.links) == len(EXPECTED["l1-wikilinks.md"]["links"])
    (fix,) = [link for link in page.links if link.target == "Bug 12"]  # not also `references`
    assert (fix.type, fix.line, fix.origin) == ("fixes", 15, LinkOrigin.INLINE_FIELD)
    assert {link.line for link in page.links if link.type != "fixes"} == {4}
    md = next(link for link in page.links if link.origin is LinkOrigin.MARKDOWN)
    assert md.display == "md link"


def test_n1_nfd_file_name_gives_an_nfc_id() -> None:
    file = case_file("Café notes.md")
    assert file.name != nfc(file.name)  # the copy kept its NFD name
    page = parse_page(file.read_text("utf-8-sig"), file.name)  # even when given NFD
    check_expected(page, EXPECTED[nfc("Café notes.md")])
    assert page.id == page.path[:-3] == nfc("Café notes") == page.title
    (link,) = parse_case("n1-links-to-nfd.md").links
    assert link.target == nfc("Café notes")


def test_every_case_page_parses_cleanly_against_expected() -> None:
    for name, spec in EXPECTED.items():
        check_expected(parse_case(name), spec)


# --------------------------------------------------------------------------- frontmatter


def test_parse_frontmatter_api() -> None:
    mapping, body, body_line, issues = parse_frontmatter("\ufeff---\r\na: 1\r\n...\r\nbody\r\n")
    assert (mapping, body, body_line, issues) == ({"a": "1"}, "body\r\n", 4, ())
    assert parse_frontmatter("no block\n") == ({}, "no block\n", 1, ())
    assert parse_frontmatter("---\na: 1\nnever closed\n")[:3] == (
        {},
        "---\na: 1\nnever closed\n",
        1,
    )


def test_duplicate_keys_last_wins_with_a_warning() -> None:
    page = parse_page("---\ntitle: One\nkind: bug\ntitle: Two\n---\n", "a.md")
    assert page.title == "Two"
    assert [(w.code, w.line, w.key) for w in page.warnings] == [("duplicate_key", 4, "title")]


@pytest.mark.parametrize("block", ["- a\n- b", "just text", "'quoted'"])
def test_non_mapping_frontmatter_is_an_error_and_the_body_is_indexed(block: str) -> None:
    page = parse_page(f"---\n{block}\n---\n# Head\n", "n.md")
    assert [e.code for e in page.errors] == ["frontmatter_not_mapping"]
    assert page.frontmatter == {} and page.title == "n" and page.body == "# Head\n"


def test_unknown_kind_and_status_warn_with_key_and_line_and_fall_back() -> None:
    page = parse_page("---\nkind: Decision\nstatus: gone\nproject: [a]\n---\n", "a.md")
    assert page.kind == "decision" and page.status == "active" and page.project is None
    got = {(w.key, w.line) for w in page.warnings if w.code == "invalid_value"}
    assert got == {("status", 3), ("project", 4)}
    assert all(w.key and w.key in w.message for w in page.warnings)


def test_known_keys() -> None:
    text = (
        "---\nid: Finance/x\ntags: 'a, #b c'\naliases: Retry storm\n"
        "valid_from: 2026-03-01\nvalid_to: soon\nextra: {n: 010}\n---\nbody #c #B\n"
    )
    page = parse_page(text, "f/x.md")
    assert page.id == "Finance/x"
    assert page.tags == ("a", "b", "c")  # case-insensitive duplicates removed, first kept
    assert page.aliases == ("Retry storm",)
    assert (page.valid_from, page.valid_to) == ("2026-03-01", None)
    assert [(w.key, w.line) for w in page.warnings] == [("valid_to", 6)]
    assert page.frontmatter["extra"] == {"n": "010"}
    assert parse_page("x", "f/x.md").id == "f/x"


def test_known_keys_model_covers_every_relation_key() -> None:
    assert {*RELATION_TYPES, REFERENCES} <= set(keys._reference_models()[0].model_fields)


def test_known_keys_fields_are_the_reference_models_fields() -> None:
    """``_Known`` has the pydantic model's fields, in order, with the same defaults."""
    model = keys._reference_models()[0]
    known = keys._Known()
    assert list(model.model_fields) == list(known._fields)
    assert all(getattr(known, k) == f.default for k, f in model.model_fields.items())


def test_frontmatter_relations_and_custom_edges() -> None:
    text = (
        "---\n"
        'fixes: "[[Bug 1234]]"\n'
        "related:\n"
        '  - "[[Payment worker|worker]]"\n'
        '  - "[[Queue#Backlog]]"\n'
        "causes: [[Queue backlog]]\n"  # unquoted: YAML reads a nested list
        'references: ["[[Doc]]"]\n'
        'Up: "[[Parent]]"\n'
        'source: "plain text"\n'
        'supersedes: "not a link"\n'
        "---\n"
        "Body [[Body link]]\n"
    )
    page = parse_page(text, "p.md")
    got = [(lk.target, lk.type, lk.line, lk.anchor, lk.display, lk.origin) for lk in page.links]
    fm = LinkOrigin.FRONTMATTER
    assert got == [
        ("Queue backlog", "causes", 6, "", None, fm),
        ("Bug 1234", "fixes", 2, "", None, fm),
        ("Payment worker", "related", 4, "", "worker", fm),
        ("Queue", "related", 5, "#Backlog", None, fm),
        ("Doc", "references", 7, "", None, fm),
        ("Parent", "up", 8, "", None, fm),
        ("Body link", "references", 12, "", None, LinkOrigin.WIKILINK),
    ]
    assert [(w.code, w.key, w.line) for w in page.warnings] == [
        ("invalid_relation", "supersedes", 10)
    ]
    assert page.frontmatter["source"] == "plain text"


def test_evidence_forms_dedupe_and_unknown_kinds() -> None:
    text = (
        "---\nevidence:\n"
        "  - session:2026-03-01-claude-a1b2\n"
        "  - {kind: observation, source: obs-77, at: 2026-03-02T09:10:00Z, note: seen again}\n"
        "  - feedback:user @2026-03-04\n"
        "  - session:2026-03-01-claude-a1b2\n"
        "  - hunch:gut\n"
        "  - no source here\n"
        "---\n"
    )
    page = parse_page(text, "e.md")
    got = [(e.kind, e.source, e.line, e.at, e.note) for e in page.evidence]
    assert got == [
        ("session", "2026-03-01-claude-a1b2", 3, None, None),
        ("observation", "obs-77", 4, "2026-03-02T09:10:00Z", "seen again"),
        ("feedback", "user", 5, "2026-03-04", None),
        ("hunch", "gut", 7, None, None),
    ]
    assert [(w.code, w.line) for w in page.warnings] == [
        ("unknown_evidence_kind", 7),
        ("invalid_evidence", 8),
    ]


@pytest.mark.parametrize(
    ("block", "line"),
    [("a: 1\nb: [unclosed\n", 3), ("a: 1\n\tb: 2\n", 3), ("a: &x 1\nb: *nope\n", 3)],
)
def test_yaml_errors_carry_the_file_line(block: str, line: int) -> None:
    page = parse_page(f"---\n{block}---\nbody [[L]]\n", "y.md")
    assert [(e.code, e.line) for e in page.errors] == [("yaml_error", line)]
    assert page.links[0].target == "L" and page.body == "body [[L]]\n"


def test_alias_bombs_and_odd_tags_are_survived() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefg", "bcdefgh", strict=True)
    )
    page = parse_page(f"---\n{bomb}---\nx\n", "b.md")
    assert [e.code for e in page.errors] == ["frontmatter_too_complex"]
    page = parse_page("---\nk: !custom v\nn: !!int 010\nb: !!binary aGk=\n---\n", "t.md")
    assert dict(page.frontmatter) == {"k": "v", "n": "8", "b": "hi"}
    assert page.errors == ()


# --------------------------------------------------------------------------- body


def targets(page: Page) -> list[tuple[str, str, str]]:
    return [(link.target, link.type, link.anchor) for link in page.links]


def test_markdown_links_are_local_and_vault_relative() -> None:
    body = (
        "[a](sub/beta.md) [b](<with space.md>) [c](My%20Note.md#Part%202) "
        '[d](../up.md "title") [e](https://x.org/a.md) [f](mailto:a@b) [g](//host/x.md) '
        "![img](pics/i.png) [h](/root.md) [i](#local) [j](doc.pdf)\n"
    )
    page = parse_page(body, "notes/p.md")
    assert targets(page) == [
        ("notes/sub/beta.md", REFERENCES, ""),
        ("notes/with space.md", REFERENCES, ""),
        ("notes/My Note.md", REFERENCES, "#Part 2"),
        ("up.md", REFERENCES, ""),
        ("notes/pics/i.png", EMBEDS, ""),
        ("root.md", REFERENCES, ""),
        ("notes/p.md", REFERENCES, "#local"),
        ("notes/doc.pdf", REFERENCES, ""),
    ]
    assert all(link.origin is LinkOrigin.MARKDOWN for link in page.links)


def test_wikilink_forms_and_attachments() -> None:
    body = (
        "[[t^blk]] [[t#H1#H2]] [[diagram.png]] ![[photo.jpg|300]] [[ ]] \\[[escaped]] "
        "[[a\\|b]] [see [[inside]]](x.md)\n"
    )
    page = parse_page(body, "d/p.md")
    assert targets(page) == [
        ("t", REFERENCES, "#^blk"),
        ("t", REFERENCES, "#H1#H2"),
        ("diagram.png", REFERENCES, ""),
        ("photo.jpg", EMBEDS, ""),
        ("a", REFERENCES, ""),
        ("d/x.md", REFERENCES, ""),  # a Markdown link, then the wikilink in its text
        ("inside", REFERENCES, ""),
    ]


def test_inline_fields_are_one_typed_edge() -> None:
    body = (
        "fixes:: [[Bug 12]], [[Bug 13]]\n"
        "- Related To:: [[R]]\n"
        "Text (causes:: [[C]]) and [supersedes:: [[S]]] then [[plain]].\n"
        "see: [[not a field]]\n"
    )
    page = parse_page(body, "i.md")
    assert targets(page) == [
        ("Bug 12", "fixes", ""),
        ("Bug 13", "fixes", ""),
        ("R", "related_to", ""),
        ("C", "causes", ""),
        ("S", "supersedes", ""),
        ("plain", REFERENCES, ""),
        ("not a field", REFERENCES, ""),
    ]
    assert [link.line for link in page.links] == [1, 1, 2, 3, 3, 3, 4]


def test_nothing_counts_inside_code_or_comments() -> None:
    body = (
        "`[[a]]` ``x ` [[b]]`` [[ok1]]\n"
        "\n"
        "~~~~\n[[c]]\n~~~\n[[d]]\n~~~~\n"
        "\n"
        "    [[indented]]\n"
        "\n"
        "<!--\n[[e]]\n\n[[f]]\n--> [[g]]\n"
        "text <!-- [[h]] --> [[ok2]] #tag `#nottag`\n"
        "- item\n\n    [[ok3]] list continuation\n"
        "\n"
        "```js\n[[unclosed]]\n"
    )
    page = parse_page(body, "c.md")
    assert [link.target for link in page.links] == ["ok1", "ok2", "ok3"]
    assert page.tags == ("tag",)


def test_tags_rule() -> None:
    body = (
        "# Heading\n#top (#paren) [#brack] a#no #123 #tag-2 #project/alpha "
        "http://x.org/#frag #café\n## #inheading\n"
    )
    page = parse_page(body, "t.md")
    assert page.tags == ("top", "paren", "brack", "tag-2", "project/alpha", "café", "inheading")


def test_headings_atx_and_setext() -> None:
    body = (
        "# One #\nSetext title\n===\n\npara\nsecond line\n---\n"
        "####### seven\n#nospace\n```\n# in code\n```\n- item\n---\n## Two ##\n"
    )
    page = parse_page(body, "h.md")
    got = [(h.level, h.text, h.line) for h in page.headings]
    assert got == [
        (1, "One", 1),
        (1, "Setext title", 2),
        (2, "para second line", 6),
        (2, "Two", 15),
    ]
    assert page.title == "h"  # the file stem (DESIGN §2)
    assert parse_page(body, "h.md", title_from="h1").title == "One"


def test_body_lines_count_from_the_file_start() -> None:
    text = "---\r\ntitle: T\r\n---\r\n\r\nline five [[A]]\rline six [[B]]\n"
    page = parse_page(text, "l.md")
    assert page.body_line == 4
    assert [(link.target, link.line) for link in page.links] == [("A", 5), ("B", 6)]


# --------------------------------------------------------------------------- totality

_PIECES = st.sampled_from(
    [
        "---", "...", "\t", "  ", ":", ": ", "::", "- ", "#", "# ", "[[", "]]", "[", "]", "(",
        ")", "|", "^", "!", "`", "```", "~~~", "<!--", "-->", "\\", "'", '"', "{", "}", "&a",
        "*a", "!!int", "\ufeff", "\r\n", "\r", "\n", "\u2028", "\x85", "\x00", "%", "@",
        "title", "tags", "kind", "evidence", "fixes", "x", "é", "雾",
    ]
)  # fmt: skip
_STRUCTURED = st.lists(_PIECES | st.text(max_size=5), max_size=40).map("".join)
_FRONTED = st.tuples(_STRUCTURED, _STRUCTURED).map(lambda p: f"---\n{p[0]}\n---\n{p[1]}")
_ANY_TEXT = st.text() | _STRUCTURED | _FRONTED
_PATHS = st.sampled_from(["a.md", "dir/sub/Page.md", "Cafe\u0301.md", ".md", "x"])


def check_total(text: str, path: str) -> None:
    page = parse_page(text, path)
    lines = line_count(text)
    assert all(1 <= link.line <= lines for link in page.links), (page.links, lines)
    assert all(1 <= h.line <= lines for h in page.headings)
    assert all(1 <= e.line <= lines for e in page.evidence)
    assert all(i.line is None or 1 <= i.line <= lines for i in page.issues)
    assert isinstance(page.title, str) and len(page.title) <= TITLE_MAX_CHARS
    assert page.id and page.path == nfc(page.path)
    json.dumps(dict(page.frontmatter))  # plain values only


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANY_TEXT, _PATHS)
def test_parse_page_is_total(text: str, path: str) -> None:
    check_total(text, path)


@pytest.mark.slow
@settings(max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ANY_TEXT, _PATHS)
def test_parse_page_is_total_long(text: str, path: str) -> None:
    check_total(text, path)


# --------------------------------------------------------------------------- differential

_WIKI = re.compile(r"(!?)\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]")


def _wikilink_plugin(md: MarkdownIt) -> None:
    """The wikilink inline rule of TECH-NOTES §4."""

    def rule(state: StateInline, silent: bool) -> bool:
        m = _WIKI.match(state.src, state.pos)
        if not m:
            return False
        if not silent:
            token = state.push("wikilink", "", 0)
            token.meta = {"embed": bool(m.group(1)), "inner": m.group(2)}
        state.pos = m.end()
        return True

    md.inline.ruler.before("link", "wikilink", rule)


_MD = MarkdownIt("commonmark").use(_wikilink_plugin).enable("table")


def reference_wikilinks(body: str, path: str) -> set[tuple[str, bool]]:
    """``(target, embed)`` of every wikilink markdown-it finds (empty links left out)."""
    found = set()
    for token in _MD.parse(body):
        for child in token.children or []:
            if child.type == "wikilink":
                page, _, rest = child.meta["inner"].strip().partition("#")
                page, _, block = page.partition("^")
                if page.strip() or rest.strip() or block.strip():
                    found.add((page.strip() or path_id(path), child.meta["embed"]))
    return found


def our_wikilinks(body: str, path: str) -> set[tuple[str, bool]]:
    page = parse_page(body, path)
    return {
        (link.target, link.type == EMBEDS)
        for link in page.links
        if link.origin in (LinkOrigin.WIKILINK, LinkOrigin.INLINE_FIELD)
    }


_NAMES = st.sampled_from(["Alpha Page", "b", "dir/C", "Café", "x.png", "n1"])
_WIKILINK = st.tuples(st.sampled_from(["[[", "![["]), _NAMES, st.sampled_from(
    ["", "|shown", "#Setup", "#^blk", "^b2"]
)).map(lambda t: f"{t[0]}{t[1]}{t[2]}]]") | st.sampled_from(["[[#Local]]", "[[ #H ]]"])  # fmt: skip
_WORD = st.sampled_from(["alpha", "see", "(", ")", ":", "x y", "\\[[esc]]", "[md](n.md)", "`"])
_CODE = st.tuples(st.sampled_from(["`", "``"]), st.lists(_WIKILINK | _WORD, max_size=3)).map(
    lambda t: t[0] + " ".join(p for p in t[1] if p != "`" or t[0] == "``") + t[0]
)
_COMMENT = st.lists(_WIKILINK | _WORD, max_size=3).map(lambda p: "<!-- " + " ".join(p) + " -->")
_INLINE = st.lists(_WIKILINK | _WORD | _CODE | _COMMENT | st.just("<!--"), min_size=1, max_size=6)
_LINE = _INLINE.map(" ".join)
_PARAGRAPH = st.lists(_LINE, min_size=1, max_size=3).map("\n".join)
_FENCE = st.tuples(st.sampled_from(["```", "~~~", "````"]), st.lists(_LINE, max_size=3)).map(
    lambda t: "\n".join([t[0], *t[1], t[0]])
)
_UNCLOSED = st.lists(_LINE, max_size=2).map(lambda lines: "\n".join(["```", *lines]))
_BLOCK = (
    _PARAGRAPH
    | _FENCE
    | _LINE.map(lambda s: "## " + s)
    | _LINE.map(lambda s: "- " + s)
    | _LINE.map(lambda s: "    " + s)
    | st.lists(_LINE, max_size=2).map(lambda ls: "\n".join(["<!--", *ls, "--> " + "[[tail]]"]))
)
_DOCUMENT = st.tuples(
    st.lists(st.tuples(_BLOCK, st.sampled_from(["\n\n", "\n"])), max_size=6),
    _UNCLOSED | st.just(""),
).map(lambda t: "".join(b + sep for b, sep in t[0]) + t[1])


def test_differential_on_the_case_pages() -> None:
    for name in EXPECTED:
        file = case_file(name)
        body = parse_frontmatter(file.read_text("utf-8-sig"))[1]
        assert our_wikilinks(body, nfc(name)) == reference_wikilinks(body, nfc(name)), name


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENT)
def test_differential_against_markdown_it(body: str) -> None:
    assert our_wikilinks(body, "d/p.md") == reference_wikilinks(body, "d/p.md")


@pytest.mark.slow
@settings(max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(_DOCUMENT)
def test_differential_against_markdown_it_long(body: str) -> None:
    assert our_wikilinks(body, "d/p.md") == reference_wikilinks(body, "d/p.md")


def blank_expressions(body: str) -> str:
    """Replace each brace-balanced ``${...}`` (no blank line inside) with spaces."""
    out, i = [], 0
    while (start := body.find("${", i)) >= 0:
        depth, j = 1, start + 2
        while j < len(body) and depth and body[j : j + 2] != "\n\n":
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            j += 1
        if depth:
            out.append(body[i : start + 2])
            i = start + 2
            continue
        out.append(body[i:start] + "".join(c if c == "\n" else " " for c in body[start:j]))
        i = j
    return "".join(out) + body[i:]


def test_silverbullet_expressions_hold_no_links() -> None:
    body = (
        'See [[Real]] and ${query[[from index.pages("adr")]]} and\n'
        "${template.each(query[[\n  from p = index.pages()\n  select {n = p.name}\n]], t)}\n"
        "Unbalanced ${ [[Kept]]\n\nAfter a blank line ${x} [[Also kept]]\n"
    )
    page = parse_page(body, "p.md")
    assert [lk.target for lk in page.links] == ["Real", "Kept", "Also kept"]
    assert [lk.line for lk in page.links] == [1, 6, 8]


_HTML_BLOCK = re.compile(r"^ {0,3}<[A-Za-z]", re.MULTILINE)


@pytest.mark.parametrize("name", ["obsidian-tasks-docs", "silverbullet-docs", "dnd-srd-zh"])
def test_differential_on_real_corpora(name: str) -> None:
    """Same wikilinks as markdown-it on real vaults (read only), except inside HTML blocks.

    markdown-it leaves HTML blocks (``<details>`` ... ) unparsed; Obsidian and SilverBullet
    render links there, and so do we: there we may find more, never fewer. SilverBullet
    ``${...}`` expressions are blanked before markdown-it sees them (they hold Lua, no links).
    """
    root = corpus(name)
    for file in sorted(root.rglob("*.md")):
        rel = file.relative_to(root).as_posix()
        body = parse_frontmatter(file.read_text("utf-8-sig", errors="replace"))[1]
        ours = our_wikilinks(body, rel)
        reference = reference_wikilinks(blank_expressions(body), rel)
        assert reference <= ours, rel
        assert ours == reference or _HTML_BLOCK.search(body), rel


def test_custom_keys_in_any_case_style_are_one_edge_type() -> None:
    """silverbullet-docs writes `partOf`, `connectsTo`, `supersededBy`: snake_case edge types."""
    text = (
        "---\n"
        'partOf: "[[Architecture/Client]]"\n'
        'depends-on: ["[[A]]"]\n'
        'supersededBy: "[[New]]"\n'
        "---\n"
        "connects To:: [[B]]\n"
    )
    page = parse_page(text, "p.md")
    assert {(lk.target, lk.type) for lk in page.links} == {
        ("Architecture/Client", "part_of"),
        ("A", "depends_on"),
        ("New", "superseded_by"),
        ("B", "connects_to"),
    }


def test_references_key_of_plain_values_is_metadata_not_a_warning() -> None:
    """silverbullet-docs lists source files under `references:`: metadata, no warning."""
    text = "---\nreferences:\n- client/service_worker.ts\n- '[[Sync]]'\n---\nbody\n"
    page = parse_page(text, "p.md")
    assert [(lk.target, lk.type) for lk in page.links] == [("Sync", "references")]
    assert page.issues == ()
    assert page.frontmatter["references"] == ["client/service_worker.ts", "[[Sync]]"]


@pytest.mark.parametrize("value", ["2020-13-45", "2021-02-30", "2020-00-10", "soon"])
def test_validity_dates_must_name_real_days(value: str) -> None:
    page = parse_page(f"---\nvalid_from: {value}\n---\nx\n", "p.md")
    assert page.valid_from is None
    assert [(i.code, i.key, i.line) for i in page.warnings] == [("invalid_value", "valid_from", 2)]


def test_validity_window_that_ends_before_it_starts_is_a_warning() -> None:
    page = parse_page("---\nvalid_from: 2026-03-05\nvalid_to: 2026-01-01\n---\nx\n", "p.md")
    assert (page.valid_from, page.valid_to) == ("2026-03-05", "2026-01-01")
    assert [(i.code, i.line) for i in page.warnings] == [("invalid_value", 2)]


# --------------------------------------------------------------------------- fast paths

_YAML_PIECES = st.sampled_from(
    [
        "a: b\n", "a: b\n", "t: 'q'\n", 'u: "q"\n', "n: ~\n", "e:\n", "l: [x, y]\n", "- i\n",
        "  - j\n", "  k: v\n", "m: {a: [b, {c: ~}]}\n", "&x r: [1, 2]\n", "s: *x\n", "a2: &y v\n",
        "<<: {c: d}\n", "<<: *x\n", "? [k]\n: v\n", "~: 1\n", "'': 2\n", "null: 3\n",
        "i: !!int 5\n", "c: !custom v\n", "set: !!set {a, b}\n", "o: !!omap [a: 1]\n",
        "b: !!binary aGk=\n", "s2: !!str [a]\n", "z: !!null x\n", "d: 2024-01-01\n", "p: &p [*p]\n",
        "=: v\n", "x: [[a]]\n",
        "tags: [a, b]\n", "title: T\n", "- ", "  ", ": ", "\t", "[", "{", "#c\n", "\n",
    ]
)  # fmt: skip
_YAML_VALUES = st.recursive(
    st.none() | st.text(max_size=5) | st.sampled_from(["~", "null", "<<", "no", "010", "=", ""]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
_YAML = st.lists(_YAML_PIECES | st.text(max_size=4), max_size=16).map("".join) | st.tuples(
    _YAML_VALUES, st.booleans(), st.lists(_YAML_PIECES, max_size=2)
).map(lambda t: yaml.safe_dump(t[0], default_flow_style=t[1], allow_unicode=True) + "".join(t[2]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_YAML)
def test_yaml_fast_path_agrees_with_the_constructor(block: str) -> None:
    """``_node_plain`` gives what ``_plain(construct_document(node))`` gives, or steps aside."""
    try:
        node = frontmatter._text_loader()(block).get_single_node()
    except Exception:  # a YAML error: neither path runs
        return
    if node is None:
        return
    try:
        fast = repr(frontmatter._node_plain(node, [frontmatter._MAX_NODES]))
    except frontmatter._Unusual:
        return
    loader = frontmatter._text_loader()(block)
    slow = frontmatter._plain(
        loader.construct_document(loader.get_single_node()), [frontmatter._MAX_NODES]
    )
    assert fast == repr(slow)
    assert loader.duplicates == []


@given(st.text(max_size=6) | st.sampled_from(["", "~", "null", "Null", "NULL", "<<", "nul", "<"]))
def test_fast_resolver_agrees_with_pyyaml(value: str) -> None:
    loader = frontmatter._text_loader()("")
    assert not loader.yaml_path_resolvers  # the fast resolver assumes none
    for kind, implicit in [
        (yaml.ScalarNode, (True, False)),
        (yaml.ScalarNode, (False, True)),
        (yaml.SequenceNode, True),
        (yaml.MappingNode, False),
    ]:
        general = yaml.resolver.BaseResolver.resolve(loader, kind, value, implicit)  # type: ignore[no-untyped-call]
        assert loader.resolve(kind, value, implicit) == general


#: The link rules as first written (TECH-NOTES §4), with lazy and backtracking repeats; the
#: parser's possessive forms must match exactly the same text with the same groups.
_WIKI_REFERENCE = re.compile(r"(!?)\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]")
_MD_LINK_REFERENCE = re.compile(
    r"(!?)\[((?:[^\[\]\\\n]|\\.|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\])*)\]"
    r"\([ \t]*(?:<([^<>\n]*)>|((?:[^\s()\\]|\\.|\([^\s()]*\))*))"
    r"(?:[ \t]*\n?[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"
)
_LINK_BITS = st.sampled_from(
    [
        "[[", "]]", "[", "]", "(", ")", "](", "!", "|", "\\", "<", ">", '"', "'", " ", "\t", "\n",
        "a", "#", "^",
    ]
)  # fmt: skip
_FILL = st.lists(_LINK_BITS, max_size=4).map("".join)
_WIKI_LIKE = st.tuples(
    st.sampled_from(["[[", "![["]), _FILL, st.sampled_from(["", "|"]), _FILL,
    st.sampled_from(["]]", "]", "] ]", ""]),
).map("".join)  # fmt: skip
_MD_LIKE = st.tuples(
    st.sampled_from(["[", "!["]), _FILL, st.sampled_from(["](", "] (", "]"]),
    st.sampled_from(["", "<", " "]), _FILL,
    st.sampled_from(["", ">", ' "t"', " 't'", " (t)", '\n "t"']),
    st.sampled_from([")", "", " )"]),
).map("".join)  # fmt: skip
_LINK_TEXT = st.lists(_WIKI_LIKE | _MD_LIKE | _LINK_BITS, max_size=4).map("".join)


@settings(max_examples=1000, deadline=None)
@given(_LINK_TEXT)
def test_possessive_link_patterns_match_the_reference(text: str) -> None:
    fast_wiki, fast_md = re.compile(body._WIKI_PATTERN), re.compile(body._MD_LINK_PATTERN)
    for at in range(len(text)):
        for reference, fast in ((_WIKI_REFERENCE, fast_wiki), (_MD_LINK_REFERENCE, fast_md)):
            want, got = reference.match(text, at), fast.match(text, at)
            assert (want is None) == (got is None), (text, at, reference.pattern)
            if want is not None and got is not None:
                assert [want.span(g) for g in range(4)] == [got.span(g) for g in range(4)]


@settings(max_examples=300, deadline=None)
@given(_LINK_TEXT | st.text(alphabet=st.sampled_from(list("#`<!-$\\{[ (a1\n_")), max_size=24))
def test_token_start_skips_only_what_cannot_start_a_token(text: str) -> None:
    for at in range(len(text)):
        if body._TOKEN.match(text, at) is not None:
            assert body._TOKEN_START.match(text, at) is not None, (text, at)


_SIMPLE_YAML_PIECES = st.sampled_from(
    [
        "k: a b\n", "k: a:b\n", "k: a: b\n", "k2: [a b, 'c', \"d\"]\n", "k3:\n", "  - a\n", "- b\n",
        " - c\n", "  - 'q'\n", "k: a #c\n", "k: 'a''b'\n", 'k: "a\\"b"\n', "k4: null\n",
        "k5: [null, ~, Null]\n", "k: ...\n", "k: -a\n", "k: a,\n", "k: (a)\n", "k: @a\n",
        "k6: a@b\n", "k: a:\n", "k: .5\n", "k7:   \n", "k: x\u2028y\n", "k8: é\n", "k9: a  \n",
        "k10: [ a ,b ]\n", "k11: []\n", "k: [a,]\n", "null: x\n", "k: 'x\ty'\n", 'k12: "q" \n',
        "k13: a  b\n", "k: +1\n", "k14: a-\n", "_k: v\n", "k-1: v\n", "k15: 'a:b'\n",
        'k16: ["a, b"]\n', "k: [a:b]\n", "k: a\tb\n", "k:\ta\n", "\n", "# c\n", "k: {a: b}\n",
        "evidence:\n", "  - session:abc @2024-01-01\n", "title: Page one\n", "tags: [x, y]\n",
        "related: [\"[[A]]\", \"[[B#H|b]]\"]\n", "k: y\r\n", "k: \ufeffx\n", "k: a\x85b\n",
    ]
)  # fmt: skip


_SIMPLE_VALUES = st.sampled_from(
    [
        " a b", " a:b", " [a b, 'c', \"d\"]", "", " null", " x y z", " 'x y'", " []", " [ a ,b ]",
        " é", " 雾 x", " a  ", " 2024-01-01", ' ["[[A]]", "[[B#H|b]]"]', " a@b", " (a)", " a,",
        " a-",
    ]
)  # fmt: skip
_TRICKY_VALUES = st.sampled_from(
    [
        " a: b", "   ", " Null", " ~", " 'a''b'", ' "a\\"b"', " [null, ~]", " ...", " -a", " @a",
        " a:", " .5", " [a,]", " [a:b]", " a #c", "\ta", " a\u2028b", ' "q" ', " +1", " {a: b}",
    ]
)  # fmt: skip
_SIMPLE_ITEMS = st.lists(
    st.sampled_from(["  - a\n", "  - 'q'\n", "  - kind:src @2024\n", "- b\n", " - c\n", "  -\n"]),
    max_size=3,
)
_SIMPLE_BLOCK = st.lists(
    st.tuples(
        st.sampled_from(["k", "title", "tags", "x-1", "_y", "related", "null"]),
        st.one_of(_SIMPLE_VALUES, _SIMPLE_VALUES, _SIMPLE_VALUES, _TRICKY_VALUES),
        _SIMPLE_ITEMS,
    ),
    unique_by=lambda line: line[0],
    max_size=5,
).map(
    lambda lines: "".join(
        f"{k}:{v}\n" + ("".join(items) if not v.strip() else "") for k, v, items in lines
    )
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_SIMPLE_YAML_PIECES, max_size=10).map("".join) | _SIMPLE_BLOCK)
def test_simple_frontmatter_reads_as_pyyaml_does(block: str) -> None:
    """``_simple_front`` gives what the general path gives, or steps aside."""
    text = f"---\n{block}---\nbody\n"
    fast = frontmatter._read_front(text)
    with mock.patch.object(frontmatter, "_simple_front", return_value=None):
        general = frontmatter._read_front(text)
    assert repr(fast) == repr(general)


@pytest.mark.slow
@settings(max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_SIMPLE_YAML_PIECES, max_size=10).map("".join) | _SIMPLE_BLOCK)
def test_simple_frontmatter_reads_as_pyyaml_does_long(block: str) -> None:
    test_simple_frontmatter_reads_as_pyyaml_does.hypothesis.inner_test(block)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- known keys


def test_a_common_page_imports_neither_pydantic_nor_yaml() -> None:
    """The fast paths keep both libraries off a sync that parses only common pages."""
    code = (
        "import sys; from vault_sync.parser import parse_page\n"
        "page = parse_page('---\\ntitle: T\\nkind: Rule\\ntags: [a, b]\\nvalid_from: 2024-01-02\\n"
        "evidence:\\n  - session:x @2024-01-01\\n---\\nbody [[L]]\\n', 'a.md')\n"
        "assert page.kind == 'rule' and page.evidence and not page.issues, page\n"
        "print(sorted({'pydantic', 'yaml'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    bad = parse_page("---\nkind: nope\n---\n", "a.md")  # the fallback: pydantic's message
    assert [w.message[:38] for w in bad.warnings] == ["kind: 'nope' is not valid (Input shoul"]


_KNOWN_KEYS = sorted(keys._KNOWN)
_FRONT_TEXTS = st.sampled_from(
    [
        "", " ", "x", " a b ", "note", "Decision", " GOTCHA ", "bogus", "active", "Archived ",
        "10", "1.5", "010", "no", "2024-01-01", "2024-02-30", "2024-01-01T10:00:00Z",
        "2024-01-01 10:00+02:00", "2024-1-1", "soon", "[[X]]", " [[X|y]] ", "[[A#H]]", "[[]]",
        "#tag, b  c", "a,b", "session:abc @2024-01-01", "hunch:gut", "kind: ", "no source",
        "commit:abc123", "\u96fe\u51c7", "a\u00a0b", "\t",
    ]
)  # fmt: skip
_FRONT_VALUES = st.recursive(
    st.none() | _FRONT_TEXTS | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["kind", "source", "at", "note", "session", "x"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)
#: Known keys (and a few others) with values of every shape frontmatter can load as.
_KNOWN_MAPPINGS = st.dictionaries(
    st.sampled_from([*_KNOWN_KEYS, "up", "source"]), _FRONT_VALUES, max_size=6
)
#: Mostly valid shapes, so the fast path is taken often.
_VALID_MAPPINGS = st.fixed_dictionaries(
    {},
    optional={
        "title": _FRONT_TEXTS,
        "kind": st.sampled_from(["note", "Rule", " decision "]),
        "status": st.sampled_from(["active", "Historical"]),
        "tags": st.lists(_FRONT_TEXTS, max_size=3) | _FRONT_TEXTS,
        "aliases": st.lists(_FRONT_TEXTS | st.lists(_FRONT_TEXTS, max_size=2), max_size=3),
        "valid_from": st.sampled_from(["2024-01-01", "2024-01-01T10:00:00Z", " 2025-12-31 "]),
        "related": st.lists(st.sampled_from(["[[X]]", "[[Y|y]]"]) | st.just(["Z"]), max_size=3),
        "evidence": st.lists(
            _FRONT_TEXTS
            | st.fixed_dictionaries(
                {"kind": _FRONT_TEXTS, "source": _FRONT_TEXTS},
                optional={"at": _FRONT_TEXTS | st.none(), "note": _FRONT_TEXTS},
            ),
            max_size=3,
        ),
    },
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_KNOWN_MAPPINGS | _VALID_MAPPINGS)
def test_known_keys_fast_path_agrees_with_pydantic(mapping: dict[str, Any]) -> None:
    """``_known_fast`` gives what the pydantic model gives, or steps aside; and it steps aside
    only where pydantic reports a problem (so valid pages never pay for pydantic)."""
    data = {k: v for k, v in mapping.items() if k in keys._KNOWN}
    issues: list[Any] = []
    checked = keys._known_checked(data, frontmatter._Front(mapping=mapping), issues)
    fast = keys._known_fast(data)
    if fast is not None:
        assert repr(fast) == repr(checked)  # repr: Kind.RULE == "rule", but not its repr
        assert issues == []
    else:
        assert issues
    for entry in checked.evidence:
        fields = entry if isinstance(entry, dict) else None
        if isinstance(entry, str) and (m := keys._EVIDENCE_TEXT.match(entry)):
            fields = {"kind": m[1], "source": m[2], "at": m[3]}
        fast_entry = keys._evidence_fast(fields)
        if fast_entry is not None:
            assert repr(fast_entry) == repr(keys._evidence_checked(fields))


def _without_fast_paths(text: str, path: str) -> Page:
    """``parse_page`` with every known-key and evidence check done by pydantic."""
    with (
        mock.patch.object(keys, "_known_fast", return_value=None),
        mock.patch.object(keys, "_evidence_fast", return_value=None),
    ):
        return parse_page(text, path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_KNOWN_MAPPINGS | _VALID_MAPPINGS, st.booleans())
def test_parse_page_with_fast_checks_equals_pure_pydantic(
    mapping: dict[str, Any], flow: bool
) -> None:
    """Whole pages: the same ``Page`` (links, evidence, warnings and all) either way."""
    block = yaml.safe_dump(mapping, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    text = f"---\n{block}---\n# Head\nbody [[L]] #t\n"
    assert repr(parse_page(text, "p/a.md")) == repr(_without_fast_paths(text, "p/a.md"))


def test_fast_checks_change_nothing_on_the_case_pages() -> None:
    for file in sorted(PAGES.glob("*.md")):
        text = file.read_bytes().decode("utf-8-sig")
        assert repr(parse_page(text, nfc(file.name))) == repr(
            _without_fast_paths(text, nfc(file.name))
        )


@pytest.mark.slow
@settings(max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(_KNOWN_MAPPINGS | _VALID_MAPPINGS)
def test_known_keys_fast_path_agrees_with_pydantic_long(mapping: dict[str, Any]) -> None:
    test_known_keys_fast_path_agrees_with_pydantic.hypothesis.inner_test(mapping)  # type: ignore[attr-defined]


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(_KNOWN_MAPPINGS | _VALID_MAPPINGS, st.booleans())
def test_parse_page_with_fast_checks_equals_pure_pydantic_long(
    mapping: dict[str, Any], flow: bool
) -> None:
    test_parse_page_with_fast_checks_equals_pure_pydantic.hypothesis.inner_test(mapping, flow)  # type: ignore[attr-defined]
