"""Agent writes to existing pages: reinforce, retract, archive, link, unlink, supersede, resolve.

Issue 11; DESIGN §7, Invariants 5 and 6. Each command is one :class:`Edit` per page (a
function from the page's old text to its new text, built from :mod:`vault_sync.splice`), run
through :func:`vault_sync.pagefile.edit_page` (atomic, redone when the page changed under it)
by :func:`run_edits`, which then reports a unified diff per page. Every text an agent gives
is scrubbed before it reaches a file (:func:`scrubbed`); the diff shown is scrubbed again, as
its context lines are the page's own. Pages are found by reference as ``show`` finds them
(:mod:`vault_sync.page_refs`). The engine (:mod:`vault_sync.app`) applies the pages
written to both stores right after, so the next ``query`` sees them.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from vault_sync.agent_input import EvidenceInput
from vault_sync.config import Config
from vault_sync.errors import EditRefusedError, PageExistsError, PageNotFoundError
from vault_sync.page import name_key
from vault_sync.pagefile import create_page, edit_page
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.parser.keys import evidence_key
from vault_sync.sanitize import Scrubber
from vault_sync.splice import DELETE, splice_key

T = TypeVar("T")
#: A function that scrubs one text of an agent's input.
Cleaner = Callable[[str], str]


@dataclass(frozen=True)
class Edit:
    """One page to change: its vault path, on-disk path, and the text change; ``create``:
    a new page, whose text is ``change("")`` (written only if no file has that name)."""

    path: str
    disk_path: str
    change: Callable[[str], str]
    create: bool = False


@dataclass
class EditReport:
    """What a write command did (or, with ``dry_run``, would do).

    Attributes:
        command: the command's name (``reinforce``...).
        pages: per page written: ``{"path", "changed", "diff"}`` (diff: unified, scrubbed).
        redacted: labels of the secrets removed from the agent's input, each once, in the
            order first found (:meth:`note`; a count per label would say how many copies a
            value had, which is no business of the output).
        dry_run: nothing was written.
        notice: why the stores were synced or rebuilt first (a line for stderr), or ``None``.
        warnings: one line each, for what was written as asked but may be a slip (a
            relation type that is not a known one).
    """

    command: str
    pages: list[dict[str, Any]] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    dry_run: bool = False
    notice: str | None = None
    warnings: list[str] = field(default_factory=list)

    def note(self, labels: Iterable[str]) -> None:
        """Add the ``labels`` of secrets redacted from the input, each label once."""
        for label in labels:
            if label not in self.redacted:
                self.redacted.append(label)

    @property
    def changed_paths(self) -> list[str]:
        """Vault paths of the pages that changed."""
        return [p["path"] for p in self.pages if p["changed"]]

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` shape (docs/writing.md)."""
        return {
            "command": self.command,
            "dry_run": self.dry_run,
            "pages": self.pages,
            "redacted": self.redacted,
            "warnings": self.warnings,
        }


def scrubbed(config: Config, text: str, report: EditReport) -> str:
    """``text`` with its secrets redacted, each wherever it repeats (their labels noted in
    ``report``)."""
    return scrubbed_together(config, report, lambda clean: clean(text))


def scrubbed_together(config: Config, report: EditReport, build: Callable[[Cleaner], T]) -> T:
    """``build(clean)`` with every text it passes to ``clean`` scrubbed together
    (:meth:`~vault_sync.sanitize.Scrubber.scrub_together`): a secret found in any of one
    command's texts (a body's ``password: …``, a transcript's tool output) is redacted
    wherever its value occurs in all of them (the title, a ``commands:`` entry). ``build``
    runs twice: once to collect the texts, once with them scrubbed; it must be pure.
    The labels found are noted in ``report``."""
    seen: list[str] = []

    def collect(text: str) -> str:
        seen.append(text)
        return text

    build(collect)
    results = Scrubber.from_config(config).scrub_together(seen)
    scrubbed_of = {text: clean for text, (clean, _) in zip(seen, results, strict=True)}
    report.note(f.label for _, findings in results for f in findings)
    return build(lambda text: scrubbed_of[text])


def run_edits(command: str, edits: Sequence[Edit], config: Config, report: EditReport) -> None:
    """Apply each edit (atomic, conflict-safe) and add its diff to ``report``."""
    for edit in edits:
        if edit.create:
            old, new = "", edit.change("")
            if not report.dry_run:
                try:
                    create_page(config.vault, edit.disk_path, new)
                except FileExistsError:  # made by a person or another tool meanwhile
                    raise PageExistsError(
                        f"{edit.path}: a file of that name appeared while the page was"
                        " written; not written (run the command again)"
                    ) from None
        else:
            try:
                old, new = edit_page(
                    config.vault, edit.disk_path, edit.change, dry_run=report.dry_run
                )
            except FileNotFoundError:
                raise PageNotFoundError(f"{edit.path} is gone from the vault") from None
            except OSError as exc:
                raise EditRefusedError(f"{edit.path}: cannot edit: {exc.strerror}") from None
        diff = "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{edit.path}",
                f"b/{edit.path}",
            )
        )
        report.pages.append(
            {
                "path": edit.path,
                "changed": old != new,
                "diff": _shown(config, edit.path, old, new, diff),
            }
        )


def _shown(config: Config, path: str, old: str, new: str, diff: str) -> str:
    """The diff as printed: scrubbed, and every secret value found anywhere on the page (its
    text and its parsed frontmatter) hidden too — the diff shows a few lines of the page,
    maybe not the line that names a secret (``TOKEN=…``) but another holding the same value
    (issue 17, kind 4)."""
    from vault_sync.clean import found_values
    from vault_sync.parser import parse_page

    scrubber = Scrubber.from_config(config)
    shown = scrubber.scrub(diff)[0]
    for text in (old, new):
        page = parse_page(text, path, title_from=config.title_from)
        for found in found_values(page, text, scrubber):
            shown = found.hide(shown)
    return shown


def _items(value: Any) -> list[Any]:
    """A key's value as a list (absent: empty; a scalar: one item)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def add_evidence(path: str, entry: EvidenceInput) -> Callable[[str], str]:
    """The change that appends ``entry`` to ``evidence`` unless its (kind, source) is there."""

    def change(text: str) -> str:
        old = _items(frontmatter_map(text).mapping.get("evidence"))
        if any(evidence_key(item) == entry.key for item in old):
            return text
        return splice_key(text, "evidence", [*old, entry.frontmatter_value()], path=path)

    return change


def remove_evidence(path: str, key: tuple[str, str]) -> Callable[[str], str]:
    """The change that removes every ``evidence`` item identified by ``key``."""

    def change(text: str) -> str:
        old = _items(frontmatter_map(text).mapping.get("evidence"))
        kept = [item for item in old if evidence_key(item) != key]
        if len(kept) == len(old):
            return text
        return splice_key(text, "evidence", kept if kept else DELETE, path=path)

    return change


def set_key(path: str, key: str, value: str | None) -> Callable[[str], str]:
    """The change that sets (``None``: removes) one scalar key."""

    def change(text: str) -> str:
        return splice_key(text, key, DELETE if value is None else value, path=path)

    return change


def _names_target(item: Any, names: set[str]) -> bool:
    if not isinstance(item, str):
        return False
    inner = item.strip()
    if inner.startswith("[[") and inner.endswith("]]"):
        inner = inner[2:-2]
    inner = inner.split("|", 1)[0].split("#", 1)[0].strip()
    return name_key(inner) in names or name_key(inner.removesuffix(".md")) in names


def add_relation(path: str, key: str, link: str, names: set[str]) -> Callable[[str], str]:
    """The change that adds ``link`` under relation ``key`` in the form the page uses: a
    string when the key is new, a list once it holds two; nothing when a value already names
    the target (any of its ``names``: name keys of its path, id, stem, title, aliases)."""

    def change(text: str) -> str:
        value = frontmatter_map(text).mapping.get(key)
        old = _items(value)
        if any(_names_target(item, names) for item in old):
            return text
        new: Any = link if not old and not isinstance(value, list) else [*old, link]
        return splice_key(text, key, new, path=path)

    return change


def remove_relation(path: str, key: str, names: set[str]) -> Callable[[str], str]:
    """The change that removes every value of relation ``key`` naming the target."""

    def change(text: str) -> str:
        value = frontmatter_map(text).mapping.get(key)
        old = _items(value)
        kept = [item for item in old if not _names_target(item, names)]
        if len(kept) == len(old):
            return text
        new: Any = kept if isinstance(value, list) and kept else kept[0] if kept else DELETE
        return splice_key(text, key, new, path=path)

    return change


def add_values(path: str, key: str, values: Sequence[str]) -> Callable[[str], str]:
    """The change that adds ``values`` to list key ``key`` (tags, aliases), each once
    (compared by name key); a scalar value becomes a list."""

    def change(text: str) -> str:
        old = _items(frontmatter_map(text).mapping.get(key))
        have = {name_key(str(v)) for v in old}
        new = [v for v in values if name_key(v) not in have]
        return splice_key(text, key, [*old, *new], path=path) if new else text

    return change


def append_body(body: str) -> Callable[[str], str]:
    """The change that appends ``body`` as a new paragraph at the end of the page."""

    def change(text: str) -> str:
        if not body.strip():
            return text
        newline = "\r\n" if "\r\n" in text else "\n"
        lines = body.strip("\n").replace("\r\n", "\n").split("\n")
        end = "" if not text or text.endswith(("\n", "\r")) else newline
        return text + end + newline + newline.join(lines) + newline

    return change


def then(*changes: Callable[[str], str]) -> Callable[[str], str]:
    """Several changes of one page, applied in order."""

    def change(text: str) -> str:
        for step in changes:
            text = step(text)
        return text

    return change
