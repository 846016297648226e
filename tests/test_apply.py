"""Applying a plan, exactly (issue 14's mutation testing of sync.apply_plan), in this process
with real stores: the attachment set a batch stores, the report's counts, progress, and a page
that cannot be read when its batch is applied."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from vault_sync.config import load_config
from vault_sync.engine import run_sync
from vault_sync.vault import scan

from .conftest import fail_reading, write_pages
from .conftest import sidecar_rows as _rows

MakeVault = Callable[..., Path]


def _failing_on(name: str) -> Callable[[str | os.PathLike[str]], object]:
    def listdir(path: str | os.PathLike[str]) -> object:
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", str(path))
        return os.scandir(path)

    return listdir


def test_attachments_are_stored_from_a_complete_scan_and_kept_from_a_partial_one(
    make_vault: MakeVault,
) -> None:
    vault = make_vault({"a.md": "[[pic.png]] [[doc.pdf]]\n"})
    (vault / "img").mkdir()
    (vault / "img" / "pic.png").write_bytes(b"png")
    run_sync(load_config(vault))
    links = "SELECT target_text, status, target_path FROM links ORDER BY target_text"
    assert _rows(vault, "SELECT path FROM attachments") == [("img/pic.png",)]
    assert _rows(vault, links) == [
        ("doc.pdf", "missing_attachment", None),
        ("pic.png", "attachment", "img/pic.png"),
    ]
    # img/ cannot be listed: no proof its file went, so the stored set is kept
    (vault / "doc.pdf").write_bytes(b"pdf")
    write_pages(vault, {"a.md": "[[pic.png]] [[doc.pdf]] edited\n"})
    config = load_config(vault)
    _plan, report, _ = run_sync(config, scanner=lambda c: scan(c, listdir=_failing_on("img")))
    assert (report.changed, list(report.errors)) == (1, ["img"])
    assert _rows(vault, "SELECT path FROM attachments") == [("img/pic.png",)]
    assert _rows(vault, links) == [
        ("doc.pdf", "missing_attachment", None),
        ("pic.png", "attachment", "img/pic.png"),
    ]
    run_sync(config)  # a complete scan again: the new file is stored, its link resolved
    assert _rows(vault, "SELECT path FROM attachments ORDER BY path") == [
        ("doc.pdf",),
        ("img/pic.png",),
    ]
    assert _rows(vault, links) == [
        ("doc.pdf", "attachment", "doc.pdf"),
        ("pic.png", "attachment", "img/pic.png"),
    ]


def test_the_report_counts_each_class_and_progress_hears_every_page(
    make_vault: MakeVault,
) -> None:
    vault = make_vault({f"p{i}.md": f"page {i}\n" for i in range(6)})
    heard: list[tuple[str, int]] = []

    def start(total: int) -> Callable[[int], None]:
        heard.append(("total", total))
        return lambda done: heard.append(("done", done))

    config = load_config(vault)
    run_sync(config)
    write_pages(vault, {"p0.md": "page 0 edited\n", "new.md": "new\n"})
    os.utime(vault / "p1.md", ns=(1, 1))  # touched: another mtime, the same bytes
    (vault / "p2.md").rename(vault / "moved.md")
    (vault / "p3.md").unlink()
    _plan, report, _ = run_sync(config, progress_start=start)
    counts = (report.added, report.changed, report.moved, report.deleted, report.unchanged)
    assert counts == (1, 1, 1, 1, 3)  # unchanged: p4, p5 and the touched p1
    assert (report.generation, report.batches, report.errors) == (2, 1, {})
    assert heard == [("total", 3), ("done", 3)]
    # the touched page's new stat was stored: the next sync does not look at it again
    again, report, _ = run_sync(config)
    assert (again.touched, report.unchanged, report.did_work) == ((), 6, False)
    assert _rows(vault, "SELECT mtime_ns FROM pages WHERE path = 'p1.md'") == [(1,)]


def test_a_page_that_cannot_be_read_when_applied_is_an_error_not_an_addition(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault({"a.md": "alpha\n", "mem.md": "x\n"})
    fail_reading(monkeypatch, "mem.md")  # stat works, reading fails (EIO)
    _plan, report, _ = run_sync(load_config(vault))
    assert (report.added, list(report.errors)) == (1, ["mem.md"])
    assert _rows(vault, "SELECT path FROM pages") == [("a.md",)]
