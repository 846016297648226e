"""The agent-write commands, each as the list of page edits it makes (issue 11; DESIGN §7).

Every function here takes the vault's configuration, the open sidecar (to find pages by
reference, as ``show`` does), the command's :class:`~vault_sync.edits.EditReport` (which
collects the labels of secrets scrubbed from the agent's input) and the command's arguments,
and returns the :class:`~vault_sync.edits.Edit` values to apply, one per page. Nothing is
written here: :meth:`vault_sync.app.Engine.write` runs the edits and syncs the pages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vault_sync import agent_input, edits, page_refs, remember, supersession
from vault_sync.agent_input import EvidenceInput
from vault_sync.config import Config
from vault_sync.confine import confined
from vault_sync.edits import Edit, EditReport
from vault_sync.errors import (
    AgentInputError,
    EditRefusedError,
    PageExistsError,
    PageNotFoundError,
)
from vault_sync.page import REFERENCES, RELATION_TYPES, name_key
from vault_sync.store import Sidecar

if TYPE_CHECKING:  # the session modules (and the transcript readers) load only for imports
    pass

_log = logging.getLogger(__name__)


def _scrubbed_evidence(entry: EvidenceInput, clean: Callable[[str], str]) -> EvidenceInput:
    return replace(
        entry, source=clean(entry.source), note=clean(entry.note) if entry.note else None
    )


def _no_secret_names(what: str, given: Sequence[str], scrubbed: Sequence[str]) -> None:
    """Refuse names that scrubbing changed: a project, a tag, an alias, an evidence source
    are keys that filters, links and ``(kind, source)`` match, and a ``[REDACTED:…]`` label
    in one names nothing (``--kind`` and relation types are refused alike).

    Raises:
        AgentInputError: ``"{what} cannot hold a secret: '<the name scrubbed>'"``.
    """
    for name, clean in zip(given, scrubbed, strict=True):
        if clean != name:
            raise AgentInputError(f"{what} cannot hold a secret: {clean!r}")


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
    path, disk = page_refs.page_of(config, sidecar, page)
    given = agent_input.evidence(evidence, at=at, note=note)
    entry = edits.scrubbed_together(config, report, lambda clean: _scrubbed_evidence(given, clean))
    _no_secret_names("an evidence source", [given.source], [entry.source])
    return [Edit(path, disk, edits.add_evidence(path, entry))]


def retract(
    config: Config, sidecar: Sidecar, report: EditReport, page: str, evidence: str
) -> list[Edit]:
    """Remove the evidence entries of one kind and source from ``page``; the source is
    scrubbed as :func:`reinforce` scrubs it, so the entry it wrote is the one matched."""
    path, disk = page_refs.page_of(config, sidecar, page)
    key = _scrubbed_evidence(
        agent_input.evidence(evidence), lambda text: edits.scrubbed(config, text, report)
    ).key
    return [Edit(path, disk, edits.remove_evidence(path, key))]


def archive(config: Config, sidecar: Sidecar, report: EditReport, page: str) -> list[Edit]:
    """Set ``status: archived`` on ``page``."""
    path, disk = page_refs.page_of(config, sidecar, page)
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
    key = agent_input.relation_type(agent_input.no_secret(config, relation, "a relation type"))
    path, disk = page_refs.page_of(config, sidecar, source)
    if not remove:
        _warn_unknown_relation(sidecar, report, key)
    other, _ = page_refs.page_of(config, sidecar, target)
    if other == path and not remove:
        raise AgentInputError(f"{path} cannot be linked to itself")
    names = page_refs.name_keys(sidecar, other)
    if remove:
        return [Edit(path, disk, edits.remove_relation(path, key, names))]
    text = page_refs.link_text(sidecar, other)
    return [Edit(path, disk, edits.add_relation(path, key, text, names))]


def supersede(
    config: Config, sidecar: Sidecar, report: EditReport, old: str, new: str
) -> list[Edit]:
    """``old`` gets ``status: superseded`` and ``superseded_by: [[new]]``; ``new`` gets
    ``supersedes: [[old]]``."""
    old_path, old_disk = page_refs.page_of(config, sidecar, old)
    new_path, new_disk = page_refs.page_of(config, sidecar, new)
    if old_path == new_path:
        raise AgentInputError(f"{old_path} cannot supersede itself")
    _refuse_cycle(sidecar, old_path, new_path)
    loser = edits.then(
        edits.set_key(old_path, "status", "superseded"),
        edits.add_relation(
            old_path,
            "superseded_by",
            page_refs.link_text(sidecar, new_path),
            page_refs.name_keys(sidecar, new_path),
        ),
    )
    winner = edits.add_relation(
        new_path,
        "supersedes",
        page_refs.link_text(sidecar, old_path),
        page_refs.name_keys(sidecar, old_path),
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
    path, _ = page_refs.page_of(config, sidecar, page)
    kept = page_refs.page_of(config, sidecar, keep)[0] if keep else None
    other = page_refs.contradiction_of(sidecar, path, kept)
    winner, loser = (other, path) if kept == other else (path, other)
    _warn_if_older(sidecar, report, winner, loser)
    steps = []
    for a, b in ((winner, loser), (loser, winner)):
        disk = page_refs.page_of(config, sidecar, a)[1]
        names = page_refs.name_keys(sidecar, b)
        steps.append(Edit(a, disk, edits.remove_relation(a, "contradicts", names)))
    if by == "archive":
        disk = page_refs.page_of(config, sidecar, loser)[1]
        steps.append(Edit(loser, disk, edits.set_key(loser, "status", "archived")))
    else:
        steps.extend(supersede(config, sidecar, report, loser, winner))
    return _merged(steps)


def _warn_if_older(sidecar: Sidecar, report: EditReport, winner: str, loser: str) -> None:
    """A warning when the side kept is dated before the side it supersedes (as the briefing's
    "newer:" tells them apart): it is done as asked, but an agent resolving "the contradiction
    on page X" kept an old wiki rule over the canonical newer decision (a fresh user's
    report)."""
    from vault_sync.page_facts import read_facts

    facts = read_facts(sidecar, [winner, loser])
    won, lost = facts.get(winner), facts.get(loser)
    if won and lost and won.date and lost.date and won.date < lost.date:
        report.warnings.append(
            f"kept {winner} ({won.date}) over the newer {loser} ({lost.date});"
            f" to keep the newer side, resolve with --keep naming it"
        )


def _merged(steps: list[Edit]) -> list[Edit]:
    """One edit per page (its changes in order), so each page is written once."""
    by_path: dict[str, list[Edit]] = {}
    for edit in steps:
        by_path.setdefault(edit.path, []).append(edit)
    return [
        Edit(group[0].path, group[0].disk_path, edits.then(*(e.change for e in group)))
        for group in by_path.values()
    ]


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
    kind, sep, target = agent_input.no_secret(config, text, "a relation").partition("=")
    if not sep:
        raise AgentInputError(f"a relation is TYPE=TARGET, e.g. fixes=[[Bug 12]], not {text!r}")
    _warn_unknown_relation(sidecar, report, agent_input.relation_type(kind))
    try:
        other, _ = page_refs.page_of(config, sidecar, target)
    except PageNotFoundError:
        name = agent_input.target(target)
        if not page_refs.linkable(name):
            raise AgentInputError(
                f"a relation target names no page and cannot be a link ([ ] # ^ |): {name!r}"
            ) from None
        return agent_input.relation_type(kind), f"[[{name}]]"
    return agent_input.relation_type(kind), page_refs.link_text(sidecar, other)


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

    one_line = agent_input.one_line(title, "title")
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
    _no_secret_names("a project", [project or ""], [page.project or ""])
    _no_secret_names("a tag", tag_names, page.tags)
    _no_secret_names("an alias", alias_names, page.aliases)
    _no_secret_names(
        "an evidence source", [e.source for e in entries], [e.source for e in page.evidence]
    )
    table = sidecar.name_table()
    existing, stale = remember.existing_page(table, page.title), None
    if (
        existing is not None
        and not (config.vault / page_refs.disk_path_of(sidecar, existing)).exists()
    ):
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
    _, disk = page_refs.page_of(config, sidecar, path)
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
