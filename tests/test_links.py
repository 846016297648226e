"""Link resolution order (DESIGN §2), as a pure function over a NameTable."""

from __future__ import annotations

import unicodedata

from vault_sync.links import LinkStatus, NameTable, resolve

WIKI = "wikilink"
MD = "markdown"


def table(*pages: tuple[str, str, tuple[str, ...]], attachments: tuple[str, ...] = ()) -> NameTable:
    t = NameTable()
    for path, title, aliases in pages:
        t.add_page(path, title, aliases)
    for a in attachments:
        t.add_attachment(a)
    return t


def test_exact_path_then_path_without_extension() -> None:
    t = table(("notes/a.md", "A", ()), ("a.md", "Other", ()))
    assert resolve(t, "notes/a.md", "x.md", WIKI).target_path == "notes/a.md"
    assert resolve(t, "notes/a", "x.md", WIKI).rule == "path_no_ext"


def test_stem_shortest_path_wins_and_tie_is_reported() -> None:
    t = table(("deep/er/Note.md", "N1", ()), ("x/Note.md", "N2", ()))
    found = resolve(t, "note", "y.md", WIKI)
    assert found.target_path == "x/Note.md"
    assert found.candidates == ("x/Note.md", "deep/er/Note.md")


def test_stem_beats_title_beats_alias() -> None:
    t = table(("Target.md", "Something", ()), ("b.md", "Target", ()), ("c.md", "C", ("Target",)))
    assert resolve(t, "Target", "z.md", WIKI).target_path == "Target.md"
    t2 = table(("b.md", "Target", ()), ("c.md", "C", ("Target",)))
    assert resolve(t2, "target", "z.md", WIKI).rule == "title"
    t3 = table(("c.md", "C", ("retry storm",)))
    assert resolve(t3, "Retry Storm", "z.md", WIKI).target_path == "c.md"


def test_path_target_never_resolves_by_stem() -> None:
    t = table(("other/C.md", "C", ()))
    assert resolve(t, "dir/C", "A.md", WIKI).status is LinkStatus.UNRESOLVED


def test_path_target_relative_to_linking_folder() -> None:
    t = table(("proj/sub/C.md", "C", ()))
    assert resolve(t, "sub/C", "proj/A.md", WIKI).target_path == "proj/sub/C.md"
    assert resolve(t, "sub/C.md", "proj/A.md", MD).target_path == "proj/sub/C.md"


def test_nfd_and_nfc_meet() -> None:
    nfc = unicodedata.normalize("NFC", "Café notes")
    t = table((nfc + ".md", nfc, ()))
    nfd_link = unicodedata.normalize("NFD", "Café notes")
    assert resolve(t, nfd_link, "n1.md", WIKI).status is LinkStatus.RESOLVED


def test_attachments_by_path_then_name_and_missing() -> None:
    t = table(("a.md", "A", ()), attachments=("assets/img/diagram.png",))
    assert resolve(t, "diagram.png", "a.md", WIKI).status is LinkStatus.ATTACHMENT
    assert resolve(t, "assets/img/diagram.png", "a.md", WIKI).target_path == (
        "assets/img/diagram.png"
    )
    assert resolve(t, "missing.png", "a.md", WIKI).status is LinkStatus.MISSING_ATTACHMENT


def test_page_name_with_dot_is_a_page_not_an_attachment() -> None:
    t = table(("Release 1.2.md", "Release 1.2", ()))
    assert resolve(t, "Release 1.2", "a.md", WIKI).status is LinkStatus.RESOLVED
    assert resolve(t, "Release 9.9", "a.md", WIKI).status is LinkStatus.UNRESOLVED
    assert resolve(t, "report.pdf", "a.md", WIKI).status is LinkStatus.MISSING_ATTACHMENT


def test_markdown_link_to_a_file_without_md_is_an_attachment() -> None:
    """dnd-srd-zh's README links `[MIT License](./LICENSE)`: a file, not a missing page."""
    t = table(("README.md", "Readme", ()), attachments=("LICENSE",))
    assert resolve(t, "LICENSE", "README.md", MD).status is LinkStatus.ATTACHMENT
    assert resolve(t, "NOTICE", "README.md", MD).status is LinkStatus.MISSING_ATTACHMENT
    assert resolve(t, "README.md", "README.md", MD).status is LinkStatus.RESOLVED
    assert resolve(t, "Other.md", "README.md", MD).status is LinkStatus.UNRESOLVED
