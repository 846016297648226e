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


def test_numbers_and_flags_are_checked_not_coerced(vault: Path) -> None:  # noqa: F811
    limit = "Error executing tool query: limit must be a whole number from 1 to 1000"
    explain = "Error executing tool query: explain must be true or false"
    cases: list[tuple[dict[str, Any], str | int]] = [
        ({"limit": True}, f"{limit} (true or false is no number)"),
        ({"limit": False}, f"{limit} (true or false is no number)"),
        ({"limit": 2.5}, f"{limit} (a fraction is no whole number)"),
        ({"limit": "2.0"}, limit),
        ({"limit": "two"}, limit),
        ({"limit": 2.0}, 2),  # the JSON number 2
        ({"limit": "2"}, 2),
        ({"explain": "yes"}, explain),
        ({"explain": 1}, explain),
        ({"explain": 0}, explain),
        ({"explain": ""}, explain),
        ({"explain": "True"}, 3),
        ({"explain": False}, 3),
    ]

    async def body(client: Client) -> list[Any]:
        out = []
        for args, _ in cases:
            result = await client.call_tool("query", {"text": "retry", "limit": 3, **args})
            out.append(_texts(result)[0] if result.is_error else len(_json(result)["hits"]))
        return out

    assert _session(vault)(body) == [want for _, want in cases]


def test_a_query_longer_than_the_cap_is_refused_as_in_the_cli(vault: Path) -> None:  # noqa: F811
    text = " ".join(f"word{i}" for i in range(5000))

    async def body(client: Client) -> list[str]:
        return _texts(await client.call_tool("query", {"text": text}))

    assert _session(vault)(body) == [
        "Error executing tool query: a query is read with at most 256 words and 4000 characters"
        f" (this one has 5000 words and {len(text)} characters): shorten it"
    ]
