"""Which names and paths the vault leaves out: the ignore rules of the walk (DESIGN §2).

Rules, cheapest first (each prunes a folder, so nothing below it is listed):

1. Dot-names: every file or folder whose name starts with ``.`` (``.git/``, ``.obsidian/``,
   ``.trash/``, ``.vault-sync/``, ``.DS_Store``, ``.gitignore``, emacs lock files ``.#n.md``,
   vim swap files ``.n.md.swp``, atomic-save temp files ``.n.md.tmp123``).
2. Temp/swap/backup file names, see :data:`TEMP_NAME_RE` and :func:`is_ignored_name`.
3. The store folder ``config.store_dir``, also when it is not a dot-folder.
4. Obsidian's excluded files: ``userIgnoreFilters`` in ``.obsidian/app.json``.
5. :data:`TOOL_FOLDERS` (unless ``config.ignore_tool_folders`` is false), then
   ``config.ignore`` globs (gitignore syntax, relative to the vault root; a ``!`` line there
   re-includes a tool folder).
6. ``.gitignore`` files at the root and in any folder (gitignore semantics: patterns are
   relative to the file's folder, a deeper file overrides a shallower one, the last matching
   line wins, ``!`` re-includes, and nothing under an ignored folder can be re-included).

Rules 1 and 2 need no I/O (:func:`is_ignored_name`, for event filters); the others are one
:class:`IgnoreMatcher` per scan (:func:`build_ignore_matcher`). Nothing here lists a folder.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from vault_sync.config import Config
from vault_sync.errors import ConfigError

if TYPE_CHECKING:  # pathspec (~12 ms to import): only for lines other than folder names
    from pathspec import GitIgnoreSpec

#: File names left out as editor/tool temp, swap or backup files (dot-names are left out
#: anyway). Sources: ``n.md~`` is the backup of vim (``backupext``) and emacs; ``#n.md#`` is
#: emacs' auto-save file; ``n.md.tmp`` / ``n.md.tmp123`` are atomic-save temp files (a ``.tmp``
#: last extension, optionally followed by a unique tag without a dot, so ``x.tmpl.md`` is
#: still a page); ``.swp/.swo/.swn`` are vim swap files written outside a dot-name (``:set
#: directory``), ``.swx`` vim's swap-folder probe; ``.crswap`` is Chromium's File System Access
#: temp file. ``*.bak`` is NOT left out: no editor in the save sequences of TECH-NOTES §2 writes
#: one, it is never a page either way, and leaving it out would only hide an attachment a
#: person linked on purpose.
TEMP_NAME_RE = re.compile(r"~$|^#.+#$|\.tmp[^.]*$|\.sw[ponx]$|\.crswap$", re.IGNORECASE)

#: vim's write probe (``bufwrite.c``): it creates ``4913`` to test the folder, and if that name
#: exists tries ``4913 + 123 * k``; the first 100 names of that sequence are left out.
_VIM_PROBE_FIRST, _VIM_PROBE_STEP, _VIM_PROBE_COUNT = 4913, 123, 100

_OBSIDIAN_APP_JSON = ".obsidian/app.json"

#: Folders that package managers and interpreters fill and that never hold a person's notes,
#: left out wherever they are (gitignore lines; issue 16, item 6): npm's and Bower's package
#: folders and CPython's bytecode cache. Names that are also ordinary note folders (``env/``,
#: ``build/``, ``vendor/``, ``target/``) are not here: a ``.gitignore`` says when they are
#: tool output.
TOOL_FOLDERS = ("node_modules/", "bower_components/", "__pycache__/")


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _is_temp_name(name: str) -> bool:
    if name.isdigit() and len(name) < 7:
        k, rest = divmod(int(name) - _VIM_PROBE_FIRST, _VIM_PROBE_STEP)
        if rest == 0 and 0 <= k < _VIM_PROBE_COUNT:
            return True
    return TEMP_NAME_RE.search(name) is not None


def is_ignored_name(path: str, *, is_dir: bool = False) -> bool:
    """Return whether the name rules alone leave ``path`` out: cheap, no I/O, for event filters.

    Covers the dot-name rule on every component and the temp/swap/backup rule
    (:data:`TEMP_NAME_RE`, vim's ``4913`` probe) on the last one when it is a file. The store
    folder, ``.gitignore``, Obsidian and config rules need :class:`IgnoreMatcher`.

    Args:
        path: vault-relative POSIX path (disk or NFC form), without ``./`` or ``..``.
        is_dir: whether ``path`` names a folder (temp rules apply to files only).
    """
    parts = path.split("/")
    if any(part.startswith(".") for part in parts):
        return True
    return not is_dir and _is_temp_name(parts[-1])


def gitignore_line_ok(line: str) -> bool:
    """Whether a gitignore-syntax line (``pathspec.GitIgnoreSpec``) can be read and can match
    a path; a blank line and a ``#`` comment are fine (they match nothing by design), ``\\``
    or ``!`` alone cannot be read, and ``[`` or ``a[`` (an unclosed set) or ``/`` match no
    path, which git (and pathspec) take silently."""
    if _FOLDER_NAME.fullmatch(line):
        return True
    from pathspec import GitIgnoreSpec

    try:
        spec = GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):  # pathspec raises re.error or its own ValueErrors
        return False
    if not line.strip() or line.startswith("#"):
        return True
    return any(p.include is not None for p in spec.patterns)


#: A gitignore line that names a folder and nothing else (``node_modules/``, every line of
#: :data:`TOOL_FOLDERS`): no glob, escape, negation or inner slash. It leaves out every
#: folder of that name at any depth and all below it: pathspec's regex of such a line is
#: ``^(?:.+/)?NAME/.*$``, which :meth:`Patterns.check` applies without pathspec.
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_-]+/")


class Patterns:
    """Compiled gitignore-syntax lines (``pathspec.GitIgnoreSpec``) with a one-regex pre-check.

    ``GitIgnoreSpec.check_file`` costs about 2 µs per path (it tries every line); most paths
    match no line, so one alternation of all line regexes rejects them first (0.3 µs). When
    pathspec's compiled lines cannot be joined, every path takes the full check. Lines that
    only name folders (:data:`_FOLDER_NAME`: the default :data:`TOOL_FOLDERS`) are matched
    by their names, without importing pathspec (~12 ms of every ``sync`` process).
    """

    __slots__ = ("_any", "_folders", "bad", "spec")

    def __init__(self, lines: Iterable[str]) -> None:
        good: list[str] = []
        #: ``(1-based line number, line)`` of lines no gitignore rule can read (``[z-a]``)
        #: or that match no path (``[``: :func:`gitignore_line_ok`): left
        #: out, so one bad line never stops a scan; callers report them.
        self.bad: list[tuple[int, str]] = []
        for number, line in enumerate(lines, 1):
            if not gitignore_line_ok(_nfc(line)):
                self.bad.append((number, line))
                continue
            good.append(_nfc(line))
        #: the folder names of lines that only name a folder, when every line does
        self._folders: frozenset[str] | None = None
        self.spec: GitIgnoreSpec | None = None
        self._any: re.Pattern[str] | None = None
        if good and all(_FOLDER_NAME.fullmatch(line) for line in good):
            self._folders = frozenset(line[:-1] for line in good)
            return
        from pathspec import GitIgnoreSpec

        self.spec = GitIgnoreSpec.from_lines(good)
        self._any = _join_regexes(self.spec)

    @property
    def folders_only(self) -> bool:
        """Whether every line only names a folder (:data:`_FOLDER_NAME`)."""
        return self._folders is not None

    def __len__(self) -> int:
        if self._folders is not None:
            return len(self._folders)
        assert self.spec is not None
        return sum(1 for p in self.spec.patterns if p.include is not None)

    def check(self, path: str) -> bool | None:
        """Return ``True`` (ignored), ``False`` (re-included by ``!``) or ``None`` (no line).

        Args:
            path: POSIX path relative to the patterns' folder, with a trailing ``/`` for a folder.
        """
        if self._folders is not None:  # NAME/ matches a folder NAME anywhere and all below
            folders = path.split("/")[:-1]
            return True if any(f in self._folders for f in folders) else None
        if self._any is not None and self._any.match(path) is None:
            return None
        assert self.spec is not None
        include: bool | None = self.spec.check_file(path).include
        return include


def _join_regexes(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    parts: list[str] = []
    for pattern in spec.patterns:
        if pattern.include is None:
            continue  # a blank or comment line
        regex = getattr(pattern, "regex", None)
        if not isinstance(regex, re.Pattern) or not isinstance(regex.pattern, str):
            return None
        parts.append(regex.pattern.replace("(?P<ps_d>", "(?:"))  # names must be unique
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts)) if parts else None
    except re.error:
        return None


_Chain = tuple[tuple[str, Patterns], ...]  # (folder NFC path + "/" or "", patterns), root first


class IgnoreMatcher:
    """Every ignore rule of a vault, built once per scan by :func:`build_ignore_matcher`.

    ``.gitignore`` files are read lazily and cached by folder; rebuild the matcher when a
    ``.gitignore``, ``.obsidian/app.json`` or the config changes.

    Attributes:
        vault: the vault root.
        store_dir: the store folder, vault-relative NFC POSIX path.
        globs: ``config.ignore`` compiled, or ``None``.
        prefixes: Obsidian path-prefix filters (NFC).
        regexes: Obsidian ``/regex/`` filters.
        warnings: problems met while reading rule files, one line each.
    """

    def __init__(
        self,
        vault: Path,
        store_dir: str,
        globs: Patterns | None,
        prefixes: tuple[str, ...],
        regexes: tuple[re.Pattern[str], ...],
        warnings: list[str],
    ) -> None:
        self.vault = vault
        self.store_dir = store_dir
        self.globs = globs
        self.prefixes = prefixes
        self.regexes = regexes
        self.warnings = warnings
        self._gitignores: dict[str, Patterns | None] = {}

    @property
    def has_patterns(self) -> bool:
        """Whether any rule besides the name rules and the store folder applies to files a
        walk reaches: ``config.ignore`` lines that only name folders (the default
        :data:`TOOL_FOLDERS`) leave out no file whose folders the walk entered."""
        globs = self.globs is not None and not self.globs.folders_only
        return bool(globs or self.prefixes or self.regexes)

    def gitignore(self, folder: str) -> Patterns | None:
        """Return the compiled ``.gitignore`` of ``folder`` (disk-form relative path, ``""`` for
        the root), or ``None`` when it has none or it cannot be read (a warning is kept)."""
        if folder not in self._gitignores:
            self._gitignores[folder] = self._load_gitignore(folder)
        return self._gitignores[folder]

    def _load_gitignore(self, folder: str) -> Patterns | None:
        rel = f"{folder}/.gitignore" if folder else ".gitignore"
        try:
            data = (self.vault / rel).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            self.warnings.append(f"{_nfc(rel)}: cannot read: {exc.strerror or exc}")
            return None
        patterns = Patterns(data.decode("utf-8-sig", errors="replace").splitlines())
        for number, line in patterns.bad:
            self.warnings.append(f"{_nfc(rel)}:{number}: pattern {line!r} cannot be read; ignored")
        return patterns if len(patterns) else None

    def matches(self, path: str, *, is_dir: bool, chain: _Chain) -> bool:
        """Return whether one entry is left out, given its folder's ``.gitignore`` chain.

        Args:
            path: vault-relative NFC path of the entry (its folders already known to be in).
            is_dir: whether it is a folder.
            chain: ``(folder prefix, patterns)`` of every ``.gitignore`` above it, root first.
        """
        name = path.rpartition("/")[2]
        if name.startswith(".") or (not is_dir and _is_temp_name(name)):
            return True
        return self.matches_patterns(path, is_dir=is_dir, chain=chain)

    def matches_patterns(self, path: str, *, is_dir: bool, chain: _Chain) -> bool:
        """:meth:`matches` without the name rules (the walk applies those inline)."""
        if is_dir:
            if path == self.store_dir:
                return True
            if self.prefixes and (path + "/").startswith(self.prefixes):
                return True
        elif (self.prefixes and path.startswith(self.prefixes)) or (
            self.regexes and any(rx.search(path) for rx in self.regexes)
        ):
            return True
        suffix = "/" if is_dir else ""
        if self.globs is not None and self.globs.check(path + suffix):
            return True
        for base, patterns in reversed(chain):
            include = patterns.check(path[len(base) :] + suffix if base else path + suffix)
            if include is not None:
                return include
        return False

    def is_ignored(self, path: str, *, is_dir: bool = False) -> bool:
        """Return whether any rule leaves out ``path`` or one of its folders (for a watcher).

        Args:
            path: vault-relative POSIX path in disk form (``.gitignore`` files are opened by it).
            is_dir: whether ``path`` names a folder.
        """
        parts = path.split("/")
        chain: _Chain = ()
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = self.gitignore(folder)
            if spec is not None:
                chain = (*chain, (f"{_nfc(folder)}/" if folder else "", spec))
            last = depth == len(parts) - 1
            here = _nfc("/".join(parts[: depth + 1]))
            if self.matches(here, is_dir=is_dir or not last, chain=chain):
                return True
        return False


def _obsidian_filters(
    vault: Path, warnings: list[str]
) -> tuple[tuple[str, ...], tuple[re.Pattern[str], ...]]:
    """Read ``userIgnoreFilters`` from ``.obsidian/app.json``: Obsidian's "Excluded files".

    Each filter is a path prefix (``"Archive/"``, matched with ``startswith`` on the vault
    path, case-sensitive, as Obsidian does) or a ``/regex/`` (searched anywhere in a file's
    path; JavaScript syntax, read by :mod:`re`, which agrees on the common subset). A missing
    file yields no filters; a broken file or filter yields a warning, never an error.
    """
    try:
        data = json.loads((vault / _OBSIDIAN_APP_JSON).read_bytes())
    except FileNotFoundError:
        return (), ()
    except (OSError, ValueError) as exc:
        warnings.append(f"{_OBSIDIAN_APP_JSON}: ignored, cannot read: {exc}")
        return (), ()
    filters = data.get("userIgnoreFilters", []) if isinstance(data, dict) else None
    if not isinstance(filters, list):
        warnings.append(f"{_OBSIDIAN_APP_JSON}: userIgnoreFilters is not a list, ignored")
        return (), ()
    prefixes: list[str] = []
    regexes: list[re.Pattern[str]] = []
    for item in filters:
        if not isinstance(item, str) or not item:
            warnings.append(f"{_OBSIDIAN_APP_JSON}: userIgnoreFilters entry {item!r} ignored")
        elif len(item) > 2 and item.startswith("/") and item.endswith("/"):
            try:
                regexes.append(re.compile(_nfc(item[1:-1])))
            except re.error as exc:
                warnings.append(f"{_OBSIDIAN_APP_JSON}: bad regex {item!r} ignored: {exc}")
        else:
            prefixes.append(_nfc(item))
    return tuple(prefixes), tuple(regexes)


def _brief_target_lines(config: Config) -> list[str]:
    """Gitignore lines leaving out the ``[[brief.targets]]`` files inside the vault: a
    briefing the watcher writes must never be synced as a page, which would start another
    batch and another briefing (issue 12, Build 6)."""
    lines = []
    for target in config.brief_targets:
        if target.path.startswith("~"):
            continue
        escaped = re.sub(r"([*?\[\]!#\\])", r"\\\1", target.path.strip("/"))
        lines.append("/" + escaped)
    return lines


def build_ignore_matcher(config: Config) -> IgnoreMatcher:
    """Build the full ignore matcher of a vault (rules in the module docstring).

    Args:
        config: the vault's configuration (``vault``, ``store_dir``, ``ignore``,
            ``ignore_tool_folders``).

    Returns:
        A matcher; problems with ``.obsidian/app.json`` are in its ``warnings``.

    Raises:
        ConfigError: an ``ignore`` entry or a ``[projects]`` glob that cannot be read or can
            match no path (:func:`gitignore_line_ok`), naming the file, the key and the
            pattern: checked here, where the patterns are compiled, not when the config is
            read (a query never loads pathspec).
    """
    warnings: list[str] = []
    prefixes, regexes = _obsidian_filters(config.vault, warnings)
    lines = (
        *(TOOL_FOLDERS if config.ignore_tool_folders else ()),
        *config.ignore,
        *_brief_target_lines(config),
    )
    globs = Patterns(lines) if lines else None
    bad = [("ignore", line) for _, line in (globs.bad if globs is not None else [])]
    bad += [("projects", glob) for glob in config.projects if not gitignore_line_ok(glob)]
    if bad:  # the [projects] globs are matched with the same rules (prepare._project_for)
        raise ConfigError(
            f"{config.vault / 'vault-sync.toml'}: {bad[0][0]}: pattern {bad[0][1]!r} is not"
            " valid gitignore syntax (it can match no path)"
        )
    store_dir = _nfc(PurePosixPath(config.store_dir.replace(os.sep, "/")).as_posix())
    return IgnoreMatcher(config.vault, store_dir, globs, prefixes, regexes, warnings)
