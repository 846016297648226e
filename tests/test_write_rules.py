"""Agent writes, the rules a fresh user broke (issue 11 follow-up): comments and quoting kept
by every edit, file names and links the tool reads back, supersession cycles refused and
linted, evidence retracted as it was written, and agent input refused in one line."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.splice import DELETE, splice_key

Cli = Callable[..., Result]

COMMENTED = (
    "---\n"
    "status: active # real one\n"
    "evidence: [session:a, \"session:b\", 'session:c']   # inline list\n"
    'fixes: "[[A]]"  # one\n'
    "related:  # block\n"
    "  - a\n"
    "  # about b\n"
    '  - "b"  # bee\n'
    "---\n"
    "body\n"
)


def _changed(before: str, after: str) -> list[str]:
    return [ln for ln in difflib.ndiff(before.splitlines(), after.splitlines()) if ln[0] in "+-"]


# -- 1. comments and quoting ----------------------------------------------------------------


def test_a_changed_scalar_keeps_its_trailing_comment() -> None:
    new = splice_key(COMMENTED, "status", "archived", path="p.md")
    assert _changed(COMMENTED, new) == [
        "- status: active # real one",
        "+ status: archived # real one",
    ]


REMOVED = (
    "---\n"
    "# about the page: set off by a blank line, no key's own\n"
    "\n"
    "# kind of rule\n"
    "kind: rule\n"
    "# why these two clash\n"
    "# (second line of it)\n"
    'contradicts: "[[B]]"  # B\n'
    "# the evidence below\n"
    "evidence:\n"
    "  # the first session\n"
    "  - session:a\n"
    "  # the second session\n"
    "  - session:b  # bee\n"
    "  # after b, before c\n"
    "  - session:c\n"
    "# the closing comment\n"
    "---\n"
    "body\n"
)


@pytest.mark.parametrize(
    ("key", "new", "gone"),
    [
        (
            "contradicts",
            None,
            ["# why these two clash", "# (second line of it)", 'contradicts: "[[B]]"  # B'],
        ),
        ("kind", None, ["# kind of rule", "kind: rule"]),
        (
            "evidence",
            ["session:a", "session:c"],
            ["  # the second session", "  - session:b  # bee"],
        ),
        ("evidence", ["session:b", "session:c"], ["  # the first session", "  - session:a"]),
        (
            "evidence",
            ["session:b"],
            ["  # the first session", "  - session:a", "  # after b, before c", "  - session:c"],
        ),
        (
            "evidence",
            None,
            [
                "# the evidence below",
                "evidence:",
                "  # the first session",
                "  - session:a",
                "  # the second session",
                "  - session:b  # bee",
                "  # after b, before c",
                "  - session:c",
            ],
        ),
    ],
)
def test_a_removed_key_or_item_takes_its_own_comment_and_no_other(
    key: str, new: list[str] | None, gone: list[str]
) -> None:
    """A comment line directly above a removed key (or list item), at its indentation, is its
    own and goes with it; a comment set off by a blank line, or after the value, stays."""
    after = splice_key(REMOVED, key, DELETE if new is None else new, path="p.md")
    assert _changed(REMOVED, after) == [f"- {line}" for line in gone]


@pytest.mark.parametrize(
    ("kept", "line"),
    [
        (["session:b", "session:c"], "evidence: [\"session:b\", 'session:c']   # inline list"),
        (["session:a", "session:c"], "evidence: [session:a, 'session:c']   # inline list"),
        (["session:a"], "evidence: [session:a]   # inline list"),
        ([], "evidence: []   # inline list"),
        (
            ["session:a", "session:b", "session:c", "session:d"],
            "evidence: [session:a, \"session:b\", 'session:c', session:d]   # inline list",
        ),
    ],
)
def test_a_flow_list_edit_touches_only_the_items_own_text(kept: list[str], line: str) -> None:
    new = splice_key(COMMENTED, "evidence", kept, path="p.md")
    old_line = "evidence: [session:a, \"session:b\", 'session:c']   # inline list"
    assert _changed(COMMENTED, new) == [f"- {old_line}", f"+ {line}"]


def test_block_list_edits_keep_the_comments_around_items() -> None:
    gone = splice_key(COMMENTED, "related", ["b"], path="p.md")
    assert _changed(COMMENTED, gone) == ["-   - a"]
    added = splice_key(COMMENTED, "related", ["a", "b", "c"], path="p.md")
    assert _changed(COMMENTED, added) == ["+   - c"]
    listed = splice_key(COMMENTED, "fixes", ["[[A]]", "[[B]]"], path="p.md")
    assert _changed(COMMENTED, listed) == [
        '- fixes: "[[A]]"  # one',
        "+ fixes:  # one",
        '+   - "[[A]]"',
        '+   - "[[B]]"',
    ]


def test_edits_of_pages_with_comments_and_mixed_quoting_keep_every_other_byte() -> None:
    """Hypothesis: random flow and block lists of plain, single- and double-quoted items,
    each line maybe commented; removing or appending items changes only those items' text
    (the mapping is checked by the splice itself), and every comment survives."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    words = st.from_regex(r"[a-z]([a-z:.# -]{0,5}[a-z])?", fullmatch=True)

    def quoted(word: str, style: int) -> str:
        plain = style == 0 and not any(c in word for c in ":#")
        return word if plain else [f'"{word}"', f"'{word}'"][style % 2]

    items = st.lists(
        st.tuples(words, st.integers(0, 2)), min_size=1, max_size=5, unique_by=lambda t: t[0]
    )
    comment = st.sampled_from(["", "  # note", " #x"])

    @settings(max_examples=150, deadline=None)
    @given(items, items, comment, comment, st.booleans(), st.data())
    def check(flow: list, block: list, c1: str, c2: str, remove: bool, data: st.DataObject) -> None:
        text = (
            "---\n"
            f"title: Page{c1}\n"
            f"tags: [{', '.join(quoted(w, s) for w, s in flow)}]{c2}\n"
            f"items:{c1}\n"
            + "".join(
                f"  - {quoted(w, s)}{c2 if i % 2 else ''}\n" for i, (w, s) in enumerate(block)
            )
            + "# closing comment\n---\nbody\n"
        )
        before = frontmatter_map(text).mapping
        for key, pairs in (("tags", flow), ("items", block)):
            old = before[key]
            if remove:
                drop = data.draw(st.integers(0, len(old) - 1))
                new = [v for i, v in enumerate(old) if i != drop]
                raw = quoted(*pairs[drop]) + (c2 if key == "items" and drop % 2 else "")
            else:
                new, raw = [*old, "added-item"], ""
            after = splice_key(text, key, new, path="p.md")
            assert after.count("#") == text.count("#") - raw.count("#")
            for i, pair in enumerate(pairs):
                if not remove or i != drop:
                    assert quoted(*pair) in after
            if key == "tags":
                assert after.count("\n") == text.count("\n")
            else:
                assert abs(after.count("\n") - text.count("\n")) == 1, after
            assert splice_key(text, "title", "Other", path="p.md").count("#") == text.count("#")

    check()


# -- 3. supersession cycles -----------------------------------------------------------------


@pytest.fixture
def vault(make_vault: Callable[..., Path], cli: Cli) -> Path:
    root = make_vault(
        {
            "A.md": '---\nkind: rule\ncontradicts: "[[B]]"\n---\nalpha\n',
            "B.md": "---\nkind: rule\n---\nbravo\n",
            "C.md": "---\nkind: rule\n---\ncharlie\n",
            "normal page.md": "---\nkind: note\n---\nnormal\n",
        }
    )
    assert cli("--vault", str(root), "sync").code == 0
    return root


def test_a_supersede_that_closes_a_cycle_is_refused_and_lint_finds_hand_made_ones(
    vault: Path, cli: Cli
) -> None:
    v = ("--vault", str(vault))
    assert cli(*v, "supersede", "A", "B").code == 0
    assert cli(*v, "supersede", "B", "C").code == 0
    before = {p.name: p.read_bytes() for p in vault.glob("*.md")}
    refused = cli(*v, "supersede", "C", "A")
    assert refused.code == 1
    assert refused.err == (
        "Error: C.md cannot be superseded by A.md: A.md is already superseded by C.md"
        " (A.md -> B.md -> C.md, each superseded by the next); not edited\n"
    )
    # resolve A keeping A would say "A supersedes B" while A says superseded_by B
    contradictory = cli(*v, "resolve", "A")
    assert contradictory.code == 1
    assert contradictory.err.startswith("Error: B.md cannot be superseded by A.md: ")
    assert {p.name: p.read_bytes() for p in vault.glob("*.md")} == before
    assert cli(*v, "lint").code == 0
    # a person closes the cycle by hand: lint reports it on every page of it
    c = vault / "C.md"
    c.write_text(c.read_text().replace("kind: rule\n", 'kind: rule\nsuperseded_by: "[[A]]"\n'))
    assert cli(*v, "sync").code == 0
    lint = cli(*v, "lint")
    assert lint.code == 1
    message = (
        "error supersession_cycle: supersession cycle: A.md -> B.md -> C.md -> A.md"
        " (each superseded by the next; none current)"
    )
    assert [ln for ln in lint.out.splitlines() if "supersession_cycle" in ln] == [
        f"{name}: {message}" for name in ("A.md", "B.md", "C.md")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: X\n# closing comment\n---\nbody\n",
        "---\n# only a comment\n---\nbody\n",
        "---\nnotes: |+\n  line\n\n# after a kept blank\n# two lines\n---\nx\n",
    ],
)
def test_a_key_added_then_removed_gives_back_the_page_and_its_closing_comments(text: str) -> None:
    """A new key goes above the comment lines that end the block: they are not its own
    comment, so removing it again (``link`` then ``unlink``) gives back every byte."""
    added = splice_key(text, "related", "[[B]]", path="p.md")
    assert _changed(text, added) == ['+ related: "[[B]]"']
    assert splice_key(added, "related", DELETE, path="p.md") == text


def test_resolve_and_unlink_take_the_removed_lines_own_comments(vault: Path, cli: Cli) -> None:
    """The commands that remove keys or items (resolve, unlink, retract) edit through the
    splice: the comment lines of what they remove go, every other byte stays."""
    v = ("--vault", str(vault))
    page = vault / "A.md"
    page.write_text(
        '---\n# a rule\nkind: rule\n# B says the opposite\ncontradicts: "[[B]]"\n'
        'related:\n  # see C\n  - "[[C]]"\n  # the normal one\n  - "[[normal page]]"\n'
        "---\nalpha\n",
        encoding="utf-8",
    )
    assert cli(*v, "sync").code == 0
    assert cli(*v, "unlink", "A", "related", "C").code == 0
    assert cli(*v, "resolve", "A", "--by", "archive").code == 0
    assert page.read_text(encoding="utf-8") == (
        '---\n# a rule\nkind: rule\nrelated:\n  # the normal one\n  - "[[normal page]]"\n'
        "---\nalpha\n"
    )


# -- 2. file names and links the tool reads back --------------------------------------------

ODD = "Use [brackets] and #hash ^caret |pipe"


def test_a_title_with_link_breaking_characters_makes_a_page_that_links_back(
    vault: Path, cli: Cli
) -> None:
    v = ("--vault", str(vault))
    made = cli(*v, "remember", ODD, "--kind", "rule", "--json")
    assert made.code == 0, made.err
    assert made.json()["pages"][0]["path"] == "rules/Use brackets and hash caret pipe.md"
    for reference in (
        ODD,
        "rules/Use brackets and hash caret pipe.md",
        "[[Use brackets and hash caret pipe]]",
    ):
        linked = cli(*v, "link", "normal page", "related", reference, "--dry-run")
        assert linked.code == 0, (reference, linked.err)
    assert cli(*v, "link", "normal page", "related", ODD).code == 0
    text = (vault / "normal page.md").read_text(encoding="utf-8")
    assert 'related: "[[Use brackets and hash caret pipe]]"\n' in text
    lint = cli(*v, "lint")
    assert "normal page.md" not in lint.out, lint.out


def test_a_page_no_wikilink_can_name_is_refused_not_linked_badly(vault: Path, cli: Cli) -> None:
    v = ("--vault", str(vault))
    (vault / "Token [REDACTED github_token] is rotated.md").write_text(
        '---\ntitle: "Token [REDACTED:github_token] is rotated"\n---\nx\n', encoding="utf-8"
    )
    assert cli(*v, "sync").code == 0
    refused = cli(*v, "link", "normal page", "related", "Token [REDACTED github_token] is rotated")
    assert refused.code == 1
    assert refused.err == (
        "Error: Token [REDACTED github_token] is rotated.md: its file name holds characters a"
        " wikilink cannot carry ([ ] # ^ |) and no title or alias without them names it;"
        " rename the file, then link again\n"
    )
    by_placeholder = cli(*v, "link", "normal page", "related", "[REDACTED:github_token]")
    assert by_placeholder.code == 1
    assert "placeholder names no page" in by_placeholder.err
    assert (vault / "normal page.md").read_text(
        encoding="utf-8"
    ) == "---\nkind: note\n---\nnormal\n"


def test_import_never_links_a_page_by_a_placeholder_alias(
    vault: Path, cli: Cli, tmp_path: Path
) -> None:
    v = ("--vault", str(vault))
    (vault / "Keys.md").write_text(
        '---\naliases: ["[REDACTED:stripe_key]"]\n---\nkeys\n', encoding="utf-8"
    )
    assert cli(*v, "sync").code == 0
    key = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    transcript = tmp_path / "s.txt"
    transcript.write_text(f"user: the key {key} leaked\nassistant: rotate it\n", encoding="utf-8")
    out = cli(*v, "import-session", str(transcript), "--json")
    assert out.code == 0, out.err
    written = (vault / out.json()["pages"][0]["path"]).read_text(encoding="utf-8")
    assert "Keys" not in written and "[[" not in written.split("---")[1]


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ("../../../tmp/fresh/evil", "tmp fresh evil"),
        ("abc\u202edef", "abcdef"),
        ("zero\u200bwidth\u2066x\u2069", "zerowidthx"),
        (" . lead and trail . ", "lead and trail"),
    ],
)
def test_file_names_drop_bidi_controls_and_never_start_with_a_space(title: str, stem: str) -> None:
    from vault_sync.remember import file_name

    assert file_name(title) == stem


# -- 4. retract what reinforce wrote ---------------------------------------------------------


def test_retract_matches_evidence_sanitized_as_reinforce_wrote_it(vault: Path, cli: Cli) -> None:
    v = ("--vault", str(vault))
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    before = (vault / "B.md").read_text(encoding="utf-8")
    # a source is a name: reinforce refuses one holding a secret (fresh-user report 5)
    refused = cli(*v, "reinforce", "B", "--evidence", f"session:{token}")
    assert (refused.code, refused.err) == (
        2,
        "Error: an evidence source cannot hold a secret: '[REDACTED:github_token]'\n",
    )
    assert (vault / "B.md").read_text(encoding="utf-8") == before
    # an entry reinforce wrote before that is retracted by giving the same text again
    (vault / "B.md").write_text(
        before.replace(
            "kind: rule\n", "kind: rule\nevidence:\n  - session:[REDACTED:github_token]\n"
        ),
        encoding="utf-8",
    )
    assert cli(*v, "sync").code == 0
    out = cli(*v, "retract", "B", "--evidence", f"session:{token}", "--json")
    assert out.code == 0, out.err
    assert out.json()["pages"][0]["changed"] is True
    assert "session:" not in (vault / "B.md").read_text(encoding="utf-8")


# -- 5. agent input refused or normalised in one line ---------------------------------------


def test_tags_are_json_lists_or_obsidian_tags(vault: Path, cli: Cli) -> None:
    from vault_sync import agent_input
    from vault_sync.errors import AgentInputError

    v = ("--vault", str(vault))
    bad = cli(*v, "remember", "T1", "--kind", "rule", "--tag", '["unclosed')
    assert bad.code == 2
    assert bad.err == (
        'Error: tags starting with [ must be a JSON list of strings, e.g. ["a", "b"]'
        " (got '[\"unclosed')\n"
    )
    assert not (vault / "rules").exists()
    made = cli(*v, "remember", "T2", "--kind", "rule", "--tag", "has space, #Ops/x_y")
    assert made.code == 0, made.err
    assert "tags: [has-space, Ops/x_y]\n" in (vault / "rules" / "T2.md").read_text("utf-8")
    for text, char in (("a.b", "."), ("x#y", "#"), ("what?", "?")):
        with pytest.raises(AgentInputError, match=rf"ends a tag at '\{char}'\)$"):
            agent_input.names([text], "tag")
    with pytest.raises(AgentInputError, match="not a digit"):
        agent_input.names(["2026"], "tag")


def test_link_arguments_are_named_alike_in_the_cli_and_the_docs(cli: Cli) -> None:
    usage = cli("link", "--help").out
    assert "SOURCE RELATION TARGET" in usage
    docs = (Path(__file__).parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "## `vault-sync link SOURCE RELATION TARGET" in docs
    assert "## `vault-sync unlink SOURCE RELATION TARGET" in docs
