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


def _vault_with_targets(tmp_path: Path, *paths: object) -> Path:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Rule.md").write_text("---\nkind: rule\n---\nAlways test.\n", encoding="utf-8")
    (vault / "vault-sync.toml").write_text(
        "".join(f'[[brief.targets]]\npath = "{p}"\n\n' for p in paths), encoding="utf-8"
    )
    return vault


@pytest.mark.parametrize(
    "name", [".bashrc", "authorized_keys", "passwd", "config.toml", "notes.md.bak", "x.py"]
)
def test_a_target_that_is_no_agent_instruction_file_is_refused_and_left_alone(
    tmp_path: Path, cli: Cli, name: str
) -> None:
    """Fresh-user report 5, item 14: a ``[[brief.targets]]`` entry in a git-shared
    ``vault-sync.toml`` appended a block to ``~/.bashrc`` (and, as root, ``/etc/passwd``)."""
    victim = tmp_path / name
    before = b"export PATH=$HOME/bin:$PATH\n"
    victim.write_bytes(before)
    ok = tmp_path / "AGENTS.md"
    vault = _vault_with_targets(tmp_path, victim, ok)
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (1, f"{ok}: written\n")
    assert out.err.splitlines()[-1] == (
        f"Error: refusing to write the briefing into {victim}: a briefing target is an agent's"
        " instruction file, Markdown or a rules file (.md, .mdc, .markdown, .cursorrules,"
        " .windsurfrules, .clinerules); check [[brief.targets]] in vault-sync.toml"
    )
    assert victim.read_bytes() == before
    assert BEGIN in ok.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["CLAUDE.MD", "rules.mdc", "README.markdown", ".cursorrules"])
def test_markdown_and_rules_files_are_targets(tmp_path: Path, cli: Cli, name: str) -> None:
    target = tmp_path / name
    vault = _vault_with_targets(tmp_path, target)
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (0, f"{target}: written\n")
    assert target.read_text(encoding="utf-8").startswith(BEGIN)


def test_a_symlinked_target_is_written_into_the_file_it_points_to_and_stays_a_link(
    tmp_path: Path, cli: Cli
) -> None:
    """Fresh-user report 5, item 5: ``CLAUDE.md -> AGENTS.md`` was replaced by a copy."""
    code = tmp_path / "code"
    code.mkdir()
    agents = code / "AGENTS.md"
    agents.write_text("# Project rules\n\nUse tabs.\n", encoding="utf-8")
    (code / "CLAUDE.md").symlink_to("AGENTS.md")
    vault = _vault_with_targets(tmp_path, code / "CLAUDE.md")
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (0, f"{code / 'CLAUDE.md'}: written\n")
    assert (code / "CLAUDE.md").is_symlink()
    assert str((code / "CLAUDE.md").readlink()) == "AGENTS.md"
    text = agents.read_text(encoding="utf-8")
    assert text.startswith("# Project rules\n\nUse tabs.\n\n" + BEGIN + "\n# Memory briefing")
    again = cli("--vault", str(vault), "brief")
    assert (again.code, again.out) == (0, f"{code / 'CLAUDE.md'}: up to date\n")
    assert agents.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("points_to", ["../.bashrc", "nowhere.md"])
def test_a_link_to_a_file_that_is_no_target_or_to_nothing_is_refused(
    tmp_path: Path, cli: Cli, points_to: str
) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (tmp_path / ".bashrc").write_text("alias ll='ls -l'\n", encoding="utf-8")
    link = code / "CLAUDE.md"
    link.symlink_to(points_to)
    vault = _vault_with_targets(tmp_path, link)
    out = cli("--vault", str(vault), "brief")
    assert (out.code, out.out) == (1, "")
    if points_to == "nowhere.md":
        assert out.err.splitlines()[-1] == (
            f"Error: refusing to write the briefing into {link}: it is a symbolic link to a"
            " file that does not exist; point it at the file, or name that file as the target"
        )
    else:
        real = (tmp_path / ".bashrc").resolve()
        assert out.err.splitlines()[-1].startswith(
            f"Error: refusing to write the briefing into {real} (the file the link {link}"
            " points to): a briefing target is an agent's instruction file"
        )
    assert (tmp_path / ".bashrc").read_text(encoding="utf-8") == "alias ll='ls -l'\n"
    assert link.is_symlink() and not (code / "nowhere.md").exists()


def test_brief_out_through_a_link_writes_the_file_it_points_to(tmp_path: Path, cli: Cli) -> None:
    vault = _vault_with_targets(tmp_path)
    real = tmp_path / "briefing.txt"
    link = tmp_path / "latest.txt"
    link.symlink_to(real.name)
    out = cli("--vault", str(vault), "brief", "--out", str(link))
    assert out.code == 0, out.err
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("# Memory briefing")


def test_brief_out_into_a_loop_of_links_is_one_line(tmp_path: Path, cli: Cli) -> None:
    vault = _vault_with_targets(tmp_path)
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    out = cli("--vault", str(vault), "brief", "--out", str(tmp_path / "a.md"))
    assert out.code == 2
    assert out.err.splitlines()[-1] == (
        f"Error: Invalid value for --out: cannot write {tmp_path / 'a.md'}:"
        " Too many levels of symbolic links"
    )
