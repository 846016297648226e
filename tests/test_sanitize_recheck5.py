"""Recheck 5 of fresh-user report 5: secret forms that still leaked after the first fixes
(each test plants a fresh random secret and fails on the code before the fix)."""

from __future__ import annotations

import pytest

from tests.test_sanitize_fresh5 import _hidden, _password


@pytest.mark.parametrize(
    "form", ["Password :: {p}", "- db_pass ::  {p}", "[api_key :: {p}]", "secret\t:: {p}"]
)
def test_dataview_field_with_blanks_before_the_colons(form: str) -> None:
    p = _password()
    out = _hidden(f"# note\n\n{form.format(p=p)}\n", p)
    assert "::" in out  # the field's syntax is kept
