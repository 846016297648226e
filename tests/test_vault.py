"""Tests for vault_sync.vault: the walk, the ignore rules, NFC keys, symlinks, R4, reading."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from tests.conftest import copy_corpus
from vault_sync.config import Config
from vault_sync.errors import VaultSyncError, VaultUnreadableError
from vault_sync.ignore import Patterns, build_ignore_matcher, is_ignored_name
from vault_sync.pagefile import content_hash, read_page
from vault_sync.scan_result import FileEntry, SkippedFile, SkippedSymlink, describe_name
from vault_sync.vault import Lister, scan, scan_paths


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty vault folder (``tmp_path`` itself also holds the isolated HOME)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    return vault


def write(root: Path, rel: str, text: str = "# page\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def pages_of(root: Path, **config: object) -> set[str]:
    return set(scan(Config(vault=root, **config)).pages)  # type: ignore[arg-type]


# --- name rules -------------------------------------------------------------------------------


def test_dot_folders_and_files_are_ignored(root: Path) -> None:
    for rel in [
        ".git/x.md",
        ".obsidian/x.md",
        ".trash/x.md",
        ".vault-sync/x.md",
        ".hidden/deep/x.md",
        "sub/.private/x.md",
        ".dot.md",
        "sub/.dot.md",
        ".DS_Store",
    ]:
        write(root, rel)
    write(root, "a.md")
    write(root, "sub/b.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md", "sub/b.md"}
    assert result.attachments == frozenset()


@pytest.mark.parametrize("store_dir", ["store", "data/store", ".custom-store"])
def test_store_dir_is_ignored_even_when_not_a_dot_folder(root: Path, store_dir: str) -> None:
    write(root, f"{store_dir}/x.md")
    write(root, f"{store_dir}/sidecar.sqlite")
    write(root, "a.md")
    write(root, "storefront/b.md")  # a name that only starts like the store folder
    assert pages_of(root, store_dir=store_dir) == {"a.md", "storefront/b.md"}


TEMP_NAMES = [
    "4913",  # vim's write probe
    "5036",  # the next name vim tries when 4913 exists
    ".n.md.tmp123",  # atomic save (TECH-NOTES §2 b)
    "n.md.tmp",
    "n.md.tmp123",
    "n.md~",  # vim / emacs backup
    ".#n.md",  # emacs lock file
    "#n.md#",  # emacs auto-save
    ".n.md.swp",  # vim swap
    "n.md.swp",
    "n.md.swo",
    "n.md.crswap",
]


@pytest.mark.parametrize("name", TEMP_NAMES)
def test_temp_swap_backup_names_are_ignored(root: Path, name: str) -> None:
    write(root, name)
    write(root, f"sub/{name}")
    write(root, "n.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"n.md"}
    assert result.attachments == frozenset()
    assert is_ignored_name(name)
    assert is_ignored_name(f"sub/{name}")


@pytest.mark.parametrize(
    "name", ["n.md", "x.tmpl.md", "# 种族特征.md", "4914", "4913.md", "notes~draft.md", "a.bak"]
)
def test_ordinary_names_are_kept(name: str) -> None:
    assert not is_ignored_name(name)
    assert not is_ignored_name(f"folder/{name}")


def test_is_ignored_name_checks_every_component_but_temp_rules_only_on_files() -> None:
    assert is_ignored_name(".obsidian/workspace.json")
    assert is_ignored_name("a/.git/b.md")
    assert not is_ignored_name("backup~", is_dir=True)
    assert is_ignored_name("backup~")


def test_hash_sign_file_name_and_cjk_folders(root: Path) -> None:
    write(root, "种族/# 种族特征.md")
    write(root, "法术/1环/七彩喷射.md")
    assert pages_of(root) == {"种族/# 种族特征.md", "法术/1环/七彩喷射.md"}


# --- .gitignore, Obsidian, config --------------------------------------------------------------


def test_root_gitignore_with_negation(root: Path) -> None:
    write(root, ".gitignore", "*.log\nsecret.md\ndrafts/\nprivate/*\n!private/ok.md\n")
    for rel in [
        "a.md",
        "secret.md",
        "sub/secret.md",
        "drafts/d.md",
        "sub/drafts/d.md",
        "private/no.md",
        "private/ok.md",
        "run.log",
    ]:
        write(root, rel)
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md", "private/ok.md"}
    assert result.attachments == frozenset()


def test_nested_gitignore_is_relative_to_its_folder_and_overrides(root: Path) -> None:
    write(root, ".gitignore", "draft.md\nbuild/\n!build/x.md\n")
    write(root, "sub/.gitignore", "/local.md\n!draft.md\n*.tmp.md\n")
    for rel in [
        "draft.md",  # root rule
        "local.md",  # the sub rule is anchored to sub/
        "sub/draft.md",  # re-included by the deeper file
        "sub/local.md",
        "sub/deeper/local.md",  # anchored: only sub/local.md
        "sub/x.tmp.md",
        "other/x.tmp.md",  # sub's rule does not reach other/
        "build/x.md",  # inside an ignored folder: cannot be re-included
    ]:
        write(root, rel)
    assert pages_of(root) == {
        "local.md",
        "sub/draft.md",
        "sub/deeper/local.md",
        "other/x.tmp.md",
    }


def test_obsidian_user_ignore_filters_prefix_and_regex(root: Path) -> None:
    app = {"userIgnoreFilters": ["Archive/", "/\\.excalidraw\\.md$/", "Tem", 7, "/[/", ""]}
    write(root, ".obsidian/app.json", json.dumps(app))
    for rel in [
        "Archive/old.md",
        "Archive/deep/old.md",
        "Archived.md",  # "Archive/" is a prefix of paths, and this path lacks the slash
        "drawings/plan.excalidraw.md",
        "Templates/t.md",  # "Tem" is a plain prefix, as in Obsidian
        "Temp.md",
        "keep.md",
    ]:
        write(root, rel)
    result = scan(Config(vault=root))
    assert set(result.pages) == {"Archived.md", "keep.md"}
    assert len(result.warnings) == 3  # 7, the bad regex and the empty filter
    assert any("[/" in w for w in result.warnings)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"userIgnoreFilters": "Archive/"}'])
def test_bad_app_json_is_a_warning_not_an_error(root: Path, content: str) -> None:
    write(root, ".obsidian/app.json", content)
    write(root, "Archive/a.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"Archive/a.md"}
    assert result.warnings and ".obsidian/app.json" in result.warnings[0]


def test_app_json_without_filters_is_silent(root: Path) -> None:
    write(root, ".obsidian/app.json", '{"alwaysUpdateLinks": true}')
    write(root, "a.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md"} and result.warnings == ()


def test_config_ignore_globs(root: Path) -> None:
    for rel in ["templates/t.md", "notes/x.draft.md", "notes/x.md", "a/b.pdf"]:
        write(root, rel)
    result = scan(Config(vault=root, ignore=("templates/", "*.draft.md", "*.pdf")))
    assert set(result.pages) == {"notes/x.md"}
    assert result.attachments == frozenset()


def test_tool_folders_are_left_out_by_default_and_notes_folders_kept(root: Path) -> None:
    tool = ["node_modules/pkg/README.md", "web/node_modules/x/CHANGELOG.md",
            "__pycache__/x.md", "lib/bower_components/y/readme.md"]  # fmt: skip
    notes = ["env/setup.md", "build/release notes.md", "vendor/contracts.md", "a.md"]
    for rel in tool + notes:
        write(root, rel)
    assert set(scan(Config(vault=root)).pages) == set(notes)
    kept = scan(Config(vault=root, ignore_tool_folders=False))
    assert set(kept.pages) == set(tool + notes)
    # a config `!` line brings one back, the gitignore way
    back = scan(Config(vault=root, ignore=("!web/node_modules/",)))
    assert set(back.pages) == {*notes, "web/node_modules/x/CHANGELOG.md"}
    # a .gitignore still decides about ordinary folders
    write(root, ".gitignore", "build/\n")
    assert set(scan(Config(vault=root)).pages) == set(notes) - {"build/release notes.md"}


def test_ignored_folders_are_never_listed(root: Path) -> None:
    write(root, ".gitignore", "node_modules/\n")
    write(root, "node_modules/pkg/readme.md")
    write(root, ".git/objects/x")
    write(root, "a.md")
    listed: list[str] = []

    def spy(path: str) -> Iterable[os.DirEntry[str]]:
        listed.append(os.path.relpath(path, root))
        return os.scandir(path)

    scan(Config(vault=root), listdir=spy)
    assert listed == ["."]


def test_matcher_is_ignored_for_single_paths(root: Path) -> None:
    write(root, ".gitignore", "out/\n")
    write(root, "sub/.gitignore", "*.gen.md\n")
    matcher = build_ignore_matcher(Config(vault=root, store_dir="store"))
    assert matcher.is_ignored("out/a.md")
    assert matcher.is_ignored("sub/x.gen.md")
    assert not matcher.is_ignored("x.gen.md")
    assert matcher.is_ignored("store/index/meta.json")
    assert matcher.is_ignored("a/.obsidian/x.md")
    assert matcher.is_ignored("a/n.md~")
    assert not matcher.is_ignored("sub/page.md")
    assert not matcher.is_ignored("sub", is_dir=True)


# --- NFC, collisions --------------------------------------------------------------------------


def test_nfd_file_name_gets_an_nfc_key_and_keeps_its_disk_name(root: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    nfc = unicodedata.normalize("NFC", "Café notes.md")
    assert nfd != nfc
    write(root, unicodedata.normalize("NFD", "Résumé.md"))
    write(root, nfd, "hello")
    result = scan(Config(vault=root))
    entry = result.pages[nfc]
    assert entry.path == nfc and entry.disk_path == nfd
    assert read_page(root, entry)[0] == "hello"
    assert "Résumé.md" in result.pages
    assert result.collisions == ()


def test_names_equal_after_nfc_are_a_collision(root: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    nfc = unicodedata.normalize("NFC", "Café notes.md")
    write(root, nfc, "composed")
    write(root, nfd, "decomposed")
    assert len(os.listdir(root)) == 2  # ext4 keeps both names
    result = scan(Config(vault=root))
    assert list(result.pages) == [nfc]
    assert result.collisions == ((nfc, nfd),)  # the kept spelling first
    assert result.pages[nfc].disk_path == nfc  # spelled as its key: the shown path is the file
    assert nfd < nfc  # ...though the NFD name comes first in byte order


def test_without_the_nfc_spelling_the_first_in_byte_order_is_kept(root: Path) -> None:
    """``Å`` as U+212B ANGSTROM SIGN and as A + U+030A: neither is NFC (U+00C5)."""
    sign, nfd = "\u212b.md", "A\u030a.md"
    write(root, sign, "sign")
    write(root, nfd, "decomposed")
    result = scan(Config(vault=root))
    assert result.pages["\u00c5.md"].disk_path == nfd == min(sign, nfd)
    assert result.collisions == ((nfd, sign),)
    write(root, "\u00c5.md", "composed")
    result = scan(Config(vault=root))
    assert result.pages["\u00c5.md"].disk_path == "\u00c5.md"
    assert result.collisions == (("\u00c5.md", nfd, sign),)


def test_the_ascii_characters_nfc_can_make_are_the_ones_listed() -> None:
    """``scan_paths`` lists an ASCII name's folder only when it holds one of these: every
    other ASCII name has no twin equal to it after NFC (Unicode of this Python)."""
    from vault_sync.vault import _NFC_ASCII_TARGETS

    made = set()
    for cp in range(0x80, 0x110000):
        nfc = unicodedata.normalize("NFC", chr(cp))
        if nfc.isascii():
            made.update(nfc)
    assert made == set(_NFC_ASCII_TARGETS)


def test_folders_equal_after_nfc_are_merged_and_reported(root: Path) -> None:
    nfd = unicodedata.normalize("NFD", "Résumé")
    nfc = unicodedata.normalize("NFC", "Résumé")
    write(root, f"{nfc}/a.md")
    write(root, f"{nfd}/b.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {f"{nfc}/a.md", f"{nfc}/b.md"}
    assert result.pages[f"{nfc}/b.md"].disk_path == f"{nfd}/b.md"
    assert result.collisions == (tuple(sorted([nfc, nfd])),)


def test_describe_name_tells_nfc_and_nfd_apart() -> None:
    nfc = unicodedata.normalize("NFC", "Café notes.md")
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    assert describe_name(nfc) == "Café notes.md (NFC)"
    assert describe_name(nfd) == "Cafe\\u0301 notes.md (NFD)"
    assert describe_name("plain.md") == "plain.md (NFC)"
    hangul_nfd = unicodedata.normalize("NFD", "한국.md")  # jamo: no combining class, same look
    assert describe_name(hangul_nfd) == "\\u1112\\u1161\\u11ab\\u1100\\u116e\\u11a8.md (NFD)"
    assert describe_name("\u212b.md") == "\\u212b.md (other)"  # ANGSTROM SIGN: NFC gives Å
    mixed = "e\u0301 " + unicodedata.normalize("NFC", "é")
    assert describe_name(mixed) == "e\\u0301 é (other)"
    assert describe_name("a\u00a0b") == "a\\xa0b (NFC)"  # invisible: escaped too


def test_collision_group_members_describe_differently(root: Path) -> None:
    write(root, unicodedata.normalize("NFC", "Café notes.md"))
    write(root, unicodedata.normalize("NFD", "Café notes.md"))
    (group,) = scan(Config(vault=root)).collisions
    shown = [describe_name(name) for name in group]
    assert len(set(shown)) == 2
    assert all(s.isprintable() for s in shown)


def test_name_that_is_not_utf8_is_reported_not_a_key(root: Path) -> None:
    write(root, "a.md")
    with open(os.fsencode(root) + b"/bad\xffname.md", "wb") as f:
        f.write(b"# bad\n")
    os.mkdir(os.fsencode(root) + b"/dir\xfe")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md"}
    assert [(u.path, u.error) for u in result.unreadable] == [
        ("bad\\xffname.md", "name is not valid UTF-8, left out"),
        ("dir\\xfe", "name is not valid UTF-8, left out"),
    ]
    for u in result.unreadable:
        u.path.encode("utf-8")  # a key every store and terminal accepts


# --- symlinks ---------------------------------------------------------------------------------


def test_symlinked_folder_is_followed_and_loops_are_skipped(root: Path) -> None:
    write(root, "real/a.md")
    (root / "link").symlink_to("real", target_is_directory=True)
    (root / "link2").symlink_to("real", target_is_directory=True)
    (root / "real" / "up").symlink_to("..", target_is_directory=True)
    (root / "real" / "self").symlink_to(".", target_is_directory=True)
    (root / "file-link.md").symlink_to("real/a.md")
    (root / "broken.md").symlink_to("nowhere.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"real/a.md", "link/a.md", "file-link.md"}
    assert set(result.skipped_symlinks) == {
        SkippedSymlink("link/self", "loop"),
        SkippedSymlink("link/up", "loop"),
        SkippedSymlink("link2", "repeat"),
        SkippedSymlink("real/self", "loop"),
        SkippedSymlink("real/up", "loop"),
        SkippedSymlink("broken.md", "broken"),
    }


def _system_links(root: Path, outside: Path) -> None:
    """A vault holding links into the kernel's pseudo file systems, FIFOs and devices, and a
    link to an ordinary file outside the vault (still followed, as documented)."""
    write(root, "a.md")
    (root / "env.md").symlink_to("/proc/self/environ")  # the process's environment
    (root / "zero.md").symlink_to("/dev/zero")  # endless
    write(root, "sub/b.md")
    (root / "sub" / "rand.md").symlink_to("/dev/urandom")
    (root / "proc").symlink_to("/proc/self", target_is_directory=True)
    (root / "sysk").symlink_to("/sys/kernel", target_is_directory=True)
    os.mkfifo(root / "pipe.md")  # a reader would block
    outside.mkdir()
    os.mkfifo(outside / "fifo")
    (root / "tofifo.md").symlink_to(outside / "fifo")
    (outside / "page.md").write_text("# outside\n", encoding="utf-8")
    (root / "out.md").symlink_to(outside / "page.md")


SYSTEM_SKIPS = {
    "env.md": ("pseudo_fs", "points to /proc/self/environ, on the pseudo file system "),
    "proc": ("pseudo_fs", "points to /proc/self, on the pseudo file system "),
    "sub/rand.md": ("pseudo_fs", "points to /dev/urandom, on the pseudo file system "),
    "sysk": ("pseudo_fs", "points to /sys/kernel, on the pseudo file system "),
    "zero.md": ("pseudo_fs", "points to /dev/zero, on the pseudo file system "),
}


def test_links_into_pseudo_file_systems_fifos_and_devices_are_never_read(
    root: Path, tmp_path: Path
) -> None:
    """Fresh-user report 3, item 12.14: ``env.md -> /proc/self/environ`` was indexed (and
    served over MCP); FIFOs and ``/dev`` links were skipped without a word. Each is skipped
    and named, never opened; an ordinary file outside the vault is still a page."""
    _system_links(root, tmp_path / "outside")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md", "out.md", "sub/b.md"}
    skipped = {s.path: (s.reason, s.detail) for s in result.skipped_symlinks}
    assert skipped.keys() == {*SYSTEM_SKIPS, "tofifo.md"}
    for path, (reason, start) in SYSTEM_SKIPS.items():
        assert skipped[path][0] == reason and skipped[path][1].startswith(start), skipped[path]
        assert skipped[path][1].endswith(": never read")
    fifo = tmp_path / "outside" / "fifo"
    assert skipped["tofifo.md"] == ("special", f"points to {fifo}, a FIFO: never read")
    assert result.skipped_files == (SkippedFile("pipe.md", "a FIFO: never read"),)
    assert result.unreadable == () and result.absence_proven("env.md")


def test_a_watcher_batch_naming_pseudo_file_system_links_reads_none(
    root: Path, tmp_path: Path
) -> None:
    _system_links(root, tmp_path / "outside")
    named = ["env.md", "zero.md", "sub", "proc", "sysk", "pipe.md", "tofifo.md", "out.md"]
    result, in_scope = scan_paths(Config(vault=root), named)
    assert set(result.pages) == {"out.md", "sub/b.md"}
    skipped = {s.path: s.reason for s in result.skipped_symlinks}
    assert skipped == {**{p: r for p, (r, _) in SYSTEM_SKIPS.items()}, "tofifo.md": "special"}
    assert [s.path for s in result.skipped_files] == ["pipe.md"]
    assert in_scope("env.md") and result.absence_proven("env.md")


def test_mutual_symlink_loop_terminates(root: Path) -> None:
    (root / "a").mkdir()
    (root / "b").mkdir()
    (root / "a" / "to-b").symlink_to("../b", target_is_directory=True)
    (root / "b" / "to-a").symlink_to("../a", target_is_directory=True)
    write(root, "a/x.md")
    result = scan(Config(vault=root))
    assert "a/x.md" in result.pages
    assert any(s.reason == "loop" for s in result.skipped_symlinks)


def test_self_symlink_loop_is_skipped_not_raised(root: Path) -> None:
    """``ln -s self v/self``: every DirEntry call on it raises ELOOP (tester's crash)."""
    write(root, "a.md")
    (root / "self").symlink_to("self")
    (root / "sub").mkdir()
    (root / "sub" / "loop.md").symlink_to("loop.md")
    (root / "sub" / "ping").symlink_to("pong")
    (root / "sub" / "pong").symlink_to("ping")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md"}
    assert result.unreadable == ()
    assert set(result.skipped_symlinks) == {
        SkippedSymlink("self", "loop"),
        SkippedSymlink("sub/loop.md", "loop"),
        SkippedSymlink("sub/ping", "loop"),
        SkippedSymlink("sub/pong", "loop"),
    }
    assert all("symbolic links" in s.detail for s in result.skipped_symlinks)


def test_self_symlink_loop_under_an_ignored_name_is_silent(root: Path) -> None:
    write(root, ".gitignore", "junk/\n")
    (root / "junk").symlink_to("junk")
    (root / ".hidden").symlink_to(".hidden")
    result = scan(Config(vault=root))
    assert result.skipped_symlinks == () and result.unreadable == ()


@pytest.mark.parametrize("target", ["..", "../..", "/"])
def test_symlink_to_an_ancestor_of_the_vault_is_a_loop(tmp_path: Path, target: str) -> None:
    """``ln -s ../.. v/a/up`` indexed the neighbours; ``ln -s / v/rootlink`` walked ``/``."""
    vault = tmp_path / "vault"
    write(tmp_path, "neighbour/n.md")  # beside the vault: must never be indexed
    write(vault, "a/p.md")
    (vault / "a" / "up").symlink_to(target, target_is_directory=True)
    listed: list[str] = []

    def spy(path: str) -> Iterable[os.DirEntry[str]]:
        listed.append(path)
        return os.scandir(path)

    result = scan(Config(vault=vault), listdir=spy)
    assert set(result.pages) == {"a/p.md"}
    assert result.skipped_symlinks == (SkippedSymlink("a/up", "loop"),)
    detail = result.skipped_symlinks[0].detail
    assert ("the vault root" if target == ".." else "an ancestor of the vault") in detail
    assert len(listed) == 2  # the root and a/, nothing through the link
    assert result.absence_proven("a/up/neighbour/n.md")  # stale pages from before may go


def test_outside_folder_is_followed_once_and_its_ancestors_are_loops(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "a.md")
    write(tmp_path, "outside/inner/o.md")
    write(tmp_path, "outside/sibling/s.md")
    inner = tmp_path / "outside" / "inner"
    (inner / "back").symlink_to("..", target_is_directory=True)  # ancestor of a chain folder
    (inner / "sib").symlink_to("../sibling", target_is_directory=True)  # not an ancestor
    (vault / "ext").symlink_to(inner, target_is_directory=True)
    result = scan(Config(vault=vault))
    assert set(result.pages) == {"a.md", "ext/o.md", "ext/sib/s.md"}
    assert result.skipped_symlinks == (SkippedSymlink("ext/back", "loop"),)
    assert "a folder on its own path" in result.skipped_symlinks[0].detail


class FaultyEntry:
    """A DirEntry whose ``method`` raises ``error`` (a stand-in for EACCES on /proc/1/cwd, EIO)."""

    def __init__(self, entry: os.DirEntry[str], method: str, error: OSError) -> None:
        self._entry, self._method, self._error = entry, method, error
        self.name, self.path = entry.name, entry.path

    def __getattr__(self, attr: str) -> object:
        real = getattr(self._entry, attr)
        if attr != self._method:
            return real

        def fail(*args: object, **kwargs: object) -> object:
            raise self._error

        return fail


def faulty_lister(name: str, method: str, error: OSError) -> Lister:
    def listdir(path: str) -> Iterable[os.DirEntry[str]]:
        return [
            FaultyEntry(e, method, error) if e.name == name else e  # type: ignore[misc]
            for e in os.scandir(path)
        ]

    return listdir


@pytest.mark.parametrize("method", ["is_dir", "is_file", "stat"])
@pytest.mark.parametrize(
    "error",
    [PermissionError(errno.EACCES, "Permission denied"), OSError(errno.EIO, "I/O error")],
)
@pytest.mark.parametrize("kind", ["folder", "page", "folder-link", "page-link"])
def test_no_entry_error_escapes_and_none_proves_absence(
    root: Path, method: str, error: OSError, kind: str
) -> None:
    write(root, "a.md")
    write(root, "real/r.md")
    if kind == "folder":
        write(root, "x/x.md")
    elif kind == "page":
        write(root, "x.md")
    else:
        target = "real" if kind == "folder-link" else "real/r.md"
        (root / ("x" if kind == "folder-link" else "x.md")).symlink_to(target)
    name = "x.md" if kind.startswith("page") else "x"
    result = scan(Config(vault=root), listdir=faulty_lister(name, method, error))
    assert "a.md" in result.pages and name not in result.pages
    if any(
        p.startswith("x/") or p == "x.md" for p in result.pages
    ):  # the failing call was not needed for this kind of entry
        assert not result.unreadable
        return
    assert [(u.path, u.error) for u in result.unreadable] == [(name, error.strerror)]
    assert not result.absence_proven(name)
    assert not result.absence_proven(f"{name}/deep/page.md")


def test_symlink_that_is_neither_file_nor_folder_is_left_out(root: Path) -> None:
    os.mkfifo(root / "fifo")
    (root / "fifo-link").symlink_to("fifo")
    write(root, "a.md")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"a.md"}
    assert result.skipped_symlinks == () and result.unreadable == ()


# --- R4: proof of absence ---------------------------------------------------------------------


def failing_lister(fail: Path) -> Lister:
    def listdir(path: str) -> Iterable[os.DirEntry[str]]:
        if Path(path) == fail:
            raise PermissionError(13, "Permission denied", path)
        return os.scandir(path)

    return listdir


def test_unreadable_folder_is_reported_and_its_pages_are_not_absent(root: Path) -> None:
    for rel in ["a.md", "b.md", "locked/c.md", "locked/deep/d.md", "other/e.md"]:
        write(root, rel)
    result = scan(Config(vault=root), listdir=failing_lister(root / "locked"))
    assert set(result.pages) == {"a.md", "b.md", "other/e.md"}
    assert [(u.path, u.error) for u in result.unreadable] == [("locked", "Permission denied")]
    assert not result.absence_proven("locked/c.md")
    assert not result.absence_proven("locked/deep/d.md")
    assert not result.absence_proven("a.md")
    assert result.absence_proven("gone.md")
    assert result.absence_proven("lockedx/c.md")


def test_unreadable_root_raises(root: Path) -> None:
    write(root, "a.md")
    with pytest.raises(VaultUnreadableError, match=str(root)) as info:
        scan(Config(vault=root), listdir=failing_lister(root))
    assert isinstance(info.value, VaultSyncError)
    assert "Permission denied" in str(info.value)


def test_missing_root_raises(root: Path) -> None:
    with pytest.raises(VaultUnreadableError, match="gone"):
        scan(Config(vault=root / "gone"))


# --- pages, attachments, reading --------------------------------------------------------------


def test_pages_have_stat_and_attachments_are_collected(root: Path) -> None:
    page = write(root, "notes/a.md", "héllo")
    write(root, "notes/UPPER.MD")
    write(root, "img/diagram.png")
    write(root, "docs/paper.pdf")
    write(root, "vault-sync.toml", "")
    result = scan(Config(vault=root))
    assert set(result.pages) == {"notes/a.md", "notes/UPPER.MD"}
    assert result.attachments == {"img/diagram.png", "docs/paper.pdf", "vault-sync.toml"}
    st = page.stat()
    assert result.pages["notes/a.md"] == FileEntry(
        "notes/a.md", "notes/a.md", st.st_mtime_ns, st.st_size
    )
    assert list(result.pages) == sorted(result.pages)


def test_read_page_text_and_hash(root: Path) -> None:
    data = "\ufeff---\ntitle: x\n---\nbody ü\n".encode()
    (root / "a.md").write_bytes(data)
    entry = scan(Config(vault=root)).pages["a.md"]
    text, digest, error, _size = read_page(root, entry)
    assert text == "---\ntitle: x\n---\nbody ü\n"  # BOM dropped
    assert digest == hashlib.blake2b(data, digest_size=16).hexdigest() == content_hash(data)
    assert error is None


def test_read_page_bad_utf8_is_replaced_and_reported(root: Path) -> None:
    (root / "bad.md").write_bytes(b"line one\nab\xffcd\n")
    entry = scan(Config(vault=root)).pages["bad.md"]
    text, _, error, _size = read_page(root, entry)
    assert text == "line one\nab\ufffdcd\n"
    assert error == "not valid UTF-8 at byte 11 (line 2)"


def test_read_page_bad_utf8_offset_counts_the_bom(root: Path) -> None:
    (root / "bad.md").write_bytes(b"\xef\xbb\xbfab\xff")
    entry = scan(Config(vault=root)).pages["bad.md"]
    assert read_page(root, entry)[2] == "not valid UTF-8 at byte 5 (line 1)"


def test_read_page_of_vanished_file_raises(root: Path) -> None:
    page = write(root, "a.md")
    entry = scan(Config(vault=root)).pages["a.md"]
    page.unlink()
    with pytest.raises(FileNotFoundError):
        read_page(root, entry)


# --- real corpora -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("corpus", "count"),
    [("obsidian-tasks-docs", 118), ("silverbullet-docs", 225), ("dnd-srd-zh", 356)],
)
def test_corpora_page_counts(tmp_path: Path, corpus: str, count: int) -> None:
    vault = copy_corpus(corpus, tmp_path)
    result = scan(Config(vault=vault))
    assert len(result.pages) == count
    assert result.unreadable == () and result.collisions == ()
    for path, entry in result.pages.items():
        assert path == unicodedata.normalize("NFC", path)
        assert (vault / entry.disk_path).is_file()
    if corpus == "dnd-srd-zh":
        assert "种族/# 种族特征.md" in result.pages


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(st.sampled_from(["node_modules", "a-b", "x_1", "b"]), min_size=1, max_size=3),
    parts=st.lists(
        st.sampled_from(["node_modules", "a-b", "x_1", "b", "node_modulesx", "c.md", "d"]),
        min_size=1,
        max_size=4,
    ),
    is_dir=st.booleans(),
)
def test_folder_name_lines_match_as_pathspec_does(
    names: list[str], parts: list[str], is_dir: bool
) -> None:
    """Lines that only name folders (the default tool folders) skip pathspec: their verdict
    is pathspec's own for every path, a folder's (trailing ``/``) or a file's."""
    lines = [f"{name}/" for name in names]
    path = "/".join(parts) + ("/" if is_dir else "")
    fast = Patterns(lines)
    assert fast.spec is None  # the fast path was taken
    expected = GitIgnoreSpec.from_lines(lines).check_file(path).include
    assert fast.check(path) == expected
    assert len(fast) == len(set(names))
