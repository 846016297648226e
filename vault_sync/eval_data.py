"""The values ``vault-sync eval`` measures, and the user's own query file (issue 9).

A :class:`Benchmark` is one or more :class:`EvalVault` s, each a set of pages to write into a
temporary folder (or an existing vault of the user's) and the questions asked of it. A
question's gold is a set of page paths. Loaders of the public benchmarks live in
``eval_locomo.py`` and ``eval_longmemeval.py``; :func:`load_queries` reads the JSONL form a
user keeps to guard their own vault's search.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_sync.errors import EvalDataError

#: The splits a question can be on; ``all`` selects both.
SPLITS = ("dev", "test")

#: A frontmatter value of an :class:`EvalPage`: JSON, which is also valid YAML (flow style).
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


@dataclass(frozen=True)
class Question:
    """One question and the pages that answer it.

    Attributes:
        id: a stable id within the benchmark (``conv-26/q3``, a LongMemEval ``question_id``).
        text: the question as asked.
        gold: vault-relative paths of the pages that answer it (never empty).
        groups: the report groups it counts in (``cat 1-4``, ``cat 2``, ``all``, ...).
        split: ``dev`` or ``test``.
        project: the project the question is scoped to, or ``None`` for the whole vault.
        now: the question's reference date (ISO 8601), or ``None`` for today.
    """

    id: str
    text: str
    gold: frozenset[str]
    groups: tuple[str, ...]
    split: str
    project: str | None = None
    now: str | None = None


@dataclass(frozen=True)
class EvalPage:
    """A page to write: its path, frontmatter keys (in order) and body.

    Attributes:
        path: vault-relative POSIX path ending in ``.md``.
        front: frontmatter keys and values, rendered as YAML in this order: a string, a
            list (``["[[A]]", "[[B]]"]``: relations, tags) or a mapping (an evidence entry
            ``{"kind": "session", "source": ID, "at": DATE}``), each written as JSON.
        body: the Markdown body.
        project: the page's project (also in ``front``), for scoping the baseline.
        id: the page id when it is not the path without ``.md`` (a frontmatter ``id``).
    """

    path: str
    front: tuple[tuple[str, JsonValue], ...]
    body: str
    project: str | None = None
    id: str | None = None

    def render(self) -> str:
        """The page file's text: a YAML frontmatter block (values as JSON, one line each:
        YAML reads a JSON list or object as a flow sequence or mapping), then the body."""
        lines = ["---", *(f"{key}: {json.dumps(value)}" for key, value in self.front), "---"]
        return "\n".join(lines) + "\n" + self.body


@dataclass
class EvalVault:
    """A vault to query: pages to write (or an existing folder) and its questions.

    Attributes:
        name: shown in progress and errors (``locomo``, a LongMemEval question id, ...).
        pages: the pages to write into a temporary folder; empty when ``folder`` is given.
        questions: the questions asked of it.
        folder: an existing vault (``eval queries``), used as it is.
    """

    name: str
    pages: list[EvalPage] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    folder: Path | None = None


@dataclass
class Benchmark:
    """What one ``eval`` run measures.

    Attributes:
        name: ``locomo``, ``longmemeval`` or ``queries``.
        vaults: the vaults, each synced and queried in turn.
        headline: the report group shown first (``cat 1-4``, ``all``).
        ks: the cut-offs of ``R@k``, ``hit@k``, ``all@k``.
        skipped: questions left out, by reason (``empty evidence``, ``abstention``, ...).
        notes: facts about the load worth printing (corrections applied, ...).
    """

    name: str
    vaults: list[EvalVault]
    headline: str = "all"
    ks: tuple[int, ...] = (5, 10)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def questions(self) -> list[Question]:
        """Every question of every vault, in order."""
        return [q for vault in self.vaults for q in vault.questions]


def hashed_split(question_id: str) -> str:
    """``dev`` when the first byte of SHA-256(question_id) is even, else ``test``.

    The same question falls on the same side in every LongMemEval file (issue 9, item 7).
    """
    return "dev" if hashlib.sha256(question_id.encode()).digest()[0] % 2 == 0 else "test"


def read_json(path: Path) -> Any:
    """The parsed JSON file at ``path``.

    Raises:
        EvalDataError: it cannot be read or parsed (message names the file and line).
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvalDataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise EvalDataError(f"{path}: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise EvalDataError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from exc


def bad(path: Path, where: str, message: str) -> EvalDataError:
    """An :class:`EvalDataError` naming the file and the item or line at fault."""
    return EvalDataError(f"{path}: {where}: {message}")


def _query_line(path: Path, number: int, raw: str) -> Question:
    try:
        item = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise EvalDataError(f"{path}:{number}: not JSON: {exc.msg}") from exc
    if not isinstance(item, dict):
        raise EvalDataError(f"{path}:{number}: expected a JSON object")
    text, expected = item.get("query"), item.get("expected")
    if not isinstance(text, str) or not text.strip():
        raise EvalDataError(f"{path}:{number}: 'query' must be a non-empty string")
    if isinstance(expected, str):
        expected = [expected]
    if not isinstance(expected, list) or not expected:
        raise EvalDataError(f"{path}:{number}: 'expected' must be a non-empty list of pages")
    if not all(isinstance(x, str) and x for x in expected):
        raise EvalDataError(f"{path}:{number}: 'expected' must list page ids or paths")
    split = item.get("split", "dev")
    if split not in SPLITS:
        raise EvalDataError(f"{path}:{number}: 'split' must be dev or test, not {split!r}")
    project, group = item.get("project"), item.get("group")
    for key, value in (("project", project), ("group", group)):
        if value is not None and not isinstance(value, str):
            raise EvalDataError(f"{path}:{number}: {key!r} must be a string")
    groups = ("all", f"group {group}") if group else ("all",)
    return Question(f"line {number}", text, frozenset(expected), groups, split, project)


def load_queries(path: Path, vault: Path) -> Benchmark:
    """Read a JSONL query file for the user's vault ``vault``.

    Each line: ``{"query": str, "expected": [page id or path, ...], "project": str?,
    "group": str?, "split": "dev"|"test"?}`` (split defaults to ``dev``). Blank lines and
    lines starting with ``#`` are skipped. A hit counts as expected when its path or its id
    is listed.

    Raises:
        EvalDataError: the file cannot be read, or a line is malformed (names file and line).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalDataError(f"{path}: cannot read: {exc}") from exc
    questions = [
        _query_line(path, number, raw)
        for number, raw in enumerate(text.splitlines(), 1)
        if raw.strip() and not raw.lstrip().startswith("#")
    ]
    if not questions:
        raise EvalDataError(f"{path}: no queries")
    return Benchmark("queries", [EvalVault(str(vault), questions=questions, folder=vault)])
