"""Link resolution, rule by rule, with exact answers (issue 14's mutation testing of links.py).

Every test asserts the whole :class:`Resolution` (status, target, the tied candidates a lint
warning lists, the rule), so a change to any part of an answer fails. The pure cases come
first; the last ones sync a real vault (tantivy + SQLite) and read the stored link rows, for
the keys that decide which stored links a new or renamed page re-resolves.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from vault_sync import layout
from vault_sync.config import load_config
from vault_sync.engine import run_sync
from vault_sync.links import LinkStatus, NameTable, Resolution, Resolver, link_keys, page_keys
from vault_sync.links import resolve as resolve_link

from .conftest import write_pages

WIKI = "wikilink"
MD = "markdown"
R = LinkStatus.RESOLVED


def names(
    *pages: str,
    titles: dict[str, str] | None = None,
    aliases: dict[str, tuple[str, ...]] | None = None,
    attachments: tuple[str, ...] = (),
) -> NameTable:
    """A name table of pages (title = stem unless given) and attachments."""
    t = NameTable()
    for path in pages:
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        t.add_page(path, (titles or {}).get(path, stem), (aliases or {}).get(path, ()))
    for a in attachments:
        t.add_attachment(a)
    return t


# -- paths that differ only in case (one key, several files) -------------------------------


def test_a_case_tie_goes_to_the_path_spelled_as_the_link_else_the_first_in_code_point_order() -> (
    None
):
    t = names("Notes/A.md", "notes/a.md", "solo/B.md")
    assert resolve_link(t, "notes/a.md", "x.md", WIKI) == Resolution(
        R, "notes/a.md", ("notes/a.md", "Notes/A.md"), "path"
    )
    assert resolve_link(t, "Notes/A", "x.md", WIKI) == Resolution(
        R, "Notes/A.md", ("Notes/A.md", "notes/a.md"), "path_no_ext"
    )
    # spelled like neither: the first in code-point order ("N" < "n"), still reported
    assert resolve_link(t, "NOTES/a", "x.md", WIKI) == Resolution(
        R, "Notes/A.md", ("Notes/A.md", "notes/a.md"), "path_no_ext"
    )
    assert resolve_link(t, "solo/b", "x.md", WIKI) == Resolution(R, "solo/B.md", (), "path_no_ext")


def test_a_link_ending_in_md_that_names_a_page_ending_in_md_md_keeps_its_spelling() -> None:
    """`[[a.md]]` names `a.md.md` when no `a.md` exists (rule path_no_ext): of `A.md.md` and
    `a.md.md` the one spelled as the link wins. Stripping the link's ".md" before comparing
    lost the spelling and gave `A.md.md` (found by mutation testing, issue 14)."""
    t = names("A.md.md", "a.md.md")
    assert resolve_link(t, "a.md", "x.md", WIKI) == Resolution(
        R, "a.md.md", ("a.md.md", "A.md.md"), "path_no_ext"
    )
    assert resolve_link(t, "A.md", "x.md", WIKI) == Resolution(
        R, "A.md.md", ("A.md.md", "a.md.md"), "path_no_ext"
    )


def test_a_relative_case_tie_keeps_its_candidates() -> None:
    t = names("proj/sub/A.md", "proj/sub/a.md")
    assert resolve_link(t, "sub/a", "proj/s.md", WIKI) == Resolution(
        R, "proj/sub/a.md", ("proj/sub/a.md", "proj/sub/A.md"), "relative"
    )


# -- a leading slash: the vault root only ---------------------------------------------------


def test_a_leading_slash_means_the_vault_root_never_the_linking_folder() -> None:
    t = names("proj/sub/C.md", "Top/D.md", "top/d.md")
    assert resolve_link(t, "/sub/C", "proj/a.md", WIKI) == Resolution(LinkStatus.UNRESOLVED)
    assert resolve_link(t, "/sub/C.md", "proj/a.md", MD) == Resolution(LinkStatus.UNRESOLVED)
    assert resolve_link(t, "/proj/sub/C", "other/a.md", WIKI) == Resolution(
        R, "proj/sub/C.md", (), "path_no_ext"
    )
    # the slash is not part of the spelling that breaks a case tie
    assert resolve_link(t, "/top/d", "x.md", WIKI) == Resolution(
        R, "top/d.md", ("top/d.md", "Top/D.md"), "path_no_ext"
    )


# -- stem, title, alias ---------------------------------------------------------------------


def test_a_stem_link_written_with_md_finds_the_page_by_stem() -> None:
    t = names("deep/Note.md")
    assert resolve_link(t, "Note.md", "x/y.md", WIKI) == Resolution(R, "deep/Note.md", (), "stem")
    assert resolve_link(t, "note", "x/y.md", WIKI) == Resolution(R, "deep/Note.md", (), "stem")


def test_a_page_with_two_aliases_that_differ_in_case_is_no_tie_with_itself() -> None:
    t = names("c.md", aliases={"c.md": ("Foo", "foo")})
    assert resolve_link(t, "FOO", "x.md", WIKI) == Resolution(R, "c.md", (), "alias")
    t2 = names("a/c.md", "b/d.md", aliases={"a/c.md": ("Foo", "foo"), "b/d.md": ("FOO",)})
    assert resolve_link(t2, "foo", "x.md", WIKI) == Resolution(
        R, "a/c.md", ("a/c.md", "b/d.md"), "alias"
    )


def test_a_redaction_token_names_no_page_even_a_page_whose_title_is_that_token() -> None:
    """Two pages whose titles held secrets are both titled by a token after scrubbing; a link
    whose target held a secret must not resolve to either."""
    token = "[REDACTED:aws_access_key]"
    t = names("a.md", "b.md", titles={"a.md": token, "b.md": token})
    assert resolve_link(t, token, "c.md", WIKI) == Resolution(LinkStatus.UNRESOLVED)
    assert resolve_link(t, f"x {token} y", "c.md", WIKI) == Resolution(LinkStatus.UNRESOLVED)
    # a file's link stays a missing attachment, as the same link with a clean name is (it
    # was said to name no page: a fresh user's report), even where a file has that name
    t.add_attachment(f"files/{token}.pdf")
    for target in (f"files/{token}.pdf", f"{token}.png"):
        assert resolve_link(t, target, "c.md", WIKI) == Resolution(LinkStatus.MISSING_ATTACHMENT)
    assert resolve_link(t, f"{token}.md", "c.md", WIKI) == Resolution(LinkStatus.UNRESOLVED)


# -- attachments ----------------------------------------------------------------------------


def test_attachment_order_root_path_then_the_linking_folder_then_the_file_name() -> None:
    t = names(attachments=("img/a.png", "x/img/a.png", "x/pics/b.png", "y/c.png", "zz/c.png"))
    att = LinkStatus.ATTACHMENT
    # the path from the root first, even when the linking folder has the same path
    assert resolve_link(t, "img/a.png", "x/s.md", WIKI) == Resolution(
        att, "img/a.png", (), "attachment"
    )
    assert resolve_link(t, "/img/a.png", "x/s.md", WIKI) == Resolution(
        att, "img/a.png", (), "attachment"
    )
    # then the path from the linking page's folder (wiki and Markdown links alike)
    assert resolve_link(t, "pics/b.png", "x/s.md", WIKI) == Resolution(
        att, "x/pics/b.png", (), "attachment"
    )
    assert resolve_link(t, "pics/b.png", "x/s.md", MD) == Resolution(
        att, "x/pics/b.png", (), "attachment"
    )
    # a bare name: the linking folder's file before the shortest path of that name
    assert resolve_link(t, "c.png", "zz/s.md", WIKI) == Resolution(
        att, "zz/c.png", (), "attachment"
    )
    assert resolve_link(t, "c.png", "q/s.md", WIKI) == Resolution(att, "y/c.png", (), "attachment")
    # a path is never found by its file name alone
    assert resolve_link(t, "other/c.png", "q/s.md", WIKI) == Resolution(
        LinkStatus.MISSING_ATTACHMENT
    )
    assert resolve_link(t, "/pics/b.png", "x/s.md", WIKI) == Resolution(
        LinkStatus.MISSING_ATTACHMENT
    )


# -- the remembering resolver ---------------------------------------------------------------


def test_the_resolver_answers_a_path_link_per_linking_folder() -> None:
    t = names("p/sub/C.md", "q/sub/C.md", attachments=("p/i.png", "q/i.png"))
    resolver = Resolver(t)
    for folder in ("p", "q", "p"):
        assert resolver("sub/C", f"{folder}/a.md", WIKI) == Resolution(
            R, f"{folder}/sub/C.md", (), "relative"
        )
        assert resolver("i.png", f"{folder}/a.md", WIKI) == Resolution(
            LinkStatus.ATTACHMENT, f"{folder}/i.png", (), "attachment"
        )


# -- the keys that pick which stored links a batch re-resolves -----------------------------


def test_names_that_begin_with_the_letters_of_a_mutated_strip_still_resolve() -> None:
    """`lstrip("/")` strips a set of characters: any change to that set loses the first
    letters of names that begin with them (`[[Xylophone]]`)."""
    t = names("Xylophone.md", "XX/Xa.md", attachments=("X.png",))
    assert resolve_link(t, "Xylophone", "q/s.md", WIKI) == Resolution(
        R, "Xylophone.md", (), "path_no_ext"
    )
    assert resolve_link(t, "/XX/Xa", "q/s.md", WIKI) == Resolution(R, "XX/Xa.md", (), "path_no_ext")
    assert resolve_link(t, "X.png", "q/s.md", WIKI) == Resolution(
        LinkStatus.ATTACHMENT, "X.png", (), "attachment"
    )
    assert link_keys("/Xylo") == ("xylo", "xylo")
    ties = names("XA.md", "Xa.md")  # the spelling kept for a case tie loses no letter either
    assert resolve_link(ties, "/Xa", "q/s.md", WIKI) == Resolution(
        R, "Xa.md", ("Xa.md", "XA.md"), "path_no_ext"
    )


def test_link_keys_and_page_keys() -> None:
    assert link_keys("  /Notes/Sub/Ünï.md ") == ("notes/sub/ünï", "ünï")
    assert link_keys("Plain") == ("plain", "plain")
    assert link_keys("a.md.md") == ("a.md", "a.md")
    assert page_keys("Notes/Sub/A.md", "The Title", ["Al", "AL"]) == {
        "notes/sub/a",
        "a",
        "the title",
        "al",
    }


MakeVault = Callable[..., Path]


def _links(vault: Path) -> list[tuple[object, ...]]:
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    db = sqlite3.connect(layout.sidecar_file(folder))
    try:
        sql = "SELECT source, target_text, status, target_path, candidates FROM links"
        return sorted(db.execute(sql + " ORDER BY source, target_text"))
    finally:
        db.close()


def test_a_stored_link_is_re_resolved_when_a_page_it_names_appears_or_changes(
    make_vault: MakeVault,
) -> None:
    """A new page by path (last part = stem), a retitled page and a new alias each re-resolve
    the stored links they now satisfy, in a small batch (names looked up by SQL)."""
    vault = make_vault(
        {
            "x/a.md": "[[sub/New]] [[Fresh Title]] [[nick]] [[/x/sub/New]]\n",
            "b.md": "# B\n",
        }
    )
    run_sync(load_config(vault))
    assert [row[2] for row in _links(vault)] == ["unresolved"] * 4
    write_pages(vault, {"x/sub/New.md": "# New\n", "b.md": "---\ntitle: Fresh Title\n---\n"})
    write_pages(vault, {"c.md": "---\naliases: [Nick]\n---\n"})
    run_sync(load_config(vault))
    assert _links(vault) == [
        ("x/a.md", "/x/sub/New", "resolved", "x/sub/New.md", None),
        ("x/a.md", "Fresh Title", "resolved", "b.md", None),
        ("x/a.md", "nick", "resolved", "c.md", None),
        ("x/a.md", "sub/New", "resolved", "x/sub/New.md", None),
    ]
    write_pages(vault, {"x/sub/new.md": "# other new\n"})  # a case twin: now a tie
    run_sync(load_config(vault))
    assert _links(vault)[0] == (
        "x/a.md",
        "/x/sub/New",
        "resolved",
        "x/sub/New.md",
        '["x/sub/New.md", "x/sub/new.md"]',
    )
