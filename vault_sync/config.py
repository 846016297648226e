"""Configuration: the only reader of ``vault-sync.toml`` and ``vault-sync.local.toml``
(DESIGN §3). Which folder is the vault is :mod:`vault_sync.discover`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_sync.config_values import (
    DEFAULT_STORE_DIR,
    KEYS,
    SANITIZE_KEYS,
    WATCH_KEYS,
    check_linear,
    check_write_folder,
    expect,
    read_lock_timeout_s,
    read_session_max_chars,
    read_store_dir,
    read_title_from,
    read_toml,
    read_watch_int,
    reject_unknown,
    str_list,
)
from vault_sync.errors import ConfigError, VaultUnreadableError
from vault_sync.ranking_settings import RankingSettings, read_ranking

try:  # CPython's own BLAKE2, what hashlib.blake2b is: hashlib would load OpenSSL (~3 ms)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover (another Python)
    from hashlib import blake2b

CONFIG_NAME = "vault-sync.toml"
#: The uncommitted per-clone (or per-user) overrides beside it: only ``[brief]`` (issue 12).
LOCAL_CONFIG_NAME = "vault-sync.local.toml"
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
        retry_ms / retry_max_ms: the watcher's wait after a failed batch, doubled for each
            failure in a row from ``retry_ms`` up to ``retry_max_ms``, ms (200 / 60,000).
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
    retry_ms: int = 200
    retry_max_ms: int = 60_000
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
    data = read_toml(path)
    reject_unknown(data, KEYS, "", path)
    if targets is None:
        targets = _brief_targets(data, path)
    watch = expect(data.get("watch", {}), dict, "watch", path)
    sanitize = expect(data.get("sanitize", {}), dict, "sanitize", path)
    write = expect(data.get("write", {}), dict, "write", path)
    reject_unknown(write, {"folders", "session_max_chars", "transcript_roots"}, "write.", path)
    folders = expect(write.get("folders", {}), dict, "write.folders", path)
    store_dir = read_store_dir(data, path)
    for name, folder in folders.items():
        expect(folder, str, f"write.folders.{name}", path)
        check_write_folder(name, folder, store_dir, path)
    reject_unknown(watch, WATCH_KEYS, "watch.", path)
    reject_unknown(sanitize, SANITIZE_KEYS, "sanitize.", path)
    projects = expect(data.get("projects", {}), dict, "projects", path)
    for glob, name in projects.items():
        expect(name, str, f"projects.{glob}", path)
    ignore = str_list(data.get("ignore", []), "ignore", path)
    extra = str_list(sanitize.get("extra_patterns", []), "sanitize.extra_patterns", path)
    check_linear(extra, path)
    return Config(
        vault=vault,
        store_dir=store_dir,
        ignore=ignore,
        title_from=read_title_from(data, path),
        ignore_tool_folders=expect(
            data.get("ignore_tool_folders", True), bool, "ignore_tool_folders", path
        ),
        projects=dict(projects),
        debounce_ms=read_watch_int(watch, "debounce_ms", 150, path),
        max_delay_ms=read_watch_int(watch, "max_delay_ms", 1000, path),
        reconcile_s=read_watch_int(watch, "reconcile_s", 300, path),
        retry_ms=read_watch_int(watch, "retry_ms", 200, path, least=1),
        retry_max_ms=read_watch_int(
            watch, "retry_max_ms", 60_000, path, least=read_watch_int(watch, "retry_ms", 200, path)
        ),
        lock_timeout_s=read_lock_timeout_s(data, path),
        sanitize_extra_patterns=extra,
        sanitize_allow=str_list(sanitize.get("allow", []), "sanitize.allow", path),
        write_folders=dict(folders),
        session_max_chars=read_session_max_chars(write, path),
        transcript_roots=(
            str_list(write["transcript_roots"], "write.transcript_roots", path)
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
    data = read_toml(path)
    reject_unknown(data, {"brief"}, "", path)
    return _brief_targets(data, path) if "brief" in data else None


def _brief_targets(data: dict[str, Any], path: Path) -> tuple[BriefTarget, ...]:
    """``[[brief.targets]]``: each a table with ``path`` (required), ``mode`` (``"file"`` or
    ``"block"``, the default), ``project`` and ``budget`` (characters, at least 300)."""
    brief = expect(data.get("brief", {}), dict, "brief", path)
    reject_unknown(brief, {"targets"}, "brief.", path)
    out = []
    for n, entry in enumerate(expect(brief.get("targets", []), list, "brief.targets", path)):
        key = f"brief.targets[{n}]"
        expect(entry, dict, key, path)
        reject_unknown(entry, {"path", "mode", "project", "budget"}, f"{key}.", path)
        target = expect(entry.get("path", ""), str, f"{key}.path", path)
        mode = expect(entry.get("mode", "block"), str, f"{key}.mode", path)
        budget = entry.get("budget")
        if not target or mode not in ("file", "block"):
            raise ConfigError(f'{path}: {key} needs a path and a mode of "file" or "block"')
        if budget is not None and (type(budget) is not int or budget < 300):
            raise ConfigError(f"{path}: {key}.budget must be a number of characters >= 300")
        project = entry.get("project")
        if project is not None:
            expect(project, str, f"{key}.project", path)
        out.append(BriefTarget(target, mode, project, budget))
    return tuple(out)
