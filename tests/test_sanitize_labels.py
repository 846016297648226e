"""Credentials written as people write them (fresh-user report 3): Markdown labels, tables,
HTML cells, other languages, full-width colons, values on the next line, Dockerfile ENV,
SQL, XML (``sanitize/labelled.py``); HTTP Basic, cookies, secret URL parameters, PuTTY
keys (``sanitize/protocols.py``); a token after ``-`` or ``_``; a page path's ``.md``; a
bare value inside a quoted string. Each kind with inputs written here (not only the
report's), and the prose of the same shape that must stay.
"""

from __future__ import annotations

import pytest

from tests.conftest import best_cpu_seconds
from tests.secret_samples import FORMATS, fill
from vault_sync.sanitize import Scrubber, scrub

# (text, the text scrubbed): only the value changes, the markup around it stays.
LABELLED: tuple[tuple[str, str], ...] = (
    # Markdown emphasis around the label, a value in backticks (kind 1)
    ("- **Password:** Wd8pQz2Lr6", "- **Password:** [REDACTED:env_secret]"),
    ("**Password**: Wd8pQz2Lr6", "**Password**: [REDACTED:env_secret]"),
    ("__Password:__ Wd8pQz2Lr6", "__Password:__ [REDACTED:env_secret]"),
    ("*password*: Wd8pQz2Lr6", "*password*: [REDACTED:env_secret]"),
    ("_Root password_: Wd8pQz2Lr6", "_Root password_: [REDACTED:env_secret]"),
    ("* **DB password**: `h7#Kd0!qa`", "* **DB password**: `[REDACTED:env_secret]`"),
    ("**API key:** Jr4Nb7Tq1Yx5Vk8Cm2Hs6", "**API key:** [REDACTED:api_key]"),
    ("**Token:** Jr4Nb7Tq1Yx5Vk8Cm2Hs6", "**Token:** [REDACTED:env_secret]"),
    ("**Client secret:** Jr4Nb7Tq1Yx5Vk8Cm2Hs6", "**Client secret:** [REDACTED:env_secret]"),
    ("password: `Wd8pQz2Lr6`", "password: `[REDACTED:env_secret]`"),
    ("DB_PASSWORD: `Wd8pQz2Lr6`", "DB_PASSWORD: `[REDACTED:env_secret]`"),
    ("SMTP_PASS=`Wd8pQz2Lr6`", "SMTP_PASS=`[REDACTED:env_secret]`"),
    # a table row, HTML cells, a definition list, a dash
    ("| DB_PASSWORD | Wd8pQz2Lr6 |", "| DB_PASSWORD | [REDACTED:env_secret] |"),
    ("| **Password** | `Wd8pQz2Lr6` |", "| **Password** | `[REDACTED:env_secret]` |"),
    ("| api_key | Jr4Nb7Tq1Yx5Vk8Cm2Hs6 |", "| api_key | [REDACTED:api_key] |"),
    (
        "<tr><td>password</td><td>Wd8pQz2Lr6</td></tr>",
        "<tr><td>password</td><td>[REDACTED:env_secret]</td></tr>",
    ),
    ("<th>Password</th>\n<td>Wd8pQz2Lr6</td>", "<th>Password</th>\n<td>[REDACTED:env_secret]</td>"),
    (
        "<dt>Token</dt><dd>Jr4Nb7Tq1Yx5Vk8Cm2Hs6</dd>",
        "<dt>Token</dt><dd>[REDACTED:env_secret]</dd>",
    ),
    ("Password - Wd8pQz2Lr6", "Password - [REDACTED:env_secret]"),
    ("wifi password — Wd8pQz2Lr6\n", "wifi password — [REDACTED:env_secret]\n"),
    # other languages, full-width colons (kind 2)
    ("数据库密码: Wd8pQz2Lr6", "数据库密码: [REDACTED:env_secret]"),
    ("密码：Wd8pQz2Lr6", "密码：[REDACTED:env_secret]"),
    ("密碼：Wd8pQz2Lr6", "密碼：[REDACTED:env_secret]"),
    ("パスワード：Wd8pQz2Lr6", "パスワード：[REDACTED:env_secret]"),
    ("비밀번호: Wd8pQz2Lr6", "비밀번호: [REDACTED:env_secret]"),
    ("Passwort: Wd8pQz2Lr6", "Passwort: [REDACTED:env_secret]"),
    ("WLAN-Kennwort: Wd8pQz2Lr6", "WLAN-Kennwort: [REDACTED:env_secret]"),
    ("Пароль: Wd8pQz2Lr6", "Пароль: [REDACTED:env_secret]"),
    ("mot de passe : Wd8pQz2Lr6", "mot de passe : [REDACTED:env_secret]"),
    ("Contraseña: Wd8pQz2Lr6", "Contraseña: [REDACTED:env_secret]"),
    ("senha: Wd8pQz2Lr6", "senha: [REDACTED:env_secret]"),
    ("**Wachtwoord:** Wd8pQz2Lr6", "**Wachtwoord:** [REDACTED:env_secret]"),
    ("DB_PASSWORD：Wd8pQz2Lr6", "DB_PASSWORD：[REDACTED:env_secret]"),
    ("api_token＝Jr4Nb7Tq1Yx5Vk8Cm2Hs6", "api_token＝[REDACTED:api_key]"),
    # the value on the next line: pretty-printed JSON, YAML
    (
        '{\n  "password":\n      "Wd8pQz2Lr6"\n}',
        '{\n  "password":\n      "[REDACTED:env_secret]"\n}',
    ),
    ("db_password:\n  Wd8pQz2Lr6\n", "db_password:\n  [REDACTED:env_secret]\n"),
    # Dockerfile ENV without `=`, SQL, XML
    ("ENV DB_PASSWORD Wd8pQz2Lr6", "ENV DB_PASSWORD [REDACTED:env_secret]"),
    ("  ENV API_TOKEN Jr4Nb7Tq1Yx5Vk8Cm2Hs6\n", "  ENV API_TOKEN [REDACTED:api_key]\n"),
    ("- ENV DB_PASSWORD Wd8pQz2Lr6", "- ENV DB_PASSWORD [REDACTED:env_secret]"),
    ("メモ：ENV DB_PASSWORD Wd8pQz2Lr6です", "メモ：ENV DB_PASSWORD [REDACTED:env_secret]"),
    (
        "CREATE USER app IDENTIFIED BY 'Wd8pQz2Lr6';",
        "CREATE USER app IDENTIFIED BY '[REDACTED:env_secret]';",
    ),
    (
        "ALTER USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY 'Wd8pQz2Lr6';",
        "ALTER USER 'u'@'%' IDENTIFIED WITH mysql_native_password BY '[REDACTED:env_secret]';",
    ),
    (
        "create user scott identified by Tiger7x9q;",
        "create user scott identified by [REDACTED:env_secret];",
    ),
    (
        "ALTER ROLE app WITH PASSWORD 'Wd8pQz2Lr6';",
        "ALTER ROLE app WITH PASSWORD '[REDACTED:env_secret]';",
    ),
    (
        "CREATE ROLE r LOGIN ENCRYPTED PASSWORD 'Wd8pQz2Lr6';",
        "CREATE ROLE r LOGIN ENCRYPTED PASSWORD '[REDACTED:env_secret]';",
    ),
    # a MySQL password hash is redacted too (it can be cracked offline)
    (
        "IDENTIFIED BY PASSWORD '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4'",
        "IDENTIFIED BY PASSWORD '[REDACTED:env_secret]'",
    ),
    ("<password>Wd8pQz2Lr6</password>", "<password>[REDACTED:env_secret]</password>"),
    (
        '<db:password type="x">Wd8pQz2Lr6</db:password>',
        '<db:password type="x">[REDACTED:env_secret]</db:password>',
    ),
    ("<apiKey>Jr4Nb7Tq1Yx5Vk8Cm2Hs6</apiKey>", "<apiKey>[REDACTED:api_key]</apiKey>"),
    (
        "<client_secret>Jr4Nb7Tq1Yx5Vk8Cm2Hs6</client_secret>",
        "<client_secret>[REDACTED:env_secret]</client_secret>",
    ),
    # protocols and key files
    (
        "the header was Basic YWxpY2U6V2Q4cFF6MkxyNg==",
        "the header was Basic [REDACTED:auth_header]",
    ),
    ("basic YWRtaW46czNjcjN0IQ", "basic [REDACTED:auth_header]"),
    (
        "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=Jr4Nb7Tq1Yx5Vk8C%2Bm2Hs6%3D",
        "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=[REDACTED:url_credentials]",
    ),
    (
        "https://maps.x/api?key=Jr4Nb7Tq1Yx5Vk8Cm2Hs6&q=1",
        "https://maps.x/api?key=[REDACTED:url_credentials]&q=1",
    ),
    (
        "GET /feed?user=bob&token=Jr4Nb7Tq1Yx5Vk8Cm2Hs6",
        "GET /feed?user=bob&token=[REDACTED:url_credentials]",
    ),
    (
        "-H 'Cookie: sessionid=Jr4Nb7Tq1Yx5Vk8Cm2Hs6; theme=dark'",
        "-H 'Cookie: [REDACTED:auth_header]'",
    ),
    ("Set-Cookie: sid=Jr4Nb7Tq1Yx5Vk8Cm2Hs6; Path=/", "Set-Cookie: [REDACTED:auth_header]"),
    (
        'network={\n  ssid="home"\n  psk="Wd8pQz2Lr6"\n}',
        'network={\n  ssid="home"\n  psk="[REDACTED:env_secret]"\n}',
    ),
    (
        "Private-Lines: 2\nQm9yZWRvbVRoZVF1aWNrQnJvd25Gb3g=\nSnVtcHNPdmVy\n"
        "Private-MAC: 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d",
        "Private-Lines: 2\n[REDACTED:private_key]\nPrivate-MAC: [REDACTED:private_key]",
    ),
    # the same key in a JSON or YAML string: its lines parted by `\n` escapes (the full leak
    # audit found it kept in a page's tags), the escapes kept
    (
        '{"ppk": "Private-Lines: 2\\nQm9yZWRvbVRoZVF1aWNrQnJvd25Gb3g=\\r\\nSnVtcHNPdmVy\\n'
        'Private-MAC: 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d"}',
        '{"ppk": "Private-Lines: 2\\n[REDACTED:private_key]\\n'
        'Private-MAC: [REDACTED:private_key]"}',
    ),
    # a bare value inside a quoted string keeps the closing quote (kind 10)
    (
        'curl -d "password=Wd8pQz2Lr6" https://x/login',
        'curl -d "password=[REDACTED:env_secret]" https://x/login',
    ),
    ("echo 'token=Jr4Nb7Tq1Yx5Vk8Cm2Hs6' > cfg", "echo 'token=[REDACTED:env_secret]' > cfg"),
    ("curl -d 'api_key=Jr4Nb7Tq1Yx5Vk8Cm2Hs6' x", "curl -d 'api_key=[REDACTED:api_key]' x"),
    ('run("awssec=Jr4Nb7Tq1Yx5Vk8Cm2Hs6Lp0a")', 'run("awssec=[REDACTED:env_secret]")'),
)

#: The same shapes, in prose or with a placeholder: left whole.
PROSE: tuple[str, ...] = (
    "**Note:** keep it",
    "**Password:** see 1Password",
    "**Password**: ask the on-call",
    "- **Token:** `<your token>`",
    "**Password:** `********`",
    "password: `${DB_PASSWORD}`",
    "| Variable | Description |",
    "| DB_PASSWORD | Database password |",
    "| DB_PASSWORD | optional |",
    "| API_TOKEN | required |",
    "| token | string |",
    "<td>Password</td><td>Required</td>",
    "Password - see the vault",
    "Token - 2 hours",
    "Token - v2-compatible",
    "| Password | see-below |",
    "| API_KEY | 32 |",
    "密码：123456",
    "密码是必须的",
    "Passwort: ********",
    "La resenha: boa",
    "PASSWORD=__PASSWORD__",
    '"password":\n  "${DB_PASSWORD}"',
    "ENV LOG_LEVEL debug",
    "set the ENV DB_PASSWORD variable, then restart",
    "ENV API_KEY_FILE /run/secrets/api_key",
    "if password>5: return",
    "<key>value</key>",
    "<password>${DB_PASSWORD}</password>",
    "Basic authentication is enabled",
    "basic usage: run it",
    "https://example.com/docs?page=2&key=value",
    "https://example.com/search?q=tokens&token=abc",
    "Cookie: theme=dark; lang=en",
    "psk=true",
    "the psk is rotated",
    "Private-Lines: many, see above",
)


@pytest.mark.parametrize(("text", "expected"), LABELLED)
def test_labelled_values_are_redacted(text: str, expected: str) -> None:
    out, _ = scrub(text)
    assert out == expected
    assert scrub(out) == (out, ())  # idempotent


@pytest.mark.parametrize("text", PROSE)
def test_labelled_prose_stays(text: str) -> None:
    assert scrub(text) == (text, ())


def test_report_page_is_redacted_and_counted() -> None:
    page = (
        "- **Host:** staging.internal\n- **Password:** Kq7Vm2Xp9Lw4\n"
        "- **API key:** Tb5Nc8Rz1Hy6Jd3Fg0Ws4Qe7\n- DB_PASSWORD: `Mv3Zr8Kt1Pq6`\n\n"
        "| name | value |\n|------|-------|\n| DB_PASSWORD | Yh2Lc9Bn4Sx7 |\n"
    )
    out, findings = scrub(page)
    assert [f.label for f in findings] == ["env_secret", "api_key", "env_secret", "env_secret"]
    assert "staging.internal" in out
    for value in ("Kq7Vm2Xp9Lw4", "Tb5Nc8Rz1Hy6Jd3Fg0Ws4Qe7", "Mv3Zr8Kt1Pq6", "Yh2Lc9Bn4Sx7"):
        assert value not in out


def _dispatched_samples() -> list[str]:
    """One generated sample of each vendor template that is a bare token (no name, no
    ⟦…⟧ part), whatever its rule's boundary was."""
    import random

    rng = random.Random(3)
    out = []
    for _label, template, _source in FORMATS:
        if "⟦" in template or " " in template or "\n" in template or ":" in template:
            continue
        out.append(fill(template, rng))
    return out


@pytest.mark.parametrize("glue", ["backup-", "x_", "dir-", "x__"])
def test_vendor_token_after_dash_or_underscore(glue: str) -> None:
    # one left boundary for every vendor rule: after `-` or `_` a token is still a token
    kept = []
    for token in _dispatched_samples():
        out, _ = scrub(f"see {glue}{token} now")
        if token[-12:] in out:
            kept.append(token[:12])
    assert kept == []


@pytest.mark.parametrize(
    "token",
    [
        "xoxb-123456789012-123456789012-IVqJKRghSfcaLwUKabxHkEvL",
        "sk-proj-STbDM0Q77Vrbqn4RhQ4rvNpQAYLRyfuIHEPbeivFy1O9lyWG",
        "glpat-Ab3dEf6hIj9kLm2nOp5q",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    ],
)
def test_vendor_token_glued_to_a_letter_is_a_word(token: str) -> None:
    # a letter or digit before it: part of a word (`mysk-…`, `abxoxb-…`)
    text = f"see ab{token} now"
    assert scrub(text) == (text, ())


def test_page_path_is_scrubbed_without_its_extension() -> None:
    names = ["password=Fo10sPX5zYKrh.md", "wifi/PASSWORD=Gz8kLm2Qp.MD", "notes.md", "a.md/b.md"]
    assert Scrubber().scrub_names(names) == {
        "password=Fo10sPX5zYKrh.md": "password=[REDACTED:env_secret].md",
        "wifi/PASSWORD=Gz8kLm2Qp.MD": "wifi/PASSWORD=[REDACTED:env_secret].MD",
    }
    # in text a value ending in a file extension is still a file name after `password=`
    assert scrub("password=notes.md") == ("password=notes.md", ())


#: Shapes repeated to 20 KB and 80 KB: each rewrite and rule is bounded, so 4x the input
#: costs about 4x the CPU time.
HOSTILE = (
    "**Password:** ",
    "**Password**: `",
    "| key | ",
    "| DB_PASSWORD | ",
    "</td><td>password</td>",
    "<password>",
    "<password> " + "a" * 300,
    "password:\n  ",
    '"password":\n' + " " * 40,
    "密码：",
    "Passwort: ",
    "IDENTIFIED BY ",
    "identified with x by ",
    "ENV A_KEY ",
    "\nENV A_KEY ",
    "PASSWORD '",
    "Password - ",
    "Basic QUFB",
    "Basic " + "QUFB" * 100,
    "Cookie: a=b; ",
    "?key=",
    "&sig=" + "A1" * 50,
    "Private-Lines: 1\n",
    "Private-Lines: 1\nQUFBQUFB\n",
    "Private-MAC: " + "a" * 40,
    '"password=',
    "x_xoxb-",
)


@pytest.mark.parametrize("shape", HOSTILE)
def test_new_rules_are_linear(shape: str) -> None:
    small, big = shape * (20_000 // len(shape)), shape * (80_000 // len(shape))
    t_small = best_cpu_seconds(lambda: scrub(small))
    t_big = best_cpu_seconds(lambda: scrub(big))
    assert t_big < 5.0, (shape, t_big)
    assert t_big <= 10 * t_small + 0.2, (shape, t_small, t_big)
