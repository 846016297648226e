"""`vault-sync mcp` through the MCP SDK's real stdio client (issue 13): tools and schemas,
writes then a ranked query, tool errors that keep the server serving, read-only mode."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO

READ_TOOLS = {"query", "show", "related", "brief", "status", "lint"}
WRITE_TOOLS = {"remember", "reinforce", "link", "unlink", "supersede", "resolve"}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "example-vault"
    shutil.copytree(REPO / "example-vault", root, ignore=shutil.ignore_patterns(".vault-sync"))
    return root


def _session(vault: Path, *extra: str) -> Callable[[Callable[[Client], Awaitable[Any]]], Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vault_sync", "--vault", str(vault), "mcp", *extra]
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
        out["bad"] = await client.call_tool("reinforce", {"page": "no such page", "evidence": "x"})
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
    assert (
        out["remember"]["pages"][0]["path"] == "gotchas/Zeppelin queues need a dead-letter topic.md"
    )
    assert [p["changed"] for p in out["reinforce"]["pages"]] == [True]
    assert out["bad"].is_error
    assert out["bad"].content[0].text == (
        "Error executing tool reinforce: no page matches 'no such page'"
        " (by id, path, file name, title or alias)"
    )
    hits = out["query"]["hits"]
    assert hits[0]["path"] == "gotchas/Zeppelin queues need a dead-letter topic.md"
    sources = [e["source"] for e in out["show"]["evidence"]]
    assert sources == ["mcp-test-1", "s2"]
    page = (vault / hits[0]["path"]).read_text(encoding="utf-8")
    assert "tags: [queues, zeppelin]\n" in page and 'related: "[[Charge queue]]"\n' in page


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
    assert top == "payments/Bug PAY-231 retry storm in the payment worker.md"


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
