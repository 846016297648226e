"""LoCoMo (``locomo10.json``) as a vault of dated session pages (issue 9, item 1).

Each conversation is a project named by its ``sample_id``; its sessions are found by their
``session_<N>`` keys (conversation 0 has 35 ``session_<N>_date_time`` keys but 19 sessions).
A session page carries ``title``, ``kind: session``, ``project`` and ``date`` (ISO 8601,
parsed from ``session_<N>_date_time`` such as ``1:56 pm on 8 May, 2023``); its body's first
line is the date as written, then one ``Speaker: text`` paragraph per turn ending with the
turn's block id (``^D1-3`` for ``D1:3``). Image captions are left out. With ``unit="turn"``
each turn is its own page, with its session's date and a ``prev`` link to the turn before it
in its session (Obsidian Breadcrumbs' sequence key: what an importer writing a page per turn
writes; the graph stream reads it, docs/page-format.md). A question's reference day (``query
--now``, for "last year" and "in May") is its conversation's newest session day: LoCoMo asks
its questions after the last session and gives them no date of their own.

A question is skipped (and counted) when its evidence is empty or one of its ids does not
name a turn as written (``"D8:6; D9:17"``, ``"D"``, ``"D:11:26"`` occur): no repair, unless
``audited`` applies the corrected evidence of ``locomo-audit-errors.json``.

LoCoMo is licensed CC BY-NC 4.0: it is read from the user's path, never copied into this
repository or the package.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from vault_sync.eval_data import (
    Benchmark,
    EvalPage,
    EvalVault,
    JsonValue,
    Question,
    bad,
    read_json,
)

FILE_NAME = "locomo10.json"
AUDIT_FILE_NAME = "locomo-audit-errors.json"
#: Question categories of the LoCoMo paper; 1-4 are the headline, 5 is adversarial.
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: Conversations 0-4 (by position in the file) are the dev split; the rest are test.
DEV_CONVERSATIONS = 5
UNITS = ("session", "turn")

_SESSION_KEY = re.compile(r"session_(\d+)")
_TURN_ID = re.compile(r"D(\d+):(\d+)")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"


def _iso(raw: str, path: Path, where: str) -> str:
    try:
        return datetime.datetime.strptime(raw.strip(), _DATE_FORMAT).isoformat(timespec="minutes")
    except ValueError as exc:
        raise bad(path, where, f"date {raw[:40]!r} is not like '1:56 pm on 8 May, 2023'") from exc


def _turn_line(turn: dict[str, Any]) -> tuple[str, str]:
    block = turn["dia_id"].replace(":", "-")
    return turn["dia_id"], f"{turn['speaker']}: {turn['text']} ^{block}"


def _pages(conv: dict[str, Any], path: Path, unit: str) -> tuple[list[EvalPage], dict[str, str]]:
    """The pages of one conversation and the page path of each turn id."""
    sample = conv["sample_id"]
    talk = conv["conversation"]
    numbers = sorted(
        int(m.group(1)) for key in talk if (m := _SESSION_KEY.fullmatch(key)) and talk[key]
    )
    pages: list[EvalPage] = []
    page_of: dict[str, str] = {}
    for n in numbers:
        raw_date = talk.get(f"session_{n}_date_time")
        if not isinstance(raw_date, str):
            raise bad(path, f"{sample} session_{n}", "has no session_<N>_date_time")
        date = _iso(raw_date, path, f"{sample} session_{n}_date_time")
        lines = [_turn_line(turn) for turn in talk[f"session_{n}"]]
        common: tuple[tuple[str, JsonValue], ...] = (
            ("kind", "session"),
            ("project", sample),
            ("date", date),
        )
        if unit == "session":
            page = f"{sample}/session-{n:02d}.md"
            body = raw_date + "\n\n" + "\n\n".join(text for _, text in lines) + "\n"
            front = (("title", f"{sample} session {n}"), *common)
            pages.append(EvalPage(page, front, body, sample))
            page_of.update({turn_id: page for turn_id, _ in lines})
            continue
        before: tuple[tuple[str, JsonValue], ...] = ()
        for turn_id, text in lines:
            page = f"{sample}/{turn_id.replace(':', '-')}.md"
            front = (("title", f"{sample} {turn_id}"), *common, *before)
            pages.append(EvalPage(page, front, text + "\n", sample))
            page_of[turn_id] = page
            before = (("prev", f"[[{page.removesuffix('.md')}]]"),)
    return pages, page_of


def _gold(evidence: Any, page_of: dict[str, str]) -> frozenset[str] | None:
    """The pages of the evidence ids, or ``None`` when one id does not name a turn."""
    if not isinstance(evidence, list) or not evidence:
        return None
    pages = set()
    for item in evidence:
        if not isinstance(item, str) or not _TURN_ID.fullmatch(item) or item not in page_of:
            return None
        pages.add(page_of[item])
    return frozenset(pages)


def _corrections(folder: Path) -> dict[tuple[int, int], tuple[str, list[str]]]:
    """``{(conversation, qa index): (question, corrected evidence)}`` from the audit file."""
    path = folder / AUDIT_FILE_NAME
    out: dict[tuple[int, int], tuple[str, list[str]]] = {}
    for n, item in enumerate(read_json(path)):
        match = re.fullmatch(r"locomo_(\d+)_qa(\d+)", str(item.get("question_id", "")))
        if not match or not isinstance(item.get("correct_evidence"), list):
            raise bad(path, f"item {n}", "expected question_id and correct_evidence")
        key = (int(match.group(1)), int(match.group(2)))
        out[key] = (item.get("question", ""), item["correct_evidence"])
    return out


def load_locomo(path: Path, *, unit: str = "session", audited: bool = False) -> Benchmark:
    """Load LoCoMo as one vault, a project per conversation.

    Args:
        path: ``locomo10.json`` or the folder holding it (and ``locomo-audit-errors.json``).
        unit: ``session`` (a page per session, the default) or ``turn`` (a page per turn).
        audited: replace the evidence of the audited questions by their corrected evidence.

    Returns:
        The benchmark; a question's groups are ``cat 1-5``, ``cat N`` and (categories 1-4)
        ``cat 1-4``; its split is ``dev`` for conversations 0-4, else ``test``.

    Raises:
        EvalDataError: a file is missing or not shaped like LoCoMo (names file and item).
        ValueError: ``unit`` is not one of :data:`UNITS`.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
    file = path / FILE_NAME if path.is_dir() else path
    data = read_json(file)
    if not isinstance(data, list):
        raise bad(file, "top level", "expected a list of conversations")
    fixes = _corrections(file.parent) if audited else {}
    vault = EvalVault("locomo")
    bench = Benchmark("locomo", [vault], headline="cat 1-4")
    bench.ks = (5, 10) if unit == "session" else (5, 10, 20)
    applied = 0
    for c, conv in enumerate(data):
        if not isinstance(conv, dict) or not {"sample_id", "conversation", "qa"} <= conv.keys():
            raise bad(file, f"conversation {c}", "expected sample_id, conversation and qa")
        pages, page_of = _pages(conv, file, unit)
        vault.pages += pages
        split = "dev" if c < DEV_CONVERSATIONS else "test"
        now = max(str(dict(page.front)["date"]) for page in pages)[:10] if pages else None
        for q, item in enumerate(conv["qa"]):
            evidence = item.get("evidence")
            fix = fixes.get((c, q))
            if fix and fix[0] == item.get("question"):
                evidence, applied = fix[1], applied + 1
            gold = _gold(evidence, page_of)
            category = item.get("category")
            if gold is None or category not in CATEGORIES:
                reason = "empty evidence" if not evidence else "evidence id not a turn"
                reason = reason if category in CATEGORIES else "unknown category"
                bench.skipped[reason] = bench.skipped.get(reason, 0) + 1
                continue
            groups = ("cat 1-5", f"cat {category}") + (("cat 1-4",) if category < 5 else ())
            qid = f"{conv['sample_id']}/q{q}"
            vault.questions.append(
                Question(qid, str(item["question"]), gold, groups, split, conv["sample_id"], now)
            )
    if audited:
        bench.notes.append(f"audited: corrected evidence applied to {applied} questions")
    return bench
