"""Read-side reports over the stores: ``show``, ``status`` and ``lint`` (DESIGN §3).

Each function takes an open read-only :class:`~vault_sync.store.Sidecar` and returns plain
JSON-ready dicts; ``format_*`` turn them into lines for people. Nothing here writes.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_sync import supersession
from vault_sync.config import Config
from vault_sync.errors import AmbiguousPageError, PageNotFoundError, StoreDamagedError
from vault_sync.layout import WATCH_STATE_NAME, process_alive
from vault_sync.page import name_key
from vault_sync.sanitize import Scrubber
from vault_sync.store import Sidecar

if TYPE_CHECKING:
    from vault_sync.vault import ScanResult


def find_page(sidecar: Sidecar, reference: str, vault: Path | None = None) -> str:
    """Find the one page a reference names: id or path, file name, title, alias.

    Exact after NFC + casefold; tiers are tried in that order (a path may be given with or
    without ``.md``, with a leading ``./``, or absolute inside ``vault``) and the first tier
    with a match decides.

    Returns:
        The page's vault-relative path.

    Raises:
        PageNotFoundError: nothing matches.
        AmbiguousPageError: several pages match in the deciding tier (the message lists them).
    """
    text = reference.strip()
    if vault is not None and Path(text).is_absolute():
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


def vault_status(config: Config, sidecar: Sidecar) -> dict[str, Any]:
    """Counts, generation, last sync, drift and watcher state, as a JSON-ready dict.

    Drift compares a fresh scan's (mtime, size) with the stored pages: pages new, changed
    or gone on disk since the last sync (no file is read), and ``unreadable``: stored pages
    under a folder (or a file) that cannot be read now, which sync keeps, never "deleted".
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
        if path in stored
        and (stored[path].mtime_ns, stored[path].size, stored[path].disk_path)
        != (entry.mtime_ns, entry.size, entry.disk_path)
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
        },
        # its errors and notices name paths (a vault folder can hold a token)
        "watcher": scrub_data(watch_state, config),
    }


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
    if any(drift.values()):
        lines.append(
            f"drift: {drift['new']} new, {drift['changed']} changed, {drift['deleted']} deleted"
            " on disk since the last sync (run vault-sync sync)"
            + (
                f"; {drift['unreadable']} stored pages cannot be read now (kept; see lint)"
                if drift["unreadable"]
                else ""
            )
        )
    else:
        lines.append("drift: none")
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


def _problem(
    path: str, severity: str, code: str, message: str, line: int | None = None
) -> dict[str, Any]:
    return {"path": path, "line": line, "severity": severity, "code": code, "message": message}


_SEPARATORS = re.compile(r"[\s_\-]+")


def lint_vault(
    config: Config,
    sidecar: Sidecar,
    *,
    result: ScanResult | None = None,
    scrubber: Scrubber | None = None,
) -> list[dict[str, Any]]:
    """Every problem lint reports, sorted by path, line, code.

    Errors: parse errors (and other error issues), duplicate ids, supersession cycles,
    secrets in file names, unreadable pages and folders. Warnings: parse warnings,
    unresolved and ambiguous links, missing attachments, name collisions (names equal after
    NFC, and names equal once spaces, ``-`` and ``_`` are treated alike, DESIGN §2 / case
    N2), ignore-rule problems, skipped symlinks. Every path and message is scrubbed before
    it is returned.

    Args:
        config: the vault's configuration.
        sidecar: an open (read-only) sidecar.
        result: the vault's scan, as the engine made it; ``None`` scans here.
        scrubber: the vault's sanitizer, as the engine compiled it; ``None`` builds one.
    """
    if result is None:
        from vault_sync.vault import scan

        result = scan(config)
    scrubber = scrubber or Scrubber.from_config(config)
    secret_names = scrubber.scrub_names([*result.pages, *sorted(result.attachments)])
    problems = [
        *_stored_issues(sidecar),
        *_link_problems(sidecar),
        *_duplicate_ids(sidecar),
        *_supersession_cycles(sidecar),
        *_near_names(sidecar),
        *_secret_names(secret_names),
        *_unreadable_pages(config, sidecar, result, secret_names),
        *_scan_problems(result),
    ]
    return _scrubbed(problems, scrubber)


def _stored_issues(sidecar: Sidecar) -> list[dict[str, Any]]:
    """Parse errors and warnings, as sync stored them."""
    return [
        _problem(r["path"], r["severity"], r["code"], r["message"], r["line"])
        for r in sidecar.all_issues()
    ]


def _link_problems(sidecar: Sidecar) -> list[dict[str, Any]]:
    """Unresolved links, missing attachments and ambiguous (tied) links."""
    problems = []
    for r in sidecar.problem_links():
        if r["origin"] == "markdown":
            shown = f"[{r['display'] or ''}]({r['target_text']}{r['anchor']})"
        else:
            shown = f"[[{r['target_text']}{r['anchor']}]]"
        where, line = r["source"], r["line"]
        if r["status"] == "unresolved":
            problems.append(
                _problem(where, "warning", "unresolved_link", f"{shown} names no page", line)
            )
        elif r["status"] == "missing_attachment":
            message = f"{shown} names no file in the vault"
            problems.append(_problem(where, "warning", "missing_attachment", message, line))
        elif r["candidates"]:
            names = json.loads(r["candidates"])
            message = (
                f"{shown} matches {len(names)} pages ({', '.join(names)}); resolved to"
                f" {r['target_path']}"
            )
            problems.append(_problem(where, "warning", "ambiguous_link", message, line))
    return problems


def _duplicate_ids(sidecar: Sidecar) -> list[dict[str, Any]]:
    """Each page whose id another page has too."""
    problems = []
    for id_key, paths in sidecar.duplicate_ids():
        for path in paths:
            others = ", ".join(p for p in paths if p != path)
            problems.append(
                _problem(path, "error", "duplicate_id", f"id {id_key!r} is also the id of {others}")
            )
    return problems


def _supersession_cycles(sidecar: Sidecar) -> list[dict[str, Any]]:
    """Each page of a supersession cycle (A superseded by B ... superseded by A): no page of
    it is current (:func:`vault_sync.supersession.cycles`)."""
    rows = sidecar.typed_links([supersession.SUPERSEDED_BY, supersession.SUPERSEDES])
    graph = supersession.successors((r["source"], r["type"], r["target_path"]) for r in rows)
    problems = []
    for cycle in supersession.cycles(graph):
        shown = " -> ".join(cycle)
        for path in sorted(set(cycle)):
            message = f"supersession cycle: {shown} (each superseded by the next; none current)"
            problems.append(_problem(path, "error", "supersession_cycle", message))
    return problems


def _near_names(sidecar: Sidecar) -> list[dict[str, Any]]:
    """Pages of one folder whose names differ only by case, spaces, ``-`` or ``_`` (N2)."""
    near: dict[str, list[str]] = defaultdict(list)
    for path in sidecar.page_paths():
        folder, name = posixpath.split(name_key(path))
        near[f"{folder}/{_SEPARATORS.sub('-', name)}"].append(path)
    problems = []
    for paths in near.values():
        if len(paths) > 1:
            for path in sorted(paths):
                others = ", ".join(p for p in sorted(paths) if p != path)
                message = f"name differs only by case, spaces, - or _ from {others}"
                problems.append(_problem(path, "warning", "name_collision", message))
    return problems


def _secret_names(secret_names: dict[str, str]) -> list[dict[str, Any]]:
    """Files whose name holds a secret (shown redacted): sync leaves them out."""
    message = "the file name holds a secret: not indexed (rename the file)"
    return [_problem(shown, "error", "secret", message) for shown in secret_names.values()]


def _unreadable_pages(
    config: Config, sidecar: Sidecar, result: ScanResult, secret_names: dict[str, str]
) -> list[dict[str, Any]]:
    """Pages on disk that sync could not store because they cannot be read now."""
    stored = set(sidecar.page_paths())
    problems = []
    for path, page_file in result.pages.items():
        if path in stored or path in secret_names:
            continue
        try:
            with (config.vault / page_file.disk_path).open("rb") as f:
                f.read(1)
        except OSError as exc:
            problems.append(
                _problem(path, "error", "unreadable", f"cannot be read ({exc.strerror or exc})")
            )
    return problems


def _scan_problems(result: ScanResult) -> list[dict[str, Any]]:
    """What the walk met: unreadable folders, ignore-rule problems (an unreadable
    ``.gitignore``, a bad ``app.json``, bad patterns), skipped symlinks, NFC collisions."""
    from vault_sync.vault import describe_name

    problems = [
        _problem(
            entry.path or ".",
            "error",
            "unreadable",
            f"cannot be read ({entry.error}); pages there are not"
            " indexed anew, and their stored copies are kept",
        )
        for entry in result.unreadable
    ]
    for warning in result.warnings:
        where, _, message = warning.partition(": ")
        path, _, line = where.partition(":")
        number = int(line) if line.isdigit() else None
        problems.append(_problem(path, "warning", "ignore_rules", message or warning, number))
    for link in result.skipped_symlinks:
        detail = f" ({link.detail})" if link.detail else ""
        message = f"symlink not followed: {link.reason}{detail}"
        problems.append(_problem(link.path, "warning", "skipped_symlink", message))
    for group in result.collisions:
        for name in group:
            others = ", ".join(describe_name(n) for n in group if n != name)
            message = (
                f"{describe_name(name)} equals {others} after Unicode normalisation"
                " (only one of them is indexed)"
            )
            problems.append(_problem(name, "warning", "name_collision", message))
    return problems


def _scrubbed(problems: list[dict[str, Any]], scrubber: Scrubber) -> list[dict[str, Any]]:
    """The problems with paths and messages scrubbed, sorted by path, line, code, message.

    Paths come from the disk (unreadable entries, symlinks, collisions): never print a secret
    that a file or folder name holds.
    """
    hidden = scrubber.scrub_names(sorted({p["path"] for p in problems}))
    for problem in problems:
        problem["path"] = hidden.get(problem["path"], problem["path"])
        problem["message"] = scrubber.scrub(problem["message"])[0]
    problems.sort(key=lambda p: (p["path"], p["line"] or 0, p["code"], p["message"]))
    return problems
