"""The plan and its batches, exactly (issue 14's mutation testing of sync.make_plan and
batch_write.split_batches): a real scan of real files classified against stored states, every
class of the plan pinned; batch cuts at their limits."""

from __future__ import annotations

from pathlib import Path

from vault_sync.batch_write import BATCH_BYTES, BATCH_PAGES, split_batches
from vault_sync.config import load_config
from vault_sync.pagefile import content_hash
from vault_sync.scan_result import FileEntry, ScanResult, Unreadable
from vault_sync.store import FileState
from vault_sync.sync_plan import Plan, make_plan
from vault_sync.vault import scan

from .conftest import write_pages


def _state(vault: Path, rel: str, text: str | None = None) -> FileState:
    """The state a sync would have stored for ``rel`` (its current stat; hash of ``text``,
    or of its bytes)."""
    st = (vault / rel).stat()
    data = text.encode() if text is not None else (vault / rel).read_bytes()
    return FileState(content_hash(data), st.st_mtime_ns, st.st_size)


def test_every_page_of_a_scan_lands_in_exactly_its_class(tmp_path: Path) -> None:
    vault = write_pages(
        tmp_path / "v",
        {
            "same.md": "same\n",
            "touched.md": "touched\n",
            "edited.md": "edited now\n",
            "resized.md": "resized\n",
            "redo.md": "redo\n",
            "b/new.md": "brand new\n",
            "a/moved.md": "moved body\n",
            "z/moved2.md": "twin body\n",
            "y/moved3.md": "twin body\n",
        },
    )
    stored = {
        "same.md": _state(vault, "same.md"),
        "touched.md": FileState(content_hash(b"touched\n"), 1, 8),  # other stat, same bytes
        "edited.md": FileState(content_hash(b"edited before\n"), 1, 14),
        "redo.md": _state(vault, "redo.md"),  # unchanged stat, but in the journal
        # the same mtime, another size (a fast rewrite in one mtime tick): read, not skipped
        "resized.md": FileState(
            content_hash(b"resize\n"), (vault / "resized.md").stat().st_mtime_ns, 7
        ),
        "old/moved.md": FileState(content_hash(b"moved body\n"), 1, 11),
        "old/twin1.md": FileState(content_hash(b"twin body\n"), 1, 10),
        "old/twin2.md": FileState(content_hash(b"twin body\n"), 1, 10),
        "gone.md": FileState(content_hash(b"gone\n"), 1, 5),
        "locked/kept.md": FileState(content_hash(b"kept\n"), 1, 5),
    }
    result = scan(load_config(vault))
    result = ScanResult(pages=result.pages, unreadable=(Unreadable("locked", "Permission denied"),))
    plan = make_plan(load_config(vault), result, stored, pending=["redo.md", "gone.md"])
    st = (vault / "touched.md").stat()
    assert plan == Plan(
        new=("b/new.md",),
        modified=("edited.md", "redo.md", "resized.md"),
        # new pages in path order take the deleted pages of their hash in stored order
        moved=(
            ("old/moved.md", "a/moved.md"),
            ("old/twin1.md", "y/moved3.md"),
            ("old/twin2.md", "z/moved2.md"),
        ),
        deleted=("gone.md",),
        touched=(("touched.md", FileState(content_hash(b"touched\n"), st.st_mtime_ns, 8)),),
        kept=("locked/kept.md",),
        unchanged=1,
        errors={"locked": "Permission denied"},
    )


def test_without_deletes_new_pages_are_not_read_and_a_surplus_twin_stays_deleted(
    tmp_path: Path,
) -> None:
    vault = write_pages(tmp_path / "v", {"n1.md": "twin\n", "n2.md": "other\n"})
    config = load_config(vault)
    result = scan(config)
    assert make_plan(config, result, {}) == Plan(new=("n1.md", "n2.md"))
    stored = {
        "o1.md": FileState(content_hash(b"twin\n"), 1, 5),
        "o2.md": FileState(content_hash(b"twin\n"), 1, 5),
    }
    assert make_plan(config, result, stored) == Plan(
        new=("n2.md",), moved=(("o1.md", "n1.md"),), deleted=("o2.md",)
    )


def test_a_page_that_vanished_after_the_scan_is_modified_not_touched(tmp_path: Path) -> None:
    vault = write_pages(tmp_path / "v", {"a.md": "x\n"})
    config = load_config(vault)
    result = scan(config)
    (vault / "a.md").unlink()  # its hash cannot be read: never "touched" (stat only)
    stored = {"a.md": FileState(content_hash(b"x\n"), 1, 2)}
    assert make_plan(config, result, stored) == Plan(modified=("a.md",))


def _entries(sizes: dict[str, int]) -> dict[str, FileEntry]:
    return {p: FileEntry(p, p, 0, size) for p, size in sizes.items()}


def test_batches_are_cut_at_the_page_count_and_before_the_byte_limit() -> None:
    paths = [f"p{i}.md" for i in range(BATCH_PAGES + 1)]
    batches = split_batches(paths, _entries(dict.fromkeys(paths, 1)))
    assert [len(b) for b in batches] == [BATCH_PAGES, 1]
    assert batches[0][0] == "p0.md" and batches[1] == [f"p{BATCH_PAGES}.md"]
    half = BATCH_BYTES // 2
    sizes = {"a.md": half, "b.md": half, "c.md": 1, "d.md": BATCH_BYTES + 5, "e.md": 0}
    assert split_batches(list(sizes), _entries(sizes)) == [
        ["a.md", "b.md"],
        ["c.md"],
        ["d.md"],
        ["e.md"],
    ]
    # a path without an entry (deleted since) weighs nothing; no paths: no batch
    assert split_batches(["x.md", "a.md"], _entries({"a.md": BATCH_BYTES})) == [["x.md", "a.md"]]
    assert split_batches([], {}) == []
