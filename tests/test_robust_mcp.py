"""Robustness faults of fresh-user report 4 over MCP, with the SDK's real stdio client: the
same refusals as the CLI, one line each, nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client import Client

from tests.test_mcp import _json, _session, vault  # noqa: F401  (vault: a fixture)


def _texts(result: Any) -> list[str]:
    return [c.text for c in result.content if hasattr(c, "text")]


def test_write_tools_refuse_control_characters_as_the_cli_does(vault: Path) -> None:  # noqa: F811
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}

    async def body(client: Client) -> list[list[str]]:
        calls = [
            ("remember", {"title": "Esc mcp", "kind": "note", "body": "x \u001b[2J y \u0000 z"}),
            ("reinforce", {"page": "Retry policy v3", "evidence": "session:x", "note": "\u0007"}),
        ]
        return [_texts(await client.call_tool(name, args)) for name, args in calls]

    said = _session(vault)(body)
    assert said == [
        [
            "Error executing tool remember: body holds the control character U+001B (line 1);"
            " agent input may hold tab and newline only"
        ],
        [
            "Error executing tool reinforce: note holds the control character U+0007 (line 1);"
            " agent input may hold tab and newline only"
        ],
    ]
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_query_now_at_the_calendar_s_ends_answers(vault: Path) -> None:  # noqa: F811
    async def body(client: Client) -> list[Any]:
        return [
            _json(await client.call_tool("query", {"text": f"retry {phrase}", "now": now}))
            for now, phrase in (("0001-01-01", "yesterday"), ("9999-12-31", "this year"))
        ]

    for answer in _session(vault)(body):
        assert answer["hits"][0]["path"] == "payments/Retry policy v3.md", answer
