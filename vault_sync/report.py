"""Read-side reports over the stores: ``show`` and ``status`` (DESIGN §3); ``lint`` is
:mod:`vault_sync.lint`.

Each function takes an open read-only :class:`~vault_sync.store.Sidecar` and returns plain
JSON-ready dicts; ``format_*`` turn them into lines for people. Nothing here writes.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_sync.config import Config
from vault_sync.errors import AmbiguousPageError, PageNotFoundError, StoreDamagedError
from vault_sync.layout import WATCH_STATE_NAME, process_alive
from vault_sync.page import name_key
from vault_sync.pagefile import read_page
from vault_sync.sanitize import Scrubber
from vault_sync.scan_result import FileEntry, stat_proves_unchanged
from vault_sync.store import FileState, Sidecar

if TYPE_CHECKING:
    pass


def find_page(sidecar: Sidecar, reference: str, vault: Path | None = None) -> str:
    """Find the one page a reference names: id or path, file name, title, alias.

    Exact after NFC + casefold; tiers are tried in that order (a path may be given with or
    without ``.md``, with a leading ``./``, or absolute inside ``vault``) and the first tier
    with a match decides. The reference is tried as written first — a file name may end in a
    space (``x .md`` is ``show "x "``) — then, when nothing matches, without the white space
    around it (``show " Retry policy"``).

    Returns:
        The page's vault-relative path.

    Raises:
        PageNotFoundError: nothing matches.
        AmbiguousPageError: several pages match in the deciding tier (the message lists them).
    """
    for text in dict.fromkeys((reference, reference.strip())):
        if vault is not None and text.strip() and Path(text).is_absolute():
            with contextlib.suppress(ValueError):
                text = Path(text).resolve().relative_to(vault.resolve()).as_posix()
        while text.startswith("./"):
            text = text[2:]
        for paths in sidecar.paths_named(name_key(text)):
            if len(paths) == 1:
                return paths[0]
            if paths:
                listed = ", ".join(paths)
                raise AmbiguousPageError(f"{reference!r} matches {len(paths)} pages: {listed}")
    raise PageNotFoundError(
        f"no page matches {reference!r} (by id, path, file name, title or alias)"
    )


def page_details(sidecar: Sidecar, reference: str, vault: Path | None = None) -> dict[str, Any]:
    """Everything stored about one page, as a JSON-ready dict.

    Keys: path, id, title, kind, status, project, tags, aliases, valid_from, valid_to,
    frontmatter, hash, generation, links_out, links_in, evidence, issues.

    Raises:
        PageNotFoundError, AmbiguousPageError: see :func:`find_page`.
        StoreDamagedError: the page's rows are there but its pages row is not.
    """
    path = find_page(sidecar, reference, vault)
    try:
        row = sidecar.page_row(path)
    except IndexError:  # found by its alias, tag or link rows: its pages row is gone
        raise StoreDamagedError(f"sidecar has rows of {path} but no pages row") from None
    links_out = [
        {
            "type": r["type"],
            "target": r["target_text"],
            "anchor": r["anchor"],
            "display": r["display"],
            "line": r["line"],
            "status": r["status"],
            "target_path": r["target_path"],
        }
        for r in sidecar.links_from(path)
    ]
    links_in = [
        {"source": r["source"], "type": r["type"], "anchor": r["anchor"], "line": r["line"]}
        for r in sidecar.links_into(path)
    ]
    evidence = [
        {k: r[k] for k in ("kind", "source", "at", "note", "line")}
        for r in sidecar.evidence_of(path)
    ]
    issues = [
        {k: r[k] for k in ("severity", "code", "message", "line", "key")}
        for r in sidecar.issues_of(path)
    ]
    return {
        "path": path,
        "id": row["id"],
        "title": row["title"],
        "kind": row["kind"],
        "status": row["status"],
        "project": row["project"],
        "tags": sidecar.tags_of(path),
        "aliases": sidecar.aliases_of(path),
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "frontmatter": json.loads(row["frontmatter"]),
        "hash": row["hash"],
        "generation": row["generation"],
        "links_out": links_out,
        "links_in": links_in,
        "evidence": evidence,
        "issues": issues,
    }


def format_page_details(d: dict[str, Any]) -> list[str]:
    """Lines for people from :func:`page_details`."""
    lines = [
        f"{d['title']}  [{d['path']}]",
        f"  id: {d['id']}   kind: {d['kind']}"
        f"   status: {d['status']}   project: {d['project'] or '-'}",
    ]
    if d["tags"]:
        lines.append(f"  tags: {', '.join(d['tags'])}")
    if d["aliases"]:
        lines.append(f"  aliases: {', '.join(d['aliases'])}")
    if d["valid_from"] or d["valid_to"]:
        lines.append(f"  valid: {d['valid_from'] or '…'} to {d['valid_to'] or '…'}")
    if d["frontmatter"]:
        lines.append("frontmatter:")
        lines += [
            f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in d["frontmatter"].items()
        ]
    lines.append(f"links out ({len(d['links_out'])}):")
    for link in d["links_out"]:
        where = link["target_path"] or link["status"]
        lines.append(
            f"  {link['line']:>4}  {link['type']:<12} [[{link['target']}{link['anchor']}]]"
            f" -> {where}"
        )
    lines.append(f"links in ({len(d['links_in'])}):")
    lines += [f"  {x['type']:<12} from {x['source']}:{x['line']}" for x in d["links_in"]]
    lines.append(f"evidence ({len(d['evidence'])}):")
    for e in d["evidence"]:
        extra = "".join(f" {k}={e[k]}" for k in ("at", "note") if e[k])
        lines.append(f"  {e['kind']}:{e['source']}{extra}")
    if d["issues"]:
        lines.append("issues:")
        lines += [
            f"  line {i['line'] or '-'}: {i['severity']} {i['code']}: {i['message']}"
            for i in d["issues"]
        ]
    return lines


def _drifted(config: Config, state: FileState, entry: FileEntry) -> bool:
    """Whether the page ``entry`` differs from its stored ``state``: a new stat or name, or,
    when an equal stat proves nothing (a file time clamped at an end of the range), new
    bytes, hashed as sync's plan hashes them."""
    if (state.mtime_ns, state.size, state.disk_path) != (
        entry.mtime_ns,
        entry.size,
        entry.disk_path,
    ):
        return True
    if stat_proves_unchanged(entry, state.mtime_ns, state.size):
        return False
    try:
        return read_page(config.vault, entry)[1] != state.hash
    except OSError:
        return True


def vault_status(config: Config, sidecar: Sidecar) -> dict[str, Any]:
    """Counts, generation, last sync, drift and watcher state, as a JSON-ready dict.

    Drift compares a fresh scan's (mtime, size) with the stored pages: pages new, changed
    or gone on disk since the last sync (no file is read but a page whose file time was
    clamped, which is hashed as sync hashes it), ``unreadable``: stored pages
    under a folder (or a file) that cannot be read now, which sync keeps, never "deleted",
    and ``unreadable_new``: page files never stored that cannot be read (sync cannot add
    them; ``lint`` names each).
    Files whose names hold a secret are never stored, so they are not "new" either.
    """
    from vault_sync.typed_text import scrub_data
    from vault_sync.vault import scan

    result = scan(config)
    stored = sidecar.file_states()
    unseen = [p for p in result.pages if p not in stored]
    secret_names = Scrubber.from_config(config).scrub_names(unseen) if unseen else {}
    changed = sum(
        1
        for path, entry in result.pages.items()
        if path in stored and _drifted(config, stored[path], entry)
    )
    watch_state = None
    watch_file = config.store_path / WATCH_STATE_NAME
    if watch_file.is_file():
        try:
            watch_state = json.loads(watch_file.read_text(encoding="utf-8"))
            watch_state["alive"] = bool(watch_state.get("running")) and process_alive(
                watch_state["pid"]
            )
        except (OSError, ValueError, KeyError, TypeError):
            watch_state = {"error": f"unreadable {watch_file}"}
    counts = sidecar.status_counts()
    links = counts["links_by_status"]
    return {
        # a folder name can hold a token (fresh-user report): printed as errors print it
        "vault": Scrubber.from_config(config).scrub(str(config.vault))[0],
        "pages": sidecar.page_count(),
        "pages_by_kind": counts["pages_by_kind"],
        "links_by_type": counts["links_by_type"],
        "links_resolved": links.get("resolved", 0),
        "links_unresolved": links.get("unresolved", 0),
        "links_ambiguous": counts["links_ambiguous"],
        "attachments_linked": links.get("attachment", 0),
        "attachments_missing": links.get("missing_attachment", 0),
        "evidence_rows": counts["evidence_rows"],
        "parse_errors": counts["parse_errors"],
        "secrets": counts["secrets"],
        "generation": sidecar.generation,
        "pending_generation": sidecar.get_meta("pending_generation") or None,
        "last_sync": sidecar.get_meta("last_sync") or None,
        "drift": {
            "new": sum(1 for p in unseen if p not in secret_names),
            "changed": changed,
            "deleted": sum(1 for p in stored if result.absence_proven(p)),
            "unreadable": sum(
                1 for p in stored if p not in result.pages and not result.absence_proven(p)
            ),
            # a page file never stored that cannot be read (`chmod 000` on a new page): lint
            # names it, and a sync cannot add it (fresh-user report)
            "unreadable_new": sum(
                1
                for u in result.unreadable
                if u.path.lower().endswith(".md") and u.path not in stored
            ),
        },
        # its errors and notices name paths (a vault folder can hold a token)
        "watcher": scrub_data(watch_state, config),
    }


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _drift_line(drift: dict[str, int]) -> str:
    """The ``drift:`` line: what a sync would change, with the hint to run it, only when it
    would change something; stored pages that cannot be read now are counted apart (a sync
    changes nothing for them: it keeps them)."""
    if drift["new"] or drift["changed"] or drift["deleted"]:
        line = (
            f"drift: {drift['new']} new, {drift['changed']} changed, {drift['deleted']} deleted"
            " on disk since the last sync (run vault-sync sync)"
        )
    elif drift["unreadable"] or drift["unreadable_new"]:
        line = "drift: nothing for a sync to change"
    else:
        return "drift: none"
    if drift["unreadable"]:
        pages = _plural(drift["unreadable"], "stored page", "stored pages")
        line += f"; {pages} cannot be read now (kept; see lint)"
    if drift["unreadable_new"]:
        pages = _plural(drift["unreadable_new"], "new page", "new pages")
        line += f"; {pages} cannot be read (not indexed; see lint)"
    return line


def format_status(s: dict[str, Any]) -> list[str]:
    """Lines for people from :func:`vault_status`."""
    drift = s["drift"]
    lines = [
        f"vault: {s['vault']}",
        f"pages: {s['pages']}  ("
        + ", ".join(f"{k} {v}" for k, v in s["pages_by_kind"].items())
        + ")",
        f"links: {s['links_resolved']} resolved, {s['links_unresolved']} unresolved,"
        f" {s['links_ambiguous']} ambiguous  ("
        + ", ".join(f"{k} {v}" for k, v in s["links_by_type"].items())
        + ")",
        f"attachments: {s['attachments_linked']} linked, {s['attachments_missing']} missing",
        f"evidence rows: {s['evidence_rows']}   parse errors: {s['parse_errors']}"
        f"   secrets: {s['secrets']} (redacted from every output)",
        f"generation: {s['generation']}   last sync: {s['last_sync'] or 'never'}",
    ]
    if s["pending_generation"]:
        lines.append(f"pending generation: {s['pending_generation']} (the next writer redoes it)")
    lines.append(_drift_line(drift))
    w = s["watcher"]
    if not w or "error" in w:
        lines.append(f"watcher: {w['error'] if w else 'never ran'}")
    else:
        last = w.get("last_batch") or {}
        state = "running" if w.get("alive") else "not running"
        lines.append(
            f"watcher: {state} (pid {w.get('pid')}, started {w.get('started')},"
            f" {w.get('batches', 0)} batches, {w.get('errors', 0)} errors,"
            f" queue {w.get('queue_depth', 0)}; last batch {last.get('at', '-')})"
        )
        if w.get("last_error"):
            lines.append(f"watcher last error: {w['last_error']}")
    return lines
