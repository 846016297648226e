"""``remember``: a new page from what an agent learned, never a second page for one name.

Issue 11, Build 2; DESIGN §2 (titles default to the file stem) and §7. The page goes in the
folder ``[write] folders`` maps its project or kind to (:func:`folder_for`), named by a file
name made from the title that is safe on Linux, macOS and Windows (:func:`file_name`), with a
``title:`` key whenever the stem differs from the title. A title that names an existing page
— its title, an alias or its file stem, compared after NFC, casefold and folding spaces,
hyphens and underscores (:func:`fold`) — is never a new page: ``--update`` adds to that page,
else the write fails naming it. Only a different title whose file name is taken gets a
numeric suffix (``Name 2.md``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from vault_sync.agent_input import EvidenceInput
from vault_sync.config import Config
from vault_sync.links import NameTable
from vault_sync.page import path_stem
from vault_sync.splice import render_item, render_scalar

#: Characters no file name may hold on Windows (and ``/`` anywhere), those a wikilink
#: target cannot hold (``[ ] # ^ |``: Obsidian forbids them in file names), line and
#: paragraph separators, and control characters (C0, DEL, C1): each becomes a space.
_UNSAFE = re.compile(r'[<>:"/\\|?*\[\]#^\x00-\x1f\x7f-\x9f\u2028\u2029]')
#: Names Windows reserves whatever the extension (``CON.md`` cannot be created there).
_RESERVED = re.compile(r"(?i)(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³])")
#: Longest file stem written, in UTF-8 bytes (255 is the common limit of a name; room is left
#: for a numeric suffix and ``.md``).
STEM_MAX_BYTES = 200
_FOLDABLE = re.compile(r"[\s_-]+")


def fold(name: str) -> str:
    """The key two names are the same page by: NFC, casefold, spaces / hyphens /
    underscores removed (``"Site Roadmap"`` and ``site-roadmap`` fold alike)."""
    return _FOLDABLE.sub("", unicodedata.normalize("NFC", name).casefold())


def file_name(title: str) -> str:
    """A file stem for ``title``: NFC; invisible format characters (Unicode ``Cf``: bidi
    overrides such as U+202E, zero-width marks, a BOM) dropped; characters unsafe on
    Windows, macOS or Linux or in a wikilink (:data:`_UNSAFE`) become spaces; runs of spaces
    collapse; no leading or trailing dot or space; a reserved
    Windows name gets a ``_``; cut at :data:`STEM_MAX_BYTES`; never empty (``untitled``)."""
    title = "".join(c for c in title if unicodedata.category(c) != "Cf")
    stem = _UNSAFE.sub(" ", unicodedata.normalize("NFC", title))
    stem = " ".join(stem.split()).strip(". ")
    while len(stem.encode("utf-8")) > STEM_MAX_BYTES:
        stem = stem[:-1].rstrip(". ")
    if not stem:
        stem = "untitled"
    if _RESERVED.fullmatch(stem.split(".")[0]):
        stem += "_"
    return stem


def folder_for(config: Config, kind: str, project: str | None) -> str:
    """The folder a new page goes in: ``[write] folders`` for ``project:NAME``, else for the
    kind, else the kind's plural (``decision`` -> ``decisions``; ``-s``/``-x`` -> ``-es``)."""
    folders = config.write_folders  # a leading "/" is kept: confine() refuses it (absolute)
    if project is not None and f"project:{project}" in folders:
        return folders[f"project:{project}"].rstrip("/")
    if kind in folders:
        return folders[kind].rstrip("/")
    return kind + ("es" if kind.endswith(("s", "x")) else "s")


def existing_page(table: NameTable, title: str) -> str | None:
    """The page ``title`` names already (by title, alias or file stem, folded), if any; of
    several, the first by path."""
    wanted = fold(title)
    found = sorted(
        path
        for names in (table.by_title, table.by_alias, table.by_stem)
        for key, paths in names.items()
        if fold(key) == wanted
        for path in paths
    )
    return found[0] if found else None


def free_path(folder: str, stem: str, taken: set[str]) -> str:
    """``folder/stem.md``, or with `` 2``, `` 3``... when that path (casefolded) is taken."""
    prefix = f"{folder}/" if folder else ""
    number = 1
    while True:
        name = stem if number == 1 else f"{stem} {number}"
        path = f"{prefix}{name}.md"
        if path.casefold() not in taken:
            return path
        number += 1


@dataclass(frozen=True)
class NewPage:
    """What ``remember`` writes: the frontmatter values (already scrubbed) and the body."""

    title: str
    kind: str
    project: str | None = None
    tags: Sequence[str] = ()
    aliases: Sequence[str] = ()
    relations: Sequence[tuple[str, str]] = ()  # (relation key, "[[target]]")
    evidence: Sequence[EvidenceInput] = ()
    body: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def text(self, path: str) -> str:
        """The page's Markdown: a frontmatter block, then the body (ending in a newline)."""
        lines = ["---"]
        if path_stem(path) != self.title:
            lines.append(f"title: {render_scalar(self.title)}")
        lines.append(f"kind: {render_scalar(self.kind)}")
        if self.project:
            lines.append(f"project: {render_scalar(self.project)}")
        for key, values in (("tags", self.tags), ("aliases", self.aliases)):
            if values:
                items = ", ".join(render_scalar(v, flow=True) for v in values)
                lines.append(f"{key}: [{items}]")
        grouped: dict[str, list[str]] = {}
        for key, link in self.relations:
            grouped.setdefault(key, []).append(link)
        for key, links in grouped.items():
            if len(links) == 1:
                lines.append(f"{key}: {render_scalar(links[0])}")
            else:
                lines.extend([f"{key}:", *(f"  - {render_scalar(v)}" for v in links)])
        if self.evidence:
            lines.append("evidence:")
            for entry in self.evidence:
                lines.append(f"  - {render_item(entry.frontmatter_value())}")
        lines.append("---")
        body = self.body.strip("\n")
        return "\n".join(lines) + "\n" + (f"{body}\n" if body else "")
