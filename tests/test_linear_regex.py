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
from vault_sync.linear_regex import compile_linear
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
