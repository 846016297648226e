"""Link resolution order (DESIGN §2), as a pure function over a NameTable."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from vault_sync.links import LinkStatus, NameTable, Resolver, resolve

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


_NAMES = st.sampled_from(["a", "B", "a.md", "b c", "x/a", "../a", "./y/b", "img.png", "x/img.PNG"])
_FOLDERS = st.sampled_from(["", "x", "y", "x/z", "y/x"])


@settings(max_examples=300, deadline=None)
@example(  # the same attachment name in two folders: each source finds its own folder's
    pages=[],
    attachments=[("x", "img.png"), ("y", "img.png")],
    links=[("img.png", "y", WIKI), ("img.png", "x", WIKI)],
)
@given(
    pages=st.lists(st.tuples(_FOLDERS, _NAMES, _NAMES), max_size=8),
    attachments=st.lists(st.tuples(_FOLDERS, st.sampled_from(["img.png", "a.pdf"])), max_size=3),
    links=st.lists(
        st.tuples(_NAMES, _FOLDERS, st.sampled_from([WIKI, MD, "frontmatter"])), max_size=30
    ),
)
def test_the_remembering_resolver_answers_as_resolve_does(
    pages: list[tuple[str, str, str]],
    attachments: list[tuple[str, str]],
    links: list[tuple[str, str, str]],
) -> None:
    names = table(
        *((f"{folder}/{stem}.md".lstrip("/"), title, ()) for folder, stem, title in pages),
        attachments=tuple(f"{folder}/{name}".lstrip("/") for folder, name in attachments),
    )
    resolver = Resolver(names)
    for target, folder, origin in links * 2:  # the second round answers from the memo
        source = f"{folder}/src.md".lstrip("/")
        assert resolver(target, source, origin) == resolve(names, target, source, origin)


def test_each_resolution_step_answers_in_a_subfolder_before_the_later_steps() -> None:
    """Every page sits in a folder and links come from another one, so no earlier rule (an
    exact path from the root) answers for a later one: each link is answered by its own step,
    while every later step would give another page (issue 14: at the root, trying the title
    before the stem passed every test)."""
    t = table(
        ("d/n.md", "N", ()),
        ("d/n.md.md", "N twin", ()),  # what path_no_ext would answer for "d/n.md"
        ("a/Target.md", "T-a", ()),
        ("b/Other.md", "Target", ("Ttl",)),  # title "Target": what the title rule would give
        ("c/Third.md", "C", ("Target", "Al")),  # alias "Target": what the alias rule would give
        ("b/Ttl2.md", "Ttl", ()),
        ("proj/sub/Rel.md", "Rel", ()),
        ("sub/Both.md", "Both root", ()),
        ("proj/sub/Both.md", "Both here", ()),
    )
    steps = {
        "d/n.md": ("d/n.md", "path"),
        "d/n": ("d/n.md", "path_no_ext"),
        "sub/Rel": ("proj/sub/Rel.md", "relative"),  # from the linking page's folder
        "sub/Both": ("sub/Both.md", "path_no_ext"),  # the vault root first, then the folder
        "Target": ("a/Target.md", "stem"),  # before the title (b/) and the alias (c/)
        "Ttl": ("b/Ttl2.md", "title"),  # before the alias of b/Other.md
        "Al": ("c/Third.md", "alias"),
    }
    for target, (path, rule) in steps.items():
        found = resolve(t, target, "proj/s.md", WIKI)
        assert (found.status, found.target_path, found.rule) == (
            LinkStatus.RESOLVED,
            path,
            rule,
        ), target
        assert Resolver(t)(target, "proj/s.md", WIKI) == found, target
