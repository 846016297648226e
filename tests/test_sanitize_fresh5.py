"""Fresh-user report 5, findings 2, 3 and 11: secret forms that leaked (each test plants a
fresh random secret and fails on the code before the fix)."""

from __future__ import annotations

import secrets
import string

import pytest

from vault_sync.sanitize import scrub


def _password() -> str:
    """A fresh random password: lower, upper, digit and a symbol, 12 characters."""
    body = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(8))
    return "Kq" + body + secrets.choice("#!*%") + str(secrets.randbelow(10))


def _token(size: int = 24) -> str:
    """A fresh random token of letters (both cases) and digits."""
    alphabet = string.ascii_letters + string.digits
    return "x9Q" + "".join(secrets.choice(alphabet) for _ in range(size - 3))


def _hidden(text: str, *values: str) -> str:
    """``text`` scrubbed; asserts that none of ``values`` is left in it."""
    out, findings = scrub(text)
    for value in values:
        assert value not in out, out
    assert findings
    return out


@pytest.mark.parametrize(
    "form",
    [
        "password:: {p}",
        "DB_PASSWORD:: {p}",
        "- password:: {p}",
        "[password:: {p}]",
        "(password:: {p})",
        "api_key:: {t}",
        "secret:: {t}",
        "client_secret::\t{t}",
    ],
)
def test_dataview_inline_field_with_a_space(form: str) -> None:
    p, t = _password(), _token()
    out = _hidden(f"# note\n\n{form.format(p=p, t=t)}\n", p, t)
    assert "::" in out  # the field's syntax is kept


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2007"])
@pytest.mark.parametrize("label", ["Password", "Mot de passe", "DB_PASSWORD"])
def test_no_break_space_before_the_colon(space: str, label: str) -> None:
    p = _password()
    out = _hidden(f"{label}{space}: {p}\n", p)
    assert out.startswith(f"{label}{space}: [REDACTED:")


def test_operator_forms_spare_prose() -> None:
    for text in ("status:: done", "std:: vector<int>", "password:: see the vault", "key:: value"):
        assert scrub(text) == (text, ())


@pytest.mark.parametrize(
    "form",
    [
        "Username: admin\nPassword:\n{p}\n",
        "Password:\n\n{p}\n",
        "**Password:**\n{p}\n",
        "## Password\n\n{p}\n",
        "### Root password ##\n{p}\n",
        "**Password**\n{p}\n",
        "__Password__\n\n`{p}`\n",
        "- Password\n  - {p}\n",
        "* Wifi password\n    * {p}\n",
        "Token:\n{t}\n",
        "密码：\n{p}\n",
        "| Service | Login |\n|---|---|\n| db | admin / {p} |\n",
        "| Host | Credentials |\n| --- | --- |\n| a | x | \n| db | root:{p} |\n",
    ],
)
def test_value_on_the_line_below_its_label(form: str) -> None:
    p, t = _password(), _token()
    _hidden(f"# Router\n\n{form.format(p=p, t=t)}", p, t)


@pytest.mark.parametrize(
    "text",
    [
        "## Password\n\nReset it from the admin page.\n",
        "Password:\nsee the vault\n",
        "Password:\nSummer\n",
        "- Password\n- Xk8#mQ2vLp9w\n",  # a sibling item, not the label's value
        "## Passwords\n\n[[Vault]]\n",
        "Token:\nhttps://example.com/token\n",
        "## Password policy\n\nRotate.\n",
        "| Service | Login |\n|---|---|\n| db | see vault |\n",
        "Password\nXk8#mQ2vLp9w\n",  # no colon, heading, emphasis or child: prose lines
    ],
)
def test_next_line_spares_prose(text: str) -> None:
    assert scrub(text) == (text, ())
