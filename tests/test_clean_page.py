"""The sanitizer seam of a page, field by field (issue 14's mutation testing of clean.py):
:func:`clean_page` on real parsed pages and the real scrubber, every field's cleaned value
pinned, and :func:`without_secret_names` on a real scan."""

from __future__ import annotations

import random
import string
from pathlib import Path

from vault_sync.clean import clean_page, without_secret_names
from vault_sync.config import load_config
from vault_sync.page import Heading, Link, LinkOrigin
from vault_sync.parser import parse_page
from vault_sync.sanitize import Finding, Scrubber
from vault_sync.secret_values import SEARCHED, FoundValues
from vault_sync.vault import scan

from .conftest import best_cpu_seconds, write_pages

#: Generated, never real (the github_token and aws_key formats of secret_samples.toml).
G = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
A = "AKIA" + "QWERTYUIOPASDFGH"
T = "[REDACTED:github_token]"
K = "[REDACTED:aws_key]"
SECRET_ISSUE = (
    "a secret ({}) is in this page; it is redacted from every output"
    " (vault-sync redact --write removes it from the file)"
)

PAGE = f"""---
title: Deploy {G}
id: id-{G}
project: proj {G}
tags: [t{G}, ok]
aliases: [alias {G}, Fine alias]
valid_from: 2026-01-01
valid_to: 2026-12-31
nested:
  {A}: [{G}, plain, 3]
  inner: {{k: "{G}"}}
evidence:
  - {{kind: pr, source: "src {G}", at: "at {G}", note: "note {G}"}}
---
# Heading {G}

Body {G} and [[Page {G}#Anchor {G}|shown {G}]] and [md {G}](x{G}.md).
"""


def test_every_field_of_a_page_with_secrets_is_scrubbed_and_each_secret_is_an_issue() -> None:
    page = parse_page(PAGE, "p.md")
    out = clean_page(page, PAGE, Scrubber())
    assert (out.path, out.id, out.title, out.project) == (
        "p.md",
        f"id-{T}",
        f"Deploy {T}",
        f"proj {T}",
    )
    assert out.tags == (f"t{T}", "ok")
    assert out.aliases == ("Fine alias",)  # an alias that held a secret is dropped
    assert (out.valid_from, out.valid_to) == ("2026-01-01", "2026-12-31")
    assert out.headings == (Heading(1, f"Heading {T}", 15),)
    assert out.links == (
        Link(f"Page {T}", "references", 17, f"#Anchor {T}", f"shown {T}", LinkOrigin.WIKILINK),
        Link(f"x{T}.md", "references", 17, "", f"md {T}", LinkOrigin.MARKDOWN),
    )
    assert [(e.kind, e.source, e.at, e.note) for e in out.evidence] == [
        ("pr", f"src {T}", f"at {T}", f"note {T}")
    ]
    assert out.frontmatter["nested"] == {K: [T, "plain", "3"], "inner": {"k": T}}
    assert out.frontmatter["tags"] == [f"t{T}", "ok"]
    assert out.frontmatter["aliases"] == [f"alias {T}", "Fine alias"]
    link = f"[[Page {T}#Anchor {T}|shown {T}]]"
    assert out.body == f"# Heading {T}\n\nBody {T} and {link} and [md {T}](x{T}.md).\n"
    assert G not in repr(out) and A not in repr(out)
    secrets = [
        (i.severity.value, i.code, i.message, i.line) for i in out.issues if i.code == "secret"
    ]
    labels_lines = [(m, line) for _, _, m, line in secrets]
    assert labels_lines == [
        (SECRET_ISSUE.format("github_token"), 2),
        (SECRET_ISSUE.format("github_token"), 3),
        (SECRET_ISSUE.format("github_token"), 4),
        (SECRET_ISSUE.format("github_token"), 5),
        (SECRET_ISSUE.format("github_token"), 6),
        (SECRET_ISSUE.format("aws_key"), 10),
        (SECRET_ISSUE.format("github_token"), 10),
        (SECRET_ISSUE.format("github_token"), 11),
        (SECRET_ISSUE.format("github_token"), 13),
        (SECRET_ISSUE.format("github_token"), 13),
        (SECRET_ISSUE.format("github_token"), 13),
        (SECRET_ISSUE.format("github_token"), 15),
        *[(SECRET_ISSUE.format("github_token"), 17)] * 6,
    ]
    assert {s[:2] for s in secrets} == {("error", "secret")}


def test_a_page_without_secrets_is_returned_as_it_is() -> None:
    text = "---\ntitle: Plain\ntags: [a]\nnested: {k: [1, v]}\n---\n# H\n\nbody [[x]]\n"
    page = parse_page(text, "p.md")
    assert clean_page(page, text, Scrubber()) is page


def test_a_secret_only_yaml_spells_is_found_in_the_parsed_values() -> None:
    """`"\\u0041KIA..."` is no secret in the file's text, but YAML makes it one: found in the
    parsed values, its issue is on the line of the scalar that spells it (as redact reports
    it: fresh-user report, kind 4)."""
    text = (
        f'---\ntitle: T\nescaped: "\\u0041KIA{A[4:]}"\nlist: ["\\u0041KIA{A[4:]}", ok]\n---\nbody\n'
    )
    page = parse_page(text, "p.md")
    out = clean_page(page, text, Scrubber())
    assert out.frontmatter == {"title": "T", "escaped": K, "list": [K, "ok"]}
    assert [(i.code, i.message, i.line) for i in out.issues] == [
        ("secret", SECRET_ISSUE.format("aws_key"), 3),
        ("secret", SECRET_ISSUE.format("aws_key"), 4),
    ]
    assert out.body == "body\n" and out.title == "T"


def test_a_secret_known_by_its_key_name_is_scrubbed_in_a_frontmatter_value() -> None:
    value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"[::-1]  # 40 chars, named only by its key
    text = (
        f"---\naws_secret_access_key: {value}\nnested:\n  aws_secret_access_key: {value}\n---\nx\n"
    )
    page = parse_page(text, "p.md")
    out = clean_page(page, text, Scrubber())
    assert value not in repr(out)
    assert out.frontmatter == {
        "aws_secret_access_key": "[REDACTED:env_secret]",
        "nested": {"aws_secret_access_key": "[REDACTED:env_secret]"},
    }


def test_files_whose_names_hold_a_secret_are_left_out_of_the_scan(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    write_pages(vault, {"ok.md": "x\n", f"key {G}.md": "x\n", f"img {G}.png": "x", "a.png": "x"})
    config = load_config(vault)
    result = scan(config)
    kept, errors = without_secret_names(result, Scrubber())
    assert sorted(kept.pages) == ["ok.md"] and kept.attachments == frozenset({"a.png"})
    message = "its file name holds a secret: not indexed (rename the file)"
    assert errors == {f"key {T}.md": message, f"img {T}.png": message}
    # names already stored passed this check when stored: only new names are scrubbed
    again, none = without_secret_names(result, Scrubber(), stored={f"key {G}.md", f"img {G}.png"})
    assert (again, none) == (result, {})
    assert without_secret_names(kept, Scrubber()) == (kept, {})


def test_a_cut_piece_an_invalid_value_and_other_keys_carry_no_secret() -> None:
    """An alias holding only a piece of a secret found elsewhere in the page is dropped; an
    issue's message quoting an invalid value, and the other keys' strings, are scrubbed."""
    text = (
        f"---\ntitle: T {G}\nvalid_to: soon {G}\naliases: [{G[4:20]}, ok]\nextra: x {G}\n---\nb\n"
    )
    out = clean_page(parse_page(text, "p.md"), text, Scrubber())
    assert out.aliases == ("ok",)
    assert out.metadata == (f"x {T}",)
    assert [(i.code, i.message) for i in out.issues if i.code != "secret"] == [
        (
            "invalid_value",
            f"valid_to: 'soon {T}' is not valid (Value error, expected an ISO date such as"
            " 2026-03-01); the key is ignored",
        )
    ]
    assert out.valid_to is None


def _page_of_secrets(lines: int) -> str:
    """``lines`` headings, each naming a secret of its own (seeded, generated here)."""
    rng = random.Random(lines)
    chars = string.ascii_letters + string.digits
    return "".join(
        f"## H{i} A_TOKEN={''.join(rng.choice(chars) for _ in range(24))}\n" for i in range(lines)
    )


def _cpu_seconds(text: str) -> float:
    """CPU seconds of :func:`clean_page` on ``text`` (best of 2; other processes' load does
    not count)."""
    page, scrubber = parse_page(text, "p.md"), Scrubber()
    return best_cpu_seconds(lambda: clean_page(page, text, scrubber))


def test_a_page_of_many_secrets_is_cleaned_in_linear_time() -> None:
    """Each found value was searched for in each field, and each finding's line counted from
    the page's start: O(secrets x text), 7.5x the time for 4x the lines (1,000 -> 4,000);
    4.2x now. A ratio in one run, so a loaded machine cannot fail it."""
    small, big = _cpu_seconds(_page_of_secrets(1_000)), _cpu_seconds(_page_of_secrets(4_000))
    assert big <= 6 * small + 0.02, f"{small:.3f}s -> {big:.3f}s for 4x the lines"


def test_many_found_values_are_hidden_as_few_are() -> None:
    """Past ``SEARCHED`` found values one pass finds them all (leftmost first, the longest at
    each place): the same text out as each value replaced in turn, longest first."""
    values = [f"Vq{i:02d}x7Kp2Lm9Zt" + "w" * (i % 3) for i in range(SEARCHED + 4)]
    text = " ".join(values)
    findings = [Finding("env_secret", text.index(v), text.index(v) + len(v)) for v in values]
    found = FoundValues(text, findings)
    field = f"x {values[0]}/{values[-1]}-{values[3]}Zt {values[SEARCHED]}.{values[5][:-1]}"
    expected = field
    for value in sorted(values, key=len, reverse=True):
        expected = expected.replace(value, "[REDACTED:env_secret]")
    assert found.hide(field, pieces=False) == expected
    assert expected.count("[REDACTED:env_secret]") == 4  # values[5] cut short: not a value
    assert found.hide("no value here") == "no value here"
