"""Config patterns run on RE2 (issue 14 fault 6): a catastrophic ``extra_patterns`` regex cannot
hang a sync, a pattern RE2 refuses is a one-line config error, the ``secret`` group keeps its
meaning, and offsets are character offsets whatever the text holds."""

from __future__ import annotations

import re
import resource
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Result
from vault_sync.linear_regex import compile_linear, too_broad
from vault_sync.sanitize import Scrubber, scrub

CLI = Callable[..., Result]

#: Backtracking needs ~2^32 steps on this (hours); RE2 one pass.
CATASTROPHIC = r"(a+)+$"
HOSTILE = "a" * 32 + "b"


def _child_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_catastrophic_extra_pattern_does_not_hang_sync(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    vault = make_vault({"hostile.md": f"{HOSTILE}\n", "ok.md": "ticket ACME-1234 here\n"})
    (vault / "vault-sync.toml").write_text(
        f"[sanitize]\nextra_patterns = ['{CATASTROPHIC}', 'ACME-[0-9]+']\n", encoding="utf-8"
    )
    before = _child_cpu_s()
    # On Python's re this sync runs for hours: the timeout (far above the ~1 s it takes) fails it.
    result = cli("--vault", str(vault), "sync", timeout=60)
    assert result.code == 0, result.err
    assert _child_cpu_s() - before < 30
    lint = cli("--vault", str(vault), "lint", "--json").json()
    found = [(p["path"], p["line"], p["code"], p["message"][:17]) for p in lint["problems"]]
    assert found == [("ok.md", 1, "secret", "a secret (custom)")], lint


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(?P<secret>x+)\1", "invalid escape sequence: \\1"),
        (r"token(?=[0-9])", "invalid perl operator: (?="),
        (r"(?<!a)b", "invalid perl operator: (?<!"),
    ],
)
def test_pattern_re2_refuses_is_a_one_line_config_error(
    cli: CLI, make_vault: Callable[..., Path], pattern: str, reason: str
) -> None:
    vault = make_vault({"a.md": "text\n"})
    (vault / "vault-sync.toml").write_text(
        f"[sanitize]\nextra_patterns = ['{pattern}']\n", encoding="utf-8"
    )
    result = cli("--vault", str(vault), "sync")
    assert result.code == 2, result.err
    assert result.err == (
        f"Error: {vault / 'vault-sync.toml'}: sanitize.extra_patterns: {pattern!r} is not a"
        f" linear-time (RE2) regex: {reason} (backreferences and lookaround are not"
        " supported)\n"
    )


def test_secret_group_or_whole_match_is_redacted() -> None:
    out, findings = scrub("é pin=1234 pin= x", extra_patterns=[r"pin=(?P<secret>\d*)"])
    assert out == "é pin=[REDACTED:custom] pin= x"  # an empty group redacts nothing
    assert [(f.start, f.end) for f in findings] == [(6, 10)]
    out, _ = scrub("név ACME-9 x", extra_patterns=[r"ACME-\d"])
    assert out == "név [REDACTED:custom] x"
    # The group did not take part in the match: nothing is redacted (not the whole match).
    assert scrub("x-y", extra_patterns=[r"x|(?P<secret>q)"]) == ("x-y", ())


def test_allow_regexes_run_on_re2_too() -> None:
    scrubber = Scrubber(extra_patterns=[r"ACME-\d+"], allow=[CATASTROPHIC, r"ACME-7\d*"])
    out, _ = scrubber.scrub(f"{HOSTILE} ACME-71 ACME-12")
    assert out == f"{HOSTILE} ACME-71 [REDACTED:custom]"
    # An allow entry RE2 cannot compile still protects its literal text.
    literal = "ACME-5(?=x)"
    assert scrub(f"a {literal}", extra_patterns=[r"ACME-\d"], allow=[literal])[0] == f"a {literal}"


def test_hostile_text_scales_linearly_with_a_catastrophic_pattern() -> None:
    pattern = compile_linear(CATASTROPHIC)
    start = time.process_time()
    assert list(pattern.spans("a" * 200_000 + "b")) == []
    assert time.process_time() - start < 5  # backtracking: not finished in a lifetime


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab é\u4e2d\U0001f600\udcff\n"), max_size=40))
def test_offsets_are_character_offsets(text: str) -> None:
    for source in (r"a+", r"(?P<secret>é+)b?", r"\n", r"b(?P<secret>a)?"):
        expected = [
            (m.span(), m.span("secret") if "secret" in source else m.span())
            for m in re.finditer(source, text)
        ]
        assert list(compile_linear(source).spans(text)) == expected, source


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("a*", "matches the empty string (a match at every position of every page)"),
        ("x?", "matches the empty string (a match at every position of every page)"),
        (r"\w+", "matches any text (each of the, Note, 2024, über): it would redact every page"),
        (".+", "matches any text (each of the, Note, 2024, über): it would redact every page"),
    ],
)
def test_a_pattern_matching_nothing_or_anything_is_a_config_error_naming_its_line(
    cli: CLI, make_vault: Callable[..., Path], pattern: str, why: str
) -> None:
    vault = make_vault({"a.md": "café text\n"})
    (vault / "vault-sync.toml").write_text(
        f"[sanitize]\nextra_patterns = [\n  'ACME-[0-9]+',\n  '{pattern}',\n]\n", encoding="utf-8"
    )
    result = cli("--vault", str(vault), "sync")
    assert result.code == 2, result.err
    toml = vault / "vault-sync.toml"
    assert result.err == f"Error: {toml}:4: sanitize.extra_patterns: {pattern!r} {why}\n"


def test_narrow_patterns_are_taken() -> None:
    assert too_broad(compile_linear(r"\d{4}")) is None
    assert too_broad(compile_linear(r"(?i)[a-z]{2,}")) is None  # not 2024
    assert too_broad(compile_linear(r"pin=(?P<secret>\d*)")) is None  # its match is never empty


def test_an_empty_match_never_splits_a_character() -> None:
    # `a*` matches empty at each byte, inside `é` too: decoding half of it raised (a traceback
    # from every sync of a vault whose `allow` held such a pattern)
    assert list(compile_linear("a*").spans("é a")) == [((2, 3), (2, 3))]
    out, _ = Scrubber(allow=["a*"]).scrub("é ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
    assert out == "é [REDACTED:github_token]"


def test_a_query_of_words_custom_patterns_redact_is_refused_like_a_secret(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    """A custom pattern may match a plain word (a code name): the query is scrubbed with it,
    as a built-in secret is, so it is neither searched nor echoed."""
    vault = make_vault({"a.md": "project falcon ships the retry fix\n"})
    (vault / "vault-sync.toml").write_text(
        "[sanitize]\nextra_patterns = ['falcon']\n", encoding="utf-8"
    )
    assert cli("--vault", str(vault), "sync").code == 0
    result = cli("--vault", str(vault), "query", "falcon")
    assert (result.code, result.err) == (
        2,
        "Error: the query held only a secret, and a secret is never searched\n",
    )
    data = cli("--vault", str(vault), "query", "falcon retry", "--json").json()
    assert data["query"] == "[REDACTED:custom] retry"
    assert [hit["path"] for hit in data["hits"]] == ["a.md"]
