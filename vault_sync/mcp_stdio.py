"""The MCP server's stdio, read and written on its event loop (issue 13: the round trip).

The SDK's ``stdio_server`` (checked on mcp 2.3.0) reads each line of stdin, and writes and
flushes each reply, in a worker thread: three hops from the event loop to a thread and back
per request, each a wait for a core on a busy machine. Here stdin and stdout are asyncio
pipes instead (:meth:`asyncio.AbstractEventLoop.connect_read_pipe`), handed to the same
``stdio_server`` as its streams, so the SDK still parses and frames every message.

Like the SDK, the server claims the descriptors while it serves: the wire moves to private
duplicates, fd 0 reads the null device and fd 1 writes to stderr, so a stray ``print`` or a
child process never writes into the protocol; both are restored on exit. When stdin or
stdout is not a pipe, a socket or a terminal (a regular file), the SDK's own transport runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

#: Longest message line read (bytes): an agent's ``remember`` may carry a long page body.
MAX_LINE = 64 * 1024 * 1024


class _Lines:
    """stdin as the SDK reads it: an async iterator of text lines (UTF-8, bad bytes
    replaced, as the SDK decodes them)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


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


@contextlib.asynccontextmanager
async def _claimed_stdio() -> AsyncIterator[tuple[_Lines, _Out]]:
    """stdin and stdout as asyncio pipes on private descriptors; fd 0 reads the null device
    and fd 1 writes to stderr meanwhile; all restored on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    try:
        yield _Lines(reader), _Out(writer)
    finally:
        read_transport.close()
        write_transport.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


async def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client closes stdin
    (the SDK's ``MCPServer.run_stdio_async``, with the pipes of :func:`_claimed_stdio`)."""
    lowlevel: Any = server._lowlevel_server  # what run_stdio_async serves (mcp 2.3.0)
    if not (_is_stream(0) and _is_stream(1)):
        await server.run_stdio_async()
        return
    async with (
        _claimed_stdio() as (lines, out),
        stdio_server(stdin=lines, stdout=out) as (read, write),  # type: ignore[arg-type]
    ):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


__all__ = ["MAX_LINE", "run_stdio"]
