"""The CLI as a real subprocess: commands, --json shapes, exit codes, bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOBODY, REPO, give_to_nobody, run_cli, write_pages

CLI = Callable[..., Any]
COMMANDS = ["init", "sync", "rebuild", "watch", "query", "show", "status", "lint", "redact", "eval"]

PAGES = {
    "Retry storm.md": (
        "---\ntitle: Retry storm in the payment worker\nkind: decision\nproject: payments\n"
        "tags: [incident, retries]\naliases: [retry storm]\nfixes: '[[Bug 12]]'\n"
        "evidence:\n  - session:2026-03-01-claude-a1b2\n"
        "  - {kind: observation, source: obs-77, at: 2026-03-02}\n---\n"
        "# Retry storm\n\nThe worker retried forever. See [[Queue backlog]].\n"
    ),
    "Bug 12.md": "---\nkind: bug\n---\n# Bug 12\n\nRetries pile up.\n",
    "notes/Queue backlog.md": "# Queue backlog\n\nThe queue grew. [[Missing page]]\n",
}


@pytest.fixture
def vault(make_vault: Callable[..., Path]) -> Path:
    return make_vault(PAGES)


def test_every_command_has_help_and_a_docs_entry(cli: CLI) -> None:
    docs = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        result = cli(command, "--help")
        assert result.code == 0, result.err
        assert "Usage:" in result.out
        assert f"## `vault-sync {command}" in docs, command


#: Retry storm's confidence on 2026-03-10: one session and one observation (weight 1.5, each
#: session halving the doubt), its newest evidence 8 days old (half-life 180 days).
CONFIDENCE = round((1 - 0.5**1.5) * 0.5 ** (8 / 180), 4)


def test_query_json_shape_is_pinned(cli: CLI, vault: Path) -> None:
    result = cli("--vault", str(vault), "query", "retry storm", "--json", "--now", "2026-03-10")
    assert result.code == 0, result.err
    data = result.json()
    assert list(data) == ["query", "hits"]
    keys = ["id", "path", "title", "kind", "project", "status", "tags", "score", "snippet",
            "highlights", "confidence"]  # fmt: skip
    assert [list(hit) for hit in data["hits"]] == [keys] * len(data["hits"])
    hit = data["hits"][0]
    assert isinstance(hit.pop("score"), float)
    assert hit == {
        "id": "Retry storm",
        "path": "Retry storm.md",
        "title": "Retry storm in the payment worker",
        "kind": "decision",
        "project": "payments",
        "status": "active",
        "tags": ["incident", "retries"],
        # plain text (no `#`, no `[[...]]`), the matched words as offsets into it
        "snippet": "Retry storm The worker retried forever. See Queue backlog.",
        "highlights": [[0, 5], [6, 11], [23, 30]],
        "confidence": CONFIDENCE,
    }
    assert "took_ms" not in data
    assert "took_ms" in cli("--vault", str(vault), "query", "x", "--json", "--timings").json()


def test_query_filters_and_vault_after_command(cli: CLI, vault: Path) -> None:
    data = cli("query", "retries", "--kind", "bug", "--json", "--vault", str(vault)).json()
    assert [h["path"] for h in data["hits"]] == ["Bug 12.md"]
    data = cli("query", "retries", "--project", "payments", "--json", "--vault", str(vault)).json()
    assert [h["path"] for h in data["hits"]] == ["Retry storm.md"]
    data = cli("query", "retries", "--tag", "incident", "--json", "--vault", str(vault)).json()
    assert [h["path"] for h in data["hits"]] == ["Retry storm.md"]


def test_rebuild_gives_byte_identical_query_json(cli: CLI, vault: Path) -> None:
    cli("--vault", str(vault), "sync")
    first = cli("--vault", str(vault), "query", "retry queue worker", "--json").out
    shutil.rmtree(vault / ".vault-sync")
    assert cli("--vault", str(vault), "rebuild").code == 0
    assert cli("--vault", str(vault), "query", "retry queue worker", "--json").out == first


def test_show_by_alias_title_path_and_id(cli: CLI, vault: Path) -> None:
    for ref in (
        "retry storm",
        "Retry storm.md",
        "Retry storm",
        "RETRY STORM IN THE PAYMENT WORKER",
    ):
        result = cli("--vault", str(vault), "show", ref, "--json")
        assert result.code == 0, (ref, result.err)
        data = result.json()
        assert data["path"] == "Retry storm.md"
    assert {e["kind"] for e in data["evidence"]} == {"session", "observation"}
    types = {(link["type"], link["target"]) for link in data["links_out"]}
    assert ("fixes", "Bug 12") in types and ("references", "Queue backlog") in types
    missing = cli("--vault", str(vault), "show", "nothing here")
    assert missing.code == 1 and missing.err.startswith("Error: ")


def test_status_json(cli: CLI, vault: Path) -> None:
    cli("--vault", str(vault), "sync")
    data = cli("--vault", str(vault), "status", "--json").json()
    assert data["pages"] == 3
    assert data["pages_by_kind"] == {"bug": 1, "decision": 1, "note": 1}
    assert data["links_unresolved"] == 1
    assert data["evidence_rows"] == 2
    assert data["generation"] == 1  # one sync of three pages: one batch
    assert data["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 0,
        "unreadable_new": 0,
    }
    (vault / "new.md").write_text("x\n", encoding="utf-8")
    assert cli("--vault", str(vault), "status", "--json").json()["drift"]["new"] == 1


def test_lint_exit_codes(cli: CLI, vault: Path) -> None:
    result = cli("--vault", str(vault), "lint", "--json")
    assert result.code == 0, result.err  # unresolved links are warnings
    data = result.json()
    assert data["errors"] == 0
    assert [p["code"] for p in data["problems"]] == ["unresolved_link"]
    (vault / "broken.md").write_text("---\ntitle: a: b\n---\nbody\n", encoding="utf-8")
    cli("--vault", str(vault), "sync")
    result = cli("--vault", str(vault), "lint")
    assert result.code == 1
    assert "broken.md:2: error" in result.out


def test_missing_vault_is_exit_2_without_traceback(cli: CLI, tmp_path: Path) -> None:
    result = cli("--vault", str(tmp_path / "nope"), "query", "x")
    assert result.code == 2
    assert "does not exist" in result.err and "Traceback" not in result.err


@pytest.mark.parametrize("root", ["/", "/proc/self", "/sys", "/dev", "/dev/shm"])
def test_system_folders_are_refused_as_vaults(root: str) -> None:
    # In process: the landed head accepted these, and a CLI run would have indexed them.
    from vault_sync.discover import find_vault
    from vault_sync.errors import NotAVaultError

    with pytest.raises(NotAVaultError, match="refusing"):
        find_vault(root)


def test_the_home_and_temp_folders_are_never_a_vault_by_their_markdown_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fresh-user report: ``cd /tmp && vault-sync status`` took ``/tmp`` (stray ``.md``
    files) for a vault and indexed all of it. A folder below them still is one."""
    from vault_sync.discover import find_vault
    from vault_sync.errors import NotAVaultError

    home, temp = tmp_path / "home", tmp_path / "temp"
    temp.mkdir()
    for folder in (home, temp, home / "notes"):
        folder.mkdir(exist_ok=True)
        (folder / "stray.md").write_text("x", encoding="utf-8")
    monkeypatch.setenv("TMPDIR", str(temp))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read $TMPDIR again
    for folder in (home, temp):
        with pytest.raises(NotAVaultError, match="is the home or temp folder"):
            find_vault(cwd=folder)
    assert find_vault(cwd=home / "notes") == (home / "notes").resolve()
    assert find_vault(home) == home.resolve()  # named: still a vault
    (temp / ".obsidian").mkdir()
    assert find_vault(cwd=temp) == temp.resolve()  # marked: still a vault


def test_system_folder_and_empty_vault_are_one_line_exit_2(cli: CLI, vault: Path) -> None:
    result = cli("--vault", "/", "status")
    assert (result.code, result.err) == (
        2,
        "Error: refusing / as a vault: it is the file system root\n",
    )
    for args in (("--vault", "", "status"), ("status", "--vault", "")):
        result = cli(*args, cwd=vault)
        assert result.code == 2, args
        assert "must name a folder, not empty text" in result.err and "Traceback" not in result.err
    assert not (vault / ".vault-sync").exists()


def test_a_store_folder_or_a_folder_inside_one_is_refused_as_a_vault(cli: CLI, vault: Path) -> None:
    """Fresh-user report: `--vault ex/.vault-sync sync` made a store inside the store."""
    assert cli("--vault", str(vault), "sync").code == 0
    store = (vault / ".vault-sync").resolve()
    before = sorted(p.name for p in store.iterdir())
    inner = next(store.glob("set-*"))
    for folder, where in ((store, "it is"), (inner, f"it is inside {store},")):
        for args in (("--vault", str(folder), "sync"), ("init", "--vault", str(folder))):
            result = cli(*args)
            assert (result.code, result.out, result.err) == (
                2,
                "",
                f"Error: refusing {folder} as a vault: {where} a vault-sync store folder (pass"
                " the vault, not its store)\n",
            ), args
        found = cli("status", cwd=folder)  # found by looking upward: the vault holding it
        assert found.code == 0 and found.out.startswith(f"vault: {vault.resolve()}\n"), found.err
    assert sorted(p.name for p in store.iterdir()) == before
    assert not (store / ".vault-sync").exists() and not (inner / "vault-sync.toml").exists()


def test_an_unreadable_vault_is_one_line_without_usage_text(open_folder: Path) -> None:
    """Fresh-user report: `status` on a vault of mode 000 (as nobody) printed click's usage
    text before the error (click's own readability check of --vault)."""
    vault = write_pages(open_folder / "vault", {"a.md": "alpha\n"})
    give_to_nobody(vault)
    vault.chmod(0o000)
    line = f"Error: cannot read the vault folder {vault.resolve()}: Permission denied\n"
    for args in (
        ("--vault", str(vault), "status"),
        ("status", "--vault", str(vault)),
        ("--vault", str(vault), "sync"),
        ("--vault", str(vault), "query", "alpha"),
    ):
        result = run_cli(*args, user=NOBODY, env={"HOME": str(open_folder)})
        assert (result.code, result.out, result.err) == (1, "", line), args


def test_empty_folder_is_refused_outside_a_vault(cli: CLI, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("status", cwd=empty)
    assert result.code == 2
    assert "not a vault" in result.err


def test_vault_discovered_upward_and_from_env(cli: CLI, vault: Path) -> None:
    sub = vault / "notes"
    assert cli("query", "queue", "--json", cwd=sub).json()["hits"][0]["path"] == (
        "notes/Queue backlog.md"
    )
    assert (
        cli(
            "query", "queue", "--json", cwd=REPO / "tests", env={"VAULT_SYNC_VAULT": str(vault)}
        ).code
        == 0
    )


def test_query_syntax_error_is_exit_2(cli: CLI, vault: Path) -> None:
    result = cli("--vault", str(vault), "query", '" "')
    assert result.code == 2 and "no searchable words" in result.err
    assert "Traceback" not in result.err
    assert cli("--vault", str(vault), "query", '"unclosed').code == 0  # a lone quote is text


def test_odd_query_text_is_not_an_error(cli: CLI, vault: Path) -> None:
    # Each text's exit code is exact: only a query with no searchable word is a usage error.
    assert cli("--vault", str(vault), "sync").code == 0
    codes = {"retry: storm": 0, "a(b": 0, "x*": 0, "title:": 0, "AND": 0, "[[Bug 12]]": 0, "-": 2}
    for text, code in codes.items():
        result = cli("--vault", str(vault), "query", text, "--json")
        assert result.code == code, (text, result.err)
        if code:
            assert result.err == f"Error: no searchable words in query: {text!r}\n"
        else:
            assert result.err == ""


def test_not_utf8_and_huge_page(cli: CLI, vault: Path) -> None:
    (vault / "latin1.md").write_bytes("caf\xe9 résumé uniqueword\n".encode("latin-1"))
    big = ("lorem ipsum dolor sit amet " * 200 + "\n") * 950 + "needleatend\n"
    (vault / "big.md").write_text(big, encoding="utf-8")
    assert len(big) > 5_000_000
    assert cli("--vault", str(vault), "sync").code == 0
    hits = cli("--vault", str(vault), "query", "needleatend", "--json").json()["hits"]
    assert [h["path"] for h in hits] == ["big.md"]
    hits = cli("--vault", str(vault), "query", "uniqueword", "--json").json()["hits"]
    assert [h["path"] for h in hits] == ["latin1.md"]
    lint = cli("--vault", str(vault), "lint", "--json").json()
    assert any(p["code"] == "not_utf8" and p["path"] == "latin1.md" for p in lint["problems"])


def test_init_writes_config_and_gitignore_only(cli: CLI, tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    (folder / "page.md").write_text("hello\n", encoding="utf-8")
    assert cli("init", cwd=folder).code == 0
    assert (folder / "vault-sync.toml").is_file()
    assert ".vault-sync/" in (folder / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert (folder / "page.md").read_text(encoding="utf-8") == "hello\n"
    assert cli("init", cwd=folder).code == 0  # idempotent
    assert (folder / ".gitignore").read_text(encoding="utf-8").count(".vault-sync/") == 1


def test_second_sync_says_nothing_to_do(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    again = cli("--vault", str(vault), "sync")
    assert "nothing to do" in again.out
    data = cli("--vault", str(vault), "sync", "--json").json()
    assert data["added"] == data["changed"] == data["deleted"] == 0


def test_watch_json_log_turns_python_warnings_into_json_lines(
    make_vault: Callable[..., Path],
) -> None:
    import signal
    import subprocess
    import sys
    import threading

    vault = make_vault({"a.md": "one\n"})
    go = vault.parent / "go"
    # The warning is raised only once the test has seen the watcher's first batch line (so
    # --json-log is in force), and the test stops the watcher once it has read the warning.
    script = (
        "import os, sys, threading, warnings\n"
        "from vault_sync.cli import main\n"
        "def warn_when_told():\n"
        f"    while not os.path.exists({str(go)!r}):\n"
        "        threading.Event().wait(0.01)\n"
        "    warnings.warn('a library warns', RuntimeWarning)\n"
        "threading.Thread(target=warn_when_told, daemon=True).start()\n"
        "main(sys.argv[1:])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "--vault", str(vault), "watch", "--json-log"],
        stderr=subprocess.PIPE,
        text=True,
    )
    killer = threading.Timer(120, proc.kill)  # a hang fails the test, never blocks the suite
    killer.start()
    records = []
    assert proc.stderr is not None
    for line in proc.stderr:
        records.append(json.loads(line))  # every line parses
        if "reconcile" in records[-1]:
            go.touch()
        if "a library warns" in line:
            break
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    killer.cancel()
    assert any("a library warns" in json.dumps(r) for r in records), records


def test_lint_reports_a_page_sync_could_not_read(open_folder: Path) -> None:
    """As the user nobody, a root-owned page of mode 000 (was ``/proc/self/mem``, now never
    read at all: fresh-user report 3)."""
    vault = write_pages(open_folder / "vault", {".obsidian/app.json": "{}", "a.md": "fine\n"})
    give_to_nobody(vault)
    (vault / "mem.md").write_text("secret\n", encoding="utf-8")
    (vault / "mem.md").chmod(0o000)
    env = {"HOME": str(open_folder)}
    assert run_cli("--vault", str(vault), "sync", user=NOBODY, env=env).code == 0
    (vault / "new.md").write_text("not synced yet, readable\n", encoding="utf-8")
    lint = run_cli("--vault", str(vault), "lint", "--json", user=NOBODY, env=env)
    assert lint.code == 1
    found = {(p["path"], p["code"]) for p in lint.json()["problems"]}
    assert ("mem.md", "unreadable") in found
    assert not any(path == "new.md" for path, _ in found)


def test_a_newline_or_tab_in_a_file_name_never_splits_a_one_line_problem(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    vault = make_vault({"bad\nname.md": "---\ntitle: a: b\n---\nbody\n", "tab\tx.md": "[[gone]]\n"})
    assert cli("--vault", str(vault), "sync").code == 0
    lint = cli("--vault", str(vault), "lint")
    assert lint.code == 1
    assert lint.out.splitlines() == [
        "bad\\nname.md:2: error yaml_error: invalid YAML in frontmatter: mapping values are not"
        " allowed in this context",
        "tab\\tx.md:1: warning unresolved_link: [[gone]] names no page",
        "1 error, 1 warning",
    ]
    hits = cli("--vault", str(vault), "query", "body").out.splitlines()
    assert hits[0].startswith("1. bad\\nname  [bad\\nname.md]  (note)  score "), hits
    assert len(hits) == 2, hits  # the hit line and its snippet


def test_status_drift_leaves_out_files_whose_names_hold_a_secret(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    """Issue 14, fault 9: sync never stores such a file, so it was "new" drift for ever."""
    from tests.test_sanitize import POSITIVE

    vault = make_vault({"a.md": "one\n", f"{POSITIVE['github_token'][1]}.md": "two\n"})
    assert cli("--vault", str(vault), "sync").code == 0
    drift = cli("--vault", str(vault), "status", "--json").json()["drift"]
    assert drift == {"new": 0, "changed": 0, "deleted": 0, "unreadable": 0, "unreadable_new": 0}
    (vault / "b.md").write_text("three\n", encoding="utf-8")
    assert cli("--vault", str(vault), "status", "--json").json()["drift"]["new"] == 1


def test_filter_mistakes_are_answered(cli: CLI, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "example-vault", vault)
    bug = "payments/Bug PAY-231 retry storm in the payment worker.md"
    plain = cli("--vault", str(vault), "query", "retry", "--tag", "incident", "--json")
    hashed = cli("--vault", str(vault), "query", "retry", "--tag", "#incident", "--json")
    assert plain.code == hashed.code == 0
    assert [h["path"] for h in hashed.json()["hits"]] == [h["path"] for h in plain.json()["hits"]]
    assert bug in [h["path"] for h in hashed.json()["hits"]]
    # a kind no page has: a warning listing the kinds present, not silence
    kinds = cli("--vault", str(vault), "query", "retry", "--kind", "nonsense")
    assert kinds.code == 0 and kinds.out == "no pages found\n"
    assert kinds.err == (
        "vault-sync: warning: no page has kind 'nonsense' (kinds present: bug, concept,"
        " decision, entity, gotcha, note, observation, preference, procedure, rule, session)\n"
    )
    # a real kind that matches nothing here is not warned about
    quiet = cli("--vault", str(vault), "query", "zebra", "--kind", "rule")
    assert quiet.code == 0 and quiet.err == ""
    project = cli("--vault", str(vault), "query", "retry", "--project", "paymnts", "--json")
    assert project.code == 0 and project.json()["hits"] == []
    assert "no page has project 'paymnts' (projects present: " in project.err
    status = cli("--vault", str(vault), "query", "retry", "--status", "bogus")
    assert (status.code, status.out) == (0, "no pages found\n")
    assert status.err == (
        "vault-sync: warning: no page has status 'bogus' (statuses present: active, archived,"
        " historical, superseded)\n"
    )


def test_terminal_control_sequences_in_page_text_never_reach_the_terminal(
    cli: CLI, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    osc_title = (
        "Evil \\u001b]0;pwned\\u0007 title \\u001b]8;;http://x\\u001b\\\\link\\u001b]8;;\\u001b\\\\"
    )
    body = "body \x1b]0;owned\x07 with \x1b[31mred\x1b[0m \x9b2J and \x1bPq#0\x1b\\ lantern\n"
    (vault / "a.md").write_text(f'---\ntitle: "{osc_title}"\n---\n{body}', encoding="utf-8")
    for args in (["query", "lantern"], ["query", "lantern", "--explain"], ["show", "a"],
                 ["status"], ["lint"]):  # fmt: skip
        result = cli("--vault", str(vault), *args)
        assert result.code == 0, (args, result.err)
        text = result.out + result.err
        assert not any(c == "\x1b" or "\x80" <= c <= "\x9f" or c == "\x07" for c in text), args
    shown = cli("--vault", str(vault), "query", "lantern").out.splitlines()
    assert shown[0] == "1. Evil  title link  [a.md]  (note)  score " + shown[0].rsplit(" ", 1)[1]
    assert shown[1] == "   body with red and **lantern**"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x1b[1;31mb\x1b[0mc", "abc"),
        ("a\x1b]0;t\x07b", "ab"),
        ("a\x1b]8;;http://x\x1b\\b\x1b]8;;\x1b\\c", "abc"),
        ("a\x1b]52;c;ZXZpbA==", "a"),  # an unclosed OSC swallows the rest, as a terminal would
        ("a\x9b31mb\x9d0;t\x9cc", "abc"),
        ("a\x1bPq#0;2\x1b\\b\x1b_apc\x1b\\c", "abc"),
        ("a\x1b7b\x1b(Bc\x1b", "abc"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
    ],
)
def test_strip_controls(text: str, shown: str) -> None:
    from vault_sync.terminal import strip_controls

    assert strip_controls(text) == shown


def test_strip_controls_is_linear() -> None:
    import time

    from vault_sync.terminal import strip_controls

    def cost(n: int) -> float:
        text = ("\x1b[" + "0;" * 10 + "\x1b]" + "x" * 10 + "\x9b") * n
        started = time.process_time()
        strip_controls(text)
        return time.process_time() - started

    small, large = cost(2000), cost(32000)
    assert large < 16 * 4 * small + 0.05  # 16x the input: well under quadratic


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_secret_in_a_utf16_or_utf32_page_never_leaves(
    cli: CLI, tmp_path: Path, codec: str
) -> None:
    # PowerShell `>` and Notepad's "Unicode" save UTF-16; read as UTF-8 the token became
    # g\0h\0p\0_... and no rule matched it (fresh-user report)
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "wide.md").write_bytes(f"# Wide\n\nlantern token {token}\n".encode(codec))
    commands = (
        ["query", "lantern", "--json"],
        ["query", "lantern"],
        ["show", "wide"],
        ["lint", "--json"],
        ["redact", "--all"],
        ["status"],
    )
    outputs = [cli("--vault", str(vault), *args) for args in commands]
    query = outputs[0].json()["hits"]
    assert [h["path"] for h in query] == ["wide.md"]
    assert "[REDACTED:github_token]" in query[0]["snippet"]
    lint = outputs[3].json()
    codes = sorted(p["code"] for p in lint["problems"] if p["path"] == "wide.md")
    assert codes == ["not_utf8", "secret"]
    for piece in (token, token[8:20]):
        for form in ("utf-8", "utf-16-le", "utf-16-be"):
            needle = piece.encode(form)
            assert not any(needle in o.out.encode() + o.err.encode() for o in outputs)
            store = vault / ".vault-sync"
            leaked = [f for f in store.rglob("*") if f.is_file() and needle in f.read_bytes()]
            assert leaked == [], (form, leaked)
    assert (vault / "wide.md").read_bytes() == f"# Wide\n\nlantern token {token}\n".encode(codec)


def test_a_secret_in_the_vault_folder_name_is_never_printed(cli: CLI, tmp_path: Path) -> None:
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    vault = tmp_path / f"notes-{token}"
    vault.mkdir()
    (vault / "a.md").write_text("lantern\n")
    first = cli("--vault", str(vault), "query", "lantern")  # syncs first: a notice names it
    assert first.code == 0 and "synced 1 page of" in first.err
    outputs = [first] + [
        cli("--vault", str(vault), *args)
        for args in (["status"], ["status", "--json"], ["sync", "--json"], ["lint"])
    ]
    assert [o.code for o in outputs] == [0] * 5
    assert outputs[2].json()["vault"] == str(tmp_path / "notes-[REDACTED:github_token]")
    assert not any(token[8:20] in o.out + o.err for o in outputs)


def test_a_config_name_that_is_a_folder_is_an_error(cli: CLI, tmp_path: Path) -> None:
    # fresh-user report: a vault-sync.toml folder was silently ignored (and rebuilt the stores)
    vault = tmp_path / "vault"
    (vault / "vault-sync.toml").mkdir(parents=True)
    (vault / "a.md").write_text("lantern\n")
    result = cli("--vault", str(vault), "sync")
    assert result.code == 2
    reason = "is not a file (a folder or special file by that name)"
    assert result.err == f"Error: {vault / 'vault-sync.toml'}: {reason}\n"


def test_explain_never_echoes_a_secret_typed_into_the_query(tmp_path: Path) -> None:
    from tests.conftest import run_cli, write_pages

    vault = write_pages(tmp_path / "v", {"a.md": "retry storm notes\n"})
    for args in (["--json", "--explain"], ["--explain"]):
        out = run_cli("--vault", str(vault), "query", "PASSWORD=Hunter2024! retry", *args)
        assert out.code == 0, out.err
        assert "Hunter2024" not in out.out + out.err


def test_now_takes_an_iso_datetime_with_z(tmp_path: Path) -> None:
    from tests.conftest import run_cli, write_pages

    vault = write_pages(tmp_path / "v", {"a.md": "retry storm notes\n"})
    out = run_cli("--vault", str(vault), "query", "retry", "--now", "2026-03-04T09:10:00Z")
    assert out.code == 0, out.err


@pytest.mark.parametrize(
    "args",
    [
        ["query", "retry", "--as-of", "{t}"],
        ["query", "retry", "--now", "{t}"],
        ["query", "retry", "--limit", "{t}"],
        ["brief", "--budget-chars", "{t}"],
        ["import-session", "x.jsonl", "--format", "{t}"],
        ["resolve", "A", "--by", "{t}"],
        ["{t}"],
        ["query", "a", "b", "{t}"],
        ["eval", "locomo", "/nonexistent/{t}"],
    ],
)
def test_usage_errors_never_echo_a_secret(cli: CLI, vault: Path, args: list[str]) -> None:
    """click quotes the value it refuses: the whole message is scrubbed (fresh-user report:
    `--as-of ghp_…` came back in clear)."""
    token = "ghp_u8jzQ2wE5rT7yU9iO1pA3sD5fG7hJ9kL1zX3"
    out = cli("--vault", str(vault), *[a.replace("{t}", token) for a in args])
    assert out.code == 2, out.err
    assert token[4:16] not in out.err + out.out
    assert "[REDACTED:github_token]" in out.err


def test_titles_from_the_file_stem_or_the_first_h1_through_the_config(
    cli: CLI, tmp_path: Path
) -> None:
    # issue 16, item 1: a SilverBullet-style page (first H1 a section) is named by its file;
    # `title_from = "h1"` in vault-sync.toml names it by its first H1, and changing the key
    # re-reads the pages on the next sync
    vault = tmp_path / "vault"
    (vault / "Library").mkdir(parents=True)
    (vault / "Library" / "Query.md").write_text("# Why\n\nA lantern query.\n", encoding="utf-8")
    (vault / "Titled.md").write_text("---\ntitle: Kept\n---\n# Other\nlantern\n", "utf-8")

    def titles() -> dict[str, str]:
        result = cli("--vault", str(vault), "query", "lantern", "--json")
        assert result.code == 0, result.err
        return {h["path"]: h["title"] for h in result.json()["hits"]}

    assert cli("--vault", str(vault), "sync").code == 0
    assert titles() == {"Library/Query.md": "Query", "Titled.md": "Kept"}
    (vault / "vault-sync.toml").write_text('title_from = "h1"\n', encoding="utf-8")
    assert cli("--vault", str(vault), "sync").code == 0
    assert titles() == {"Library/Query.md": "Why", "Titled.md": "Kept"}
    (vault / "vault-sync.toml").write_text('title_from = "heading"\n', encoding="utf-8")
    bad = cli("--vault", str(vault), "sync")
    assert bad.code != 0 and bad.err.count("\n") == 1
    assert """key 'title_from' must be "stem" or "h1" (got 'heading')""" in bad.err


def test_lint_names_a_frontmatter_block_never_closed(cli: CLI, tmp_path: Path) -> None:
    """Fresh-user report: write commands refused such a page while lint said nothing."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "p.md").write_text("---\ntitle: X\nkind: rule\n\nbody text\n", encoding="utf-8")
    (vault / "q.md").write_text("---\ntitle: Y\n---\nfine\n", encoding="utf-8")
    out = cli("--vault", str(vault), "lint")
    assert (out.code, out.out) == (
        0,
        "p.md:1: warning frontmatter_unclosed: frontmatter opened on line 1 is never closed by"
        " a --- line: read as body text\n0 errors, 1 warning\n",
    )


def _on_a_terminal(*args: str, columns: int) -> str:
    """What ``python -m vault_sync ARGS`` prints to a pseudo-terminal ``columns`` wide."""
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns)}
    command = [sys.executable, "-m", "vault_sync", *args]
    proc = subprocess.Popen(command, stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    proc.wait(timeout=60)
    return out.decode().replace("\r\n", "\n")


def test_lint_cuts_its_lines_to_the_terminal_width_and_json_keeps_them(
    cli: CLI, tmp_path: Path
) -> None:
    """Fresh-user report: a long message ran over many terminal rows."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "术语.md").write_text(f"[[{'长' * 30}]] and [[short]]\n", encoding="utf-8")
    full = [
        "术语.md:1: warning unresolved_link: [[short]] names no page",
        f"术语.md:1: warning unresolved_link: [[{'长' * 30}]] names no page",
    ]
    assert cli("--vault", str(vault), "sync").code == 0
    # 60 columns: each wide character takes two, the cut line ends with … in the last
    assert _on_a_terminal("--vault", str(vault), "lint", columns=60).splitlines() == [
        full[0],
        f"术语.md:1: warning unresolved_link: [[{'长' * 10}…",
        "0 errors, 2 warnings",
    ]
    piped = cli("--vault", str(vault), "lint", env={"COLUMNS": "60"})
    assert piped.out.splitlines() == [*full, "0 errors, 2 warnings"]
    data = cli("--vault", str(vault), "lint", "--json").json()
    prefix = len("术语.md:1: warning unresolved_link: ")
    assert [p["message"] for p in data["problems"]] == [f[prefix:] for f in full]


def test_an_error_with_json_is_json_on_stdout_too(tmp_path: Path) -> None:
    """A script parsing ``--json`` output got an empty stdout on an error (a fresh user's
    report): the scrubbed message and the exit code are one JSON object there too; without
    ``--json`` stdout stays empty."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("# a\nalpha\n")
    out = run_cli("--vault", str(vault), "show", "nosuch", "--json")
    message = "no page matches 'nosuch' (by id, path, file name, title or alias)"
    assert (out.code, json.loads(out.out)) == (1, {"error": message, "exit_code": 1})
    assert out.err == f"Error: {message}\n"
    bad = run_cli("--vault", str(vault), "query", "x", "--as-of", "nope", "--json")
    assert bad.code == 2 and json.loads(bad.out)["exit_code"] == 2
    assert "Invalid value for '--as-of'" in json.loads(bad.out)["error"]
    plain = run_cli("--vault", str(vault), "show", "nosuch")
    assert (plain.code, plain.out) == (1, "")


def test_a_folder_in_a_git_repository_is_no_vault_by_its_markdown_alone(
    tmp_path: Path, cli: CLI
) -> None:
    """Fresh-user report 5, item 18: a briefing's ``vault-sync query``, run by an agent in its
    code repository without ``$VAULT_SYNC_VAULT``, indexed the repository's README (a
    ``.vault-sync/`` made there) and answered "no pages found", exit 0."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "README.md").write_text("# payments service\n", encoding="utf-8")
    (repo / "docs" / "setup.md").write_text("# setup\n", encoding="utf-8")
    for where in (repo, repo / "docs"):
        out = cli("query", "retry storm", cwd=where, env={"VAULT_SYNC_VAULT": ""})
        assert (out.code, out.out) == (2, "")
        assert out.err == (
            f"Error: not a vault: {where.resolve()} holds Markdown files, but it is in the git"
            f" repository {repo.resolve()}, which is not taken for a vault by its README and"
            " docs alone (pass --vault, set VAULT_SYNC_VAULT, or run vault-sync init there)\n"
        )
    assert not (repo / ".vault-sync").exists() and not (repo / "docs" / ".vault-sync").exists()
    (repo / ".git").rmdir()
    (repo / ".git").write_text("gitdir: ../elsewhere\n", encoding="utf-8")  # a worktree
    assert cli("status", cwd=repo, env={"VAULT_SYNC_VAULT": ""}).code == 2
    (repo / "vault-sync.toml").write_text("", encoding="utf-8")  # a notes repo, initialised
    found = cli("status", "--json", cwd=repo / "docs", env={"VAULT_SYNC_VAULT": ""})
    assert found.code == 0, found.err
    assert found.json()["vault"] == str(repo.resolve())


def test_an_empty_tag_filter_is_a_usage_error_and_counts_say_page_for_one(
    tmp_path: Path, cli: CLI
) -> None:
    """Fresh-user report 5, items 7 and 9: ``--tag ''`` matched nothing without a word, and
    one page was "1 pages"."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("---\ntags: [ops]\n---\nretry storm\n", encoding="utf-8")
    first = cli("--vault", str(vault), "query", "retry")
    assert first.err == f"vault-sync: no index yet: synced 1 page of {vault.resolve()} first\n"
    again = cli("--vault", str(vault), "sync")
    assert again.out == "sync: nothing to do (1 page unchanged, generation 1)\n"
    for empty in ("", "#", " # "):
        out = cli("--vault", str(vault), "query", "retry", "--tag", empty)
        assert (out.code, out.out) == (2, "")
        assert out.err.splitlines()[-1] == (
            "Error: the tag filter is empty: name a tag (incident, #incident, ops/deploy)"
        )
    assert cli("--vault", str(vault), "query", "retry", "--tag", "#ops").code == 0
