"""Secret forms a fresh user and the leak audit found kept (the sanitizer's remaining gaps),
each planted with a fresh random secret in several forms of its kind, and the look-alikes of
each kind that must stay: TOML/HCL blocks and blank-separated lines (``sanitize/spaced.py``),
short-flag argument lists (``sanitize/arglists.py``), bare-token CLIs
(``sanitize/tokencli.py``), connection strings, DSNs, webhook URLs (``sanitize/locators.py``),
EUC-KR and EUC-JP pages (``legacy_cjk.py``), a URL's ``api_key:`` user, ``pw`` in prose, HTML
table headers (``sanitize/htmltables.py``), password hashes (``sanitize/hashes.py``), Monero
seeds (``sanitize/monero.py``) and BIP-39 lists (``sanitize/seeds.py``).
"""

from __future__ import annotations

import random
import string
import zlib

import pytest

from tests.conftest import best_cpu_seconds
from vault_sync.pagefile import decode_page
from vault_sync.sanitize import scrub

_RNG = random.Random(20261205)
_ALNUM = string.ascii_letters + string.digits
_E = "[REDACTED:env_secret]"
_C = "[REDACTED:cli_credentials]"
_H = "[REDACTED:password_hash]"
_S = "[REDACTED:seed_phrase]"


def fresh(n: int = 14) -> str:
    """A fresh password-like value: mixed case and digits (never a placeholder)."""
    body = "".join(_RNG.choice(_ALNUM) for _ in range(n - 3))
    return "Q" + body + "z" + str(_RNG.randint(0, 9))


def crypt64(n: int) -> str:
    return "".join(_RNG.choice("./" + _ALNUM) for _ in range(n))


V = [fresh() for _ in range(40)]
T = [fresh(24) for _ in range(20)]
BCRYPT = "$2b$12$" + crypt64(53)
_ROW = "<tr><td>bob</td><td>"

# (text, the text scrubbed)
CASES: tuple[tuple[str, str], ...] = (
    # 1. TOML inline tables and HCL blocks; name<TAB>value and name value lines
    (f'password = {{ value = "{V[0]}" }}', f'password = {{ value = "{_E}" }}'),
    (f"db_password: {{value: {V[1]}}}", f"db_password: {{value: {_E}}}"),
    (
        f'variable "db_password" {{\n  type      = string\n  default   = "{V[2]}"\n}}',
        f'variable "db_password" {{\n  type      = string\n  default   = "{_E}"\n}}',
    ),
    (f'api_token = {{ default = "{T[0]}" }}', f'api_token = {{ default = "{_E}" }}'),
    (f"password\t{V[3]}", f"password\t{_E}"),
    (f"login\tbob\npassword\t{V[4]}\n", f"login\tbob\npassword\t{_E}\n"),
    (f"  db_password   {V[5]}", f"  db_password   {_E}"),
    (f"requirepass {V[6]}\n", f"requirepass {_E}\n"),
    # 2. a short flag's value in an argument list
    (f'args: ["-p", "{V[7]}"]', f'args: ["-p", "{_C}"]'),
    (
        f'"command": ["mysql", "-u", "root", "-p", "{V[8]}"]',
        f'"command": ["mysql", "-u", "root", "-p", "{_C}"]',
    ),
    (f"args: [-a, {V[9]}]", f"args: [-a, {_C}]"),
    (f"args:\n  - -w\n  - {V[10]}\n", f"args:\n  - -w\n  - {_C}\n"),
    (
        f"cmd = ['sshpass', '-p', '{V[11]}', 'ssh', 'h']",
        f"cmd = ['sshpass', '-p', '{_C}', 'ssh', 'h']",
    ),
    (f'["-p{V[12]}"]', f'["-p{_C}"]'),
    (f'["--password", "{V[13]}"]', f'["--password", "{_E}"]'),
    (f'["--token={T[1]}"]', f'["--token={_E}"]'),
    # 3. a bare token given to a CLI
    (f"vault login {T[2]}", f"vault login {_C}"),
    # a legacy Vault token (s. + 24) is the vendor's own format: its label wins
    (f"vault login -no-print s.{T[3]}", "vault login -no-print [REDACTED:vault_token]"),
    (f"echo {T[4]} | gh auth login --with-token", f"echo {_C} | gh auth login --with-token"),
    (f"echo '{T[5]}' | vault login -", f"echo '{_C}' | vault login -"),
    (f"cargo login --registry mine {T[6]}", f"cargo login --registry mine {_C}"),
    (f"ngrok config add-authtoken {T[7]}", f"ngrok config add-authtoken {_C}"),
    (f"snyk auth {T[8]}", f"snyk auth {_C}"),
    (f"poetry config http-basic.repo bob {V[14]}", f"poetry config http-basic.repo bob {_C}"),
    # 4. names that locate, with opaque values
    (f"CONNECTION_STRING={T[9]}", f"CONNECTION_STRING={_E}"),
    (f"DSN={T[10]}", f"DSN={_E}"),
    (f"SENTRY_DSN: {T[11]}", f"SENTRY_DSN: {_E}"),
    (f"PRIVATE={T[12]}", f"PRIVATE={_E}"),
    (f"WEBHOOK_URL={T[13]}", f"WEBHOOK_URL={_E}"),
    (
        f'slackWebhookUrl: "https://hooks.example.com/services/{T[14]}"',
        f'slackWebhookUrl: "https://hooks.example.com/{_E}"',
    ),
    # 6. a URL's user named like a key keeps its host
    (
        f"https://api_key:{T[15]}@gitlab.com/o/r.git",
        "https://[REDACTED:url_credentials]@gitlab.com/o/r.git",
    ),
    (
        f"git clone https://apikey:{T[16]}@github.com/o/r",
        "git clone https://[REDACTED:url_credentials]@github.com/o/r",
    ),
    # 7. a password's short forms in prose and as names
    (f"my pw is {V[15]}", f"my pw is {_E}"),
    (f"btw the pwd was {V[16]}.", f"btw the pwd was {_E}."),
    (f"pswd: {V[17]}", f"pswd: {_E}"),
    # 8. an HTML table's header row; password hashes
    (
        f"<table><tr><th>user</th><th>password</th></tr>{_ROW}{V[18]}</td></tr></table>",
        f"<table><tr><th>user</th><th>password</th></tr>{_ROW}{_E}</td></tr></table>",
    ),
    (
        f"<table>\n<tr><TH>Service</TH><th><b>API token</b></th></tr>\n{_ROW}{T[17]}</td></tr>",
        f"<table>\n<tr><TH>Service</TH><th><b>API token</b></th></tr>\n{_ROW}{_E}</td></tr>",
    ),
    (f"admin:{BCRYPT}:1000", f"admin:{_H}:1000"),
    (f"BCRYPT_SALT={BCRYPT[:29]}", f"BCRYPT_SALT={_H}"),
    (f"root:$6$rounds=5000${crypt64(16)}${crypt64(86)}:19000:0:::", f"root:{_H}:19000:0:::"),
    (f"bob:$apr1${crypt64(8)}${crypt64(22)}", f"bob:{_H}"),
    (f"h = '$argon2id$v=19$m=65536,t=3,p=4${T[18]}${T[19]}'", f"h = '{_H}'"),
)


@pytest.mark.parametrize(("text", "out"), CASES)
def test_form_is_redacted(text: str, out: str) -> None:
    assert scrub(text)[0] == out


#: Look-alikes of each kind: prose, public values, other meanings of the same flags.
STAYS = [
    "the password was reset",
    "Password reset instructions",
    "Password changed!",
    "password 1234",
    "requirepass foobared",
    "bypass Kq7vL2mP9wLz3",
    'token = { value = "abc" }',
    'sort_key = { value = "Kq7vL2mP9wLzAb12Cd34" }',
    'args: ["-p", "8080:80"]',
    '["virtualenv", "-p", "python3"]',
    '["mkdir", "-p", "build/Out2"]',
    '["-n", "MyNamespace1"]',
    '["-a", "amd64"]',
    '["-w", "%{http_code}"]',
    "vault login -method=userpass username=bob",
    "vault login $VAULT_TOKEN",
    "the vault login screen",
    "cargo login",
    "DSN=mydatasource",
    '"private": true',
    "DATABASE_URL=postgres://localhost/app",
    "WEBHOOK_URL=https://example.com/hook",
    "fishhook=Kq7vL2mP9wLzAb12Cd34",
    "the pw is wrong",
    "<table><tr><th>user</th><th>password</th></tr><tr><td>bob</td><td>see vault</td></tr></table>",
    "<table><tr><th>Name</th><th>Key</th></tr><tr><td>a</td><td>Kq7vL2mP9wLzAb12Cd34</td></tr></table>",
    "echo $1$2 and $5$ and $2b$ costs",
    "we can talk about another area where you can make a change for the better today",
]


@pytest.mark.parametrize("text", STAYS)
def test_look_alike_stays(text: str) -> None:
    assert scrub(text) == (text, ())


def test_euc_kr_and_euc_jp_pages_are_read_so_their_labels_count() -> None:
    korean = f"# 데이터베이스 설정\n비밀번호: {V[19]}\n서버는 매일 밤 백업됩니다.\n"
    text, problem = decode_page(korean.encode("euc_kr"))
    assert problem == "not valid UTF-8 at byte 2 (line 1): read as EUC-KR"
    assert scrub(text)[0] == f"# 데이터베이스 설정\n비밀번호: {_E}\n서버는 매일 밤 백업됩니다.\n"
    japanese = f"# メモ\nパスワード: {V[20]}\n東京の会議室で話しました。\n"
    text, problem = decode_page(japanese.encode("euc_jp"))
    assert problem == "not valid UTF-8 at byte 2 (line 1): read as EUC-JP"
    assert scrub(text)[0] == f"# メモ\nパスワード: {_E}\n東京の会議室で話しました。\n"
    # Chinese in GBK still reads as GBK (its bytes decode as EUC-KR too, a third as Hangul)
    chinese = "# 数据库\n上海的服务器每天晚上备份，密码在保险库里。\n"
    assert (
        decode_page(chinese.encode("gbk"))[1] == "not valid UTF-8 at byte 2 (line 1): read as GBK"
    )


def _monero_seed(rng: random.Random) -> list[str]:
    """24 words with unique three-letter prefixes, then the checksum word (electrum-words)."""
    words: list[str] = []
    while len(words) < 24:
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))
        if word[:3] not in {w[:3] for w in words}:
            words.append(word)
    index = zlib.crc32("".join(w[:3] for w in words).encode()) % 24
    return [*words, words[index]]


def test_a_monero_seed_is_redacted_bare_numbered_or_labelled() -> None:
    seed = _monero_seed(random.Random(_RNG.random()))
    assert scrub(" ".join(seed))[0] == _S
    assert (
        scrub("Monero seed:\n" + " ".join(seed) + "\nkeep it")[0] == f"Monero seed:\n{_S}\nkeep it"
    )
    numbered = "\n".join(f"{i}. {w}" for i, w in enumerate(seed, 1))
    assert scrub(numbered)[0] == f"1. {_S}"
    # a wrong checksum word, or two words sharing a prefix, is no seed
    wrong = [*seed[:24], next(w for w in seed[:24] if w != seed[24])]
    assert scrub(" ".join(wrong)) == (" ".join(wrong), ())
    clash = [seed[0], seed[0][:3] + "zzzz", *seed[2:24]]  # its checksum word holds
    clash.append(clash[zlib.crc32("".join(w[:3] for w in clash).encode()) % 24])
    assert scrub(" ".join(clash))[1] == ()


SHOPPING = "apple banana bread butter cheese chicken coffee orange potato rice salad sugar tomato"
SEED_12 = "legal winner thank year wave sausage worth useful legal winner thank yellow"


@pytest.mark.parametrize("numbered", [True, False])
def test_a_list_of_common_bip39_words_is_no_seed_without_its_checksum(numbered: bool) -> None:
    def listed(words: str) -> str:
        return "\n".join(
            f"{i}. {w}" if numbered else f"- {w}" for i, w in enumerate(words.split(), 1)
        )

    shopping = "Shopping:\n" + listed(SHOPPING)
    assert scrub(shopping) == (shopping, ())
    assert _S in scrub("Words:\n" + listed(SEED_12))[0]
    # on one line (prose never holds 12 list words in a row) no checksum is asked for
    assert scrub(SHOPPING)[0] == _S


_WORDS = [
    "".join(random.Random(i).choices(string.ascii_lowercase, k=4 + i % 6)) for i in range(500)
]
#: Repeats of each new rule's trigger and partial shapes (a value each rule refuses, a block
#: never closed, a run of long words): 4x the input must cost about 4x the time.
ADVERSARIAL = {
    "monero-words": lambda n: " ".join(_WORDS[i % 500] for i in range(n // 7)),
    "monero-same": lambda n: "abcd " * (n // 5),
    "block-open": lambda n: "password = {" * (n // 12),
    "block-long": lambda n: "password {" + "a=1 " * (n // 4),
    "spaced": lambda n: "password " * (n // 9),
    "spaced-tab": lambda n: "password\t" * (n // 9),
    "arglist": lambda n: '["-p", ' * (n // 7),
    "arg-block": lambda n: "- -p\n" * (n // 5),
    "vault": lambda n: "vault login -x" * (n // 14),
    "echo": lambda n: "echo x | " * (n // 9),
    "locator": lambda n: "CONNECTION_STRING=" * (n // 18),
    "html-rows": lambda n: "<tr><th>password</th></tr>" + "<tr><td>x" * (n // 9),
    "hashes": lambda n: "$2b$12$" * (n // 7) + "$6$" * (n // 3),
    "pw": lambda n: "my pw is " * (n // 9),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_new_rules_are_linear(name: str) -> None:
    """A ratio of two sizes measured in one run (CPU time, best of 2), as the sanitizer's
    other linear-time tests: robust to the machine's speed and load."""
    small = best_cpu_seconds(lambda: scrub(ADVERSARIAL[name](25_000)))
    big = best_cpu_seconds(lambda: scrub(ADVERSARIAL[name](100_000)))
    assert big <= 10 * small + 0.1, f"{name}: {small:.3f}s -> {big:.3f}s for 4x the input"
