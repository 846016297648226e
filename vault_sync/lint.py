"""``lint``: every problem of the vault and its stores, by file and line (DESIGN §3).

Reads an open read-only :class:`~vault_sync.store.Sidecar` and the vault's scan; returns
plain JSON-ready dicts, every path and message scrubbed. Nothing here writes.
"""

from __future__ import annotations

import json
import posixpath
import re
import unicodedata
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from vault_sync import supersession
from vault_sync.config import Config
from vault_sync.page import name_key
from vault_sync.sanitize import Scrubber
from vault_sync.store import Sidecar

if TYPE_CHECKING:
    from vault_sync.scan_result import ScanResult


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
    ``.gitignore``, a bad ``app.json``, bad patterns), skipped symlinks and other entries never
    read (a FIFO named ``*.md``, a pseudo file system), NFC collisions."""
    from vault_sync.scan_result import describe_name

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
    for skipped in result.skipped_files:
        problems.append(_problem(skipped.path, "warning", "skipped_file", skipped.detail))
    for group in result.collisions:
        key = unicodedata.normalize("NFC", group[0])
        is_file = key in result.pages or key in result.attachments
        kept = describe_name(group[0])
        rest = "the other spelling is" if len(group) == 2 else "the other spellings are"
        for name in group:
            others = ", ".join(describe_name(n) for n in group if n != name)
            which = "this one" if name == group[0] else kept
            outcome = (
                f": {which} is indexed, {rest} never read (rename one)"
                if is_file
                else " (folders: their entries are listed under one name)"
            )
            message = f"{describe_name(name)} equals {others} after Unicode normalisation{outcome}"
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
