"""Secret kinds the last audit found kept (issue 17's leftovers), each in several forms written
here, and the prose of the same shape that must stay: BIP-39 seed phrases
(``sanitize/seeds.py``); a ``user:password`` pair after a credential label and a secret named
in prose (``sanitize/pairs.py``); ``*_SALT``, ``*_PEPPER``, ``sig`` names (``sanitize/names.py``);
percent-encoded values (``sanitize/encoded.py``); a value in bold after a bold label; a
secret-named table header with its values below, a backslash continuation after a name
(``sanitize/layout.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import best_cpu_seconds, run_cli
from vault_sync.sanitize import scrub

SEED_12 = "legal winner thank year wave sausage worth useful legal winner thank yellow"
SEED_24 = (
    "letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd"
    " amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic bless"
)
_S = "[REDACTED:seed_phrase]"
_E = "[REDACTED:env_secret]"

# (text, the text scrubbed)
CASES: tuple[tuple[str, str], ...] = (
    # seed phrases: after a label, bare, numbered, one word a line, upper case, a typo
    (f"mnemonic: {SEED_12}", f"mnemonic: {_S}"),
    (f"Seed phrase: {SEED_24}", f"Seed phrase: {_S}"),
    (f"recovery phrase = '{SEED_12}'", f"recovery phrase = '{_S}'"),
    (f'"mnemonic": "{SEED_12}"', f'"mnemonic": "{_S}"'),
    (f"Wallet backup, keep offline: {SEED_12}.", f"Wallet backup, keep offline: {_S}."),
    (f"{SEED_12.upper()}", _S),
    (
        "Words:\n" + "\n".join(f"{i}. {w}" for i, w in enumerate(SEED_12.split(), 1)),
        f"Words:\n1. {_S}",
    ),
    (
        "backup:\n" + "\n".join(f"- {w}" for w in SEED_12.split()) + "\ndone",
        f"backup:\n- {_S}\ndone",
    ),
    (f"my seed: {SEED_12.replace(', ', ' ').replace(' ', ', ')}", f"my seed: {_S}"),
    (
        " ".join(f"{i}) {w}" for i, w in enumerate(SEED_12.split(), 1)),
        f"1) {_S}",
    ),
    (
        "secret recovery phrase: legal winer thank year wave sausage worth useful legal"
        " winner thank yellow",
        f"secret recovery phrase: {_S}",
    ),
    (
        "| # | word |\n|---|---|\n"
        + "".join(f"| {i} | {w} |\n" for i, w in enumerate(SEED_12.split(), 1)),
        f"| # | word |\n|---|---|\n| 1 | {_S} |\n",
    ),
    # user:password after a credential label
    ("Creds (prod): admin:Tr0ub4dor3!", f"Creds (prod): {_E}"),
    ("email/password: bob@acme.io / Hunter2x!", f"email/password: {_E}"),
    ("creds: admin:Tr0ub4dor3", f"creds: {_E}"),
    ("credentials: deploy:s3cr3tPa55", f"credentials: {_E}"),
    ("**Login**: bob:hunter2x!", f"**Login**: {_E}"),
    ("login - bob@acme.io:Summer2024!", f"login - {_E}"),
    ('DB_CREDENTIALS="app:S3cr3t!pw"', f'DB_CREDENTIALS="{_E}"'),
    ("the creds are deploy / Xk2!pLq9", f"the creds are {_E}"),
    ("user/password: admin/Adm1n!23", f"user/password: {_E}"),
    ("username/password = root:toor99", f"username/password = {_E}"),
    # a secret's noun, is/was, a value that reads as a secret
    ("The HMAC secret is 9fA2kQ7xLp3Rt8Zv", f"The HMAC secret is {_E}"),
    ("the signing key is Zq8mN3vX1pL0rT6w.", f"the signing key is {_E}."),
    ("the signing key was = K9d!fj2LqpZ", f"the signing key was = {_E}"),
    ("Webhook secret is: `Xk29fLq0pZ8mRt7v`", f"Webhook secret is: `{_E}`"),
    ("The signing key is 9f86d081884c7d659a2feaa0c55ad015.", f"The signing key is {_E}."),
    ("my wifi password is sunset42", f"my wifi password is {_E}"),
    ("The password for prod is Summer2024!", f"The password for prod is {_E}"),
    (
        "the secret key for the admin account is Zq8mN3vX1pL0rT6w",
        f"the secret key for the admin account is {_E}",
    ),
    ("the token is now Gh4kRr9vLp2sXq7z", f"the token is now {_E}"),
    # salt, pepper, sig names
    ("ENCRYPTION_SALT=Xk29fLq0pZ8mRt7v", f"ENCRYPTION_SALT={_E}"),
    ("PASSWORD_PEPPER=s8Dk1LmQ0zXv", f"PASSWORD_PEPPER={_E}"),
    ('salt: "q9Zk2LmX8vB1"', f'salt: "{_E}"'),
    ("pepper = Gh7!kLq2", f"pepper = {_E}"),
    ("sig: 4f9a2c7e1b8d3f6a0e5c9b2d7f1a8e3c", f"sig: {_E}"),
    ("x-signature: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", f"x-signature: {_E}"),
    ("**Salt**: Xk29fLq0pZ8mRt7v", f"**Salt**: {_E}"),
    ("| ENCRYPTION_SALT | Xk29fLq0pZ8mRt7v |", f"| ENCRYPTION_SALT | {_E} |"),
    # percent-encoded values: judged decoded, redacted as written
    ("secret: %2FqZ8k%2BmN3v%3DxL1p%2Bw", f"secret: {_E}"),
    ("password=p%40ssw0rd%21", f"password={_E}"),
    ("signature=Zm9vYmFy%2BYmF6%2FcXV4%3D", f"signature={_E}"),
    (
        "https://h/cb?next=%2Flogin%3Fpassword%3DHunter2x%21",
        f"https://h/cb?next=%2Flogin%3Fpassword%3D{_E}",
    ),
    # a bold value after a bold label
    ("**Password**: **Wd8pQz2Lr6!**", f"**Password**: {_E}"),
    ("**Password:** **hunter2x!**", f"**Password:** {_E}"),
    ("*Token*: *Kd8fLq2!zz9*", f"*Token*: {_E}"),
    # a table header naming a secret, the values below
    ("| Password |\n|---|\n| hunter2x! |", f"| Password |\n|---|\n| {_E} |"),
    ("| Password (prod) |\n|---|\n| hunter2x! |", f"| Password (prod) |\n|---|\n| {_E} |"),
    (
        "| user | password |\n|---|---|\n| bob | Kd8fLq2!z |\n| amy | `Zz9!kLmq` |",
        f"| user | password |\n|---|---|\n| bob | {_E} |\n| amy | `{_E}` |",
    ),
    (
        "| Name | Token |\n| :-- | --: |\n| ci | Kd8fLq2!zz9 |",
        f"| Name | Token |\n| :-- | --: |\n| ci | {_E} |",
    ),
    (
        "Service | API Key\n--- | ---\nstripe | Zq8mN3vX1pL0rT6w",
        f"Service | API Key\n--- | ---\nstripe | {_E}",
    ),
    # a backslash line continuation after a secret's name
    ("ENV DB_PASSWORD \\\n    Kd8fLq2xZz", f"ENV DB_PASSWORD \\\n    {_E}"),
    ("ENV DB_PASSWORD=\\\n    Kd8fLq2xZz", f"ENV DB_PASSWORD=\\\n    {_E}"),
    # the halves redacted, the `\` and the line break kept
    (
        "export API_TOKEN=Kd8f\\\nLq2xZz9",
        "export API_TOKEN=[REDACTED:api_key]\\\n[REDACTED:api_key]",
    ),
    (
        "ENV APP=1 \\\n    DB_PASSWORD=Kd8fLq2xZz \\\n    X=2",
        # an UPPER_CASE `=` line's value runs to its end (`.env` passwords of words)
        f"ENV APP=1 \\\n    DB_PASSWORD={_E}\n    X=2",
    ),
)

#: The same shapes in prose and documentation: left whole.
KEPT: tuple[str, ...] = (
    # one list word again and again is no seed (a query of 256 ``word``s was scrubbed whole,
    # so it slipped past the query length cap), nor a numbered list of two words
    " ".join(["word"] * 30),
    " ".join(f"word{i}" for i in range(30)),
    " ".join(f"{i}. {'milk' if i % 2 else 'bread'}" for i in range(1, 16)),
    "we can talk about another area where you can make a change for the better today",
    "mnemonic: a device to help you remember things",
    # list words as code's identifiers (obsidian-tasks docs): no phrase written down
    "| `task.file.property('sample_number_property')` | `number` | `246` |\n"
    "| `task.file.property('sample_text_property')` | `string` | `'Sample'` |",
    "Seed phrase: never share it with anyone, not even support staff who ask for it",
    "auth: oauth2:client_credentials",
    "login: https://example.com/x1",
    "account: aws/prod-123",
    "Login: 10:30",
    "creds: see 1Password",
    "the token is v2.3.1-beta",
    "the secret is out",
    "The password is required.",
    "the key is Ctrl+Shift+P",
    "the key is F12",
    "the signing key is rotated every month",
    "the key to success is consistency",
    "| Salt | Pepper |\n|---|---|\n| grey | pinch |",
    "BCRYPT_SALT_ROUNDS=12",
    "salt: pinch",
    "signature: John Smith",
    "design: minimal",
    "hash = bcrypt(pw, salt)",
    "grew 100% this year",
    "see https://example.com/a%2Fb?q=x%3Dy",
    "| Service | API Key |\n|---|---|\n| stripe | see vault |",
    "| Primary key | Type |\n|--|--|\n| user_id2 | int |",
    "| Key | Value |\n|---|---|\n| timeout | 30s2x |",
    "line one\\\nline two",
    "RUN apt-get update && \\\n    apt-get install -y curl",
)


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_leftover_kinds_are_redacted_exactly(text: str, expected: str) -> None:
    out, _ = scrub(text)
    assert out == expected
    assert scrub(out)[0] == out  # idempotent


@pytest.mark.parametrize("text", KEPT)
def test_prose_of_the_same_shapes_is_kept(text: str) -> None:
    assert scrub(text) == (text, ())


#: Hostile repeats of each new shape: 4x the input must cost about 4x the time.
HOSTILE = {
    "seed-words": lambda n: (SEED_12 + ". the ") * (n // 80),
    "one-word": lambda n: "abandon " * (n // 8),
    "seed-labels": lambda n: "seed: " * (n // 6),
    "table-rows": lambda n: "| password |\n|---|\n" + "| Kd8fLq2!z |\n" * (n // 14),
    "continuations": lambda n: "TOKEN=\\\n" * (n // 8),
    "percent": lambda n: "a%2F" * (n // 4),
    "pairs": lambda n: "creds: a:" * (n // 9),
    "nouns": lambda n: "key is " * (n // 7),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_new_shapes_cost_linear_time(name: str) -> None:
    small = best_cpu_seconds(lambda: scrub(HOSTILE[name](100_000)))
    big = best_cpu_seconds(lambda: scrub(HOSTILE[name](400_000)))
    assert big <= 10 * small + 0.2, f"{name}: {small:.3f}s -> {big:.3f}s for 4x the input"


#: One secret of each kind, as an agent might paste it into a session (checked end to end).
SESSION_SECRETS = {
    "seed": SEED_24,
    "pair": "Tr0ub4dor3!x",
    "prose": "9fA2kQ7xLp3Rt8Zv",
    "salt": "Xk29fLq0pZ8mRt7v",
    "percent": "qZ8k%2BmN3v%3DxL1p%2Bw",
    "cell": "Kd8fLq2!zz9",
}


def test_import_session_and_sync_hide_every_leftover_kind(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Each kind in an imported session (Gemini CLI transcript) and in a page: the session's
    page, ``show --json`` and ``query --json`` carry none of them."""
    s = SESSION_SECRETS
    said = (
        f"my wallet words are {s['seed']}\ncreds: deploy:{s['pair']}\n"
        f"The HMAC secret is {s['prose']}\nENCRYPTION_SALT={s['salt']}\n"
        f"api_secret: %2F{s['percent']}\n| user | password |\n|---|---|\n| bob | {s['cell']} |"
    )
    vault = make_vault({"page.md": f"# Notes\n\n{said}\n"})
    transcript = {
        "sessionId": "c9d0e1f2-3a4b-4c5d-8e6f-708192a3b4c9",
        "startTime": "2026-03-07T08:30:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-03-07T08:30:00.000Z", "type": "user",
             "content": said},
            {"id": "m2", "timestamp": "2026-03-07T08:30:05.000Z", "type": "gemini",
             "content": "Noted."},
        ],
    }  # fmt: skip
    file = tmp_path / "gemini.json"
    file.write_text(json.dumps(transcript, indent=2), encoding="utf-8")
    result = run_cli("--vault", str(vault), "import-session", str(file), "--json")
    assert result.code == 0, result.err
    session = next(p for p in vault.rglob("*.md") if "gemini" in p.name)
    outputs = [session.read_text(encoding="utf-8")]
    for rel in ("page.md", session.relative_to(vault).as_posix()):
        shown = run_cli("--vault", str(vault), "show", rel, "--json")
        assert shown.code == 0, shown.err
        outputs += [shown.out, shown.err]
    found = run_cli("--vault", str(vault), "query", "wallet words HMAC", "--json")
    outputs += [found.out, found.err]
    text = "\n".join(outputs)
    assert "[REDACTED:seed_phrase]" in text
    for kind, secret in s.items():
        assert secret not in text, kind
        assert " ".join(secret.split()[:3]) not in text, kind


@pytest.mark.parametrize(
    "text",
    [
        "db_password: |   zzYswgB20388",
        'env:   - name: DB_PASSWORD     value: "IqfEawoQ6572"',
    ],
)
def test_a_pasted_block_flattened_onto_one_line_is_still_redacted(text: str) -> None:
    """The full leak audit types each planted text as a query, its line breaks made blanks:
    a YAML block scalar's value and a Kubernetes name/value pair were echoed whole."""
    value = text.rsplit(" ", 1)[1].strip('"')
    assert value not in scrub(text)[0]
