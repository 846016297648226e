"""The values of ``vault-sync.toml``, each read and checked: types, ranges, paths, known keys.

Layer 0, below :mod:`vault_sync.config` (which puts them together into a
:class:`~vault_sync.config.Config`). Each reader takes the parsed table and the file's path and
returns the value or raises :class:`~vault_sync.errors.ConfigError` in one line naming the
file, the key and, where a line says it (:func:`where_key`), its line: never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from vault_sync.errors import ConfigError

#: The store folder's default name (``store_dir``), relative to the vault.
DEFAULT_STORE_DIR = ".vault-sync"

#: Default of ``[write] session_max_chars`` (characters): a long session's page stays readable.
SESSION_MAX_CHARS = 40_000


def expect(value: Any, kind: type | tuple[type, ...], key: str, path: Path) -> Any:
    """``value`` of ``key`` when it is a ``kind``, else a :class:`ConfigError` naming the
    file, the key and both types."""
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"{path}: key {key!r} must be {names}, got {type(value).__name__}")
    return value


def str_list(value: Any, key: str, path: Path) -> tuple[str, ...]:
    """``value`` of ``key`` as a tuple of strings, else a :class:`ConfigError`."""
    items = expect(value, list, key, path)
    for item in items:
        expect(item, str, key, path)
    return tuple(items)


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file (a BOM allowed); raises ConfigError naming the file (and line)."""
    import tomllib  # here: a vault without vault-sync.toml never parses TOML

    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc


def read_store_dir(data: dict[str, Any], path: Path) -> str:
    """``store_dir``, normalised (``./x/`` -> ``x``): a relative folder inside the vault."""
    store_dir = expect(data.get("store_dir", DEFAULT_STORE_DIR), str, "store_dir", path)
    parts = PurePosixPath(store_dir.replace("\\", "/")).parts
    if not parts or parts[0] == "/" or ".." in parts or all(p == "." for p in parts):
        raise ConfigError(
            f"{path}: key 'store_dir' must name a folder of its own inside the vault"
            f" (got {store_dir!r})"
        )
    return "/".join(p for p in parts if p != ".")


def read_lock_timeout_s(data: dict[str, Any], path: Path) -> float:
    """``lock_timeout_s`` in seconds, 0 to 86,400 (a day), default 10."""
    value = expect(data.get("lock_timeout_s", 10), (int, float), "lock_timeout_s", path)
    if not 0 <= value <= 86_400:
        raise ConfigError(f"{path}: key 'lock_timeout_s' must be between 0 and 86400 seconds")
    return float(value)


def read_title_from(data: dict[str, Any], path: Path) -> str:
    """``title_from``: ``"stem"`` (the default) or ``"h1"``, else a :class:`ConfigError`."""
    value = expect(data.get("title_from", "stem"), str, "title_from", path)
    if value not in ("stem", "h1"):  # parser.TITLE_SOURCES (the parser is not imported here)
        raise ConfigError(f'{path}: key \'title_from\' must be "stem" or "h1" (got {value!r})')
    return str(value)


def check_linear(patterns: tuple[str, ...], path: Path) -> None:
    """Every ``sanitize.extra_patterns`` entry must compile with RE2 (linear time, issue 14)
    and match neither the empty string nor any text (:func:`~vault_sync.linear_regex.
    too_broad`: ``a*`` redacted nothing and crashed on non-ASCII text); the message names the
    file and the entry's line."""
    if not patterns:
        return
    from vault_sync.linear_regex import compile_linear, too_broad  # RE2: only with patterns

    for pattern in patterns:
        try:
            why = too_broad(compile_linear(pattern))
        except ValueError as exc:
            raise ConfigError(
                f"{path}: sanitize.extra_patterns: {pattern!r} is not a linear-time (RE2)"
                f" regex: {exc} (backreferences and lookaround are not supported)"
            ) from exc
        if why is not None:
            where = f"{path}:{line}" if (line := _line_of(path, pattern)) else str(path)
            raise ConfigError(f"{where}: sanitize.extra_patterns: {pattern!r} {why}")


def _line_of(path: Path, value: str) -> int | None:
    """The 1-based line of ``path`` where the TOML string ``value`` is written (literal
    ``'…'`` or basic ``"…"``), or ``None``: ``tomllib`` keeps no positions."""
    basic = value.replace("\\", "\\\\").replace('"', '\\"')
    written = (f"'{value}'", f'"{basic}"')
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    return next((n for n, line in enumerate(lines, 1) if any(w in line for w in written)), None)


#: The keys ``vault-sync.toml`` may hold: at its top, in ``[watch]``, in ``[sanitize]``.
KEYS = {
    "ignore",
    "title_from",
    "ignore_tool_folders",
    "store_dir",
    "write",
    "brief",
    "projects",
    "watch",
    "lock_timeout_s",
    "sanitize",
    "ranking",
}
WATCH_KEYS = {"debounce_ms", "max_delay_ms", "reconcile_s", "retry_ms", "retry_max_ms"}
_DRIVE = re.compile(r"[A-Za-z]:")
SANITIZE_KEYS = {"extra_patterns", "allow"}


def reject_unknown(table: dict[str, Any], known: set[str], prefix: str, path: Path) -> None:
    """A misspelt key must not be ignored silently: name it and the keys that exist."""
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {prefix}{unknown[0]!r}"
            f" (known: {', '.join(prefix + k for k in sorted(known))})"
        )


def read_session_max_chars(write: dict[str, Any], path: Path) -> int:
    """``[write] session_max_chars``: characters, at least 1,000 (default
    :data:`SESSION_MAX_CHARS`), else a :class:`ConfigError`."""
    value = expect(
        write.get("session_max_chars", SESSION_MAX_CHARS), int, "write.session_max_chars", path
    )
    if isinstance(value, bool) or value < 1000:
        raise ConfigError(f"{path}: key 'write.session_max_chars' must be a whole number >= 1000")
    return int(value)


#: Largest ``[watch]`` timing, in each key's unit (ms, or s for ``reconcile_s``): the bound of
#: ``import-session --debounce-ms``. A larger quiet window never lets a batch be applied.
WATCH_MAX = 600_000


def read_watch_int(
    table: dict[str, Any], key: str, default: int, path: Path, least: int = 0
) -> int:
    """``[watch] key``: a whole number from ``least`` (``retry_max_ms``: ``retry_ms``) to
    :data:`WATCH_MAX`, else a :class:`ConfigError` naming the file, line and key."""
    value = expect(table.get(key, default), int, f"watch.{key}", path)
    if isinstance(value, bool) or not least <= value <= WATCH_MAX:
        raise ConfigError(
            f"{where_key(path, 'watch', key)}: key 'watch.{key}' must be a whole number"
            f" from {least} to {WATCH_MAX}"
        )
    return int(value)


def vault_path_problem(relative: str) -> str | None:
    """What makes ``relative`` (a vault-relative POSIX path) no plain path inside the vault,
    or ``None``: a NUL, a backslash, an absolute, ``~`` or drive-letter start, or a part that
    is empty, ``.`` or ``..``. Lexical only (:func:`vault_sync.confine.confined` also checks
    symlinks on disk before a write)."""
    if "\x00" in relative:
        return "a NUL character is not allowed in a path"
    if "\\" in relative:
        return "use / between folders (no backslash)"
    if relative.startswith(("/", "~")) or _DRIVE.match(relative):
        return "must be a path inside the vault, not absolute"
    if any(part in ("", ".", "..") for part in relative.split("/")):
        return "every part must be a name (no '', '.', '..')"
    return None


def check_write_folder(name: str, folder: str, store_dir: str, path: Path) -> None:
    """``[write] folders`` values, checked at load (not first by a write): a folder inside
    the vault (``""``: the vault root), not the store folder nor ``.git``."""
    relative = folder.rstrip("/")
    if not relative:
        return
    problem = vault_path_problem(relative)
    top = relative.split("/")[0].casefold()
    if problem is None and top in (".git", store_dir.split("/")[0].casefold()):
        problem = f"vault-sync never writes into {relative.split('/')[0]}/"
    if problem:
        raise ConfigError(
            f"{where_key(path, 'write', name)}: key 'write.folders.{name}' must name a folder"
            f" inside the vault: {problem} (got {folder!r})"
        )


def where_key(path: Path, table: str, key: str) -> str:
    """``FILE:LINE`` of ``key`` (its first ``key =`` after the ``[table]`` header, else
    anywhere), or ``FILE`` when no line says it (a dotted or unusual spelling)."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    said = re.compile(rf'(?:^|[\s{{,."]){re.escape(key)}"?\s*=')
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
    start = next((n for n, line in enumerate(lines) if header.match(line)), 0)
    for n in [*range(start, len(lines)), *range(start)]:
        if said.search(lines[n]):
            return f"{path}:{n + 1}"
    return str(path)
