"""Configuration: the only reader of ``vault-sync.toml`` and ``vault-sync.local.toml``
(DESIGN §3). Which folder is the vault is :mod:`vault_sync.discover`'s job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from vault_sync.errors import ConfigError, VaultUnreadableError
from vault_sync.ranking_settings import RankingSettings, read_ranking

try:  # CPython's own BLAKE2, what hashlib.blake2b is: hashlib would load OpenSSL (~3 ms)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover (another Python)
    from hashlib import blake2b

CONFIG_NAME = "vault-sync.toml"
#: The uncommitted per-clone (or per-user) overrides beside it: only ``[brief]`` (issue 12).
LOCAL_CONFIG_NAME = "vault-sync.local.toml"
DEFAULT_STORE_DIR = ".vault-sync"
#: The file marking a store folder as vault-sync's own (``layout.claim`` writes it; discovery
#: refuses a vault that is, or lies inside, a folder holding it). Here, below both.
STORE_MARKER_NAME = "VAULT_SYNC_STORE"


@dataclass(frozen=True)
class BriefTarget:
    """One ``[[brief.targets]]`` entry: where ``brief`` (and ``watch``) write a briefing.

    Attributes:
        path: relative to the vault, or ``~/...`` (the user's home).
        mode: ``"file"`` (the briefing is the whole file) or ``"block"`` (a marked block
            inside a file a person owns: ``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``).
        project: only this project's pages, or ``None``.
        budget: characters, or ``None`` for the default.
    """

    path: str
    mode: str = "block"
    project: str | None = None
    budget: int | None = None


@dataclass(frozen=True)
class Config:
    """Settings of one vault; every key has a default (DESIGN §3, the config table).

    Attributes:
        vault: absolute path of the vault root.
        store_dir: folder of the derived stores, relative to ``vault`` (default ``.vault-sync``).
        ignore: extra gitignore-syntax globs to leave out.
        projects: folder glob -> project name, for pages without a ``project`` key.
        debounce_ms: watcher quiet window in milliseconds (default 150).
        max_delay_ms: watcher longest wait before a batch is applied, ms (default 1000).
        reconcile_s: watcher periodic full reconcile, seconds (default 300).
        lock_timeout_s: how long a writer waits for the lock, seconds (default 10).
        sanitize_extra_patterns: RE2 regexes (linear time: :mod:`vault_sync.linear_regex`)
            redacted as ``custom``; each is checked by :func:`load_config`.
        sanitize_allow: RE2 regexes or literals never redacted.
        title_from: ``"stem"`` (a page without a ``title`` key is named by its file, DESIGN
            §2) or ``"h1"`` (by its first H1).
        ignore_tool_folders: leave out folders that tools fill and that never hold notes
            (``node_modules/``, ``__pycache__/``: :data:`vault_sync.ignore.TOOL_FOLDERS`).
        brief_targets: ``[[brief.targets]]``, from ``vault-sync.local.toml`` when it has a
            ``[brief]`` table (per-clone overrides), else from ``vault-sync.toml``.
        session_max_chars: ``[write] session_max_chars``: the most characters of an
            imported session page's body (``import-session``; default 40,000).
        transcript_roots: ``[write] transcript_roots``: the folders (``~/`` allowed) below
            which the MCP ``import_session`` tool may read transcripts; ``None`` (the
            default) is the vendors' own folders
            (:data:`vault_sync.transcript.VENDOR_ROOTS`).
        write_folders: ``[write] folders``: where ``remember`` puts a new page, by kind
            (``decision = "adr"``) or project (``"project:payments" = "payments"``, which wins);
            unmapped kinds go to the kind's plural (:func:`vault_sync.remember.folder_for`).
        ranking: ``[ranking]``: the ranking pipeline's constants
            (:class:`vault_sync.ranking_settings.RankingSettings`; docs/eval.md, "Ranking stages").
    """

    vault: Path
    store_dir: str = DEFAULT_STORE_DIR
    ignore: tuple[str, ...] = ()
    ignore_tool_folders: bool = True
    title_from: str = "stem"
    projects: Mapping[str, str] = field(default_factory=dict)
    debounce_ms: int = 150
    max_delay_ms: int = 1000
    reconcile_s: int = 300
    lock_timeout_s: float = 10.0
    sanitize_extra_patterns: tuple[str, ...] = ()
    sanitize_allow: tuple[str, ...] = ()
    write_folders: Mapping[str, str] = field(default_factory=dict)
    session_max_chars: int = 40_000  # SESSION_MAX_CHARS
    transcript_roots: tuple[str, ...] | None = None
    brief_targets: tuple[BriefTarget, ...] = ()
    ranking: RankingSettings = field(default_factory=RankingSettings)

    @property
    def store_path(self) -> Path:
        """Absolute path of the store folder."""
        return self.vault / self.store_dir


#: Bumped when a change to vault-sync changes what is stored for the same page (so stores
#: written before it are rebuilt once): part of :func:`content_fingerprint`.
CONTENT_VERSION = 4


#: Default of ``[write] session_max_chars`` (characters): a long session's page stays readable.
SESSION_MAX_CHARS = 40_000


def content_fingerprint(config: Config) -> str:
    """A digest (32 hex characters) of the settings that change what is stored for a page:
    ``[projects]``, ``[sanitize]`` and ``title_from`` (and :data:`CONTENT_VERSION`: 2 since
    titles are file stems, issue 16; 3 since lone-CR frontmatter is read, unknown YAML tags
    warned of and pages cut at :data:`vault_sync.pagefile.MAX_PAGE_BYTES`; 4 since a relation
    type or evidence kind holding a secret is left out). Stores record
    the one they were built with; a different one means every page must be stored again (a
    rebuild)."""
    settings = {
        "content_version": CONTENT_VERSION,
        "projects": list(config.projects.items()),  # in order: the first match wins
        "sanitize_extra_patterns": list(config.sanitize_extra_patterns),
        "sanitize_allow": list(config.sanitize_allow),
        "title_from": config.title_from,
    }
    text = json.dumps(settings, ensure_ascii=False, sort_keys=True)
    return blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _expect(value: Any, kind: type | tuple[type, ...], key: str, path: Path) -> Any:
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"{path}: key {key!r} must be {names}, got {type(value).__name__}")
    return value


def _str_list(value: Any, key: str, path: Path) -> tuple[str, ...]:
    items = _expect(value, list, key, path)
    for item in items:
        _expect(item, str, key, path)
    return tuple(items)


def load_config(vault: Path) -> Config:
    """Read ``vault-sync.toml`` in ``vault`` (optional) into a :class:`Config`.

    Args:
        vault: the vault root (from :func:`find_vault`).

    Returns:
        The configuration, with defaults for every missing key.

    Raises:
        ConfigError: the file is not valid TOML, a key has the wrong type, or an
            ``extra_patterns`` entry is not a regex RE2 compiles; the message names the file
            (and the line, for TOML syntax errors) and the key.
        VaultUnreadableError: this user cannot look into the vault folder.
    """
    path = vault / CONFIG_NAME
    try:
        targets = _local_targets(vault)
        is_file = path.is_file()
    except PermissionError as exc:  # the vault folder itself cannot be searched (mode 000)
        raise VaultUnreadableError(
            f"cannot read the vault folder {vault}: {exc.strerror}"
        ) from None
    if not is_file:
        if path.exists():  # a folder (or a FIFO) named vault-sync.toml: a mistake, not "none"
            raise ConfigError(f"{path}: is not a file (a folder or special file by that name)")
        return Config(vault=vault, brief_targets=targets or ())
    data = _read_toml(path)
    _reject_unknown(data, _KEYS, "", path)
    if targets is None:
        targets = _brief_targets(data, path)
    watch = _expect(data.get("watch", {}), dict, "watch", path)
    sanitize = _expect(data.get("sanitize", {}), dict, "sanitize", path)
    write = _expect(data.get("write", {}), dict, "write", path)
    _reject_unknown(write, {"folders", "session_max_chars", "transcript_roots"}, "write.", path)
    folders = _expect(write.get("folders", {}), dict, "write.folders", path)
    store_dir = _store_dir(data, path)
    for name, folder in folders.items():
        _expect(folder, str, f"write.folders.{name}", path)
        _check_write_folder(name, folder, store_dir, path)
    _reject_unknown(watch, _WATCH_KEYS, "watch.", path)
    _reject_unknown(sanitize, _SANITIZE_KEYS, "sanitize.", path)
    projects = _expect(data.get("projects", {}), dict, "projects", path)
    for glob, name in projects.items():
        _expect(name, str, f"projects.{glob}", path)
    ignore = _str_list(data.get("ignore", []), "ignore", path)
    extra = _str_list(sanitize.get("extra_patterns", []), "sanitize.extra_patterns", path)
    _check_linear(extra, path)
    return Config(
        vault=vault,
        store_dir=store_dir,
        ignore=ignore,
        title_from=_title_from(data, path),
        ignore_tool_folders=_expect(
            data.get("ignore_tool_folders", True), bool, "ignore_tool_folders", path
        ),
        projects=dict(projects),
        debounce_ms=_positive(watch, "debounce_ms", 150, path),
        max_delay_ms=_positive(watch, "max_delay_ms", 1000, path),
        reconcile_s=_positive(watch, "reconcile_s", 300, path),
        lock_timeout_s=_lock_timeout_s(data, path),
        sanitize_extra_patterns=extra,
        sanitize_allow=_str_list(sanitize.get("allow", []), "sanitize.allow", path),
        write_folders=dict(folders),
        session_max_chars=_session_max_chars(write, path),
        transcript_roots=(
            _str_list(write["transcript_roots"], "write.transcript_roots", path)
            if "transcript_roots" in write
            else None
        ),
        brief_targets=targets,
        ranking=read_ranking(data.get("ranking", {}), str(path)),
    )


def _local_targets(vault: Path) -> tuple[BriefTarget, ...] | None:
    """The ``[brief]`` targets of ``vault-sync.local.toml``, or ``None`` without one."""
    path = vault / LOCAL_CONFIG_NAME
    if not path.is_file():
        return None
    data = _read_toml(path)
    _reject_unknown(data, {"brief"}, "", path)
    return _brief_targets(data, path) if "brief" in data else None


def _brief_targets(data: dict[str, Any], path: Path) -> tuple[BriefTarget, ...]:
    """``[[brief.targets]]``: each a table with ``path`` (required), ``mode`` (``"file"`` or
    ``"block"``, the default), ``project`` and ``budget`` (characters, at least 300)."""
    brief = _expect(data.get("brief", {}), dict, "brief", path)
    _reject_unknown(brief, {"targets"}, "brief.", path)
    out = []
    for n, entry in enumerate(_expect(brief.get("targets", []), list, "brief.targets", path)):
        key = f"brief.targets[{n}]"
        _expect(entry, dict, key, path)
        _reject_unknown(entry, {"path", "mode", "project", "budget"}, f"{key}.", path)
        target = _expect(entry.get("path", ""), str, f"{key}.path", path)
        mode = _expect(entry.get("mode", "block"), str, f"{key}.mode", path)
        budget = entry.get("budget")
        if not target or mode not in ("file", "block"):
            raise ConfigError(f'{path}: {key} needs a path and a mode of "file" or "block"')
        if budget is not None and (type(budget) is not int or budget < 300):
            raise ConfigError(f"{path}: {key}.budget must be a number of characters >= 300")
        project = entry.get("project")
        if project is not None:
            _expect(project, str, f"{key}.project", path)
        out.append(BriefTarget(target, mode, project, budget))
    return tuple(out)


def _read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file (a BOM allowed); raises ConfigError naming the file (and line)."""
    import tomllib  # here: a vault without vault-sync.toml never parses TOML

    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc


def _store_dir(data: dict[str, Any], path: Path) -> str:
    """``store_dir``, normalised (``./x/`` -> ``x``): a relative folder inside the vault."""
    store_dir = _expect(data.get("store_dir", DEFAULT_STORE_DIR), str, "store_dir", path)
    parts = PurePosixPath(store_dir.replace("\\", "/")).parts
    if not parts or parts[0] == "/" or ".." in parts or all(p == "." for p in parts):
        raise ConfigError(
            f"{path}: key 'store_dir' must name a folder of its own inside the vault"
            f" (got {store_dir!r})"
        )
    return "/".join(p for p in parts if p != ".")


def _lock_timeout_s(data: dict[str, Any], path: Path) -> float:
    """``lock_timeout_s`` in seconds, 0 to 86,400 (a day), default 10."""
    value = _expect(data.get("lock_timeout_s", 10), (int, float), "lock_timeout_s", path)
    if not 0 <= value <= 86_400:
        raise ConfigError(f"{path}: key 'lock_timeout_s' must be between 0 and 86400 seconds")
    return float(value)


def _title_from(data: dict[str, Any], path: Path) -> str:
    value = _expect(data.get("title_from", "stem"), str, "title_from", path)
    if value not in ("stem", "h1"):  # parser.TITLE_SOURCES (the parser is not imported here)
        raise ConfigError(f'{path}: key \'title_from\' must be "stem" or "h1" (got {value!r})')
    return str(value)


def _check_linear(patterns: tuple[str, ...], path: Path) -> None:
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


_KEYS = {
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
_WATCH_KEYS = {"debounce_ms", "max_delay_ms", "reconcile_s"}
_DRIVE = re.compile(r"[A-Za-z]:")
_SANITIZE_KEYS = {"extra_patterns", "allow"}


def _reject_unknown(table: dict[str, Any], known: set[str], prefix: str, path: Path) -> None:
    """A misspelt key must not be ignored silently: name it and the keys that exist."""
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {prefix}{unknown[0]!r}"
            f" (known: {', '.join(prefix + k for k in sorted(known))})"
        )


def _session_max_chars(write: dict[str, Any], path: Path) -> int:
    value = _expect(
        write.get("session_max_chars", SESSION_MAX_CHARS), int, "write.session_max_chars", path
    )
    if isinstance(value, bool) or value < 1000:
        raise ConfigError(f"{path}: key 'write.session_max_chars' must be a whole number >= 1000")
    return int(value)


#: Largest ``[watch]`` timing, in each key's unit (ms, or s for ``reconcile_s``): the bound of
#: ``import-session --debounce-ms``. A larger quiet window never lets a batch be applied.
WATCH_MAX = 600_000


def _positive(table: dict[str, Any], key: str, default: int, path: Path) -> int:
    value = _expect(table.get(key, default), int, f"watch.{key}", path)
    if isinstance(value, bool) or not 0 <= value <= WATCH_MAX:
        raise ConfigError(
            f"{_where(path, 'watch', key)}: key 'watch.{key}' must be a whole number"
            f" from 0 to {WATCH_MAX}"
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


def _check_write_folder(name: str, folder: str, store_dir: str, path: Path) -> None:
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
            f"{_where(path, 'write', name)}: key 'write.folders.{name}' must name a folder"
            f" inside the vault: {problem} (got {folder!r})"
        )


def _where(path: Path, table: str, key: str) -> str:
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
