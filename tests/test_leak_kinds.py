"""The fresh user's leak kinds (markup inside a token, repeats lost by writes, wrapped and
invisible-character tokens, redact's wrong answers), each through the real CLI as a
subprocess on a real vault: every output is searched for the whole secret."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_cli
from vault_sync.sanitize import scrub

TOKEN = "ghp_Zk3mQ9vX2pL7rT4wY8nB1cD6fH0jK5sA9eU2"
HEAD, TAIL = TOKEN[:10], TOKEN[10:]
PASSWORD = "Zq8!vLm2#Rt5"

#: Markup the plain-text views drop, put inside the token (``%s`` is the token's tail).
INSIDE = {
    "bold": "**%s**",
    "comment": "<!-- x -->%s",
    "expression": "${x}%s",
    "code": "`%s`",
    "strike": "~~~~%s",
    "html": "<span></span>%s",
    "highlight": "==%s==",
    "link": "[%s](https://example.org)",
    "wikilink_display": "[[Other|%s]]",
    "zero_width_space": "\u200b%s",
    "soft_hyphen": "\u00ad%s",
    "word_joiner": "\u2060%s",
    "bom": "\ufeff%s",
    "control": "\x01%s",
}


def _outputs(vault: Path, *commands: tuple[str, ...]) -> str:
    """Every command's stdout and stderr, joined."""
    out = []
    for args in commands:
        result = run_cli("--vault", str(vault), *args)
        out += [result.out, result.err]
    return "\n".join(out)


@pytest.mark.parametrize("kind", sorted(INSIDE))
def test_markup_inside_a_token_is_found_and_never_shown_whole(
    make_vault: Callable[..., Path], kind: str
) -> None:
    body = f"key {HEAD}{INSIDE[kind] % TAIL} zzfw6\n"
    vault = make_vault({"f.md": body, "rules/r.md": f"---\nkind: rule\n---\n{body}"})
    lint = run_cli("--vault", str(vault), "lint", "--json")
    secrets = [p for p in lint.json()["problems"] if p["code"] == "secret"]
    assert {p["path"] for p in secrets} == {"f.md", "rules/r.md"}
    shown = _outputs(
        vault,
        ("query", "zzfw6", "--json"),
        ("show", "f.md", "--json"),
        ("brief",),
        ("redact", "--all"),
    )
    assert TOKEN not in shown
    assert TOKEN.lower() not in shown.lower()


def test_redact_write_keeps_the_markup_and_removes_every_piece(
    make_vault: Callable[..., Path],
) -> None:
    vault = make_vault({"f.md": f"key {HEAD}**{TAIL}** and [[Other|{HEAD}{TAIL}x]]\n"})
    result = run_cli("--vault", str(vault), "redact", "--all", "--write")
    assert result.code == 0, result.err
    text = (vault / "f.md").read_text(encoding="utf-8")
    assert text == (
        "key [REDACTED:github_token]**[REDACTED:github_token]** and "
        "[[Other|[REDACTED:github_token]]]\n"
    ) or (HEAD not in text and TAIL not in text)
    assert HEAD not in text and TAIL[:12] not in text


def test_wrapped_vendor_token_is_found_and_a_whole_one_keeps_the_next_line() -> None:
    wrapped = "token split across lines: ghp_u8jzPde0IgxLd6Gn\ncfBAepfJBd0Kh8oOOL8d\n"
    assert scrub(wrapped)[0] == (
        "token split across lines: [REDACTED:github_token]\n[REDACTED:github_token]\n"
    )
    whole = f"token: {TOKEN}\nThen we ran it\n"
    assert scrub(whole)[0] == "token: [REDACTED:github_token]\nThen we ran it\n"
    prose = "the ghp_ prefix\nmarks a token\n"  # no tail worth a token: left alone
    assert scrub(prose) == (prose, ())
    upper = "key wrapped at the margin: AKIAQ7R2XK4P\nLM9TVW3B and more\n"  # a capital prefix
    assert scrub(upper)[0] == (
        "key wrapped at the margin: [REDACTED:aws_key]\n[REDACTED:aws_key] and more\n"
    )


def test_remember_hides_every_repeat_of_a_value_in_the_file(
    make_vault: Callable[..., Path],
) -> None:
    vault = make_vault({"a.md": "x\n"})
    body = f"password: {PASSWORD}\nthen run echo {PASSWORD}"
    result = run_cli(
        "--vault", str(vault), "remember", "Repeat test", "--kind", "rule", "--body", body,
        "--evidence", json.dumps({"kind": "session", "source": "s-1", "note": PASSWORD}),
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.json()["redacted"] == ["env_secret"]  # each label once
    text = next(vault.rglob("Repeat test.md")).read_text(encoding="utf-8")
    assert PASSWORD not in text
    assert text.count("[REDACTED:env_secret]") == 3
    shown = _outputs(vault, ("query", "then run echo", "--json"), ("brief",))
    assert PASSWORD not in shown


def test_import_session_hides_the_value_in_commands_too(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    vault = make_vault({"a.md": "x\n"})
    calls = [
        {
            "id": "run-1",
            "name": "run_shell_command",
            "args": {"command": f"echo {PASSWORD}"},
            "result": [
                {
                    "functionResponse": {
                        "id": "run-1",
                        "name": "run_shell_command",
                        "response": {"output": f"password: {PASSWORD}"},
                    }
                }
            ],
            "status": "success",
            "timestamp": "2026-03-07T08:30:06.000Z",
        }
    ]
    transcript = {
        "sessionId": "c9d0e1f2-3a4b-4c5d-8e6f-708192a3b4c9",
        "startTime": "2026-03-07T08:30:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-03-07T08:30:00.000Z", "type": "user",
             "content": "print the password"},
            {"id": "m2", "timestamp": "2026-03-07T08:30:05.000Z", "type": "gemini",
             "content": "Running it.", "toolCalls": calls},
        ],
    }  # fmt: skip
    file = tmp_path / "gemini.json"
    file.write_text(json.dumps(transcript, indent=2), encoding="utf-8")
    result = run_cli("--vault", str(vault), "import-session", str(file), "--json")
    assert result.code == 0, result.err
    page = next(p for p in vault.rglob("*.md") if "gemini" in p.name)
    text = page.read_text(encoding="utf-8")
    assert "echo [REDACTED:env_secret]" in text
    assert PASSWORD not in text
    rel = page.relative_to(vault).as_posix()
    assert PASSWORD not in _outputs(vault, ("show", rel, "--json"), ("query", "echo", "--json"))


def test_redact_write_removes_the_prose_copy_too(make_vault: Callable[..., Path]) -> None:
    secret = "Tr0ub4dor&3xQ"
    vault = make_vault({"p.md": f"The password is {secret}\n\n    mysql -p{secret}\n"})
    result = run_cli("--vault", str(vault), "redact", "--all", "--write")
    assert result.code == 0, result.err
    assert result.out.endswith(
        "redacted 2 of the 2 secrets found, in 1 of 1 page (only what the rules know is found)\n"
    )
    assert secret not in (vault / "p.md").read_text(encoding="utf-8")
    assert secret not in _outputs(vault, ("query", "password", "--json"))


def test_yaml_escaped_token_is_reported_at_its_line_and_rewritten(
    make_vault: Callable[..., Path],
) -> None:
    escaped = "\\x67" + TOKEN[1:]
    page = f'---\ntitle: X\ntags: [a]\nkind: note\ndescription: "escaped {escaped}"\n---\nbody\n'
    vault = make_vault({"esc.md": page})
    lint = run_cli("--vault", str(vault), "lint", "--json")
    lines = [(p["line"]) for p in lint.json()["problems"] if p["code"] == "secret"]
    assert lines == [5]
    check = run_cli("--vault", str(vault), "redact", "--all")
    assert (check.code, check.out.splitlines()[0]) == (1, "esc.md:5: github_token")
    done = run_cli("--vault", str(vault), "redact", "--all", "--write")
    assert done.code == 0, done.err
    assert 'description: "escaped [REDACTED:github_token]"\n' in (vault / "esc.md").read_text()
    assert run_cli("--vault", str(vault), "redact", "--all").code == 0


def test_redact_write_refuses_pages_behind_a_symlink(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "o.md").write_text(f"token {TOKEN}\n", encoding="utf-8")
    (outside / "dir" / "in.md").write_text(f"token {TOKEN[:-1]}7\n", encoding="utf-8")
    vault = make_vault({"a.md": "x\n"})
    os.symlink(outside / "o.md", vault / "link.md")
    os.symlink(outside / "dir", vault / "sub")
    result = run_cli("--vault", str(vault), "redact", "--all", "--write")
    assert result.code == 1
    assert "link.md: not written: 'link.md': 'link.md' is a symlink" in result.err
    assert "sub/in.md: not written: 'sub/in.md': 'sub' is a symlink" in result.err
    assert (vault / "link.md").is_symlink() and (vault / "sub").is_symlink()
    assert TOKEN in (outside / "o.md").read_text(encoding="utf-8")  # untouched, not copied
    assert (outside / "dir" / "in.md").read_text(encoding="utf-8") == f"token {TOKEN[:-1]}7\n"


def test_brief_link_to_a_title_ending_in_a_redaction_stays_a_link(
    make_vault: Callable[..., Path],
) -> None:
    page = f'---\nkind: rule\ntitle: "Use {TOKEN}"\n---\nAlways rotate.\n'
    vault = make_vault({"rules/r.md": page})
    brief = run_cli("--vault", str(vault), "brief")
    assert brief.code == 0, brief.err
    line = next(x for x in brief.out.splitlines() if "rules/r" in x)
    assert line.startswith("- [[rules/r|Use (REDACTED:github_token)]] (rule")


def test_a_hard_wrapped_token_is_in_no_output(make_vault: Callable[..., Path]) -> None:
    first, second = "ghp_u8jzPde0IgxLd6Gn", "cfBAepfJBd0Kh8oOOL8d"
    vault = make_vault({"w.md": f"token split across lines: {first}\n{second}\n"})
    shown = _outputs(vault, ("query", "token split", "--json"), ("show", "w.md", "--json"))
    assert first not in shown and second not in shown
    lint = run_cli("--vault", str(vault), "lint", "--json").json()["problems"]
    assert [(p["line"], p["code"]) for p in lint if p["code"] == "secret"] == [
        (1, "secret"),
        (2, "secret"),
    ]


#: Credentials whose halves a separator joins (``user:password@host``), and a token ending in
#: ``_`` (which the plain-text view read as an emphasis mark): the full leak audit's kinds.
SEPARATED = {
    "sidekiq_url": ("https://44d858d9", ":7a96627e@gems.contribsys.com/"),
    "sidekiq_env": ("BUNDLE_GEMS__CONTRIBSYS__COM=5cff6df2", ":bb7426e6"),
    "underscore_end": ("glffct-BWPYrA", "zVXdGsTwRBeDH_"),
}


@pytest.mark.parametrize("shape", sorted(SEPARATED))
@pytest.mark.parametrize("kind", ["bold", "comment", "expression", "code", "html", "soft_hyphen"])
def test_markup_beside_a_separator_or_before_a_last_underscore_is_redacted(
    kind: str, shape: str
) -> None:
    head, tail = SEPARATED[shape]
    secret_head = head.rsplit("=", 1)[-1].removeprefix("https://")
    secret_tail = tail.split("@")[0].lstrip(":")
    text, findings = scrub(f"see {head}{INSIDE[kind] % tail} now")
    assert findings
    assert secret_head not in text and secret_tail not in text


def test_prose_markup_before_punctuation_builds_no_view() -> None:
    from vault_sync.sanitize.markup import markup_view

    for prose in ("**Note**: read it", "a **bold**! b", "*x*: y", "`code`:\n", "**a**@ b"):
        assert markup_view(prose) is None, prose


def test_a_typed_secret_of_capitals_or_split_by_markup_is_never_echoed(
    make_vault: Callable[..., Path],
) -> None:
    vault = make_vault({"a.md": "x\n"})
    typed = {
        "AKIAZMUYBQFTJDSFSPYI": "AKIAZMUYBQFTJDSFSPYI",
        "ABIAZMUYBQ`FTJDSFSPYI`": "FTJDSFSPYI",
        "https://459927b0<span></span>:1ce11a4a@gems.contribsys.com/": "1ce11a4a",
    }
    for text, secret in typed.items():
        result = run_cli("--vault", str(vault), "query", f"{text} x", "--json")
        assert secret not in result.out + result.err, text
        assert "[REDACTED:" in result.out, text


def test_a_secret_typed_into_a_query_is_never_searched_for(
    make_vault: Callable[..., Path],
) -> None:
    """The scrubbed query holds ``[REDACTED:aws_key]``: its words (redacted, aws, key) are
    none of the user's, so a page about AWS keys is no hit (a fresh user's report)."""
    vault = make_vault(
        {"keys.md": "How we rotate the AWS key, redacted weekly.\n", "retry.md": "retry policy\n"}
    )
    only = run_cli("--vault", str(vault), "query", "AKIAZMUYBQFTJDSFSPYI", "--json")
    assert only.code == 2
    assert only.err == "Error: the query held only a secret, and a secret is never searched\n"
    both = run_cli("--vault", str(vault), "query", "AKIAZMUYBQFTJDSFSPYI retry", "--json")
    assert both.code == 0, both.err
    assert [h["path"] for h in both.json()["hits"]] == ["retry.md"]
    assert both.json()["query"] == "[REDACTED:aws_key] retry"


def test_a_token_glued_to_non_ascii_letters_is_in_no_output_nor_store(
    make_vault: Callable[..., Path],
) -> None:
    # fresh-user report: `トークンはghp_…です` — lint 0 errors, the snippet and the index's
    # store held the whole token, a typed query echoed it, `remember` named a file with it
    vault = make_vault({"p.md": f"トークンは{TOKEN}です\n", "q.md": f"clé {TOKEN}ü ok\n"})
    assert run_cli("--vault", str(vault), "sync").code == 0
    lint = run_cli("--vault", str(vault), "lint", "--json")
    secrets = sorted(p["path"] for p in lint.json()["problems"] if p["code"] == "secret")
    assert secrets == ["p.md", "q.md"]
    shown = _outputs(
        vault,
        ("query", "トークン", "--json"),
        ("query", f"{TOKEN}です", "--json"),
        ("show", "p.md", "--json"),
        ("remember", f"Note {TOKEN}です", "--kind", "decision", "--json"),
    )
    assert HEAD not in shown and TAIL[:12] not in shown
    stored = b"".join(p.read_bytes() for p in (vault / ".vault-sync").rglob("*") if p.is_file())
    assert TAIL[:12].encode() not in stored and TAIL[:12].lower().encode() not in stored
    names = [p.name for p in vault.rglob("*.md")]
    assert not [n for n in names if HEAD in n or TAIL[:12] in n], names


def test_pass_names_and_command_passwords_are_found_and_redact_write_leaves_none(
    make_vault: Callable[..., Path],
) -> None:
    # fresh-user report: in a page mixing these with caught forms, `redact --write` said
    # "redacted 17 of 17" and left them in the file
    passwords = {
        "DB_PASS": "---\nDB_PASS: Kq8#vT2!mZ4x\n---\n",
        "sshpass": "sshpass -p Mz4!xC7#vB2n ssh root@h\n",
        "docker": "docker login -u bob -p Dq5!wE8#rT1y registry.example.com\n",
        "redis": "redis-cli -a Rk7!pL3#nM9b ping\n",
        "htpasswd": "htpasswd -b .htpasswd bob Hx2!gF5#jK8l\n",
        "net": "net user admin Nw4!sD7#fG0h /add\n",
        "passphrase": "passphrase: correct horse battery staple\n",
        "entity": "password&#58; Kd2&fG6-hJ0l\n",
        "pass": "SMTP_PASS: Sm9!tP2#aS5s\n",
    }
    caught = f"token {TOKEN}\nPASSWORD={PASSWORD}\n"
    body = "".join(passwords.values()) + caught + "bypass: true\ncompass: north\n"
    vault = make_vault({"mixed.md": body})
    result = run_cli("--vault", str(vault), "redact", "--all", "--write")
    assert result.code == 0, result.err
    assert result.out.endswith(
        "redacted 11 of the 11 secrets found, in 1 of 1 page (only what the rules know is found)\n"
    )
    text = (vault / "mixed.md").read_text(encoding="utf-8")
    for value in ("Kq8#vT2", "Mz4!xC7", "Dq5!wE8", "Rk7!pL3", "Hx2!gF5", "Nw4!sD7", "Sm9!tP2"):
        assert value not in text
    assert "horse battery" not in text and "fG6-hJ0l" not in text
    assert "bypass: true\ncompass: north\n" in text
    assert run_cli("--vault", str(vault), "lint").code == 0
