"""Robustness faults of fresh-user report 4, each as a kind: file times beyond what SQLite
holds, and the other inputs below. The CLI as a subprocess, exact outcomes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest
from watchdog.events import FileCreatedEvent

from tests.conftest import Result, query_paths, run_cli
from tests.test_watch import StartWatch, indexed, watch  # noqa: F401  (watch: a fixture)
from vault_sync.config import load_config
from vault_sync.watch import Watcher
from vault_sync.watch_events import Batch, EventHandler

Cli = Callable[..., Result]

#: 2286-11-20, past the int64 range of ns (2262-04-11); 1900-01-01, before the epoch.
FAR_FUTURE_NS = 10**19
FAR_PAST_NS = -2208988800 * 10**9


def test_a_file_time_past_2262_or_before_1970_is_synced_and_its_changes_seen(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "# a\nfutureword\n", "b.md": "# b\npastword\n"})
    os.utime(root / "a.md", ns=(FAR_FUTURE_NS, FAR_FUTURE_NS))
    os.utime(root / "b.md", ns=(FAR_PAST_NS, FAR_PAST_NS))
    assert query_paths(cli, root, "futureword") == ["a.md"]  # a fresh vault syncs first
    assert query_paths(cli, root, "pastword") == ["b.md"]
    # same size, the same (clamped) time: the page is hashed, not skipped
    (root / "a.md").write_text("# a\nnextsword!\n")
    assert (root / "a.md").stat().st_size == len("# a\nfutureword\n")
    os.utime(root / "a.md", ns=(FAR_FUTURE_NS + 10**9, FAR_FUTURE_NS + 10**9))
    # status agrees with sync: the clamped page of equal size is read, and seen changed
    drift = cli("--vault", str(root), "status", "--json").json()["drift"]
    assert (drift["new"], drift["changed"], drift["deleted"]) == (0, 1, 0)
    synced = cli("--vault", str(root), "sync")
    assert (synced.code, synced.err) == (0, "")
    assert synced.out.startswith("sync: 0 added, 1 changed, 0 moved, 0 deleted, 1 unchanged")
    assert query_paths(cli, root, "nextsword") == ["a.md"]
    again = cli("--vault", str(root), "sync")
    assert again.out == "sync: nothing to do (2 pages unchanged, generation 2)\n"
    drift = cli("--vault", str(root), "status", "--json").json()["drift"]
    assert (drift["new"], drift["changed"], drift["deleted"]) == (0, 0, 0)


def _make(root: Path, name: bytes, data: bytes = b"# bad name\n") -> None:
    path = os.path.join(os.fsencode(root), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def test_the_watcher_warns_of_names_that_are_not_utf8_and_goes_on(
    make_vault: Callable[..., Path],
    watch: StartWatch,  # noqa: F811 (the fixture imported above)
) -> None:
    """Real watchdog events: a file, a folder and a UTF-8-encoded surrogate, each named by
    bytes that are not UTF-8, are left out with sync's warning; the watcher lives on."""
    root = make_vault({"a.md": "# a\n"})
    watcher = watch(root)
    start = watcher.count()
    _make(root, b"x\xff.md")
    _make(root, b"d\xfe/p.md")
    _make(root, b"e\xed\xa0\x80.md")
    bad = {"x\\xff.md", "d\\xfe", "e\\xed\\xa0\\x80.md"}
    seen: dict[str, str] = {}

    def all_warned(line: dict[str, Any]) -> bool:
        seen.update(line.get("errors", {}))
        return bad <= seen.keys()

    watcher.wait_line(all_warned, start)
    assert set(seen.values()) == {"name is not valid UTF-8, left out"}, seen
    start = watcher.count()
    _make(root, b"x\xff.md", b"# bad name\nmore\n")  # changed again: warned again
    (root / "c.md").write_text("# c\nlater\n")
    watcher.wait_line(lambda x: x["added"] == 1, start)
    assert watcher.proc.poll() is None, watcher.log()
    assert query_paths(run_cli, root, "later") == ["c.md"]
    assert indexed(root) == ["a.md", "c.md"]
    assert watcher.stop() == 0, watcher.log()
    assert "Traceback" not in watcher.log()


def test_an_unexpected_error_in_a_batch_or_an_event_never_stops_the_watcher(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    root = make_vault({"a.md": "# a\n"})
    config = load_config(root)

    def broken(*_args: object, **_kw: object) -> NoReturn:
        raise RuntimeError("boom")

    watcher = Watcher(config, broken)
    watcher._flush(Batch(paths={"a.md"}))
    assert watcher.state.errors == 1
    assert watcher.state.last_error == "internal error (RuntimeError: boom); please report it"
    assert watcher.batcher.take().reconcile is True
    handler = EventHandler(root, config.store_dir, watcher.batcher)
    handler.on_any_event(FileCreatedEvent(7))  # type: ignore[arg-type]  # no path: TypeError
    assert watcher.batcher.take().reconcile is True
    assert "watch event not read (TypeError: " in caplog.text


CONTROLLED = {
    "remember": ("remember", "Esc \x07 title", "--kind", "note"),
    "remember body": ("remember", "Esc body", "--kind", "note", "--body-file"),
    "reinforce": ("reinforce", "a", "--evidence", "session:x", "--note", "n \x1b[2J"),
    "link": ("link", "a", "fixes\x9b", "b"),
    "supersede": ("supersede", "a", "b\x7f"),
    "resolve": ("resolve", "a", "--keep", "b\x1b]52;c;SGVsbG8=\x07"),
}
CONTROL_SAID = {
    "remember": "title holds the control character U+0007 (line 1)",
    "remember body": "body holds the control character U+0000 (line 2)",
    "reinforce": "note holds the control character U+001B (line 1)",
    "link": "relation holds the control character U+009B (line 1)",
    "supersede": "new holds the control character U+007F (line 1)",
    "resolve": "keep holds the control character U+001B (line 1)",
}


def test_write_commands_refuse_control_characters_and_print_each_byte_of_their_diff(
    make_vault: Callable[..., Path], cli: Cli, tmp_path: Path
) -> None:
    root = make_vault({"a.md": "# a\nold \x1b]0;OWNED\x07 text\n", "b.md": "# b\n"})
    assert cli("--vault", str(root), "sync").code == 0
    body = tmp_path / "body.md"
    body.write_bytes(b"line one\nx \x00 \x1b]52;c;SGVsbG8=\x07 y\n")
    before = {p: p.read_bytes() for p in root.rglob("*.md")}
    for case, args in CONTROLLED.items():
        extra = (str(body),) if case == "remember body" else ()
        result = cli("--vault", str(root), *args, *extra)
        said = f"Error: {CONTROL_SAID[case]}; agent input may hold tab and newline only\n"
        assert (result.code, result.out, result.err) == (2, "", said), case
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == before
    # tab and newline (CRLF too) are text; an existing page's ESC is shown, never run or dropped
    kept = cli("--vault", str(root), "remember", "Tabbed", "--kind", "note", "--body", "a\tb\r\nc")
    assert kept.code == 0, kept.err
    shown = cli("--vault", str(root), "reinforce", "a", "--evidence", "session:x", "--dry-run")
    assert shown.out.endswith(" # a\n old \\x1b]0;OWNED\\x07 text\n")
    assert "\x1b" not in shown.out and "\x07" not in shown.out


def test_time_phrases_whose_days_leave_the_calendar_are_words_not_a_traceback(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "---\ndate: 2026-03-01\n---\nretry policy\n"})
    for now, phrases in (
        ("0001-01-05", ["last week", "the past month", "last weekend"]),
        ("0001-01-01", ["yesterday", "last month", "3 years ago", "last year", "last winter"]),
        ("9999-12-31", ["this year", "last week", "in 9999", "march 3"]),
    ):
        for phrase in phrases:
            out = cli("--vault", str(root), "query", f"retry {phrase}", "--now", now, "--json")
            assert (out.code, out.err.count("Traceback")) == (0, 0), (now, phrase, out.err)
            assert [h["path"] for h in out.json()["hits"]] == ["a.md"], (now, phrase)


def test_watch_timings_are_bounded_and_named_with_their_line(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "# a\n"})
    config = root / "vault-sync.toml"
    for key in ("debounce_ms", "max_delay_ms", "reconcile_s"):
        for value in ("99999999999999999999", "600001", "-1"):
            config.write_text(f"# timings\n\n[watch]\n{key} = {value}\n", encoding="utf-8")
            out = cli("--vault", str(root), "status")
            said = f"Error: {config}:4: key 'watch.{key}' must be a whole number from 0 to 600000\n"
            assert (out.code, out.out, out.err) == (2, "", said), (key, value)
        config.write_text(f"watch = {{ {key} = 600000 }}\n", encoding="utf-8")
        assert cli("--vault", str(root), "status").code == 0


def test_write_folders_into_the_stores_or_git_are_config_errors(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "# a\n"})
    config = root / "vault-sync.toml"
    for folder, problem in (
        (".vault-sync/x", "vault-sync never writes into .vault-sync/"),
        (".GIT", "vault-sync never writes into .GIT/"),
        ("/tmp/x", "must be a path inside the vault, not absolute"),
    ):
        config.write_text(f'[write]\nfolders = {{"project:p" = "{folder}"}}\n', encoding="utf-8")
        out = cli("--vault", str(root), "query", "a")
        said = (
            f"Error: {config}:2: key 'write.folders.project:p' must name a folder inside the"
            f" vault: {problem} (got {folder!r})\n"
        )
        assert (out.code, out.err) == (2, said), folder
    config.write_text('[write.folders]\nrule = ""\nnote = "inbox/"\n', encoding="utf-8")
    assert cli("--vault", str(root), "remember", "N", "--kind", "note").code == 0
    assert (root / "inbox/N.md").is_file()


def test_a_vault_whose_path_is_not_utf8_is_refused_in_one_line(tmp_path: Path, cli: Cli) -> None:
    root = os.fsdecode(os.fsencode(tmp_path) + b"/vault\xff")
    os.mkdir(root)
    Path(root, "a.md").write_text("# a\n")
    shown = os.fsencode(root).decode("utf-8", "backslashreplace")
    said = (
        f"Error: vault path is not valid UTF-8: {shown} (the index needs a UTF-8 path;"
        " rename the folder)\n"
    )
    for args in (("--vault", root, "sync"), ("--vault", root, "init"), ("query", "a")):
        out = cli(*args, cwd=Path(root))
        assert (out.code, out.out, out.err) == (2, "", said), args
    assert os.listdir(root) == ["a.md"]


def test_a_query_longer_than_the_cap_is_refused_in_one_line(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "# a\nword\n", "z.md": "# z\n法術\n"})
    assert query_paths(cli, root, " ".join(["word"] * 256)) == ["a.md"]
    for text, words in ((" ".join(["word"] * 257), 257), ("法術" * 129, 259)):
        out = cli("--vault", str(root), "query", text)
        said = (
            "Error: a query is read with at most 256 words and 4000 characters (this one has"
            f" {words} words and {len(text)} characters): shorten it\n"
        )
        assert (out.code, out.out, out.err) == (2, "", said)


def test_a_name_that_is_not_utf8_is_shown_with_byte_escapes_on_one_line() -> None:
    """As cli.md prints such names (``import-session --watch`` showed ``r\\udcff.jsonl``)."""
    from vault_sync.cli_common import one_line

    assert one_line(os.fsdecode(b"r\xff.jsonl: imported")) == "r\\xff.jsonl: imported"
    assert one_line(os.fsdecode(b"d\xfe/\xc3\xa9\n")) == "d\\xfe/\xe9\\n"
    assert one_line("\ud800 from JSON") == "\\ud800 from JSON"
