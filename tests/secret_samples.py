"""Sample secrets for the sanitizer's tests and the leak audit (issue 17), built here from the
templates in ``secret_samples.toml`` (data: one row per format).

Every sample is generated, never real: a template written from the vendor's documented token
format, filled from a seeded RNG (so each run plants the same strings). ``source`` names where
the format is documented: the vendor's page, an RFC, or the rule of an open-source scanner that
ships it — gitleaks ``config/gitleaks.toml`` (MIT; rule id given) or detect-secrets 1.5.0
``detect_secrets/plugins/*.py`` (Apache-2.0; fetched with ``pip download --no-binary :all:
detect-secrets``). No scanner's test data is copied here.

Template fields ``{cN}``: N random characters of class ``c``: ``A`` base62, ``a`` lowercase
alphanumeric, ``h`` lowercase hex, ``H`` uppercase hex, ``U`` uppercase alphanumeric, ``Z``
base32 (``A-Z2-7``), ``w`` ``[A-Za-z0-9_-]``, ``b`` base64 ``[A-Za-z0-9+/]``, ``d`` digits,
``l`` lowercase letters, ``L`` letters, ``B`` bech32; ``{WN}``: N words of the BIP-39 English
list, separated by blanks; ``{X25}``: a Monero-shaped seed (:func:`monero_seed`). ``⟦…⟧``
marks the secret part of a template whose text around it is not secret (a webhook's host, a
URL's scheme and host); without it the whole text is the secret.
"""

from __future__ import annotations

import functools
import random
import re
import string
import tomllib
import zlib
from dataclasses import dataclass
from pathlib import Path

CLASSES = {
    "A": string.ascii_letters + string.digits,
    "a": string.ascii_lowercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "U": string.ascii_uppercase + string.digits,
    "Z": string.ascii_uppercase + "234567",
    "w": string.ascii_letters + string.digits + "_-",
    "b": string.ascii_letters + string.digits + "+/",
    "d": string.digits,
    "l": string.ascii_lowercase,
    "L": string.ascii_letters,
    "B": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
}
_FIELD = re.compile(r"\{([AahHUZwbdlLBWX])(\d+)\}")

_TABLES = tomllib.loads((Path(__file__).with_name("secret_samples.toml")).read_text("utf-8"))

#: (label, template, source): secrets recognisable by their format alone.
FORMATS: tuple[tuple[str, str, str], ...] = tuple((a, b, c) for a, b, c in _TABLES["formats"])
#: (name-carrying line with ``{v}``, value template, source): secrets known only by their name.
NAMED: tuple[tuple[str, str, str], ...] = tuple((a, b, c) for a, b, c in _TABLES["named"])


@dataclass(frozen=True)
class Sample:
    """One kind of planted secret: fill it once per place, so each place gets its own.

    Attributes:
        label: the label it should get (the vendor's), or ``"named"`` (known by its name).
        template: the format (for ``named``, the value's format).
        line: for ``named``, the name-carrying line with ``{v}``; else ``""``.
        source: where the format is documented.
    """

    label: str
    template: str
    line: str
    source: str

    def plant(self, rng: random.Random) -> tuple[str, str]:
        """A fresh ``(text to plant, the secret in it)``."""
        text = fill(self.template, rng)
        if self.line:
            return self.line.replace("{v}", text), text
        if "⟦" in text:
            secret = text[text.index("⟦") + 1 : text.index("⟧")]
            return text.replace("⟦", "").replace("⟧", ""), secret
        return text, text


def fill(template: str, rng: random.Random) -> str:
    """``template`` with each ``{cN}`` replaced by N random characters of class ``c``."""

    def field(m: re.Match[str]) -> str:
        if m[1] == "W":
            return " ".join(rng.choices(_bip39_words(), k=int(m[2])))
        if m[1] == "X":
            return monero_seed(rng)
        return "".join(rng.choices(CLASSES[m[1]], k=int(m[2])))

    return _FIELD.sub(field, template)


def monero_seed(rng: random.Random) -> str:
    """A Monero-shaped seed (monero-project ``src/mnemonics/electrum-words.cpp``): 24 words
    of 4 to 9 letters with unique three-letter prefixes, then the checksum word, the one at
    ``crc32(the 24 prefixes joined) mod 24``. The words are made up (its word list is not
    copied here); the rule reads the shape and the checksum, not the list."""
    words: list[str] = []
    while len(words) < 24:
        word = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9)))
        if word[:3] not in {w[:3] for w in words}:
            words.append(word)
    words.append(words[zlib.crc32("".join(w[:3] for w in words).encode()) % 24])
    return " ".join(words)


@functools.cache
def _bip39_words() -> list[str]:
    """The BIP-39 English wordlist (the ``mnemonic`` package's): field ``{WN}``."""
    from mnemonic import Mnemonic

    return list(Mnemonic("english").wordlist)


def samples() -> list[Sample]:
    """Every sample kind: format ones first, then the name-keyed ones."""
    out = [Sample(label, t, "", src) for label, t, src in FORMATS]
    out.extend(Sample("named", value, line, src) for line, value, src in NAMED)
    return out


#: Text that is not a secret (issue 17 kind 5): placeholders, public identifiers, key-file
#: paths and names in prose. Written here from the kinds the issue lists.
FALSE_POSITIVES: tuple[str, ...] = (
    "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "SECRET_KEY=0000000000000000000000000000",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    'token: "YourTokenHere"',
    "api_key = 'RANDOMSTRINGHERE'",
    "password: abc123abc123abc123",
    "client_secret = abcdefghijklmnopqrstuvwxyz",
    "SLACK_TOKEN=xoxb-your-token-here",
    'OPENAI_API_KEY="sk-..."',
    "STRIPE_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX",
    "password = ${DB_PASSWORD}",
    "token = <your token>",
    "Authorization: Bearer <token>",
    "api_key: '{{ secrets.API_KEY }}'",
    "secret: changeme",
    "DB_PASSWORD=password123",
    "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx",
    "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGj8xq9Vh2c user@host",
    "primaryKey: userId",
    "foreignKey: 'account_id'",
    'csrf-token: "csrf_token_value"',
    '<meta name="csrf-token" content="{{ csrf_token() }}">',
    "sortKey: createdAt",
    "partitionKey: tenantId",
    "cacheKey = f'user:{user_id}'",
    "the token is refreshed hourly",
    "Your API key is shown once; copy it to a safe place.",
    "Set the secret in the dashboard, then restart.",
    "Keep ~/.ssh/id_rsa.pub on the server and the private key on your laptop.",
    "Generate a key with ssh-keygen; it writes id_ed25519 and id_ed25519.pub.",
    "The .pem extension marks PEM files.",
    "Put the certificate in server.crt and point nginx at it.",
    "stripe publishable key pk_live_51HqGn2KzY8dDl0QfTXjOsIu4Bc",
    "google analytics id UA-12345678-1 and G-ABCDEF1234",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "uuid 123e4567-e89b-12d3-a456-426614174000 of the record",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "the key: press Enter to continue",
    "monkey = banana; turkey = 12",
    "mailto:support@example.com",
    "https://example.com/docs?page=2&sort=asc",
    'ETag: W/"5e15153d-120f"',
    "github.com/owner/repo/blob/main/src/key_store.py",
    "token_count = len(tokens)",
    "secret_name = 'prod-db-password'",
    "password_hash = bcrypt.hashpw(pw, salt)",
    "api_key_header = 'X-Api-Key'",
    "--token-file ~/.config/gh/token",
    "kubectl get secret db-creds -o yaml",
    "password: ********",
    "TOKEN=test",
    "access_token: null",
    "x-api-key: EXAMPLE_KEY_1234567890",
    "AIzaSyExampleExampleExampleExampleExam",
    "webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "sk_live_EXAMPLEEXAMPLEEXAMPLE",
    "key-0123456789abcdef0123456789abcdef example from the docs",
    # placeholders after a password-like name (a value mixing kinds is a real password)
    "PASSWORD=123456",
    "password: abcdefgh",
    "PASSWORD=xxxxxxxx",
    "password: <password>",
    "PASSWORD=your_password_here",
    'password = "********"',
    "password: aaaaaaaa",
    "password: 0000",
    "PASSWORD='{{ vault_password }}'",
    "password: %(db_password)s",
    "PASSWORD=$DB_PASS",
    "password: abc123abc123",
    "PASSWORD=CHANGE_ME",
    "password: 111111",
    "PASSWORD=__PASSWORD__",
    "password: REPLACE_ME",
    "passwd: 987654321",
    "admin_password: qwerty",
    # `pass` as a name, and commands taking a password argument (fresh-user report): words
    # and prompts, not passwords
    "bypass: true",
    "compass: north",
    "pass: true",
    "passes: 3",
    "run it with --pass-through",
    "we pass the test to CI",
    "sshpass -p $SSHPASS ssh root@host",
    "docker login -u bob --password-stdin",
    "htpasswd -c .htpasswd bob",
    "net user admin * /add",
    "redis-cli -a <password> ping",
    # words glued before `pass` / `passwd` / `pwd` that name no password (a glued name is
    # one otherwise: GLUED_NAMES)
    "Surpass=abc12345",
    "COMPASS: north2",
    "PROXY_BYPASS=localhost,127.0.0.1",
    "LOWPASS: 2000Hz",
    "keepass: vault.kdbx",
    "bob ALL=(ALL) NOPASSWD: /usr/bin/systemctl restart nginx",
    "OLDPWD=/home/me/src",
    "MYSQLPWD=/var/lib/mysql",
)
#: Password and key names glued to the word before them without a separator (fresh-user
#: report: ``SMTPPASS:`` went through): each value is redacted, under the label given.
GLUED_NAMES: tuple[tuple[str, str], ...] = (
    ("SMTPPASS: hunter2value", "hunter2value"),
    ("DBPASS=Wq7ernBc", "Wq7ernBc"),
    ("smtppass: mail2024x", "mail2024x"),
    ("MYSQLPWD=hunter2value", "hunter2value"),
    ("mysqlpwd: Rt5pzK2m", "Rt5pzK2m"),
    ("DBPASSWD=Pz9mhGt3", "Pz9mhGt3"),
    ("DBPASSWORD=Lk8vbXs1", "Lk8vbXs1"),
    ("REDISSECRET=Vb6nmQw2", "Vb6nmQw2"),
    ("ghtoken: Gh4kRr9vLp2sXq7z", "Gh4kRr9vLp2sXq7z"),
    ("MYAPIKEY=Ak3jd9Fk2LqPz8Xw", "Ak3jd9Fk2LqPz8Xw"),
    ("myapikey: Ak3jd9Fk2LqPz8Xw", "Ak3jd9Fk2LqPz8Xw"),
)
#: Weak but real passwords after a password-like name: mixing kinds, they are redacted
#: though a looser check would call them sequential placeholders (``Abc123456!``).
WEAK_PASSWORDS: tuple[str, ...] = (
    "PASSWORD=Abc123456!",
    "password: Summer2024!",
    "DB_PASSWORD=Qwerty123!",
    '"password": "P@ssw0rd1"',
    "db_password = 'abc12345'",
    "ADMIN_PASSWORD=Passw0rd",
    "PASSWORD=abcd1234",
    "password: 12345678a",
    "MYSQL_ROOT_PASSWORD=root1234",
    "password = 'Abcdefgh1'",
    "pwd: Zz123456",
    "passwd = Welcome1",
)
