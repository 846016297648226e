"""`vault-sync import-session` (issue 13, Build 2): each transcript format to its golden
session page, a planted secret redacted, re-import idempotent, a transcript still being
written, bad input in one line, and the CLI as a subprocess with `query` finding the page.

Fixtures in tests/transcripts/ are written by hand; each holds ``@@SECRET@@`` where a secret
(built at run time, never stored) is planted in a tool output. Golden pages are
``tests/transcripts/<name>.expected.md``; refresh with ``VAULT_SYNC_REFRESH_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, Result
from vault_sync.app import Engine
from vault_sync.errors import PageExistsError, TranscriptError
from vault_sync.session_digest import read_transcript

Cli = Callable[..., Result]
HERE = REPO / "tests" / "transcripts"
SECRET = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
#: fixture -> (format, the page it becomes)
CASES = {
    "claude-code.jsonl": ("claude-code", "sessions/2026-03-05-claude-5f0c2a9e.md"),
    "codex.jsonl": ("codex", "sessions/2026-03-06-codex-0199a3c4.md"),
    "gemini.json": ("gemini", "sessions/2026-03-07-gemini-c9d0e1f2.md"),
    "gemini-0.61.jsonl": ("gemini", "sessions/2026-03-10-gemini-e7f8a9b0.md"),
    "plain.txt": ("plain", "sessions/2026-03-08-claude-notes202.md"),
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "example-vault"
    shutil.copytree(REPO / "example-vault", root, ignore=shutil.ignore_patterns(".vault-sync"))
    Engine.open(root).sync()
    return root


def planted(name: str, folder: Path, text: str | None = None) -> Path:
    """The fixture ``name`` copied into ``folder`` with the secret planted."""
    source = (HERE / name).read_text(encoding="utf-8") if text is None else text
    out = folder / name
    out.write_text(source.replace("@@SECRET@@", SECRET), encoding="utf-8")
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_format_gives_its_golden_page_with_the_secret_redacted(
    name: str, vault: Path, tmp_path: Path
) -> None:
    fmt, path = CASES[name]
    file = planted(name, tmp_path)
    report = Engine.open(vault).write("import-session", files=[str(file)])
    assert [p["path"] for p in report.pages] == [path]
    page = (vault / path).read_text(encoding="utf-8")
    golden = HERE / (name.rsplit(".", 1)[0] + ".expected.md")
    if os.environ.get("VAULT_SYNC_REFRESH_GOLDEN"):
        golden.write_text(page, encoding="utf-8")
    assert page == golden.read_text(encoding="utf-8")
    assert SECRET not in page and SECRET not in report.pages[0]["diff"]
    if "@@SECRET@@" in (HERE / name).read_text(encoding="utf-8"):
        assert report.redacted == ["github_token"]
        assert "[REDACTED:github_token]" in page
    assert read_transcript(file.read_text(encoding="utf-8"), name).agent == (
        {"claude-code": "claude", "plain": "claude"}.get(fmt, fmt)
    )


def test_auto_detects_every_format() -> None:
    from vault_sync.session_digest import detect

    for name, (fmt, _) in CASES.items():
        assert detect((HERE / name).read_text(encoding="utf-8"), name) == fmt


@pytest.mark.parametrize("name", sorted(CASES))
def test_reimport_changes_nothing_and_keeps_one_page(
    name: str, vault: Path, tmp_path: Path
) -> None:
    file = planted(name, tmp_path)
    engine = Engine.open(vault)
    engine.write("import-session", files=[str(file)])
    path = vault / CASES[name][1]
    before = path.read_bytes()
    sessions = sorted(p.name for p in (vault / "sessions").iterdir())
    again = engine.write("import-session", files=[str(file)])
    assert [p["changed"] for p in again.pages] == [False]
    assert path.read_bytes() == before
    assert sorted(p.name for p in (vault / "sessions").iterdir()) == sessions


def test_a_grown_transcript_updates_its_page_and_keeps_a_persons_keys(
    vault: Path, tmp_path: Path
) -> None:
    name = "claude-code.jsonl"
    engine = Engine.open(vault)
    engine.write("import-session", files=[str(planted(name, tmp_path))])
    path = vault / CASES[name][1]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("kind: session\n", "kind: session\nreviewed: yes\n"))
    engine.sync()
    extra = (
        '{"type":"user","sessionId":"5f0c2a9e-1b7d-4c3e-9a21-7d4e8b6c0f13",'
        '"timestamp":"2026-03-05T09:20:00.000Z","cwd":"/home/dev/payments",'
        '"message":{"role":"user","content":"Also add a retry budget."}}\n'
    )
    grown = planted(name, tmp_path, (HERE / name).read_text(encoding="utf-8") + extra)
    report = engine.write("import-session", files=[str(grown)])
    assert [p["changed"] for p in report.pages] == [True]
    new = path.read_text(encoding="utf-8")
    assert "reviewed: yes\n" in new and "- Also add a retry budget." in new
    assert new.count("session:5f0c2a9e-1b7d-4c3e-9a21-7d4e8b6c0f13") == 1


@pytest.mark.parametrize("name", ["claude-code.jsonl", "codex.jsonl", "gemini-0.61.jsonl"])
def test_a_last_line_still_being_written_is_left_out(name: str, tmp_path: Path) -> None:
    text = (HERE / name).read_text(encoding="utf-8")
    cut = text[: text.rstrip("\n").rfind("\n") + 40]  # the last line, cut after 39 characters
    whole = read_transcript(text, name)
    partial = read_transcript(cut, name)
    assert not whole.truncated and partial.truncated
    assert partial.messages == whole.messages[: len(partial.messages)]
    assert len(partial.messages) < len(whole.messages)


def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    text = (HERE / "codex.jsonl").read_text(encoding="utf-8").split("\n")
    text[2] = '{"timestamp": broken'
    with pytest.raises(TranscriptError, match=r"^x\.jsonl:3: not a JSON line"):
        read_transcript("\n".join(text), "x.jsonl")
    with pytest.raises(TranscriptError, match=r"^g\.json:8: not JSON"):
        read_transcript(
            (HERE / "gemini.json").read_text(encoding="utf-8")[:400], "g.json", "gemini"
        )
    with pytest.raises(TranscriptError, match=r"^y\.json:1: JSON in no known transcript format"):
        read_transcript('{"hello": 1}', "y.json")


def test_the_cli_imports_then_query_finds_the_session(
    vault: Path, tmp_path: Path, cli: Cli
) -> None:
    files = [str(planted(name, tmp_path)) for name in sorted(CASES)]
    dry = cli("--vault", str(vault), "import-session", *files, "--dry-run", "--json")
    assert dry.code == 0, dry.err
    assert dry.json()["dry_run"] is True and not (vault / CASES["codex.jsonl"][1]).exists()
    out = cli("--vault", str(vault), "import-session", *files, "--project", "ops", "--json")
    assert out.code == 0, out.err
    answer = out.json()
    assert [p["path"] for p in answer["pages"]] == [CASES[n][1] for n in sorted(CASES)]
    assert answer["redacted"] == ["github_token"]  # each label once (docs/writing.md)
    assert SECRET not in out.out + out.err
    found = cli(
        "--vault", str(vault), "query", "indexer writer per batch", "--kind", "session", "--json"
    )
    assert found.code == 0, found.err
    hits = found.json()["hits"] if isinstance(found.json(), dict) else found.json()
    assert hits[0]["path"] == CASES["codex.jsonl"][1]
    missing = cli("--vault", str(vault), "import-session", str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and missing.err.count("\n") == 1
    assert missing.err.startswith(f"Error: {tmp_path / 'nope.jsonl'}: cannot read")


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_prefix_of_a_transcript_reads_or_fails_in_one_line(name: str) -> None:
    """A file cut anywhere (a transcript being written, a partial copy) never escapes as
    anything but a one-line TranscriptError naming the file."""
    text = (HERE / name).read_text(encoding="utf-8")
    for end in range(0, len(text), 11):
        try:
            read_transcript(text[:end], name)
        except TranscriptError as exc:
            assert str(exc).startswith(f"{name}:") and "\n" not in str(exc)


def test_a_long_session_is_cut_to_the_configured_size(vault: Path, tmp_path: Path) -> None:
    (vault / "vault-sync.toml").write_text(
        (vault / "vault-sync.toml").read_text(encoding="utf-8")
        + "\n[write]\nsession_max_chars = 4000\n",
        encoding="utf-8",
    )
    turns = "".join(
        f"User: question {i} about the ledger\nAssistant: answer {i}\n" for i in range(300)
    )
    file = tmp_path / "long.txt"
    file.write_text("Session: long-one\nAgent: codex\nDate: 2026-03-09\n" + turns, encoding="utf-8")
    report = Engine.open(vault).write("import-session", files=[str(file)])
    page = (vault / report.pages[0]["path"]).read_text(encoding="utf-8")
    body = page.split("\n---\n", 1)[1]
    assert len(body) <= 4000
    assert "- … and 292 more" in body  # the digest lists 8 of the 300 requests
    assert "more entries left out: size limit)" in body


def test_a_moved_session_page_is_found_by_its_evidence(vault: Path, tmp_path: Path) -> None:
    engine = Engine.open(vault)
    file = planted("gemini.json", tmp_path)
    engine.write("import-session", files=[str(file)])
    old = vault / CASES["gemini.json"][1]
    moved = vault / "search" / "nightly rebuild session.md"
    old.rename(moved)
    engine.sync()
    report = engine.write("import-session", files=[str(file)])
    assert [(p["path"], p["changed"]) for p in report.pages] == [
        ("search/nightly rebuild session.md", False)
    ]
    assert not old.exists()


def test_a_page_citing_the_session_as_evidence_is_not_its_session_page(
    vault: Path, tmp_path: Path
) -> None:
    """An agent reinforces a rule with its own session id, then its session is imported: the
    import makes the session page and leaves the rule alone; a page a person put at the
    session page's path is refused in one line, unchanged."""
    engine = Engine.open(vault)
    session = "session:5f0c2a9e-1b7d-4c3e-9a21-7d4e8b6c0f13"
    engine.write("reinforce", page="Retry policy v3", evidence=session)
    rule = vault / "payments" / "Retry policy v3.md"
    before = rule.read_bytes()
    report = engine.write("import-session", files=[str(planted("claude-code.jsonl", tmp_path))])
    assert [(p["path"], p["changed"]) for p in report.pages] == [
        (CASES["claude-code.jsonl"][1], True)
    ]
    assert rule.read_bytes() == before
    other = planted("codex.jsonl", tmp_path)
    squatter = vault / CASES["codex.jsonl"][1]
    squatter.write_text("---\nkind: note\n---\nmine\n", encoding="utf-8")
    engine.sync()
    with pytest.raises(PageExistsError) as caught:
        engine.write("import-session", files=[str(other)])
    assert str(caught.value) == (
        f"{CASES['codex.jsonl'][1]} is not a session page (kind 'note') but holds this"
        " session's id or path; it is left unchanged"
    )
    assert squatter.read_text(encoding="utf-8") == "---\nkind: note\n---\nmine\n"


def test_one_session_given_twice_is_one_page_and_binary_is_refused(
    vault: Path, tmp_path: Path, cli: Cli
) -> None:
    """Fresh-user report: the same session twice in one call gave a FileExistsError
    traceback (the page on disk, not in the stores); a binary file became a page of NUL
    bytes; a tool's terminal colours reached the page."""
    first = planted("claude-code.jsonl", tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    text = first.read_text(encoding="utf-8").replace("1 failed,", "\\u001b[31m1 failed\\u001b[0m,")
    second = planted("claude-code.jsonl", copy, text)
    out = cli("--vault", str(vault), "import-session", str(first), str(second), "--json")
    assert out.code == 0, out.err
    path = CASES["claude-code.jsonl"][1]
    assert [p["path"] for p in out.json()["pages"]] == [path]
    page = (vault / path).read_text(encoding="utf-8")
    assert "\x1b" not in page and "  1 failed, 1 passed in 0.12s" in page
    status = cli("--vault", str(vault), "status", "--json")
    assert status.json()["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 0,
        "unreadable_new": 0,
    }
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(bytes(range(256)) * 10)
    refused = cli("--vault", str(vault), "import-session", str(binary))
    assert (refused.code, refused.err) == (
        2,
        f"Error: {binary}: not a text transcript (binary data)\n",
    )
    assert not list((vault / "sessions").glob("*bin*"))


@pytest.mark.parametrize("after", ["", "\n", "\n\n"])
def test_a_cut_last_line_imports_the_same_from_a_file_and_a_hook(
    vault: Path, tmp_path: Path, cli: Cli, after: str
) -> None:
    # fresh-user report: a file whose last line was cut off failed as a whole ("not a JSON
    # line", exit 2) from `import-session FILE`, where --hook and --watch took it
    text = (HERE / "claude-code.jsonl").read_text(encoding="utf-8")
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-home-dev-payments"
    folder.mkdir(parents=True)
    cut = text[: text.rstrip("\n").rfind("\n") + 40] + after
    file = planted("claude-code.jsonl", folder, cut)
    said = (
        f"vault-sync: WARNING: {file}: the last line is cut off (a transcript still being"
        " written): imported the complete lines before it\n"
    )
    env = {**os.environ, "HOME": str(home)}
    dry = cli("--vault", str(vault), "import-session", str(file), "--dry-run", env=env)
    assert (dry.code, dry.err.splitlines()[0] + "\n") == (0, said), dry.err
    done = cli("--vault", str(vault), "import-session", str(file), "--json", env=env)
    assert (done.code, done.err) == (0, said)
    page = vault / done.json()["pages"][0]["path"]
    assert "(the transcript's last line was still being written: left out)" in page.read_text()
    hook = subprocess.run(
        [sys.executable, "-m", "vault_sync", "--vault", str(vault), "import-session", "--hook"],
        input=json.dumps({"transcript_path": str(file)}),
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    shown = f"{file} -> {done.json()['pages'][0]['path']}: unchanged (redacted: github_token)\n"
    assert (hook.returncode, hook.stderr) == (0, said + shown)


def test_an_import_title_is_never_cut_inside_a_redaction(vault: Path, tmp_path: Path) -> None:
    # fresh-user report: the title's 60 characters ended `[REDACTED:github_toke…`
    text = (HERE / "claude-code.jsonl").read_text(encoding="utf-8")
    first = "The payment worker hammers the processor after an outage."
    text = text.replace(first, "The payment worker hammers the processor: key @@SECRET@@ now.")
    file = planted("claude-code.jsonl", tmp_path, text)
    report = Engine.open(vault).write("import-session", files=[str(file)])
    page = (vault / report.pages[0]["path"]).read_text(encoding="utf-8")
    title = page.split("\n")[1]
    assert (
        title
        == 'title: "Session 2026-03-05 (claude): The payment worker hammers the processor: key…"'
    )
    assert re.findall(r"\[REDACTED:[a-z_]*.", page) == ["[REDACTED:github_token]"] * page.count(
        "[REDACTED:"
    )
