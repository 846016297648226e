"""The agent-write commands, each as the list of page edits it makes (issue 11; DESIGN §7).

Every function here takes the vault's configuration, the open sidecar (to find pages by
reference, as ``show`` does), the command's :class:`~vault_sync.edits.EditReport` (which
collects the labels of secrets scrubbed from the agent's input) and the command's arguments,
and returns the :class:`~vault_sync.edits.Edit` values to apply, one per page. Nothing is
written here: :meth:`vault_sync.app.Engine.write` runs the edits and syncs the pages.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vault_sync import agent_input, edits, remember, supersession
from vault_sync.agent_input import EvidenceInput
from vault_sync.config import Config
from vault_sync.confine import confined
from vault_sync.edits import Edit, EditReport
from vault_sync.errors import (
    AgentInputError,
    EditRefusedError,
    PageExistsError,
    PageNotFoundError,
    TranscriptError,
)
from vault_sync.page import REFERENCES, RELATION_TYPES, name_key
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.sanitize import Scrubber
from vault_sync.splice import splice_key
from vault_sync.store import Sidecar
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:  # the session modules (and the transcript readers) load only for imports
    from vault_sync.session_page import SessionPage
    from vault_sync.transcript import Transcript

_log = logging.getLogger(__name__)


def _scrubbed_evidence(entry: EvidenceInput, clean: Callable[[str], str]) -> EvidenceInput:
    return replace(
        entry, source=clean(entry.source), note=clean(entry.note) if entry.note else None
    )


def reinforce(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    page: str,
    evidence: str,
    at: str | None = None,
    note: str | None = None,
) -> list[Edit]:
    """Append one evidence entry to ``page`` (nothing when its kind and source are there)."""
    path, disk = edits.page_of(config, sidecar, page)
    given = agent_input.evidence(evidence, at=at, note=note)
    entry = edits.scrubbed_together(config, report, lambda clean: _scrubbed_evidence(given, clean))
    return [Edit(path, disk, edits.add_evidence(path, entry))]


def retract(
    config: Config, sidecar: Sidecar, report: EditReport, page: str, evidence: str
) -> list[Edit]:
    """Remove the evidence entries of one kind and source from ``page``; the source is
    scrubbed as :func:`reinforce` scrubs it, so the entry it wrote is the one matched."""
    path, disk = edits.page_of(config, sidecar, page)
    key = _scrubbed_evidence(
        agent_input.evidence(evidence), lambda text: edits.scrubbed(config, text, report)
    ).key
    return [Edit(path, disk, edits.remove_evidence(path, key))]


def archive(config: Config, sidecar: Sidecar, report: EditReport, page: str) -> list[Edit]:
    """Set ``status: archived`` on ``page``."""
    path, disk = edits.page_of(config, sidecar, page)
    return [Edit(path, disk, edits.set_key(path, "status", "archived"))]


def link(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    source: str,
    relation: str,
    target: str,
    remove: bool = False,
) -> list[Edit]:
    """Add (``remove``: take away) the relation ``source -relation-> target``; the target
    must name a page."""
    key = agent_input.relation_type(_no_secret(config, relation, "a relation type"))
    path, disk = edits.page_of(config, sidecar, source)
    if not remove:
        _warn_unknown_relation(sidecar, report, key)
    other, _ = edits.page_of(config, sidecar, target)
    if other == path and not remove:
        raise AgentInputError(f"{path} cannot be linked to itself")
    names = edits.name_keys(sidecar, other)
    if remove:
        return [Edit(path, disk, edits.remove_relation(path, key, names))]
    text = edits.link_text(sidecar, other)
    return [Edit(path, disk, edits.add_relation(path, key, text, names))]


def supersede(
    config: Config, sidecar: Sidecar, report: EditReport, old: str, new: str
) -> list[Edit]:
    """``old`` gets ``status: superseded`` and ``superseded_by: [[new]]``; ``new`` gets
    ``supersedes: [[old]]``."""
    old_path, old_disk = edits.page_of(config, sidecar, old)
    new_path, new_disk = edits.page_of(config, sidecar, new)
    if old_path == new_path:
        raise AgentInputError(f"{old_path} cannot supersede itself")
    _refuse_cycle(sidecar, old_path, new_path)
    loser = edits.then(
        edits.set_key(old_path, "status", "superseded"),
        edits.add_relation(
            old_path,
            "superseded_by",
            edits.link_text(sidecar, new_path),
            edits.name_keys(sidecar, new_path),
        ),
    )
    winner = edits.add_relation(
        new_path,
        "supersedes",
        edits.link_text(sidecar, old_path),
        edits.name_keys(sidecar, old_path),
    )
    return [Edit(old_path, old_disk, loser), Edit(new_path, new_disk, winner)]


def _refuse_cycle(sidecar: Sidecar, old: str, new: str) -> None:
    """Refuse "``old`` replaced by ``new``" when ``new`` is already (through a chain) replaced
    by ``old``: the pages would supersede one another in a circle (a contradictory edit).

    Raises:
        EditRefusedError: names the chain that the edit would close (exit 1).
    """
    rows = sidecar.typed_links([supersession.SUPERSEDED_BY, supersession.SUPERSEDES])
    graph = supersession.successors((r["source"], r["type"], r["target_path"]) for r in rows)
    chain = supersession.path_between(graph, new, old)
    if chain is not None:
        shown = " -> ".join(chain)
        raise EditRefusedError(
            f"{old} cannot be superseded by {new}: {new} is already superseded by {old}"
            f" ({shown}, each superseded by the next); not edited"
        )


def resolve(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    page: str,
    by: str = "supersede",
    keep: str | None = None,
) -> list[Edit]:
    """Settle a ``contradicts`` pair of ``page``: the kept side (``keep``, default ``page``)
    wins; the other is superseded by it (``by="supersede"``) or archived (``"archive"``);
    the ``contradicts`` values between the two are removed from both pages."""
    if by not in ("supersede", "archive"):
        raise AgentInputError(f"--by is supersede or archive (got {by!r})")
    path, _ = edits.page_of(config, sidecar, page)
    kept = edits.page_of(config, sidecar, keep)[0] if keep else None
    other = edits.contradiction_of(sidecar, path, kept)
    winner, loser = (other, path) if kept == other else (path, other)
    steps = []
    for a, b in ((winner, loser), (loser, winner)):
        disk = edits.page_of(config, sidecar, a)[1]
        names = edits.name_keys(sidecar, b)
        steps.append(Edit(a, disk, edits.remove_relation(a, "contradicts", names)))
    if by == "archive":
        disk = edits.page_of(config, sidecar, loser)[1]
        steps.append(Edit(loser, disk, edits.set_key(loser, "status", "archived")))
    else:
        steps.extend(supersede(config, sidecar, report, loser, winner))
    return _merged(steps)


def _merged(steps: list[Edit]) -> list[Edit]:
    """One edit per page (its changes in order), so each page is written once."""
    by_path: dict[str, list[Edit]] = {}
    for edit in steps:
        by_path.setdefault(edit.path, []).append(edit)
    return [
        Edit(group[0].path, group[0].disk_path, edits.then(*(e.change for e in group)))
        for group in by_path.values()
    ]


def _no_secret(config: Config, text: str, what: str) -> str:
    """``text``, refused when it holds a secret: names written as keys or link targets (a
    relation type, a forward reference) cannot carry a ``[REDACTED:…]`` label."""
    clean = Scrubber.from_config(config).scrub(text)[0]
    if clean != text:
        raise AgentInputError(f"{what} cannot hold a secret: {clean!r}")
    return text


def _warn_unknown_relation(sidecar: Sidecar, report: EditReport, key: str) -> None:
    """Warn (once per key) when ``key`` is no known relation type (DESIGN §2:
    :data:`~vault_sync.page.RELATION_TYPES` and ``references``) and no page of the vault uses
    it yet: custom types are allowed, so it is written, but ``blorfs`` is more likely a slip."""
    if key in (*RELATION_TYPES, REFERENCES) or sidecar.typed_links([key]):
        return
    line = (
        f"{key!r} is not a known relation type ({', '.join((*RELATION_TYPES, REFERENCES))});"
        " written as a custom type (no warning once a page of the vault uses it)"
    )
    if line not in report.warnings:
        report.warnings.append(line)


def _relation(config: Config, sidecar: Sidecar, text: str, report: EditReport) -> tuple[str, str]:
    """``(key, "[[target]]")`` of a ``TYPE=TARGET`` text: the target's own link when it names
    a page, else the name as given (a forward reference, DESIGN §2)."""
    kind, sep, target = _no_secret(config, text, "a relation").partition("=")
    if not sep:
        raise AgentInputError(f"a relation is TYPE=TARGET, e.g. fixes=[[Bug 12]], not {text!r}")
    _warn_unknown_relation(sidecar, report, agent_input.relation_type(kind))
    try:
        other, _ = edits.page_of(config, sidecar, target)
    except PageNotFoundError:
        name = agent_input.target(target)
        if not edits.linkable(name):
            raise AgentInputError(
                f"a relation target names no page and cannot be a link ([ ] # ^ |): {name!r}"
            ) from None
        return agent_input.relation_type(kind), f"[[{name}]]"
    return agent_input.relation_type(kind), edits.link_text(sidecar, other)


#: Bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9): invisible, they make a
#: title read differently from what it holds ("Trojan Source"), so titles drop them.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _one_line(text: str, what: str) -> str:
    """``text`` on one line (runs of white space made one space), bidi controls dropped.

    Raises:
        AgentInputError: nothing is left.
    """
    value = " ".join(_BIDI.sub("", text).split())
    if not value:
        raise AgentInputError(f"a {what} must not be empty")
    return value


def remember_page(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    title: str,
    kind: str,
    project: str | None = None,
    tags: Sequence[str] = (),
    aliases: Sequence[str] = (),
    relations: Sequence[str] = (),
    evidence: Sequence[str] = (),
    body: str = "",
    update: bool = False,
) -> list[Edit]:
    """A new page (:mod:`vault_sync.remember`), or with ``update`` the additions to the page
    the title already names; ``relations`` are ``TYPE=TARGET`` texts.

    Raises:
        PageExistsError: the title names an existing page and ``update`` is not set.
        AgentInputError: an argument in no accepted form.
        OutsideVaultError: the configured folder leaves the vault.
    """

    one_line = _one_line(title, "title")
    page_kind = agent_input.page_kind(kind)
    tag_names, alias_names = agent_input.names(tags, "tag"), agent_input.names(aliases, "alias")
    entries = [agent_input.evidence(e) for e in evidence]
    linked = [_relation(config, sidecar, r, report) for r in relations]

    def build(clean: edits.Cleaner) -> remember.NewPage:
        return remember.NewPage(
            title=clean(one_line),
            kind=page_kind,
            project=clean(project) if project else None,
            tags=[clean(t) for t in tag_names],
            aliases=[clean(a) for a in alias_names],
            relations=linked,
            evidence=[_scrubbed_evidence(e, clean) for e in entries],
            body=clean(body),
        )

    # every text of the page scrubbed together: a value found in one is hidden in all
    page = edits.scrubbed_together(config, report, build)
    table = sidecar.name_table()
    existing, stale = remember.existing_page(table, page.title), None
    if existing is not None and not (config.vault / edits.disk_path_of(sidecar, existing)).exists():
        existing, stale = None, existing  # deleted on disk since the last sync
    if existing is not None:
        if not update:
            raise PageExistsError(
                f"{page.title!r} names an existing page: {existing} (use --update to add to it)"
            )
        return [_update(config, sidecar, existing, page)]
    folder = remember.folder_for(config, page.kind, page.project)
    if folder:  # the folder itself first: its error names it, not a file in it
        confined(config.vault, folder, (config.store_dir,))
    taken = {p.casefold() for p in [*table.by_path, *table.att_by_path]}
    if stale is not None:  # its file is gone (the stores are behind): the name is free
        taken.discard(stale.casefold())
    stem = remember.file_name(page.title)
    path = remember.free_path(folder, stem, taken)
    while (config.vault / path).exists():  # on disk, not yet synced
        taken.add(path.casefold())
        path = remember.free_path(folder, stem, taken)
    confined(config.vault, path, (config.store_dir,))
    text = page.text(path)
    return [Edit(path, path, lambda _old: text, create=True)]


def _update(config: Config, sidecar: Sidecar, path: str, page: remember.NewPage) -> Edit:
    """The edit adding ``page``'s tags, aliases, relations, evidence and body to ``path``."""
    _, disk = edits.page_of(config, sidecar, path)
    steps = [
        edits.add_values(path, "tags", page.tags),
        edits.add_values(path, "aliases", page.aliases),
        *(
            edits.add_relation(path, key, text, {name_key(text.strip("[]"))})
            for key, text in page.relations
        ),
        *(edits.add_evidence(path, entry) for entry in page.evidence),
        edits.append_body(page.body),
    ]
    return Edit(path, disk, edits.then(*steps))


def import_session(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    files: Sequence[str],
    fmt: str = "auto",
    project: str | None = None,
) -> list[Edit]:
    """One session page per transcript file (:mod:`vault_sync.session_page`): a new page, or
    the page already citing ``session:ID`` (else at the session's path) updated — the keys
    an import owns spliced, the evidence added, the body replaced; a person's other keys are
    kept, and re-importing an unchanged transcript changes nothing. Every text of the
    transcript is scrubbed before it is used.

    Raises:
        TranscriptError: a file that cannot be read, or is in no known format (file:line), or
            whose project would be its working directory's name and that holds a secret.
        AgentInputError: an empty ``--project``, or one holding a secret (a project key
            never holds a ``[REDACTED:…]`` label).
    """

    from vault_sync import session_digest, session_page

    def plain(text: str) -> str:
        return _CONTROLS.sub("", _ANSI.sub("", text))  # terminal colours of tool output

    def clean(text: str) -> str:
        text = plain(text)
        return edits.scrubbed(config, text, report) if text else text

    chosen = (
        None if project is None else _no_secret(config, _one_line(project, "project"), "a project")
    )
    at: dict[str, int] = {}  # session id -> its edit: a session given twice is one page
    table = sidecar.name_table()
    out: list[Edit] = []
    for file in files:
        text, day = session_page.read_source(file)
        raw = session_digest.read_transcript(text, file, fmt)
        if raw.truncated:  # one line on stderr (the CLI's log handler), the page says so too
            _log.warning(
                "%s: the last line is cut off (a transcript still being written): imported"
                " the complete lines before it",
                scrub_typed(file, config),
            )
        if raw.id_from_file:  # no id of its own: one per file, never shared by name
            raw = replace(raw, session_id=session_page.file_session_id(file, raw.session_id))
        # every text of the transcript scrubbed together: a password found in a tool's
        # output is hidden in the command that printed it too (and so in `commands:`)
        transcript = edits.scrubbed_together(config, report, _mapped_through(raw, plain))
        if chosen is None and "[REDACTED:" in (session_page.cwd_project(transcript) or ""):
            raise TranscriptError(
                f"{file}: the project from the session's working directory holds a secret"
                f" ({session_page.cwd_project(transcript)!r}); give --project"
            )
        if transcript.session_id != raw.session_id:  # an id holding a secret: two such ids
            digest = hashlib.sha256(raw.session_id.encode("utf-8")).hexdigest()[:16]
            transcript = replace(transcript, session_id=f"redacted-{digest}")  # never collide
        paths = session_page.mentioned(transcript, table)

        def related(own: str, paths: list[str] = paths) -> list[str]:
            links = (_link_or_none(sidecar, p) for p in paths if p != own)
            return [text for text in links if text]

        page = session_page.build(
            config, transcript, project=chosen, fallback_date=day, related=related
        )
        page = replace(page, body=clean(page.body))
        others = {out[i].path for sid, i in at.items() if sid != transcript.session_id}
        edit = _session_edit(config, sidecar, page, others)
        if transcript.session_id in at:  # the later file wins (a grown copy)
            out[at[transcript.session_id]] = edit
            continue
        at[transcript.session_id] = len(out)
        out.append(edit)
    return out


#: Terminal escape sequences (CSI, OSC) and the C0 controls a page never holds (tab, line
#: feed and carriage return are kept): tool outputs in transcripts are full of colours.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _mapped_through(
    raw: Transcript, plain: Callable[[str], str]
) -> Callable[[edits.Cleaner], Transcript]:
    """What :func:`~vault_sync.edits.scrubbed_together` builds of a transcript: every text
    of it made plain (no terminal colours), then cleaned."""
    return lambda clean: raw.mapped(lambda text: clean(plain(text)) if text else text)


def _link_or_none(sidecar: Sidecar, path: str) -> str | None:
    """:func:`vault_sync.edits.link_text` of ``path``, or ``None`` for a page no wikilink can
    name (an import links such a page never, rather than writing a link that breaks)."""
    try:
        return edits.link_text(sidecar, path)
    except EditRefusedError:
        return None


def _session_edit(
    config: Config, sidecar: Sidecar, page: SessionPage, taken: Collection[str] = ()
) -> Edit:
    """Create ``page``, or update the session page that already holds its session (a rule or
    decision citing the session as evidence — an agent's ``reinforce`` during it — is not
    that page). A new session whose path is ``taken`` (by another session of this import)
    or holds another session's page goes to the first free ``STEM-2.md``, ``STEM-3.md``...:
    one session never replaces another's page.

    Raises:
        PageExistsError: the page found, or the file at the session page's path, is not a
            ``kind: session`` page on disk (left unchanged).
    """
    from vault_sync import session_page

    found = [
        path
        for path in sidecar.pages_with_evidence("session", page.evidence.split(":", 1)[1])
        if sidecar.page_row(path)["kind"] == "session"
    ]
    if found:
        path, disk = edits.page_of(config, sidecar, found[0])
    else:
        path = disk = _session_path(config, sidecar, page, taken)
        confined(config.vault, path, (config.store_dir,))
        if not (config.vault / path).exists():
            text = page.text()
            return Edit(path, path, lambda _old: text, create=True)
    kind = frontmatter_map((config.vault / disk).read_text(encoding="utf-8-sig")).mapping.get(
        "kind"
    )
    if kind != "session":  # a person's page that cites this session, or sits at its path
        raise PageExistsError(
            f"{path} is not a session page (kind {kind!r}) but holds this session's id or"
            " path; it is left unchanged"
        )
    entry = agent_input.evidence(page.evidence)
    steps = [
        *(
            edits.set_key(path, key, page.values.get(key))
            if not isinstance(page.values.get(key), list)
            else _set_list(path, key, page.values[key])
            for key in session_page.OWNED_KEYS
        ),
        edits.add_values(path, "tags", ["session"]),
        edits.add_evidence(path, entry),
        lambda text: session_page.with_body(text, page.body),
    ]
    return Edit(path, disk, edits.then(*steps))


def _session_path(
    config: Config, sidecar: Sidecar, page: SessionPage, taken: Collection[str]
) -> str:
    """The path of a session no page holds yet: ``page.path`` unless it is ``taken`` or a
    page there cites other sessions (``session:ID`` evidence), else the first such free
    ``STEM-N.md`` (N from 2)."""
    stem = page.path.removesuffix(".md")
    for n in itertools.count(1):
        path = page.path if n == 1 else f"{stem}-{n}.md"
        if path in taken:
            continue
        if not (config.vault / path).exists():
            return path
        sessions = {r["source"] for r in sidecar.evidence_of(path) if r["kind"] == "session"}
        if not sessions or page.evidence.split(":", 1)[1] in sessions:
            return path
    raise AssertionError("unreachable")  # pragma: no cover


def _set_list(path: str, key: str, values: list[str]) -> Callable[[str], str]:
    return lambda text: splice_key(text, key, values, path=path)
