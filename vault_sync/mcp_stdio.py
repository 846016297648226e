"""The MCP server's stdio, read and written on its event loop (issue 13: the round trip).

The SDK's ``stdio_server`` (checked on mcp 2.3.0) reads each line of stdin, and writes and
flushes each reply, in a worker thread: three hops from the event loop to a thread and back
per request, each a wait for a core on a busy machine. Here stdin and stdout are asyncio
pipes instead (:meth:`asyncio.AbstractEventLoop.connect_read_pipe`), handed to the same
``stdio_server`` as its streams, so the SDK still parses and frames every message.

Like the SDK, the server claims the descriptors while it serves: the wire moves to private
duplicates, fd 0 reads the null device and fd 1 writes to stderr, so a stray ``print`` or a
child process never writes into the protocol; both are restored on exit. When stdin or
stdout is not a pipe, a socket or a terminal (a regular file), the same claim is made and
the streams are the SDK's kind (``anyio`` files over the duplicates).

A line that is not JSON, or JSON that is no JSON-RPC message, gets the error reply JSON-RPC
2.0 §5.1 names (``-32700`` parse error, ``-32600`` invalid request, ``"id": null`` unless the
request's id can be read), written here: the SDK drops such a line without a reply, and a
client waiting on it would wait forever (fresh-user report, issue 13).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import stat
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

import anyio
from mcp import types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

#: Longest message line read (bytes): an agent's ``remember`` may carry a long page body.
MAX_LINE = 64 * 1024 * 1024


#: JSON-RPC 2.0 §5.1 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_reply(line: str) -> str | None:
    """The JSON-RPC error reply (one line, no newline) for ``line`` when it is no JSON-RPC
    message: ``-32700`` when it is not JSON, ``-32600`` when it is JSON of another shape
    (its ``id`` echoed when it is a string or an integer, else ``null``); ``None`` for a
    message the SDK can read, and for a blank line (nothing was asked)."""
    if not line.strip():
        return None
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError:
        pass
    try:
        data = json.loads(line)
    except ValueError:
        code, message, ident = PARSE_ERROR, "Parse error: the line is not JSON", None
    else:
        raw = data.get("id") if isinstance(data, dict) else None
        ok = isinstance(raw, str) or (isinstance(raw, int) and not isinstance(raw, bool))
        ident = raw if ok else None
        code, message = INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
    reply = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    return json.dumps(reply, separators=(",", ":"))


class _TextIn(Protocol):
    """What a line source gives: the next line, ``""`` at the end."""

    def __call__(self) -> Awaitable[str]: ...


class _Lines:
    """stdin as the SDK reads it: an async iterator of text lines (UTF-8, bad bytes
    replaced, as the SDK decodes them); a line that is no JSON-RPC message is answered with
    its error (:func:`error_reply`) through ``reply`` and not passed on."""

    def __init__(self, readline: _TextIn, reply: Callable[[str], Awaitable[None]]) -> None:
        self.readline = readline
        self.reply = reply

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.readline()
            if not line:
                raise StopAsyncIteration
            error = error_reply(line)
            if error is None:
                return line
            await self.reply(error + "\n")


class _Out:
    """stdout as the SDK writes it: ``write`` then ``flush`` of each reply line."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        """Queue ``text`` (UTF-8) on the pipe."""
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        """Wait until the pipe has taken what was queued."""
        await self.writer.drain()


def _is_stream(fd: int) -> bool:
    """True when ``fd`` is a pipe, a socket or a terminal: what asyncio's pipes accept."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@contextlib.contextmanager
def _claimed_fds() -> Any:
    """``(wire_in, wire_out)``: private duplicates of fd 0 and 1; meanwhile fd 0 reads the
    null device and fd 1 writes to stderr; both restored on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        yield wire_in, wire_out
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


@contextlib.asynccontextmanager
async def _pipes(wire_in: int, wire_out: int) -> AsyncIterator[tuple[_Lines, _Out]]:
    """The wire as asyncio pipes (stdin and stdout are pipes, sockets or terminals)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
    )
    out = _Out(asyncio.StreamWriter(write_transport, protocol, None, loop))

    async def readline() -> str:
        return (await reader.readline()).decode("utf-8", "replace")

    async def reply(text: str) -> None:
        await out.write(text)
        await out.flush()

    try:
        yield _Lines(readline, reply), out
    finally:
        read_transport.close()
        write_transport.close()


@contextlib.asynccontextmanager
async def _files(wire_in: int, wire_out: int) -> AsyncIterator[tuple[_Lines, Any]]:
    """The wire as the SDK's kind of streams: ``anyio`` files (a regular file)."""
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(wire_in, "rb"), "utf-8", "replace"))
    stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(wire_out, "wb"), "utf-8"))

    async def reply(text: str) -> None:
        await stdout.write(text)
        await stdout.flush()

    try:
        yield _Lines(stdin.readline, reply), stdout
    finally:
        await stdin.aclose()
        await stdout.aclose()


async def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client closes stdin
    (the SDK's ``MCPServer.run_stdio_async``, on the streams the module docstring names)."""
    lowlevel: Any = server._lowlevel_server  # what run_stdio_async serves (mcp 2.3.0)
    streams = _pipes if _is_stream(0) and _is_stream(1) else _files
    with _claimed_fds() as (wire_in, wire_out):
        async with (
            streams(wire_in, wire_out) as (lines, out),
            stdio_server(stdin=lines, stdout=out) as (read, write),  # type: ignore[arg-type]
        ):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


__all__ = ["INVALID_REQUEST", "MAX_LINE", "PARSE_ERROR", "error_reply", "run_stdio"]
