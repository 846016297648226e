"""What every ``vault-sync`` command shares: ``--vault`` and ``--json``, the engine of the
vault a command names, one-line and JSON output, scrubbed echoes, the progress bar factory.

Layer 8 with ``cli.py`` and the command groups in their own modules (``cli_eval``,
``cli_write``), which all import from here.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vault_sync.terminal import strip_controls
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:
    from vault_sync.app import Engine
    from vault_sync.config import Config

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")

#: Show a progress bar only for syncs writing more pages than this (DESIGN: "a few hundred").
PROGRESS_MIN_PAGES = 200


class LazyGroup(click.Group):
    """A command group whose listed commands are imported when first looked up.

    ``lazy`` maps a command name to ``"module:attribute"`` (a :class:`click.Command`), so
    ``vault-sync query`` never imports the eval, write, import and brief modules (~4 ms of
    each process, issue 10's whole-process query time). Listing the commands (``--help``, a
    mistyped name's suggestions) imports them all, and the help is what eager registration
    printed: the same names, sorted.
    """

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, the lazy ones included, sorted."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported on first use; ``None`` if unknown."""
        target = self.lazy.get(cmd_name)
        if target is not None and cmd_name not in self.commands:
            import importlib

            module, attribute = target.split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


def log_to_stderr() -> None:
    """Library warnings go to stderr as ``vault-sync: warning: ...`` (the library adds no
    handlers itself; without one, Python's last-resort handler would print them raw).

    Set up when :mod:`logging` is first imported (at once if it already is): no module a
    ``query`` runs imports it (~4 ms of the process), and the code that logs imports it
    before its first record, so every record is formatted the same either way.
    """
    if "logging" in sys.modules:
        _configure_logging(sys.modules["logging"])
    else:
        sys.meta_path.insert(0, _WhenImported("logging", _configure_logging))


def _configure_logging(logging: Any) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("vault-sync: %(levelname)s: %(message)s"))
    package = logging.getLogger("vault_sync")
    package.addHandler(handler)
    package.setLevel(logging.WARNING)
    package.propagate = False


class _WhenImported:
    """An import hook (PEP 451 meta path finder) that runs ``then(module)`` right after the
    module ``name`` is imported, then steps aside: the usual finders find and load it."""

    def __init__(self, name: str, then: Callable[[Any], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        """The usual spec of ``name``, its loader running ``then`` after the module's code;
        ``None`` (not this finder's module) for every other name."""
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        run_code = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run_code(module)
            self.then(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def json_log_formatter() -> Any:
    """A :class:`logging.Formatter` writing each record as one JSON object (``{"level",
    "message"}``, for ``watch --json-log``)."""
    import logging

    class JsonLogFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return json.dumps(
                {"level": record.levelname.lower(), "message": record.getMessage()},
                ensure_ascii=False,
            )

    return JsonLogFormatter()


def emit_json(data: object) -> None:
    """Print ``data`` as indented JSON (non-ASCII kept) on stdout."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False))


def print_notice(message: str | None) -> None:
    """Print a library notice (a repair, a rebuild) on stderr, scrubbed, as one line."""
    if message:
        click.echo(one_line(f"vault-sync: {scrub_typed(message)}"), err=True)


def _vault_path(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Path | None:
    if value is None:
        return None
    if not value:
        raise click.BadParameter("must name a folder, not empty text")
    return Path(value)


def vault_option(func: F) -> F:
    """Add ``--vault PATH`` to a command (also accepted before the command name).

    Empty text is a usage error (exit 2), never the working directory.
    """
    return click.option(
        "--vault",
        "vault",
        type=click.Path(file_okay=True, dir_okay=True, readable=False, path_type=str),
        callback=_vault_path,
        default=None,
        help="The vault folder (default: $VAULT_SYNC_VAULT, else discovered upward from"
        " the working directory).",
    )(func)


def json_option(func: F) -> F:
    """Add ``--json`` (machine-readable output on stdout) to a command."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for agents.")(func)


def iso_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """The callback of an option taking an ISO 8601 date or datetime (``--now``, ``--as-of``,
    ``--at``): the text as given (stripped) once :func:`vault_sync.page_dates.iso_day` reads
    it — the same rules for every such option.

    Raises:
        click.BadParameter: anything else (a usage error, exit 2).
    """
    from vault_sync.page_dates import ISO_DATE_SAID, iso_day

    if value is None:
        return None
    if iso_day(value) is None:
        raise click.BadParameter(f"{ISO_DATE_SAID} (got {one_line(value)!r})")
    return value.strip()


def one_line(text: str) -> str:
    """``text`` as one line of output: terminal control sequences removed
    (:func:`vault_sync.terminal.strip_controls`: a title's OSC never retitles the window), and
    other characters that are not printable (a newline or tab in a file name, a control byte)
    shown as Python escapes (``\\n``), as bytes that are not UTF-8 already are (``\\xff``),
    so one problem is always one line."""
    if text.isprintable():
        return text
    text = strip_controls(text)
    # a name's bytes that are not UTF-8 (os.fsdecode's lone surrogates) shown as \xff; any
    # other lone surrogate (from JSON) is escaped below
    with contextlib.suppress(UnicodeEncodeError):
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def engine_for(vault: Path | None) -> Engine:
    """The engine of the vault this command names (``--vault`` here or before the command)."""
    from vault_sync.app import Engine

    ctx = click.get_current_context()
    return Engine.open(vault or (ctx.find_root().obj or {}).get("vault"))


def progress_factory(as_json: bool) -> Callable[[int], Callable[[int], None] | None]:
    """A sync's ``progress_start``: a stderr bar for more than :data:`PROGRESS_MIN_PAGES`
    pages on a terminal, else none (never with ``--json``)."""

    def start(total: int) -> Callable[[int], None] | None:
        if as_json or total <= PROGRESS_MIN_PAGES or not sys.stderr.isatty():
            return None
        from vault_sync.progress import stderr_bar

        return stderr_bar("syncing pages", total)

    return start


def hit_json(hit: Any, explain: bool) -> dict[str, Any]:
    """The pinned ``query --json`` hit shape (docs/cli.md); fields are added, never renamed."""
    out = {
        "id": hit.id,
        "path": hit.path,
        "title": hit.title,
        "kind": hit.kind,
        "project": hit.project,
        "status": hit.status,
        "tags": list(hit.tags),
        "score": hit.score,
        "snippet": hit.snippet,
        "highlights": [list(span) for span in hit.highlights],
        "confidence": hit.confidence,
    }
    if explain:
        out["explain"] = hit.explain
    return out


def count_noun(n: int, noun: str) -> str:
    """``1 secret``, ``2 secrets``: a count with its noun (a regular English plural)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def read_report(vault: Path | None, report: Callable[[Config, Any], R]) -> R:
    """Open the stores for reading (syncing first if there are none), run one report
    (``report(config, sidecar)``), close; print the engine's notice, if any, on stderr."""
    vault_engine = engine_for(vault)
    config = vault_engine.config
    result, notice = vault_engine.read(lambda reader: report(config, reader.sidecar))
    print_notice(notice)
    return result


def print_data(data: Any, as_json: bool, lines: Callable[[Any], list[str]]) -> None:
    """``data`` as JSON (``as_json``), else as the text ``lines(data)`` gives, one line each."""
    if as_json:
        emit_json(data)
    else:
        for line in lines(data):
            click.echo(one_line(line))
