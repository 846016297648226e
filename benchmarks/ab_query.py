"""Old against new, alternating, in the same minutes: whole ``query`` processes and MCP round
trips of two (or more) installs of vault-sync on one vault.

    python benchmarks/ab_query.py --vault V --word bristork old=/tmp/old-venv new=.venv

Each ``NAME=VENV`` is a virtual environment holding ``bin/python`` and ``bin/vault-sync``
(an editable install of another worktree, or a wheel: ``pip install --no-deps PATH``).
On a shared machine wall times stretch with the load and a run that waits for a core looks
slow whatever its code; alternating the installs run by run gives each the same load, and
the CPU time (user + system of the child, from ``RUSAGE_CHILDREN``) is reported beside the
wall time. Round by round, for each install:

- ``python -c pass`` then ``vault-sync --vault V query WORD --json`` as whole processes;
- with ``--mcp-calls N``: one ``vault-sync --vault V mcp --read-only`` server per install
  (the SDK's stdio client), then N rounds of a ``query`` of WORD and of a word no page holds
  on each server in turn (round trip, wall time).

``PYTHONPATH`` is left out of every child's environment, so each install runs its own code.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchlib import markdown_table, percentile

#: A word no generated page holds: the MCP round trip without ranking work.
NO_HIT = "zzqxnohitword"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(cmd: Sequence[str]) -> tuple[float, float]:
    """Run ``cmd`` to completion: (wall ms, CPU ms of the child). Raises on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=_env(), capture_output=True, check=False)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-500:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu * 1000


def processes(installs: dict[str, Path], vault: Path, word: str, rounds: int) -> list[list[str]]:
    """Table rows: per install, ``python -c pass`` and the whole query (wall, CPU)."""
    runs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for name, venv in installs.items():
            query = [str(venv / "bin/vault-sync"), "--vault", str(vault), "query", word, "--json"]
            runs.setdefault(f"{name}: python -c pass", []).append(
                _run([str(venv / "bin/python"), "-c", "pass"])
            )
            runs.setdefault(f"{name}: query {word} --json", []).append(_run(query))
    return [
        [
            label,
            f"{statistics.median(w for w, _ in values):.1f}",
            f"{min(w for w, _ in values):.1f}",
            f"{statistics.median(c for _, c in values):.1f}",
            f"{min(c for _, c in values):.1f}",
        ]
        for label, values in runs.items()
    ]


async def _mcp(installs: dict[str, Path], vault: Path, word: str, calls: int) -> list[list[str]]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    times: dict[str, list[float]] = {}
    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for name, venv in installs.items():
            params = StdioServerParameters(
                command=str(venv / "bin/vault-sync"),
                args=["--vault", str(vault), "mcp", "--read-only"],
                env={"PATH": os.environ.get("PATH", "")},
            )
            clients[name] = await stack.enter_async_context(
                Client(params, read_timeout_seconds=120)
            )
            await clients[name].call_tool("query", {"text": word})  # opens the stores
        for _ in range(calls):
            for name, client in clients.items():
                for text in (word, NO_HIT):
                    started = time.perf_counter()
                    result = await client.call_tool("query", {"text": text, "limit": 10})
                    times.setdefault(f"{name}: MCP query {text}", []).append(
                        (time.perf_counter() - started) * 1000
                    )
                    if result.is_error:
                        raise RuntimeError(f"{name}: MCP query failed: {result.content}")
    return [
        [label, f"{statistics.median(v):.2f}", f"{percentile(v, 0.95):.2f}", f"{min(v):.2f}"]
        for label, v in times.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("installs", nargs="+", help="NAME=VENV, two or more")
    parser.add_argument("--vault", type=Path, required=True, help="a synced vault")
    parser.add_argument("--word", required=True, help="a word the vault holds")
    parser.add_argument("--rounds", type=int, default=15, help="whole-process rounds")
    parser.add_argument("--mcp-calls", type=int, default=0, help="MCP rounds (0: none)")
    args = parser.parse_args(argv)
    installs = {n: Path(v).resolve() for n, v in (i.split("=", 1) for i in args.installs)}
    load = [round(x, 1) for x in os.getloadavg()]
    rows = processes(installs, args.vault, args.word, args.rounds)
    head = ["process", "wall median ms", "wall min", "CPU median ms", "CPU min"]
    print(markdown_table(head, rows))
    if args.mcp_calls:
        rows = asyncio.run(_mcp(installs, args.vault, args.word, args.mcp_calls))
        print()
        print(markdown_table(["round trip", "median ms", "p95", "min"], rows))
    print(f"\nload average before {load}, after {[round(x, 1) for x in os.getloadavg()]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
