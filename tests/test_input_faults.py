"""Faults a fresh user found (given only the README), each as the kind of input it is: the
CLI as a subprocess, exact one-line errors, and nothing lost or written where it must not be."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]


@pytest.fixture
def vault(make_vault: Callable[..., Path], cli: Cli) -> Path:
    root = make_vault(
        {
            "evstr.md": "---\nkind: rule\nstatus: active\n---\nalpha\n",
            "nofm.md": "bravo\n",
        }
    )
    assert cli("--vault", str(root), "sync").code == 0
    return root


def test_a_page_key_is_never_a_relation_type(vault: Path, cli: Cli) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    calls = [
        ("link", "evstr", relation, "nofm")
        for relation in ("kind", "title", "evidence", "tags", "aliases", "project", "Valid-To")
    ]
    calls += [("unlink", "evstr", "status", "nofm"), ("remember", "X", "--kind", "rule")]
    calls[-1] += ("--relation", "id=nofm")
    for args in calls:
        key = args[2].lower().replace("-", "_") if args[0] != "remember" else "id"
        result = cli("--vault", str(vault), *args)
        assert (result.code, result.err) == (
            2,
            f"Error: {key!r} is a page key, not a relation type (give fixes, causes, related"
            " or a name of your own)\n",
        ), args
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    linked = cli("--vault", str(vault), "link", "evstr", "fixes", "nofm")
    assert linked.code == 0
    assert (vault / "evstr.md").read_text() == (
        '---\nkind: rule\nstatus: active\nfixes: "[[nofm]]"\n---\nalpha\n'
    )


def _sessions(vault: Path) -> dict[str, str]:
    """Each session page's ``session:ID`` evidence -> its file name."""
    out = {}
    for page in sorted((vault / "sessions").glob("*.md")):
        ids = [line for line in page.read_text().split("\n") if line.startswith("  - session:")]
        out[ids[0].removeprefix("  - ")] = page.name
    return out


def test_transcripts_without_an_id_never_share_a_page(
    vault: Path, cli: Cli, tmp_path: Path
) -> None:
    """Fresh-user report: ``a/chat.txt`` then ``b/chat.txt`` (no ``Session:``) were both
    ``session:chat``; the second import replaced the first page."""
    for name, said in (("a", "deploy alpha"), ("b", "cold beta")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "chat.txt").write_text(f"Date: 2026-03-04\nUser: {said}?\nAI: ok\n")
    a, b = str(tmp_path / "a" / "chat.txt"), str(tmp_path / "b" / "chat.txt")
    for file in (a, b):
        assert cli("--vault", str(vault), "import-session", file).code == 0
    pages = _sessions(vault)
    assert len(pages) == 2 and all(s.startswith("session:chat-") for s in pages)
    texts = "".join((vault / "sessions" / p).read_text() for p in pages.values())
    assert "deploy alpha" in texts and "cold beta" in texts
    with open(a, "a") as grown:
        grown.write("User: and gamma?\nAI: later\n")
    again = cli("--vault", str(vault), "import-session", a, b, "--json")
    assert [p["changed"] for p in again.json()["pages"]] == [True, False]
    assert _sessions(vault) == pages


def test_ids_alike_in_their_first_characters_get_their_own_paths(
    vault: Path, cli: Cli, tmp_path: Path
) -> None:
    """Two sessions whose ids agree in the 8 characters a file name keeps went to one path:
    the second updated the first one's page."""
    files = []
    for n in (1, 2, 3):
        file = tmp_path / f"{n}.txt"
        file.write_text(f"Session: project-alpha-{n}\nDate: 2026-03-04\nUser: q{n}?\nAI: a{n}\n")
        files.append(str(file))
    assert cli("--vault", str(vault), "import-session", *files[:2]).code == 0
    assert cli("--vault", str(vault), "import-session", files[2], files[0]).code == 0
    assert _sessions(vault) == {
        "session:project-alpha-1": "2026-03-04-session-projecta.md",
        "session:project-alpha-2": "2026-03-04-session-projecta-2.md",
        "session:project-alpha-3": "2026-03-04-session-projecta-3.md",
    }


def test_a_blank_session_id_is_no_id(tmp_path: Path) -> None:
    from vault_sync.errors import TranscriptError
    from vault_sync.session_digest import read_transcript

    claude = '{"type":"user","sessionId":" ","message":{"role":"user","content":"hi"}}\n'
    codex = '{"type":"session_meta","payload":{"id":""}}\n'
    gemini = '{"sessionId":"","projectHash":"h"}\n{"id":"m","type":"user","content":"hi"}\n'
    for text, fmt, said in (
        (claude, "claude-code", "x:1: no sessionId in a Claude Code session log"),
        (codex, "codex", "x:1: no session_meta record with an id in a Codex rollout"),
        (gemini, "gemini", "x:1: not a Gemini CLI session (no sessionId line)"),
    ):
        with pytest.raises(TranscriptError) as caught:
            read_transcript(text, "x", fmt)
        assert str(caught.value) == said


def test_init_refuses_a_gitignore_it_cannot_add_to_in_one_line(cli: Cli, tmp_path: Path) -> None:
    """Fresh-user report: a non-UTF-8 ``.gitignore`` or one that is a folder gave a traceback;
    a ``.gitignore`` symlink was followed and a file outside the vault appended to."""
    outside = tmp_path / "outside"
    outside.write_text("mine\n")
    cases = {
        "bytes": (lambda g: g.write_bytes(b"node_modules/\n\xff\xfe bad"), ":2: not UTF-8 text"),
        "folder": (lambda g: g.mkdir(), ": not a file"),
        "link": (lambda g: g.symlink_to(outside), ": a symbolic link; init never writes"),
    }
    for name, (make, said) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        make(folder / ".gitignore")
        result = cli("init", cwd=folder)
        assert result.code == 2 and result.out == "", name
        assert result.err.startswith(f"Error: {folder / '.gitignore'}{said}"), result.err
        assert result.err.count("\n") == 1 and "Traceback" not in result.err
        assert not (folder / "vault-sync.toml").exists()
    assert outside.read_text() == "mine\n"
    dangling = tmp_path / "dangling"
    dangling.mkdir()
    (dangling / "vault-sync.toml").symlink_to(tmp_path / "elsewhere.toml")
    result = cli("init", cwd=dangling)
    assert (result.code, result.err) == (
        2,
        f"Error: {dangling / 'vault-sync.toml'}: a symbolic link; init never writes through"
        " one (make it a file)\n",
    )
    assert not (tmp_path / "elsewhere.toml").exists()
    outside.write_text("mine\n.vault-sync/\n")  # nothing to add: the link is only read
    assert cli("init", cwd=tmp_path / "link").code == 0


GOOD_DATES = (
    "2026-03-04",
    "2026-03-04T09:10",
    "2026-03-04T09:10:00+01:00",
    "2026-03-04T09:10:00.250Z",
    "2026-03-04 09:10:00-0500",
)
BAD_DATES = ("9999-99-99", "2026-03-04T25:00", "20260304", "today", "2026-03-04x")


def test_every_date_option_reads_iso_8601_alike(vault: Path, cli: Cli) -> None:
    """Fresh-user report: ``query --now 2026-03-04T09:10:00+01:00`` exited 2 (no offsets or
    fractions) while ``reinforce --at`` took it."""
    from vault_sync.page_dates import iso_day

    assert [iso_day(d) for d in GOOD_DATES] == ["2026-03-04"] * len(GOOD_DATES)
    assert iso_day("2026-03-04T23:30:00-05:00") == "2026-03-04"  # the day as written
    assert [iso_day(d) for d in BAD_DATES] == [None] * len(BAD_DATES)
    v = ("--vault", str(vault))
    for date in (GOOD_DATES[2], GOOD_DATES[3]):
        for option in ("--now", "--as-of"):
            assert cli(*v, "query", "alpha", option, date).code == 0, (option, date)
        assert cli(*v, "reinforce", "evstr", "--evidence", "session:s", "--at", date).code == 0
    assert "  - session:s @2026-03-04T09:10:00+01:00\n" in (vault / "evstr.md").read_text()
    for option in ("--now", "--as-of", "--at"):
        command = ("reinforce", "evstr", "--evidence", "session:t") if option == "--at" else ()
        bad = cli(*v, *(command or ("query", "alpha")), option, "9999-99-99")
        assert bad.code == 2 and bad.err.endswith(
            f"Error: Invalid value for '{option}': a date must be ISO 8601, e.g. 2026-03-04 or"
            " 2026-03-04T09:10:00+01:00 (got '9999-99-99')\n"
        ), bad.err


def test_import_session_refuses_what_it_would_write_wrong(
    vault: Path, cli: Cli, tmp_path: Path
) -> None:
    """Fresh-user report: ``Date: 9999-99-99`` went into the file name and ``date:``,
    ``Date: not-a-date`` became today, ``[1,2,3]`` was a plain-text chat while ``{"a":1}``
    was refused, a broken JSON line was "no known transcript format", and a project came
    out as ``proj-[REDACTED:github_token]``."""
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    chat = "User: hi?\nAI: ok\n"
    claude = (
        '{"type":"user","sessionId":"s1","cwd":"/w/proj-%s",'
        '"message":{"role":"user","content":"hi"}}\n'
    )
    files = {
        "d1.txt": ("Date: 9999-99-99\n" + chat, ":1: Date: a date must be ISO 8601"),
        "d2.txt": ("Agent: x\nDate: not-a-date\n" + chat, ":2: Date: a date must be ISO 8601"),
        "arr.json": ("[1,2,3]", ":1: JSON in no known transcript format (give --format)"),
        "obj.json": ('{"a":1}', ":1: JSON in no known transcript format (give --format)"),
        "bad.jsonl": ('{"a":1}\n{"b": \n{"c":2}\n', ":2: not a JSON line (Expecting value)"),
        "cwd.jsonl": (
            claude % token,
            ": the project from the session's working directory holds a secret"
            " ('proj-[REDACTED:github_token]'); give --project",
        ),
    }
    for name, (text, said) in files.items():
        file = tmp_path / name
        file.write_text(text)
        result = cli("--vault", str(vault), "import-session", str(file))
        assert result.code == 2 and result.err.startswith(f"Error: {file}{said}"), result.err
        assert result.err.count("\n") == 1 and token not in result.err
    mine = cli(
        "--vault", str(vault), "import-session", str(tmp_path / "d1.txt"), "--project", f"p-{token}"
    )
    assert (mine.code, mine.err) == (
        2,
        "Error: a project cannot hold a secret: 'p-[REDACTED:github_token]'\n",
    )
    assert not (vault / "sessions").exists()
    ok = cli("--vault", str(vault), "import-session", str(tmp_path / "cwd.jsonl"), "--project", "p")
    assert ok.code == 0, ok.err
    (tmp_path / "bracket.txt").write_text("[10:02] User: hi?\nAI: ok\n")  # not JSON: a chat
    assert cli("--vault", str(vault), "import-session", str(tmp_path / "bracket.txt")).code == 0


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ('[projects]\n"[" = "x"\n', "projects: pattern '['"),
        ('[projects]\n"ok/**" = "y"\n"a[" = "x"\n', "projects: pattern 'a['"),
        ('ignore = ["drafts/", "["]\n', "ignore: pattern '['"),
    ],
)
def test_a_config_glob_that_matches_nothing_is_a_config_error(
    vault: Path, cli: Cli, toml: str, said: str
) -> None:
    """Fresh-user report: ``[projects] "[" = "x"`` was accepted without a word (an unclosed
    ``[`` matches no path)."""
    (vault / "vault-sync.toml").write_text(toml)
    result = cli("--vault", str(vault), "sync")
    assert (result.code, result.err) == (
        2,
        f"Error: {vault / 'vault-sync.toml'}: {said} is not valid gitignore syntax (it can"
        " match no path)\n",
    )


def test_resolve_with_nothing_to_settle_exits_1_and_a_trailing_space_names_its_page(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """Fresh-user report: ``resolve`` on a page with no contradiction exited 2 (a usage
    error) though its arguments were fine; ``show "x "`` did not find ``x .md``."""
    vault = make_vault({"x .md": "trailing\n", "y.md": "plain\n", "z.md": "zed\n"})
    v = ("--vault", str(vault))
    assert cli(*v, "sync").code == 0
    for args, said in (
        (("resolve", "y"), "y.md has no contradicts link to settle"),
        (("resolve", "y", "--keep", "z"), "z.md and y.md do not contradict each other"),
    ):
        result = cli(*v, *args)
        assert (result.code, result.err) == (1, f"Error: {said}\n")
    assert cli(*v, "show", "x ", "--json").json()["path"] == "x .md"
    assert cli(*v, "show", " y ", "--json").json()["path"] == "y.md"  # stripped when needed
    assert cli(*v, "show", "x").code == 1
    linked = cli(*v, "link", "x ", "related", "y")
    assert linked.code == 0, linked.err
    assert (vault / "x .md").read_text() == '---\nrelated: "[[y]]"\n---\ntrailing\n'
