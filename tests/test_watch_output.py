"""What ``watch`` prints names paths only through the sanitizer (fresh-user report: the
start-up line printed ``watching /tmp/x/vault-ghp_…`` while ``status`` scrubbed it)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_cli
from tests.test_watch import stop_clean
from tests.watch_helpers import TIMEOUT_S, WatchProcess

TOKEN = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"


def test_the_watcher_never_prints_a_secret_its_vault_path_holds(tmp_path: Path) -> None:
    vault = tmp_path / f"notes-{TOKEN}"
    vault.mkdir()
    (vault / "a.md").write_text("lantern\n")
    shown = str(tmp_path / "notes-[REDACTED:github_token]")
    command = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "watch"]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()  # said before the first reconcile
        first = proc.stderr.readline()  # that reconcile
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=TIMEOUT_S)[1]
    assert banner == f"watching {shown} (debounce 150 ms); Ctrl-C to stop\n"
    assert " reconcile: 1 added," in first, first
    assert TOKEN[8:20] not in banner + first + rest
    # the JSON log, and the state status shows
    watcher = WatchProcess(vault)
    try:
        watcher.wait_ready()
        status = run_cli("--vault", str(vault), "status", "--json").json()
        stop_clean(watcher)
    finally:
        watcher.kill()
    assert status["vault"] == shown
    assert TOKEN[8:20] not in watcher.log()
    stored = [f for f in (vault / ".vault-sync").rglob("*") if f.is_file()]
    assert [f.name for f in stored if TOKEN[8:20].encode() in f.read_bytes()] == []


def test_the_json_log_shows_a_path_with_its_md(tmp_path: Path) -> None:
    """A page whose name holds a secret is named, redacted, by its path with ``.md``: a
    GitLab token's rule takes dots, and the log showed ``[REDACTED:gitlab_token]``, a path no
    file has (fresh-user report)."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("lantern\n")
    (vault / "keys").mkdir()
    (vault / "keys" / ("glpat-" + "aB3dE5fG7hJ9kL1mN3pQ.md")).write_text("x\n")
    watcher = WatchProcess(vault)
    try:
        line = watcher.wait_line(lambda line: "errors" in line)
    finally:
        watcher.kill()
    assert list(line["errors"]) == ["keys/[REDACTED:gitlab_token].md"]


def test_the_json_log_says_when_the_watcher_holds_the_vault_and_when_it_stops(
    tmp_path: Path,
) -> None:
    """On a vault with nothing to apply, a ``--json-log`` watcher printed nothing until the
    first change (a supervisor could not tell it from a hung one: a fresh user's report); it
    now says ``watching …`` once it holds the vault, and ``stopped``, as info records."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("lantern\n")
    run_cli("--vault", str(vault), "sync")
    watcher = WatchProcess(vault)
    try:
        watcher.wait_ready()
    finally:
        code = watcher.stop()
    watcher._reader.join(TIMEOUT_S)  # every line the process wrote is read (EOF)
    said = [json.loads(line) for line in watcher.other]
    assert code == 0 and watcher.lines == []
    assert said == [
        {"level": "info", "message": f"watching {vault} (debounce 150 ms); Ctrl-C to stop"},
        {"level": "info", "message": "stopped"},
    ], said
