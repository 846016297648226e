"""Recheck 5 of fresh-user report 5: secret forms that still leaked after the first fixes
(each test plants a fresh random secret and fails on the code before the fix)."""

from __future__ import annotations

import pytest

from tests.test_sanitize_fresh5 import _hidden, _password
from vault_sync.sanitize import scrub


@pytest.mark.parametrize(
    "form", ["Password :: {p}", "- db_pass ::  {p}", "[api_key :: {p}]", "secret\t:: {p}"]
)
def test_dataview_field_with_blanks_before_the_colons(form: str) -> None:
    p = _password()
    out = _hidden(f"# note\n\n{form.format(p=p)}\n", p)
    assert "::" in out  # the field's syntax is kept


@pytest.mark.parametrize(
    "form",
    [
        "Passwort für die DB: {p}",
        "Das Kennwort für den Server lautet {p}",
        "senha do banco: {p}",
        "contraseña de la base: {p}",
        "le mot de passe du wifi est {p}",
        "mot de passe du serveur : {p}",
        "root password (prod): {p}",
        "password → {p}",
        "DB_PASSWORD ⇒ {p}",
        "Password\u3000: {p}",
        "パスワード\u3000：{p}",
    ],
)
def test_words_or_another_operator_between_label_and_value(form: str) -> None:
    p = _password()
    _hidden(f"# note\n\n{form.format(p=p)}\n", p)


@pytest.mark.parametrize(
    "prose",
    [
        "Das Passwort für den Server ist sicher genug.",
        "le mot de passe du wifi est changé chaque mois",
        "senha do banco: veja o cofre",
        "root password (prod): ask the on-call",
        "password → reset link → inbox",
        "Login → Settings → Security",
    ],
)
def test_prose_with_those_forms_stays(prose: str) -> None:
    assert scrub(prose) == (prose, ())


@pytest.mark.parametrize(
    "form",
    [
        'curl_setopt($ch, CURLOPT_USERPWD, "admin:{p}");',
        "curl_easy_setopt(curl, CURLOPT_PASSWORD, '{p}');",
        'c.setopt(pycurl.USERPWD, "svc:{p}")',
        'ldap.simple_bind_s("cn=admin,dc=corp", "{p}")',
        'err = l.Bind("admin@corp.example", "{p}")',
        'new PasswordAuthentication("admin", "{p}".toCharArray())',
    ],
)
def test_credentials_given_to_a_call(form: str) -> None:
    p = _password()
    out = _hidden(form.format(p=p), p)
    assert "admin" in out or "svc" in out or "curl" in out  # only the password goes


@pytest.mark.parametrize(
    "code",
    [
        '$(el).bind("click", "onClick2");',
        'curl_setopt($ch, CURLOPT_USERPWD, "$user:$pass");',
        'ldap.simple_bind_s("cn=admin,dc=corp", "")',
    ],
)
def test_calls_without_a_password_stay(code: str) -> None:
    assert scrub(code) == (code, ())


@pytest.mark.parametrize(
    "form",
    ["> [!warning] password {p}", "> [!note]- Root password {p}", "> [!tip] **DB token** {p}"],
)
def test_a_secret_in_a_callout_title(form: str) -> None:
    p = _password()
    out = _hidden(f"# note\n\n{form.format(p=p)}\n> rotate it monthly\n", p)
    assert out.startswith("# note\n\n> [!")


@pytest.mark.parametrize(
    "text", ["> [!warning] password reset required\n", "> [!note] Token expiry is 30 days\n"]
)
def test_a_callout_without_a_secret_stays(text: str) -> None:
    assert scrub(text) == (text, ())


@pytest.mark.parametrize(
    "form",
    [
        "Password:\n```\n{p}\n```\n",
        "WiFi password:\n\n~~~text\n{p}\n~~~\n",
        "PASSWORD\n{p}\n",
        "DB_TOKEN\n{p}\n",
        "Root password\n: {p}\n",
        "<details><summary>password</summary>\n{p}\n</details>\n",
        "<details>\n<summary>Root password</summary>\n\n{p}\n</details>\n",
    ],
)
def test_a_value_on_the_line_below_its_label(form: str) -> None:
    p = _password()
    _hidden(f"# Wifi\n\n{form.format(p=p)}", p)


@pytest.mark.parametrize(
    "text",
    [
        "Password:\n```\nsee the vault\n```\n",
        "PASSWORD\nReset it monthly.\n",
        "Root password\n: kept in the team vault\n",
        "<details><summary>password</summary>\nAsk the on-call.\n</details>\n",
        "TOKEN\n=====\n",
    ],
)
def test_a_label_above_prose_stays(text: str) -> None:
    assert scrub(text) == (text, ())
