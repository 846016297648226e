"""`vault-sync import-session --watch DIR` and `--hook` (issue 13, Build 2): a real
subprocess, real watchdog events. A transcript written in two steps (its last line cut
short, then finished) gives one page, updated to the golden page of the whole transcript; a
Codex rollout saved by rename in a nested folder is imported; a file that is not a
transcript is left alone; a bad transcript is one error line and the watcher keeps serving;
Ctrl-C stops it cleanly. An agent's end-of-session hook input on stdin imports the
transcript it names, its project from the hook's working directory, stdout left clean.

Every wait is for a line the watcher prints (event-driven; the timeout only bounds a hang).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from tests import test_import
from tests.test_import import CASES, HERE, SECRET
from vault_sync.app import Engine

vault = test_import.vault  # the example vault, synced (a fixture)

#: Generous: bounds a hang on a loaded CI machine; a working watcher answers in well under 1 s.
TIMEOUT_S = 30.0


class ImportWatch:
    """``vault-sync --vault V import-session --watch DIR --json`` with its lines queued."""

    def __init__(self, vault: Path, folder: Path, *extra: str) -> None:
        command = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "import-session"]
        self.proc = subprocess.Popen(
            [*command, "--watch", str(folder), "--json", "--debounce-ms", "100", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.readers = [
            threading.Thread(target=self._read, args=(stream, into), daemon=True)
            for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream: IO[str] | None, into: queue.Queue[str]) -> None:
        assert stream is not None
        for line in stream:
            into.put(line.rstrip("\n"))

    def said(self) -> str:
        """The next stderr line."""
        return self.err.get(timeout=TIMEOUT_S)

    def answer(self) -> dict[str, Any]:
        """The next import's JSON line."""
        data = json.loads(self.out.get(timeout=TIMEOUT_S))
        assert isinstance(data, dict)
        return data

    def stop(self) -> tuple[int, str]:
        """Ctrl-C; the exit code and the rest of stderr."""
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=TIMEOUT_S)
        for reader in self.readers:  # each ends at its stream's end
            reader.join(timeout=TIMEOUT_S)
        rest = []
        while not self.err.empty():
            rest.append(self.err.get_nowait())
        return code, "\n".join(rest)


def test_watch_imports_a_growing_transcript_into_one_page(vault: Path, tmp_path: Path) -> None:
    folder = tmp_path / "claude-projects"
    (folder / "-home-dev-payments").mkdir(parents=True)
    watch = ImportWatch(vault, folder)
    try:
        assert watch.said().startswith(f"watching {folder} for transcripts")
        whole = (
            (HERE / "claude-code.jsonl").read_text(encoding="utf-8").replace("@@SECRET@@", SECRET)
        )
        last = whole.rstrip("\n").rfind("\n") + 1
        file = folder / "-home-dev-payments" / "5f0c2a9e.jsonl"
        with file.open("w", encoding="utf-8") as out:  # the agent, mid-way through a line
            out.write(whole[: last + 40])
        first = watch.answer()
        path = CASES["claude-code.jsonl"][1]
        assert first["file"] == str(file)
        assert [(p["path"], p["changed"]) for p in first["pages"]] == [(path, True)]
        assert first["redacted"] == ["github_token"]
        page = (vault / path).read_text(encoding="utf-8")
        assert SECRET not in page and "[REDACTED:github_token]" in page
        golden = (HERE / "claude-code.expected.md").read_text(encoding="utf-8")
        assert page != golden  # the cut-short last line is not in it yet
        with file.open("a", encoding="utf-8") as out:  # ... then finishes it
            out.write(whole[last + 40 :])
        second = watch.answer()
        assert [(p["path"], p["changed"]) for p in second["pages"]] == [(path, True)]
        assert (vault / path).read_text(encoding="utf-8") == golden
        sessions = [p.name for p in (vault / "sessions").iterdir() if "5f0c2a9e" in p.name]
        assert sessions == [Path(path).name]
        found, _ = Engine.open(vault).search("spreads its retries", kind="session")
        assert found and found[0].path == path
    finally:
        code, rest = watch.stop()
    assert code == 0 and rest.endswith("stopped"), rest


def test_watch_takes_renames_skips_other_files_and_survives_a_bad_one(
    vault: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "codex-sessions"
    day = folder / "2026" / "03" / "06"
    day.mkdir(parents=True)
    watch = ImportWatch(vault, folder)
    try:
        watch.said()
        bad = day / "rollout-bad.jsonl"
        bad.write_text('{"type": "session_meta", "payload": {}}\n{broken\n{}\n', encoding="utf-8")
        error = json.loads(watch.said())  # on stderr, as without --json (docs/cli.md)
        why = "Expecting property name enclosed in double quotes"
        assert error == {"file": str(bad), "error": f"{bad}:2: not a JSON line ({why})"}
        (day / "notes.md").write_text("not a transcript\n", encoding="utf-8")
        (day / ".rollout-x.jsonl.swp").write_text("{}\n", encoding="utf-8")
        text = (HERE / "codex.jsonl").read_text(encoding="utf-8").replace("@@SECRET@@", SECRET)
        temp = folder / "incoming.tmp"
        temp.write_text(text, encoding="utf-8")
        target = day / "rollout-2026-03-06T14-00-00-0199a3c4.jsonl"
        temp.rename(target)  # an atomic save: only the move's destination is a transcript
        answer = watch.answer()
        assert answer["file"] == str(target)
        assert [(p["path"], p["changed"]) for p in answer["pages"]] == [
            (CASES["codex.jsonl"][1], True)
        ]
        page = (vault / CASES["codex.jsonl"][1]).read_text(encoding="utf-8")
        assert page == (HERE / "codex.expected.md").read_text(encoding="utf-8")
        assert watch.out.empty()  # nothing for notes.md or the swap file
    finally:
        code, rest = watch.stop()
    assert code == 0 and rest.endswith("stopped"), rest


def test_watch_plain_keeps_one_page_per_file_of_a_repeated_name(
    vault: Path, tmp_path: Path
) -> None:
    """Fresh-user report: under ``--watch --format plain`` every ``chat.txt`` (no
    ``Session:`` line) was ``session:chat``, each replacing the page of the one before."""
    folder = tmp_path / "chats"
    for name in ("a", "b"):
        (folder / name).mkdir(parents=True)
    watch = ImportWatch(vault, folder, "--format", "plain")
    try:
        watch.said()
        pages = []
        for name in ("a", "b", "a"):
            with (folder / name / "chat.txt").open("a", encoding="utf-8") as out:
                out.write(f"User: question {name}?\nAI: answer {name}\n")
            pages.append([(p["path"], p["changed"]) for p in watch.answer()["pages"]])
        assert pages[0] != pages[1] and pages[2] == pages[0]  # a grown file: its own page
        texts = [(vault / p[0][0]).read_text(encoding="utf-8") for p in pages[:2]]
        assert texts[0].count("**user**") == 2 and "question b" not in texts[0]
        assert "question b?" in texts[1] and "question a" not in texts[1]
    finally:
        code, rest = watch.stop()
    assert code == 0 and rest.endswith("stopped"), rest


def test_watch_needs_an_existing_folder_and_something_to_do(vault: Path, tmp_path: Path) -> None:
    base = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "import-session"]
    nothing = subprocess.run(base, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert (
        nothing.returncode == 2
        and "give transcript FILEs, --hook, or --watch DIR" in nothing.stderr
    )
    missing = subprocess.run(
        [*base, "--watch", str(tmp_path / "nope")], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 2
    assert missing.stderr == (
        f"Error: {tmp_path / 'nope'}: not a folder to watch (an agent makes its folder when it"
        " first runs: run it once, or mkdir -p the folder)\n"
    )


def test_hook_imports_the_transcript_its_input_names_with_the_cwd_as_project(
    vault: Path, tmp_path: Path
) -> None:
    text = (HERE / "gemini-0.61.jsonl").read_text(encoding="utf-8").replace("@@SECRET@@", SECRET)
    file = (
        tmp_path
        / ".gemini"
        / "tmp"
        / "9a8b7c6d"
        / "chats"
        / "session-2026-03-10T10-00-e7f8a9b0.jsonl"
    )
    file.parent.mkdir(parents=True)
    file.write_text(text, encoding="utf-8")
    hook = {
        "session_id": "e7f8a9b0-1c2d-4e3f-8a4b-5c6d7e8f9a0b",
        "transcript_path": str(file),
        "cwd": "/home/dev/ledger",
        "hook_event_name": "SessionEnd",
        "timestamp": "2026-03-10T10:04:00.000Z",
        "reason": "exit",
    }
    base = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "import-session", "--hook"]
    home = {**os.environ, "HOME": str(tmp_path)}  # the transcript lies below ~/.gemini/tmp
    done = subprocess.run(
        base, input=json.dumps(hook), capture_output=True, text=True, timeout=TIMEOUT_S, env=home
    )
    path = CASES["gemini-0.61.jsonl"][1]
    assert (done.returncode, done.stdout) == (0, "")  # a hook's stdout stays clean
    assert done.stderr == f"{file} -> {path}: imported (redacted: github_token)\n"
    page = (vault / path).read_text(encoding="utf-8")
    golden = (HERE / "gemini-0.61.expected.md").read_text(encoding="utf-8")
    assert page == golden.replace("kind: session\n", "kind: session\nproject: ledger\n")
    again = subprocess.run(
        base, input=json.dumps(hook), capture_output=True, text=True, timeout=TIMEOUT_S, env=home
    )
    assert (again.returncode, again.stderr) == (
        0,
        f"{file} -> {path}: unchanged (redacted: github_token)\n",
    )
    bad = subprocess.run(base, input="not json", capture_output=True, text=True, timeout=TIMEOUT_S)
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == (
        "Error: --hook reads the agent's hook input on stdin: a JSON object with transcript_path\n"
    )


def test_hook_reads_only_below_the_transcript_folders(vault: Path, tmp_path: Path) -> None:
    # fresh-user report: `{"transcript_path": "/etc/passwd"}` imported /etc/passwd as a
    # session page; the MCP tool refused it. One rule for both (vault_sync/confine.py).
    base = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "import-session", "--hook"]
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text((HERE / "gemini-0.61.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    link = home / ".claude" / "projects" / "link.jsonl"
    link.symlink_to("/etc/passwd")  # a symlink out of a root is resolved first
    before = sorted(p.relative_to(vault) for p in vault.rglob("*.md"))
    for named in ("/etc/passwd", str(outside), str(link), str(home / ".claude" / "projects")):
        done = subprocess.run(
            base,
            input=json.dumps({"transcript_path": named}),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env={**os.environ, "HOME": str(home)},
        )
        assert (done.returncode, done.stdout) == (2, ""), named
        assert done.stderr == (
            f"Error: {named}: not imported: import-session --hook reads transcripts only below"
            " ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp\n"
        )
    assert sorted(p.relative_to(vault) for p in vault.rglob("*.md")) == before
