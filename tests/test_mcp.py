"""`vault-sync mcp` through the MCP SDK's real stdio client (issue 13): tools and schemas,
writes then a ranked query, tool errors that keep the server serving, read-only mode."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO, run_cli

READ_TOOLS = {"query", "show", "related", "brief", "status", "lint"}
WRITE_TOOLS = {"remember", "reinforce", "link", "unlink", "supersede", "resolve", "import_session"}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "example-vault"
    shutil.copytree(REPO / "example-vault", root, ignore=shutil.ignore_patterns(".vault-sync"))
    return root


def _session(
    vault: Path, *extra: str, env: dict[str, str] | None = None
) -> Callable[[Callable[[Client], Awaitable[Any]]], Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vault_sync", "--vault", str(vault), "mcp", *extra],
        env=env,
    )

    def run(body: Callable[[Client], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            async with Client(params, read_timeout_seconds=60) as client:
                return await body(client)

        return asyncio.run(main())

    return run


def _json(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


def test_tools_writes_and_a_ranked_query_over_a_real_stdio_client(vault: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        # the server keeps the index open: this query opens it, the one after the writes
        # must see them (a reload before each read)
        out["before"] = _json(await client.call_tool("query", {"text": "zeppelin"}))
        out["remember"] = _json(
            await client.call_tool(
                "remember",
                {
                    "title": "Zeppelin queues need a dead-letter topic",
                    "kind": "gotcha",
                    "tags": "queues, zeppelin",
                    "relations": ["fixes=Bug PAY-231 retry storm in the payment worker"],
                    "evidence": "session:mcp-test-1",
                    "body": "Every zeppelin consumer gets a dead-letter topic.",
                },
            )
        )
        out["reinforce"] = _json(
            await client.call_tool(
                "reinforce",
                {"page": "Zeppelin queues need a dead-letter topic", "evidence": "session:s2"},
            )
        )
        out["link"] = _json(
            await client.call_tool(
                "link",
                {
                    "source": "Zeppelin queues need a dead-letter topic",
                    "relation": "related",
                    "target": "Charge queue",
                },
            )
        )
        out["link_type"] = _json(  # "type", as docs/cli.md once named it, is accepted too
            await client.call_tool(
                "link",
                {
                    "source": "Zeppelin queues need a dead-letter topic",
                    "type": "causes",
                    "target": "Charge queue",
                },
            )
        )
        out["bad"] = await client.call_tool("reinforce", {"page": "no such page", "evidence": "x"})
        out["page_key"] = [  # a known page key is never a relation type (fresh user)
            await client.call_tool(
                "link",
                {"source": "Charge queue", "relation": "status", "target": "Retry policy v3"},
            ),
            await client.call_tool(
                "remember",
                {"title": "New rule", "kind": "rule", "relations": ["kind=Charge queue"]},
            ),
        ]
        out["query"] = _json(await client.call_tool("query", {"text": "zeppelin dead-letter"}))
        out["show"] = _json(
            await client.call_tool("show", {"page": "Zeppelin queues need a dead-letter topic"})
        )
        return out

    out = _session(vault)(body)
    assert set(out["tools"]) == READ_TOOLS | WRITE_TOOLS
    schema = out["tools"]["remember"].input_schema
    assert set(schema["required"]) == {"title", "kind"}
    assert "when you learn" not in out["tools"]["query"].description  # each its own text
    for name, tool in out["tools"].items():  # when to use it, and when not (issue 13)
        text = " ".join((tool.description or "").split())
        assert "Use it " in text and "Not " in text, (name, text)
    assert (
        out["remember"]["pages"][0]["path"] == "gotchas/Zeppelin queues need a dead-letter topic.md"
    )
    assert [p["changed"] for p in out["reinforce"]["pages"]] == [True]
    assert out["bad"].is_error
    assert out["bad"].content[0].text == (
        "Error executing tool reinforce: no page matches 'no such page'"
        " (by id, path, file name, title or alias)"
    )
    for name, refused in zip(("link", "remember"), out["page_key"], strict=True):
        assert refused.is_error and refused.content[0].text == (
            f"Error executing tool {name}: {'status' if name == 'link' else 'kind'!r} is a page"
            " key, not a relation type (give fixes, causes, related or a name of your own)"
        )
    assert "status" not in (vault / "payments" / "Charge queue.md").read_text(encoding="utf-8")
    assert not list(vault.rglob("New rule.md"))
    assert out["before"]["hits"] == []
    hits = out["query"]["hits"]
    assert hits[0]["path"] == "gotchas/Zeppelin queues need a dead-letter topic.md"
    sources = [e["source"] for e in out["show"]["evidence"]]
    assert sources == ["mcp-test-1", "s2"]
    page = (vault / hits[0]["path"]).read_text(encoding="utf-8")
    assert "tags: [queues, zeppelin]\n" in page and 'related: "[[Charge queue]]"\n' in page
    assert 'causes: "[[Charge queue]]"\n' in page and out["link_type"]["pages"][0]["changed"]


def test_read_only_serves_no_write_tool_and_errors_are_one_line(vault: Path) -> None:
    async def body(client: Client) -> tuple[set[str], Any, Any]:
        names = {t.name for t in (await client.list_tools()).tools}
        bad = await client.call_tool("query", {"text": "retry", "limit": "many"})
        ok = _json(await client.call_tool("query", {"text": "retry storm", "limit": 2}))
        return names, bad, ok

    names, bad, ok = _session(vault, "--read-only")(body)
    assert names == READ_TOOLS
    assert bad.is_error
    top = ok["hits"][0]["path"]
    assert top == "payments/Retry policy v3.md"  # the bug's fix, through its `fixes` edge


def test_a_secret_typed_into_a_tool_never_comes_back(vault: Path) -> None:
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"

    async def body(client: Client) -> list[str]:
        texts = []
        for name, args in (
            ("query", {"text": f"retry {token}"}),
            ("query", {"text": "retry", "limit": token}),  # a wrong type: our one line
            ("query", {"text": "retry", "explain": token}),
            ("show", {"page": token}),
            ("remember", {"title": "Token note", "kind": "note", "body": f"key {token}"}),
        ):
            result = await client.call_tool(name, args)
            texts += [c.text for c in result.content if hasattr(c, "text")]
        return texts

    texts = _session(vault)(body)
    assert texts and all(token[4:16] not in t for t in texts)
    assert token[4:16] not in (vault / "notes" / "Token note.md").read_text(encoding="utf-8")


def test_reads_answer_while_another_writer_holds_the_lock_and_writes_wait(
    vault: Path,
) -> None:
    """Another process (here: this test) holds the writer lock: every read tool answers; a
    write waits ``lock_timeout_s`` and returns the documented lock-wait line, and the server
    keeps serving — the write goes through once the lock is free."""
    from vault_sync.app import Engine
    from vault_sync.engine import writer_lock

    config = vault / "vault-sync.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("lock_timeout_s = 10\n", "lock_timeout_s = 1\n"), "utf-8")
    engine = Engine.open(vault)
    engine.sync()
    reads = (
        ("query", {"text": "retry storm"}),
        ("show", {"page": "Retry policy v3"}),
        ("related", {"page": "Retry policy v3"}),
        ("brief", {"budget_chars": 2000}),
        ("status", {}),
        ("lint", {}),
    )
    write = ("reinforce", {"page": "Retry policy v3", "evidence": "session:locked-1"})

    async def body(client: Client) -> tuple[list[Any], Any, Any]:
        with writer_lock(engine.config):
            answers = [await client.call_tool(name, args) for name, args in reads]
            waited = await client.call_tool(*write)
        return answers, waited, await client.call_tool(*write)

    answers, waited, done = _session(vault)(body)
    assert [a.is_error for a in answers] == [False] * len(reads)
    assert _json(answers[0])["hits"][0]["path"] == "payments/Retry policy v3.md"
    assert waited.is_error and waited.content[0].text == (
        "Error executing tool reinforce: the vault is being written by pid"
        f" {os.getpid()} ({' '.join(sys.argv[:2])}); waited 1 s (config lock_timeout_s)"
    )
    assert [p["changed"] for p in _json(done)["pages"]] == [True]


def _mixed_load(vault: Path, seconds: float, seed: int) -> None:
    """Three MCP servers (random reads and writes), one watcher and a CLI writer on one
    vault for ``seconds``; then every write is present and the stores equal a rebuild."""
    import random
    import subprocess
    import time

    from tests.watch_helpers import WatchProcess, assert_same_as_rebuild, sentinel

    watcher = WatchProcess(vault)
    watcher.wait_ready()
    rng = random.Random(seed)
    expected: list[tuple[str, str]] = []  # (page title, evidence source) every write made
    errors: list[str] = []

    async def server(n: int, client: Client) -> None:
        deadline = time.monotonic() + seconds
        count = 0
        while time.monotonic() < deadline:
            count += 1
            roll = rng.random()
            if roll < 0.4:
                result = await client.call_tool("query", {"text": rng.choice(["retry", "queue"])})
            elif roll < 0.5:
                result = await client.call_tool("brief", {"budget_chars": 2000})
            elif roll < 0.75:
                title, source = f"Load page {n}-{count}", f"load-{n}-{count}"
                args = {"title": title, "kind": "note", "evidence": f"session:{source}"}
                result = await client.call_tool("remember", args)
                expected.append((title, source)) if not result.is_error else None
            else:
                source = f"hit-{n}-{count}"
                args = {"page": "Retry policy v3", "evidence": f"session:{source}"}
                result = await client.call_tool("reinforce", args)
                expected.append(("Retry policy v3", source)) if not result.is_error else None
            if result.is_error:
                errors.append(result.content[0].text)

    async def main() -> None:
        async def one(n: int) -> None:
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "vault_sync", "--vault", str(vault), "mcp"]
            )
            async with Client(params, read_timeout_seconds=120) as client:
                await server(n, client)

        await asyncio.gather(*(one(n) for n in range(3)))

    writer = subprocess.Popen(
        [sys.executable, "-c", (
            "import subprocess, sys, time\n"
            f"end = time.monotonic() + {seconds}\n"
            "n = 0\n"
            "while time.monotonic() < end:\n"
            "    n += 1\n"
            "    r = subprocess.run([sys.executable, '-m', 'vault_sync', '--vault',"
            f" {str(vault)!r}, 'reinforce', 'Idempotency key on every charge',"
            " '--evidence', f'session:cli-{n}'],"
            " capture_output=True, text=True)\n"
            "    print(n, r.returncode, r.stderr.strip().replace('\\n', ' '), flush=True)\n"
        )],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        asyncio.run(main())
    finally:
        out, _ = writer.communicate(timeout=seconds + 120)
    cli_runs = [line.split(" ", 2) for line in out.splitlines()]
    assert cli_runs and all(code == "0" for _, code, _ in cli_runs), out
    assert errors == [], errors
    sentinel(vault, watcher, "afterload")
    assert watcher.stop() == 0, watcher.log()
    from vault_sync.parser.frontmatter import frontmatter_map

    pages = {p: p.read_text(encoding="utf-8") for p in vault.rglob("*.md")}
    by_title: dict[str, str] = {}
    for path, text in pages.items():
        title = frontmatter_map(text).mapping.get("title") or path.stem
        by_title[str(title)] = text
    for title, source in expected:
        assert f"session:{source}" in by_title[title], (title, source)
    idem = by_title["Idempotency key on every charge"]
    assert all(f"session:cli-{n}\n" in idem for n, _, _ in cli_runs)
    assert_same_as_rebuild(vault, ["retry", "load page", "queue"])


def test_three_servers_a_watcher_and_a_cli_writer_share_one_vault(vault: Path) -> None:
    _mixed_load(vault, seconds=10, seed=1)


@pytest.mark.slow
def test_three_servers_a_watcher_and_a_cli_writer_for_a_minute(vault: Path) -> None:
    _mixed_load(vault, seconds=60, seed=2)


def test_import_session_reads_only_below_the_vendor_folders(vault: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-code-payments"
    project.mkdir(parents=True)
    fixture = next((REPO / "tests" / "transcripts").glob("claude*.jsonl"))
    shutil.copy(fixture, project / fixture.name)
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copy(fixture, outside)

    async def body(client: Client) -> tuple[Any, Any]:
        ok = await client.call_tool("import_session", {"files": str(project / fixture.name)})
        refused = await client.call_tool("import_session", {"files": [str(outside)]})
        return ok, refused

    ok, refused = _session(vault, env={"HOME": str(home)})(body)
    page = _json(ok)["pages"][0]
    assert page["changed"] and page["path"].startswith("sessions/")
    assert (vault / page["path"]).is_file()
    assert refused.is_error
    assert refused.content[0].text == (
        "Error executing tool import_session: import_session reads transcripts only below"
        " ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp"
    )


def test_import_session_reads_below_the_configured_roots_only(vault: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    mine = home / "transcripts" / "team"
    mine.mkdir(parents=True)
    vendor = home / ".claude" / "projects" / "-code-payments"
    vendor.mkdir(parents=True)
    fixture = next((REPO / "tests" / "transcripts").glob("claude*.jsonl"))
    for folder in (mine, vendor):
        shutil.copy(fixture, folder / fixture.name)
    config = vault / "vault-sync.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[write]\ntranscript_roots = ["~/transcripts"]\n',
        encoding="utf-8",
    )

    async def body(client: Client) -> tuple[Any, Any]:
        ok = await client.call_tool("import_session", {"files": [str(mine / fixture.name)]})
        refused = await client.call_tool("import_session", {"files": str(vendor / fixture.name)})
        return ok, refused

    ok, refused = _session(vault, env={"HOME": str(home)})(body)
    assert not ok.is_error and _json(ok)["pages"][0]["changed"] is True
    assert _json(ok)["redacted"] == ["env_secret"]  # the fixture's placeholder token
    assert refused.is_error and refused.content[0].text == (
        "Error executing tool import_session: import_session reads transcripts only below"
        " ~/transcripts"
    )


def test_bad_arguments_never_echo_their_values(vault: Path) -> None:
    secret = "PASSWORD=Hunter2024!"

    async def body(client: Client) -> list[str]:
        texts = []
        for name, args in (
            ("link", {"source": secret}),
            ("show", {"pg": "AKIAIOSFODNN7ABCDEFG"}),
            ("query", {"text": f"retry {secret}", "explain": True}),
        ):
            result = await client.call_tool(name, args)
            texts += [c.text for c in result.content if hasattr(c, "text")]
        return texts

    texts = _session(vault)(body)
    assert texts[0] == "Error executing tool link: bad arguments: target (missing)"
    assert texts[1] == "Error executing tool show: bad arguments: page (missing), pg (unknown)"
    assert all("Hunter2024" not in t and "IOSFODNN7ABCDEFG" not in t for t in texts), texts


def test_a_tool_error_leaves_stderr_quiet(vault: Path, tmp_path: Path) -> None:
    """Fresh-user report: the SDK logged every tool error as a multi-line INFO box on the
    server's stderr (which agents' hosts show or log); the error goes to the caller only."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    assert run_cli("--vault", str(vault), "sync").code == 0
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vault_sync", "--vault", str(vault), "mcp"]
    )
    errlog = tmp_path / "stderr.txt"

    async def main() -> Any:
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await session.call_tool("show", {"page": "no such page"})

    result = asyncio.run(main())
    assert result.is_error
    assert "no page matches 'no such page'" in result.content[0].text
    assert errlog.read_text() == ""


#: Lines that are no JSON-RPC message, and the error each gets (JSON-RPC 2.0 §5.1), then an
#: ``initialize`` whose reply shows the server's name and version.
_BAD_LINES = [
    ("garbage", {"id": None, "code": -32700}),
    ("[1, 2]", {"id": None, "code": -32600}),
    ('{"id": 7, "x": 1}', {"id": 7, "code": -32600}),
    ('{"jsonrpc": "2.0", "id": true, "method": 3}', {"id": None, "code": -32600}),
]
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.mark.parametrize("stdin_kind", ["pipe", "file"])
def test_a_line_that_is_no_json_rpc_message_gets_its_error(
    vault: Path, tmp_path: Path, stdin_kind: str
) -> None:
    import subprocess

    from vault_sync import __version__

    text = "".join(f"{line}\n" for line, _ in _BAD_LINES) + "\n" + json.dumps(_INITIALIZE) + "\n"
    args = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "mcp"]
    if stdin_kind == "file":
        requests = tmp_path / "requests.jsonl"
        requests.write_text(text, encoding="utf-8")
        with requests.open("rb") as stdin:
            proc = subprocess.run(args, stdin=stdin, capture_output=True, timeout=120)
    else:
        proc = subprocess.run(args, input=text.encode(), capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [{"id": r["id"], "code": r["error"]["code"]} for r in replies[: len(_BAD_LINES)]] == [
        want for _, want in _BAD_LINES
    ]
    assert len(replies) == len(_BAD_LINES) + 1  # the blank line is no request: no reply
    assert replies[-1]["id"] == 1
    assert replies[-1]["result"]["serverInfo"] == {"name": "vault-sync", "version": __version__}


def test_the_brief_tools_section_is_what_a_more_line_points_to(vault: Path) -> None:
    """A briefing read over MCP points to ``vault-sync brief --section NAME``; the ``brief``
    tool's ``section`` gives the same text as that command, and a bad name is one line."""
    import re
    import shlex

    run_cli("--vault", str(vault), "sync")

    async def body(client: Client) -> tuple[Any, ...]:
        short = await client.call_tool("brief", {"budget_chars": 1300, "project": "payments"})
        pointer = re.search(
            r"- … \d+ more: `(vault-sync brief --section (\w+) [^`]+)`", _text(short)
        )
        assert pointer is not None, _text(short)
        args = {"section": pointer[2], "project": "payments"}
        whole = await client.call_tool("brief", args)
        bad = await client.call_tool("brief", {"section": "bugs"})
        budget = await client.call_tool("brief", {**args, "budget_chars": 2000})
        return pointer[1], whole, bad, budget

    command, whole, bad, budget = _session(vault)(body)
    cli = run_cli("--vault", str(vault), *shlex.split(command)[1:])
    assert cli.code == 0 and _text(whole) == cli.out
    assert bad.is_error and bad.content[0].text == (
        "Error executing tool brief: no briefing section 'bugs' (sections: standing,"
        " contradictions, fixes, sessions, changed)"
    )
    assert budget.is_error and budget.content[0].text == (
        "Error executing tool brief: budget_chars does not apply to a section: it is given whole"
    )


def test_the_brief_tools_section_comes_in_pages_that_point_to_the_next(vault: Path) -> None:
    """``limit`` / ``offset`` page a section (a recent list can be every dated page): the pages
    joined are the whole section, each ends with the command for the next one, and the two
    are refused without ``section``."""
    import re

    run_cli("--vault", str(vault), "sync")

    async def body(client: Client) -> tuple[Any, ...]:
        whole = _text(await client.call_tool("brief", {"section": "changed"}))
        pages, offset = [], 0
        while True:
            args = {"section": "changed", "offset": offset, "limit": 3}
            page = _text(await client.call_tool("brief", args)).splitlines()
            pages.append(page)
            nxt = re.fullmatch(r"- … (\d+) more: `vault-sync brief --section changed "
                               r"--offset (\d+) --limit 3`", page[-1])  # fmt: skip
            if nxt is None:
                break
            offset = int(nxt[2])
            assert int(nxt[1]) == len(whole.splitlines()) - 1 - offset
        alone = await client.call_tool("brief", {"limit": 3})
        return whole, pages, alone

    whole, pages, alone = _session(vault)(body)
    lines = whole.splitlines()
    assert len(lines) > 7 and lines[1:] == [line for page in pages for line in page[1:4]]
    assert all(page[0] == lines[0] for page in pages) and len(pages) == -(-(len(lines) - 1) // 3)
    assert alone.is_error and alone.content[0].text == (
        "Error executing tool brief: offset and limit apply to a section only"
    )


def _text(result: Any) -> str:
    assert not result.is_error, result.content
    return str(result.content[0].text)


def test_query_explain_gives_the_reading_the_cli_gives(vault: Path) -> None:
    """``explain`` over MCP carries ``reading`` as ``query --explain --json`` does; a
    ``#tag`` filters there as on the command line."""
    typed = 'how does the "retry storm" -draft retry #Retries'

    async def body(client: Client) -> Any:
        return _json(await client.call_tool("query", {"text": typed, "explain": True}))

    got = _session(vault)(body)
    cli_out = run_cli("--vault", str(vault), "query", typed, "--explain", "--json")
    assert cli_out.code == 0, cli_out.err
    assert (
        got["reading"]
        == cli_out.json()["reading"]
        == {
            "words": ["retry"],
            "phrases": ["retry storm"],
            "excluded": ["draft"],
            "stop_words": ["how", "does", "the"],
            "repeats": [],
            "word_pairs": [],
            "tags": ["retries"],
        }
    )
    paths = [hit["path"] for hit in got["hits"]]
    assert paths == [hit["path"] for hit in cli_out.json()["hits"]] and paths
    assert all("retries" in hit["tags"] for hit in got["hits"])


def test_an_argument_a_tool_does_not_take_is_refused_by_name(vault: Path) -> None:
    """A fresh user's report: ``{"text": "retry", "bogus": 1}`` was answered, the unknown
    argument silently dropped (a misspelt ``explian`` would never explain)."""
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

    async def body(client: Client) -> list[Any]:
        out: list[Any] = []
        for name, args in (
            ("query", {"text": "retry", "bogus": 1, "explian": True}),
            ("status", {"verbose": True}),
            ("query", {"text": "retry", secret: 1}),
        ):
            result = await client.call_tool(name, args)
            out.append((result.is_error, result.content[0].text))
        out.append(_json(await client.call_tool("query", {"text": "retry", "limit": 1})))
        return out

    bad, status, hidden, ok = _session(vault)(body)
    assert bad == (
        True,
        "Error executing tool query: bad arguments: bogus (unknown), explian (unknown)",
    )
    assert status == (True, "Error executing tool status: bad arguments: verbose (unknown)")
    assert hidden[0] is True and secret not in hidden[1] and "[REDACTED:" in hidden[1]
    assert len(ok["hits"]) == 1
