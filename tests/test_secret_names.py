"""Secrets that reach a store or an output by a path no sanitizer rule covers (fresh-user
report 5, findings 1, 4, 6, 10, 12): a name derived from a page (a relation type, an
evidence kind), an identifier an agent types (a project, tag, alias, evidence source), an
UPPER_CASE ``NAME=value`` in prose, a ``!!binary`` frontmatter value, a briefing's project.

Each test plants freshly generated secrets and runs the real CLI (or the MCP SDK's client) as
a subprocess, then looks for the secret as typed, lower-cased and snake-cased (a relation
type is its key snake-cased) in every output and in the store folder's bytes.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import secrets
import string
import sys
from collections.abc import Callable
from pathlib import Path

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import Result
from vault_sync.sanitize import Scrubber

CLI = Callable[..., Result]


def _digitalocean() -> str:
    return "dop_v1_" + secrets.token_hex(32)


def _github() -> str:
    """A GitHub token of mixed case: its relation type is snake-cased at each case change."""
    body = "".join(random.choice(string.ascii_letters + string.digits) for _ in range(36))
    return "ghp_" + body


def _password() -> str:
    """A password of 12 characters mixing kinds (never a placeholder)."""
    rng = random.SystemRandom()
    return (
        "".join(rng.choice(string.ascii_letters) for _ in range(5))
        + "!"
        + "".join(rng.choice(string.digits) for _ in range(3))
        + "".join(rng.choice(string.ascii_letters) for _ in range(3))
    )


def _views(secret: str) -> set[str]:
    """The secret as typed, lower-cased, and snake-cased as a relation type is (each case
    change a ``_``), and a 12-character piece of each, as the leak audit looks."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", secret).lower()
    return {v[i : i + 12] for v in {secret, secret.lower(), snake} for i in (0, len(v) - 12)}


def _leaks(text: str, *planted: str) -> list[str]:
    low = text.lower()
    return [p for s in planted for p in _views(s) if p in text or p.lower() in low]


def _store_bytes(vault: Path) -> str:
    return "\n".join(
        f.read_bytes().decode("utf-8", "replace")
        for f in (vault / ".vault-sync").rglob("*")
        if f.is_file()
    )


def _vault(tmp_path: Path, pages: dict[str, str]) -> Path:
    """A vault folder ``tmp_path/v`` holding ``pages`` (name -> text)."""
    vault = tmp_path / "v"
    vault.mkdir()
    for name, text in pages.items():
        (vault / name).write_text(text, encoding="utf-8")
    return vault


def test_a_relation_type_or_evidence_kind_holding_a_secret_is_left_out_everywhere(
    tmp_path: Path, cli: CLI
) -> None:
    lower, mixed, inline, kind = _digitalocean(), _github(), _digitalocean(), _digitalocean()
    vault = _vault(
        tmp_path,
        {
            "fm.md": "# target\n",
            "rel.md": f'---\n{lower}: "[[fm]]"\n{mixed}: ["[[fm]]"]\nfixes: "[[fm]]"\n---\n# rel\n',
            "inl.md": f"# inline\n\n{inline}:: [[fm]]\n",
            "r.md": f"---\nkind: rule\nevidence:\n  - {kind}:abc\n  - session:s-1\n---\n# r\n",
        },
    )
    v = ("--vault", str(vault))
    assert cli(*v, "sync").code == 0
    outputs = [
        cli(*v, *args)
        for args in (
            ("status",),
            ("status", "--json"),
            ("show", "rel"),
            ("show", "rel", "--json"),
            ("show", "inl"),
            ("show", "r"),
            ("show", "r", "--json"),
            ("related", "fm"),
            ("related", "fm", "--json"),
            ("lint", "--json"),
        )
    ]
    everything = "\n".join(o.out + o.err for o in outputs) + _store_bytes(vault)
    assert _leaks(everything, lower, mixed, inline, kind) == []
    # the links of the other keys stay: only the named ones are left out
    status = cli(*v, "status", "--json").json()
    assert status["links_by_type"] == {"fixes": 1}
    show = cli(*v, "show", "r", "--json").json()
    assert [(e["kind"], e["source"]) for e in show["evidence"]] == [("session", "s-1")]
    lint = cli(*v, "lint", "--json").json()
    named = sorted(
        (p["path"], p["line"], p["message"]) for p in lint["problems"] if p["code"] == "secret_name"
    )
    relation = "a relation type holding a secret: this link is left out (rename the key)"
    assert named == [
        ("inl.md", 3, relation),
        ("r.md", 4, "an evidence kind holding a secret: this entry is left out"),
        ("rel.md", 2, relation),
        ("rel.md", 3, relation),
    ]


def test_an_identifier_argument_holding_a_secret_is_refused_on_the_cli(
    tmp_path: Path, cli: CLI
) -> None:
    vault = _vault(tmp_path, {"x.md": "# x\n"})
    v = ("--vault", str(vault))
    cases = {
        "--project": "a project",
        "--tag": "a tag",
        "--alias": "an alias",
        "--evidence": "an evidence source",
    }
    for option, what in cases.items():
        token = _digitalocean()
        value = f"session:{token}" if option == "--evidence" else token
        out = cli(*v, "remember", "Refused", "--kind", "rule", option, value)
        assert out.code == 2, (option, out.err)
        assert out.err == (f"Error: {what} cannot hold a secret: '[REDACTED:digitalocean_token]'\n")
        assert token not in out.out + out.err
    token = _digitalocean()
    out = cli(*v, "reinforce", "x", "--evidence", f"session:{token}")
    assert (out.code, out.err) == (
        2,
        "Error: an evidence source cannot hold a secret: '[REDACTED:digitalocean_token]'\n",
    )
    assert sorted(p.name for p in vault.rglob("*.md")) == ["x.md"]  # nothing written
    assert (vault / "x.md").read_text(encoding="utf-8") == "# x\n"
    # the same texts as free text are scrubbed, not refused: a title, a body, a note
    out = cli(*v, "remember", f"Kept {token}", "--kind", "rule", "--body", token, "--dry-run")
    assert out.code == 0 and token not in out.out


def test_prose_after_an_upper_case_name_is_kept_and_a_config_line_is_not() -> None:
    scrubber = Scrubber()
    password = _password()
    prose = (
        f"MYSQL_PWD={password} is only for staging; production uses IAM auth."
        " Rotate it every 30 days."
    )
    assert scrubber.scrub(prose)[0] == (
        "MYSQL_PWD=[REDACTED:env_secret] is only for staging; production uses IAM auth."
        " Rotate it every 30 days."
    )
    # a generated first word then ordinary words: prose too
    assert scrubber.scrub(f"DB_PASSWORD={password} for staging only")[0] == (
        "DB_PASSWORD=[REDACTED:env_secret] for staging only"
    )
    # a password of words alone on its .env line, in a code block, beside a config line
    words = " ".join(
        "".join(random.choice(string.ascii_lowercase) for _ in range(6)) for _ in range(4)
    )
    for text, shown in (
        (f"DB_PASSWORD={words}", "DB_PASSWORD=[REDACTED:env_secret]"),
        (f"```\nDB_PASSWORD={words}\n```", "```\nDB_PASSWORD=[REDACTED:env_secret]\n```"),
        (f"DB_USER=bob\nDB_PASSWORD={words}\n", "DB_USER=bob\nDB_PASSWORD=[REDACTED:env_secret]\n"),
    ):
        assert scrubber.scrub(text)[0] == shown


def test_remember_keeps_the_sentence_after_a_secret(tmp_path: Path, cli: CLI) -> None:
    vault = _vault(tmp_path, {"x.md": "# x\n"})
    password = _password()
    body = f"MYSQL_PWD={password} is only for staging; production uses IAM auth."
    out = cli("--vault", str(vault), "remember", "DB access", "--kind", "procedure", "--body", body)
    assert out.code == 0, out.err
    text = (vault / "procedures" / "DB access.md").read_text(encoding="utf-8")
    assert text.endswith(
        "\nMYSQL_PWD=[REDACTED:env_secret] is only for staging; production uses IAM auth.\n"
    )
    assert password not in text


def test_a_secret_in_a_binary_value_is_found_by_lint_and_redact_on_its_line(
    tmp_path: Path, cli: CLI
) -> None:
    blob = base64.b64encode(f"password={_password()}".encode()).decode()
    vault = _vault(tmp_path, {"b.md": f"---\nkind: note\nblob: !!binary {blob}\n---\n# b\n"})
    page = vault / "b.md"
    v = ("--vault", str(vault))
    lint = cli(*v, "lint")
    assert lint.code == 1
    assert lint.out.startswith("b.md:3: error secret: a secret (env_secret)")
    check = cli(*v, "redact", "--all")
    assert (check.code, check.out.splitlines()[0]) == (1, "b.md:3: env_secret")
    assert cli(*v, "redact", "--all", "--write").code == 0
    assert page.read_text(encoding="utf-8") == (
        '---\nkind: note\nblob: "password=[REDACTED:env_secret]"\n---\n# b\n'
    )
    assert (cli(*v, "lint").code, cli(*v, "redact", "--all").code) == (0, 0)


def _briefing_vault(tmp_path: Path) -> Path:
    return _vault(
        tmp_path, {"r.md": "---\nkind: rule\nproject: payments\n---\n# Retry with backoff\n"}
    )


def test_a_briefing_project_holding_a_secret_is_refused_and_an_unknown_one_warned(
    tmp_path: Path, cli: CLI
) -> None:
    vault = _briefing_vault(tmp_path)
    v = ("--vault", str(vault))
    refused = "Error: a project cannot hold a secret: '[REDACTED:digitalocean_token]'\n"
    for extra in (("--out", "-"), ("--hook", "claude"), ("--section", "standing")):
        token = _digitalocean()
        out = cli(*v, "brief", "--project", token, *extra)
        assert (out.code, out.out, out.err.splitlines()[-1] + "\n") == (2, "", refused), extra
        assert token not in out.err
    token = _digitalocean()
    out = cli(*v, "brief", "--project", token, "--json")
    assert (out.code, out.json()) == (2, {"error": refused[7:-1], "exit_code": 2})
    token = _digitalocean()
    (vault / "vault-sync.toml").write_text(
        f'[[brief.targets]]\npath = "{tmp_path}/AGENTS.md"\nproject = "{token}"\n',
        encoding="utf-8",
    )
    out = cli(*v, "brief")
    assert out.code == 1 and token not in out.out + out.err
    assert refused in out.err
    assert not (tmp_path / "AGENTS.md").exists()
    (vault / "vault-sync.toml").unlink()
    warning = "vault-sync: warning: no page has project 'paymnts' (projects present: payments)\n"
    typo = cli(*v, "brief", "--project", "paymnts", "--out", "-")
    assert typo.code == 0 and typo.err.endswith(warning)
    as_json = cli(*v, "brief", "--project", "paymnts", "--json").json()
    assert as_json["warnings"] == [warning.split("warning: ", 1)[1].rstrip("\n")]
    known = cli(*v, "brief", "--project", "payments", "--json")
    assert known.json()["warnings"] == [] and "warning" not in known.err


def test_mcp_brief_and_remember_refuse_a_project_holding_a_secret(tmp_path: Path) -> None:
    vault = _briefing_vault(tmp_path)
    brief_token, remember_token = _digitalocean(), _digitalocean()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vault_sync", "--vault", str(vault), "mcp"]
    )

    async def main() -> list[object]:
        async with Client(params, read_timeout_seconds=60) as client:
            return [
                await client.call_tool("brief", {"project": brief_token}),
                await client.call_tool(
                    "remember", {"title": "T", "kind": "rule", "project": remember_token}
                ),
                await client.call_tool("brief", {"project": "paymnts"}),
            ]

    brief, remember, typo = asyncio.run(main())
    refused = "a project cannot hold a secret: '[REDACTED:digitalocean_token]'"
    for result, token in ((brief, brief_token), (remember, remember_token)):
        assert result.is_error  # type: ignore[attr-defined]
        text = result.content[0].text  # type: ignore[attr-defined]
        assert refused in text and token not in json.dumps(text)
    shown = typo.content[0].text  # type: ignore[attr-defined]
    assert shown.startswith(
        "warning: no page has project 'paymnts' (projects present: payments)\n\n# Memory briefing"
    )
    assert sorted(p.name for p in vault.rglob("*.md")) == ["r.md"]
