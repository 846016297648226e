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


def _hex64() -> str:
    return secrets.token_hex(32)


def _wif(compressed: bool, testnet: bool = False) -> str:
    """A fresh random WIF private key (Base58Check of version, key, flag)."""
    import hashlib

    data = bytes([0xEF if testnet else 0x80]) + secrets.token_bytes(32)
    data += b"\x01" if compressed else b""
    raw = data + hashlib.sha256(hashlib.sha256(data).digest()).digest()[:4]
    number, out = int.from_bytes(raw, "big"), ""
    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    while number:
        number, digit = divmod(number, 58)
        out = alphabet[digit] + out
    return out


@pytest.mark.parametrize(
    "form",
    [
        "sqlplus system/{p}@//ora.internal:1521/ORCL",
        "sqlplus -S scott/{p}@ORCLPDB1",
        "expdp hr/{p} DIRECTORY=dpump",
        "jdbc thin: app_user/{p}@//db.corp:1521/svc",
        "SQL> conn sys/{p}@prod as sysdba",
        "vault login s.{v}",
        "VAULT_TOKEN=s.{v} terraform apply",
        "the token was s.{v}, rotate it",
        "net use \\\\fs01\\share /user:CORP\\svc {p}",
        "net use Z: \\\\fs01\\share {p} /user:CORP\\svc",
        "psexec \\\\host -u admin -p {p} cmd",
        "tool --user bob --verbose -p {p}",
        "password for the prod db: {p}",
        "Token for the staging cluster = {t}",
        'requests.get(url, auth=("admin", "{p}"))',
        'r = requests.post(u, auth=HTTPBasicAuth("admin", "{p}"))',
        'var c = new NetworkCredential("admin", "{p}");',
        'conn = DriverManager.getConnection(url, "root", "{p}");',
        'conn = DriverManager.getConnection("jdbc:mysql://db/x", "root", "{p}");',
        'req.SetBasicAuth("admin", "{p}")',
        "server.login('me@corp.com', '{p}')",
        'ftp.login("admin", "{p}")',
        "Password\u00a0: {p}",
        "我的数据库密码是 {p} 请勿外传。",
        "数据库密码为{p}。",
        "本番のパスワードは {p} です。",
        "비밀번호는 {p} 입니다",
        "Das Passwort ist {p}.",
        "le mot de passe est {p}",
        "login with password {p} first",
        '<input type="password" name="pw" value="{p}">',
        "Hot wallet key 0x{h}",
        "signer private key: {h}",
        "wif {w}",
        "backup: {c}",
        "testnet {tn}",
    ],
)
def test_more_command_and_prose_forms(form: str) -> None:
    p, t, h = _password(), _token(), _hex64()
    v = _token(24)
    w, c, tn = _wif(False), _wif(True), _wif(True, testnet=True)
    text = form.format(p=p, t=t, h=h, v=v, w=w, c=c, tn=tn)
    _hidden(f"# note\n\n{text}\n", p, t, h, v, w, c, tn)


@pytest.mark.parametrize(
    "text",
    [
        "sqlplus / as sysdba",
        "connect input/output streams",
        "ssh -l root -p 2222 host",
        "docker run -u 1000 -p 8080:80 img",
        "mkdir -p /srv/data && chown -u x",
        "net use Z: \\\\fs01\\share /user:bob *",
        "net use Z: \\\\fs01\\share /user:bob /persistent:yes",
        'login("Sign in", "Enter your password")',
        'auth=("admin", "password")',
        'login(user, "<password>")',
        "the password for the account: see the vault",
        "パスワードは 8 文字以上",
        "Das Passwort ist abgelaufen",
        "protected with password protection",
        "tx hash 0x510b06d1550d846ed31ffa34b294ea1ac26c81dc36985bfe1451ca8a2965d804",
        "sha256 510b06d1550d846ed31ffa34b294ea1ac26c81dc36985bfe1451ca8a2965d804",
        "the files.AbcDefGhiJklMnoPqrStuVwx1 list",
        "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTA",  # checksum broken
        '<input type="text" value="Hq8#mZ2vLp">',
    ],
)
def test_more_forms_spare_look_alikes(text: str) -> None:
    assert scrub(text) == (text, ())


@pytest.mark.parametrize(
    "form", ["## Password {p}", "**Password** {p} and more", "x **Root password** `{p}`"]
)
def test_label_and_value_flattened_onto_one_line(form: str) -> None:
    """A next-line form as a typed query shows it (lines joined by blanks)."""
    p = _password()
    _hidden(form.format(p=p), p)


def test_a_hex_key_repeated_without_its_0x() -> None:
    h = _hex64()
    _hidden(f"Hot wallet key 0x{h}\n\nWe used {h} yesterday.\n", h)


def test_flattened_forms_spare_prose() -> None:
    for text in ("## Password policy", "**Password** rotation every 90 days", "## Tokens v2"):
        assert scrub(text) == (text, ())


@pytest.mark.parametrize("sep", [" / ", "/"])
def test_a_login_cell_password_of_one_case_and_digits(sep: str) -> None:
    """The leak audit drew ``admin / kryv0t5j6301``: after ``/`` a password had to mix both
    cases (a path's folders hold ``/``), but under a login header ``/`` parts user and
    password."""
    p = "".join(secrets.choice(string.ascii_lowercase) for _ in range(8))
    p += "".join(secrets.choice(string.digits) for _ in range(4))
    _hidden(f"| Service | Login |\n|---|---|\n| db | admin{sep}{p} |\n\nthen: echo {p}\n", p)
