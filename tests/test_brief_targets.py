"""`brief` targets (fresh-user report, items 11 and 12.2).

Block targets: the ``<!-- vault-sync:begin -->`` / ``<!-- vault-sync:end -->`` markers count
only alone on a line outside code (CommonMark fences of 3+ backticks or tildes indented up to
3 spaces, indented code, HTML comments); markers that are not one begin then one end are
refused with ``FILE:LINE``, and a person's text is never lost or moved into the managed block.
One refused target stops no other, and `brief` says what it wrote as well as what it refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.conftest import Result
from vault_sync.brief_targets import BEGIN, END, find_block, with_block
from vault_sync.errors import EditRefusedError

Cli = Callable[..., Result]
BRIEF = "# Memory briefing\nline\n"
BLOCK = f"{BEGIN}\n# Memory briefing\nline\n{END}"


@pytest.mark.parametrize(
    "before",
    [
        f"```\n{BEGIN}\nexample in docs\n{END}\n```\nrest\n",  # the report's INCODE.md
        f"~~~~ markdown\n{BEGIN}\nexample\n{END}\n~~~\nstill code\n~~~~\nrest\n",
        f"   ```md\n{BEGIN}\nx\n{END}\n   ```\n",  # a fence indented 3 spaces
        f"- item\n\n  ```\n  {BEGIN}\n  x\n  {END}\n  ```\n",  # a fence in a list item
        f"> ```\n> {BEGIN}\n> x\n> {END}\n> ```\n",  # a fence in a block quote
        f"Intro\n\n    {BEGIN}\n    x\n    {END}\n",  # indented code (4 spaces)
        f"Write between `{BEGIN}` and `{END}` (inline code)\n",
        f"<!--\nexample:\n{BEGIN}\nx\n{END}\n-->\n",  # inside an HTML comment
    ],
    ids=[
        "backticks",
        "tildes-longer",
        "indented-3",
        "list-item",
        "quote",
        "indented-code",
        "inline",
        "comment",
    ],
)
def test_markers_in_code_are_left_alone_and_the_block_appended(before: str) -> None:
    after = with_block(before, BRIEF)
    assert after == f"{before}\n{BLOCK}\n"
    assert with_block(after, BRIEF) == after  # and found there the next time


def test_a_block_after_a_fence_that_shows_the_markers_is_the_one_refreshed() -> None:
    shown = f"# Agents\n\n```\n{BEGIN}\nexample\n{END}\n```\n\n"
    before = f"{shown}  {BEGIN}  \nold\n{END}  \ntail\n"
    # the indentation before the block and the blanks after it are the person's: kept
    assert with_block(before, BRIEF) == f"{shown}  {BLOCK}  \ntail\n"


@pytest.mark.parametrize(
    ("before", "message"),
    [
        (
            f"Intro by hand\n{BEGIN}\nold\n",  # the report's ONLYBEGIN.md
            f"AGENTS.md:2: refusing to write the briefing: a {BEGIN} line with no {END} line"
            " after it; add the end line where the briefing should end, or remove it",
        ),
        (
            f"A\n{BEGIN}\nx\n{END}\nB\n{BEGIN}\ny\n{END}\nC\n",  # the report's TWICE.md
            "AGENTS.md:6: refusing to write the briefing: a second vault-sync block (the first"
            " is lines 2-4); keep one, as every block would hold the same briefing",
        ),
        (
            f"A\n{END}\nB\n",
            f"AGENTS.md:2: refusing to write the briefing: an {END} line with no {BEGIN} line"
            " before it; add the begin line above it, or remove it",
        ),
        (
            f"{BEGIN}\nA\n{BEGIN}\nB\n{END}\n",
            f"AGENTS.md:3: refusing to write the briefing: a second {BEGIN} line before the"
            " block begun at line 1 ends; keep one begin and one end line",
        ),
        (
            f"x\u2028{BEGIN}\nold\n{END}\n",  # U+2028 is no line end: that begin is in a line
            f"AGENTS.md:3: refusing to write the briefing: an {END} line with no {BEGIN} line"
            " before it; add the begin line above it, or remove it",
        ),
        (
            "# Agents\n\n```sh\nmake test\n",
            "AGENTS.md:5: refusing to append the briefing: the file ends inside a fenced code"
            " block or an HTML comment that is never closed; close it, or add the"
            f" {BEGIN} and {END} lines where the briefing should go",
        ),
    ],
    ids=["begin-only", "two-blocks", "end-only", "begin-twice", "u2028", "unclosed-fence"],
)
def test_markers_that_are_not_one_block_are_refused_naming_the_line(
    before: str, message: str
) -> None:
    with pytest.raises(EditRefusedError) as refused:
        with_block(before, BRIEF, "AGENTS.md")
    assert str(refused.value) == message


_LINES = st.sampled_from([
    "text", "", "```", "~~~", "````", "   ```", "    ```", "```py", "- item", "  ```", "> ```",
    BEGIN, END, f"  {BEGIN}", f"{END} ", f"    {BEGIN}", f"`{END}`", "<!--", "-->", "    code",
    f"{END}\r", "text\r", "a\u2028b", "\t```",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=12), st.booleans())
@example([BEGIN, "old"], True)
@example(["```", BEGIN, "x", END, "```"], True)
def test_every_file_is_refused_or_refreshed_in_place_keeping_every_other_byte(
    lines: list[str], trailing_newline: bool
) -> None:
    """Either a one-line refusal naming a line, or: the text outside the block kept byte for
    byte (before it and after it), the block holding the briefing, found again next time."""
    before = "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    try:
        after = with_block(before, BRIEF, "F")
    except EditRefusedError as refused:
        assert re.fullmatch(r"F:\d+: refusing to (write|append) the briefing: [^\n]+", str(refused))
        return
    span = find_block(after, "F")
    first = re.search(r"\r\n?|\n", before)  # the block in the first line's line ending
    newline = first.group() if first else "\n"
    assert span is not None and after[span[0] : span[1]] == BLOCK.replace("\n", newline)
    old = find_block(before, "F")
    if old is None:
        assert after[: span[0]].startswith(before) and after[span[1] :] == newline
    else:
        assert (after[: span[0]], after[span[1] :]) == (before[: old[0]], before[old[1] :])
    assert with_block(after, "# Memory briefing\nother\n", "F") == after.replace("line", "other")
    assert with_block(after, BRIEF, "F") == after


def test_brief_refuses_a_lone_begin_in_one_line_and_leaves_the_file_alone(
    tmp_path: Path, cli: Cli
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Rule.md").write_text("---\nkind: rule\n---\nAlways test.\n", encoding="utf-8")
    agents = tmp_path / "AGENTS.md"
    before = f"Intro by hand\n{BEGIN}\nold\n".encode()
    agents.write_bytes(before)
    (vault / "vault-sync.toml").write_text(
        f'[[brief.targets]]\npath = "{agents}"\n', encoding="utf-8"
    )
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (1, "")
    assert out.err.splitlines()[-1] == (
        f"Error: {agents}:2: refusing to write the briefing: a {BEGIN} line with no {END} line"
        " after it; add the end line where the briefing should end, or remove it"
    )
    assert "Traceback" not in out.err
    assert agents.read_bytes() == before


def test_one_refused_target_stops_no_other_and_brief_says_what_it_wrote(
    tmp_path: Path, cli: Cli
) -> None:
    """Fresh-user report, item 12.2: a refused ``mode = "file"`` target (a page) left the
    other targets' ``PATH: written`` lines unsaid; a target after it was not written at all."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Rule.md").write_text("---\nkind: rule\n---\nAlways test.\n", encoding="utf-8")
    page = vault / "Start here.md"
    page.write_text("A page a person wrote.\n", encoding="utf-8")
    first, last = tmp_path / "CLAUDE.md", tmp_path / "AGENTS.md"
    lone = tmp_path / "GEMINI.md"
    lone.write_text(f"{BEGIN}\n", encoding="utf-8")
    (vault / "vault-sync.toml").write_text(
        "".join(
            f'[[brief.targets]]\npath = "{path}"\nmode = "{mode}"\n\n'
            for path, mode in (
                (first, "block"),
                ("Start here.md", "file"),
                (lone, "block"),
                (last, "block"),
            )
        ),
        encoding="utf-8",
    )
    refused_page = (
        f"refusing to replace {page}: a whole-file briefing target replaces only an earlier"
        ' briefing (a file starting "# Memory briefing"), and this file is not one; use mode'
        ' = "block" to keep its text, or another path'
    )
    refused_lone = (
        f"{lone}:1: refusing to write the briefing: a {BEGIN} line with no {END} line after"
        " it; add the end line where the briefing should end, or remove it"
    )
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (1, f"{first}: written\n{last}: written\n")
    assert out.err.splitlines()[-2:] == [f"Error: {refused_page}", f"Error: {refused_lone}"]
    assert BEGIN in first.read_text(encoding="utf-8") and BEGIN in last.read_text(encoding="utf-8")
    assert page.read_text(encoding="utf-8") == "A page a person wrote.\n"
    assert lone.read_text(encoding="utf-8") == f"{BEGIN}\n"
    again = cli("--vault", str(vault), "brief", "--json")
    assert again.code == 1
    assert again.json() == {
        "targets": [{"path": str(first), "changed": False}, {"path": str(last), "changed": False}],
        "errors": [refused_page, refused_lone],
    }
    check = cli("--vault", str(vault), "brief", "--check")
    assert (check.code, check.out) == (1, f"{first}: up to date\n{last}: up to date\n")


def test_a_target_that_cannot_be_written_is_one_line_not_a_traceback(
    tmp_path: Path, cli: Cli
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Rule.md").write_text("---\nkind: rule\n---\nAlways test.\n", encoding="utf-8")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    target = tmp_path / "a-file" / "AGENTS.md"
    (vault / "vault-sync.toml").write_text(
        f'[[brief.targets]]\npath = "{target}"\n', encoding="utf-8"
    )
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out, out.err) == (
        1, "", f"Error: cannot write {target}: Not a directory\n"
    )  # fmt: skip
