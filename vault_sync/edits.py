"""Agent writes to existing pages: reinforce, retract, archive, link, unlink, supersede, resolve.

Issue 11; DESIGN §7, Invariants 5 and 6. Each command is one :class:`Edit` per page (a
function from the page's old text to its new text, built from :mod:`vault_sync.splice`), run
through :func:`vault_sync.pagefile.edit_page` (atomic, redone when the page changed under it)
by :func:`run_edits`, which then reports a unified diff per page. Every text an agent gives
is scrubbed before it reaches a file (:func:`scrubbed`); the diff shown is scrubbed again, as
its context lines are the page's own. Pages are found by reference as ``show`` finds them
(:func:`vault_sync.report.find_page`). The engine (:mod:`vault_sync.app`) applies the pages
written to both stores right after, so the next ``query`` sees them.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from vault_sync import agent_input
from vault_sync.agent_input import EvidenceInput
from vault_sync.config import Config
from vault_sync.confine import confined
from vault_sync.errors import EditRefusedError, PageExistsError, PageNotFoundError
from vault_sync.page import name_key, path_id, path_stem
from vault_sync.pagefile import create_page, edit_page
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.parser.keys import evidence_key
from vault_sync.report import find_page
from vault_sync.sanitize import Scrubber
from vault_sync.splice import DELETE, splice_key
from vault_sync.store import Sidecar

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


def page_of(config: Config, sidecar: Sidecar, reference: str) -> tuple[str, str]:
    """``(path, disk_path)`` of the page a reference names (as ``show``), confined.

    The reference is tried exactly as given first (a title or path may hold ``#``, ``|`` or
    brackets), then as a wikilink (``[[Page|shown]]``, ``Page#Heading``: the page part). A
    reference holding a ``[REDACTED:…]`` placeholder names no page: a secret was there, and
    pages are never named by one (lint counts such links as unresolved).

    Raises:
        PageNotFoundError, AmbiguousPageError: see :func:`vault_sync.report.find_page`.
        AgentInputError: nothing is left of a wikilink reference.
        OutsideVaultError: the stored page lies behind a symlink or in a reserved folder.
    """
    if "[redacted:" in reference.casefold():
        raise PageNotFoundError(
            f"{reference!r}: a [REDACTED:…] placeholder names no page (name it by its path)"
        )
    exact = unicodedata.normalize("NFC", reference)  # as written, then stripped: find_page
    try:
        path = find_page(sidecar, exact, config.vault)
    except PageNotFoundError:
        parsed = agent_input.target(reference)
        if parsed == exact.strip():
            raise
        path = find_page(sidecar, parsed, config.vault)
    disk_path = disk_path_of(sidecar, path)
    confined(config.vault, disk_path, (config.store_dir,))
    if not (config.vault / disk_path).is_file():
        raise PageNotFoundError(
            f"{path} is gone from the vault (moved or deleted since the last sync);"
            " run vault-sync sync (or keep vault-sync watch running) and try again"
        )
    return path, disk_path


def disk_path_of(sidecar: Sidecar, path: str) -> str:
    """The on-disk path of a stored page."""
    return str(sidecar.page_row(path)["disk_path"])


#: Characters a wikilink target cannot hold (Obsidian: they end the target or start an
#: anchor, a block reference or a display text).
LINK_BREAKING = frozenset("[]#^|")


def linkable(name: str) -> bool:
    """Whether ``[[name]]`` names ``name`` whole: none of :data:`LINK_BREAKING` (so no
    ``[REDACTED:…]`` placeholder either), no line break."""
    return bool(name.strip()) and not (LINK_BREAKING & set(name) or "\n" in name)


def link_text(sidecar: Sidecar, path: str) -> str:
    """The wikilink that names ``path``: ``[[stem]]`` when the stem names only it, else
    ``[[folder/stem]]`` (Obsidian's shortest form); when the file name holds a character a
    wikilink cannot carry (:data:`LINK_BREAKING`), ``[[title]]`` or ``[[alias]]`` if one
    without them names only this page.

    Raises:
        EditRefusedError: no such name: the page cannot be linked until it is renamed.
    """
    stem = path_stem(path)
    if linkable(path_id(path)):
        return f"[[{stem}]]" if _names_only(sidecar, stem, path) else f"[[{path_id(path)}]]"
    row = sidecar.page_row(path)
    for name in (str(row["title"]), *sidecar.aliases_of(path)):
        if linkable(name) and _names_only(sidecar, name, path):
            return f"[[{name}]]"
    raise EditRefusedError(
        f"{path}: its file name holds characters a wikilink cannot carry ([ ] # ^ |) and no"
        " title or alias without them names it; rename the file, then link again"
    )


def _names_only(sidecar: Sidecar, name: str, path: str) -> bool:
    """Whether the first tier of pages ``name`` names is ``path`` alone."""
    tiers = sidecar.paths_named(name_key(name))
    return next((paths for paths in tiers if paths), []) == [path]


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


def name_keys(sidecar: Sidecar, path: str) -> set[str]:
    """Every name key a link may use for ``path``: path, id, stem, title, aliases."""
    row = sidecar.page_row(path)
    names = {path, path_id(path), path_stem(path), str(row["title"]), str(row["id"])}
    names.update(sidecar.aliases_of(path))
    return {name_key(n) for n in names}


def then(*changes: Callable[[str], str]) -> Callable[[str], str]:
    """Several changes of one page, applied in order."""

    def change(text: str) -> str:
        for step in changes:
            text = step(text)
        return text

    return change


def contradiction_of(sidecar: Sidecar, path: str, keep: str | None) -> str:
    """The other side of the contradiction of ``path`` that ``resolve`` settles: ``keep``
    when it names another page (it must be one of the sides), else the only one.

    Raises:
        EditRefusedError: no contradiction, ``keep`` is not a side, or several sides and no
            ``keep`` naming one (exit 1: the arguments are well formed, the pages' state
            leaves nothing to settle as asked; docs/cli.md, exit codes).
    """
    sides = sorted(
        {r["target_path"] for r in sidecar.links_from(path) if r["type"] == "contradicts"}
        | {r["source"] for r in sidecar.links_into(path) if r["type"] == "contradicts"}
        - {None, path}
    )
    if keep is not None and keep != path:
        if keep not in sides:
            raise EditRefusedError(f"{keep} and {path} do not contradict each other")
        return keep
    if not sides:
        raise EditRefusedError(f"{path} has no contradicts link to settle")
    if len(sides) > 1:
        listed = ", ".join(sides)
        raise EditRefusedError(
            f"{path} contradicts {len(sides)} pages ({listed}): say which with --keep"
        )
    return str(sides[0])
