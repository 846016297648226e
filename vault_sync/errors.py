"""Errors raised by vault-sync.

Every error a user can cause derives from :class:`VaultSyncError`, whose message is fit to print
as one line (``Error: <message>``). The CLI catches it once and exits with ``exit_code``
(DESIGN §3: 1 for an error, 2 for a usage, config or query-syntax error). Anything else that
escapes is a bug and shows its traceback.

::

    VaultSyncError                 exit 1
    ├── NotAVaultError             exit 2  no vault found / path is not a folder
    ├── ConfigError                exit 2  vault-sync.toml is invalid
    ├── QuerySyntaxError           exit 2  a query the parser cannot read
    ├── PageNotFoundError          exit 1  `show` reference matched nothing
    ├── AmbiguousPageError         exit 1  `show` reference matched several pages
    ├── LockTimeoutError           exit 1  another writer held the lock too long
    ├── VaultGoneError             exit 1  the vault folder was moved or deleted under a writer
    ├── WatcherRunningError        exit 1  another watcher already runs for this vault
    ├── VaultUnreadableError       exit 1  the vault root cannot be listed: nothing is proven absent
    ├── PageChangedError           exit 1  a page changed after it was read: not written
    │   └── EditConflictError      exit 1  a page kept changing under an edit: not written
    ├── EditRefusedError           exit 1  an edit would change more than asked, or the page
    │                                      cannot be edited safely (bad frontmatter, encoding)
    ├── OutsideVaultError          exit 2  a write would leave the vault (or enter its stores)
    ├── AgentInputError            exit 2  a write command's argument is not in a form it takes
    ├── PageExistsError            exit 1  `remember`: the title names an existing page
    ├── UnreadablePagesError       exit 1  a rebuild would lose pages it cannot read now
    ├── EvalDataError              exit 2  a benchmark or query file for `eval` cannot be read
    ├── TranscriptError            exit 2  `import-session`: a transcript cannot be read (file:line)
    ├── BriefTargetsError          exit 1  some `[[brief.targets]]` were refused; the others written
    └── StoreError                 exit 1  a store cannot be opened or is from a newer version
        ├── StoreDamagedError      exit 1  the stores disagree or hold rows they cannot have
        ├── IndexCorruptError      exit 1  an index file is damaged, truncated or missing
        ├── IndexSchemaMismatch    exit 1  the index was written with another schema: rebuild it
        └── IndexBusyError         exit 1  another tantivy writer holds the index lock

Every exception class of the package is defined here (``tests/test_architecture.py`` pins it),
except private control-flow signals that never leave their module (the parser's
``_TooComplex``, ``_Unusual`` and ``_Refused``; sync's ``_StalePlan``).
"""

from __future__ import annotations

from typing import Any


class VaultSyncError(Exception):
    """Root of every user-facing error; ``str(err)`` is a one-line message."""

    exit_code = 1


class NotAVaultError(VaultSyncError):
    """The chosen folder does not exist, is not a folder, or holds nothing vault-like."""

    exit_code = 2


class ConfigError(VaultSyncError):
    """``vault-sync.toml`` cannot be read or has a key of the wrong type."""

    exit_code = 2


class QuerySyntaxError(VaultSyncError):
    """The query text cannot be parsed (for example an unclosed quote)."""

    exit_code = 2


class PageNotFoundError(VaultSyncError):
    """A page reference (id, path, title or alias) matched no page."""


class AmbiguousPageError(VaultSyncError):
    """A page reference matched several pages; the message lists the candidates."""


class LockTimeoutError(VaultSyncError):
    """The writer lock stayed busy longer than ``lock_timeout_s``; names the holder."""


class VaultGoneError(VaultSyncError):
    """The vault folder no longer exists at its path (moved, renamed or deleted): a writer
    stops rather than recreate it with an empty store."""


class UnreadablePagesError(VaultSyncError):
    """A rebuild could not read pages the current stores hold (an unreadable folder or file):
    it keeps the current stores, which still hold their last good rows, and names them."""


class StoreError(VaultSyncError):
    """A derived store cannot be used (from a newer schema version, unwritable, ...)."""


class StoreDamagedError(StoreError):
    """A read met stores that contradict themselves (a row another row needs is missing):
    damage the writers' checks did not see; the set is flagged for a rebuild."""


class WatcherRunningError(VaultSyncError):
    """Another watcher already runs for this vault."""


class VaultUnreadableError(VaultSyncError):
    """The vault root cannot be listed, so a scan can prove nothing absent (DESIGN §4, R4)."""


class PageChangedError(VaultSyncError):
    """A page changed on disk between being read and being written: the write is refused."""


class EditConflictError(PageChangedError):
    """A page changed on disk again and again while an edit was applied to it (bounded
    retries): nothing was written; the message names the file."""


class EditRefusedError(VaultSyncError):
    """An edit of a page was refused before anything was written: its frontmatter does not
    parse, it is not UTF-8, or the spliced result would not parse back to the old mapping plus
    exactly the change. The message names the file (and line, when known)."""


class BriefTargetsError(VaultSyncError):
    """Some ``[[brief.targets]]`` could not be written (or checked); every other target was.

    Attributes:
        done: what writing each of the others did (``brief_targets.Written``), in the
            config's order, so the caller can say what changed as well as what failed.
        failed: one one-line reason per refused target (naming its file), in that order.
    """

    def __init__(self, done: list[Any], failed: list[str]) -> None:
        super().__init__("; ".join(failed))
        self.done, self.failed = done, failed


class OutsideVaultError(VaultSyncError):
    """A write would leave the vault (``..``, an absolute path, a symlink out) or write into
    its stores or ``.git``: refused; the message names the path."""

    exit_code = 2


class AgentInputError(VaultSyncError):
    """An argument of a write command (tag, evidence, date, relation type...) is in no form
    it accepts; the message says what was expected."""

    exit_code = 2


class PageExistsError(VaultSyncError):
    """``remember`` was given a title that names an existing page (by title, alias or file
    stem, folded) without ``--update``; the message names the page."""


class IndexCorruptError(StoreError):
    """The index cannot be opened or read: a damaged, truncated or missing file."""


class IndexSchemaMismatch(StoreError):
    """The index on disk was written with another schema or other analyzers: rebuild it."""


class IndexBusyError(StoreError):
    """Another tantivy writer holds the index lock (the vault's writer lock was bypassed)."""


class EvalDataError(VaultSyncError):
    """A benchmark file or query file given to ``eval`` cannot be read; names file and line."""

    exit_code = 2


class TranscriptError(VaultSyncError):
    """A transcript given to ``import-session`` cannot be read: missing, in no known format,
    or a line that is not what its format writes; names file and line."""

    exit_code = 2
