"""LongMemEval as dated session pages, with its answer leaks removed (issue 9, item 2).

``longmemeval_oracle.json`` is pooled into one vault: every question's haystack sessions,
one page per distinct (session id, date) — the oracle holds 948 sessions under 940 ids, 8
of them repeated with the same text under other dates. The ``longmemeval_s*`` files give one
vault per question (its haystack). A page holds the session's user turns (``roles="all"``
adds the assistant's, each turn prefixed by its role) and its date in frontmatter.

Leaks removed before any page is written: session ids (``answer_...`` names the sessions
that hold the answer) become opaque ids assigned after a shuffle seeded with :data:`SEED`;
``has_answer`` flags are never read; abstention questions (ids ending ``_abs``) are left
out. Each question's ``question_date`` becomes its reference date (``query --now``).
"""

from __future__ import annotations

import datetime
import random
from pathlib import Path
from typing import Any

from vault_sync.eval_data import (
    Benchmark,
    EvalPage,
    EvalVault,
    Question,
    bad,
    hashed_split,
    read_json,
)

#: The seed of the shuffle that assigns opaque session ids (any fixed value: the ids must
#: carry no order of the source, and runs must be reproducible).
SEED = 9
ROLES = ("user", "all")
_DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
_KEYS = ("question_id", "question_type", "question", "question_date", "haystack_dates")
_LISTS = ("haystack_session_ids", "haystack_sessions", "answer_session_ids")


def _iso(raw: Any, path: Path, where: str) -> str:
    try:
        return datetime.datetime.strptime(str(raw), _DATE_FORMAT).isoformat(timespec="minutes")
    except ValueError as exc:
        shown = str(raw)[:40]
        raise bad(path, where, f"date {shown!r} is not like '2023/05/21 (Sun) 19:50'") from exc


def _body(turns: Any, roles: str, path: Path, where: str) -> str:
    if not isinstance(turns, list):
        raise bad(path, where, "a session must be a list of turns")
    kept = []
    for turn in turns:
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            raise bad(path, where, "a turn needs role and content")
        role = turn.get("role")
        if roles == "user" and role != "user":
            continue
        text = turn["content"].strip()
        kept.append(text if roles == "user" else f"{role}: {text}")
    return "\n\n".join(kept) + "\n"


def _check(item: Any, path: Path, n: int) -> None:
    if not isinstance(item, dict) or any(key not in item for key in _KEYS + _LISTS):
        raise bad(path, f"question {n}", f"expected the keys {', '.join(_KEYS + _LISTS)}")
    if not all(isinstance(item[key], list) for key in (*_LISTS, "haystack_dates")):
        raise bad(path, f"question {n}", "haystack and answer ids must be lists")
    if len({len(item[k]) for k in ("haystack_dates", *_LISTS[:2])}) != 1:
        raise bad(path, f"question {n}", "haystack ids, dates and sessions differ in length")


def _vault(name: str, items: list[tuple[int, dict[str, Any]]], path: Path, roles: str) -> EvalVault:
    """One vault of the sessions of ``items`` (``(position, question)``), opaque ids."""
    texts: dict[tuple[str, str], str] = {}
    for n, item in items:
        columns = (item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"])
        for sid, date, turns in zip(*columns, strict=True):
            key = (str(sid), _iso(date, path, f"question {n} session {sid}"))
            if key not in texts:
                texts[key] = _body(turns, roles, path, f"question {n} session {sid}")
    order = sorted(texts)
    random.Random(SEED).shuffle(order)
    page_of = {key: f"sessions/s{i:04d}.md" for i, key in enumerate(order, 1)}
    vault = EvalVault(name)
    for key in sorted(texts, key=page_of.__getitem__):
        page = page_of[key]
        front = (("title", f"session {page[10:14]}"), ("kind", "session"), ("date", key[1]))
        vault.pages.append(EvalPage(page, front, texts[key]))
    for n, item in items:
        if str(item["question_id"]).endswith("_abs"):
            continue
        answers = {str(x) for x in item["answer_session_ids"]}
        gold = frozenset(
            page_of[(str(sid), _iso(date, path, f"question {n}"))]
            for sid, date in zip(item["haystack_session_ids"], item["haystack_dates"], strict=True)
            if str(sid) in answers
        )
        if not gold:
            continue
        qid = str(item["question_id"])
        now = _iso(item["question_date"], path, f"question {n} question_date")
        groups = ("all", f"type {item['question_type']}")
        vault.questions.append(
            Question(qid, str(item["question"]), gold, groups, hashed_split(qid), now=now)
        )
    return vault


def load_longmemeval(path: Path, *, roles: str = "user") -> Benchmark:
    """Load a LongMemEval file: the oracle pooled into one vault, other files one per question.

    Args:
        path: ``longmemeval_oracle.json``, a ``longmemeval_s*`` file, or a folder holding
            ``longmemeval_oracle.json``.
        roles: ``user`` (user turns only, the default) or ``all``.

    Returns:
        The benchmark; groups ``all`` and ``type <question_type>``; the split of a question is
        :func:`~vault_sync.eval_data.hashed_split` of its id.

    Raises:
        EvalDataError: the file is missing or not shaped like LongMemEval.
        ValueError: ``roles`` is not one of :data:`ROLES`.
    """
    if roles not in ROLES:
        raise ValueError(f"roles must be one of {ROLES}, not {roles!r}")
    file = path / "longmemeval_oracle.json" if path.is_dir() else path
    data = read_json(file)
    if not isinstance(data, list):
        raise bad(file, "top level", "expected a list of questions")
    for n, item in enumerate(data):
        _check(item, file, n)
    bench = Benchmark("longmemeval", [])
    abstentions = sum(1 for item in data if str(item["question_id"]).endswith("_abs"))
    if abstentions:
        bench.skipped["abstention (_abs)"] = abstentions
    items = list(enumerate(data))
    if "oracle" in file.name:
        bench.vaults.append(_vault("oracle", items, file, roles))
    else:
        for n, item in items:
            if not str(item["question_id"]).endswith("_abs"):
                bench.vaults.append(_vault(str(item["question_id"]), [(n, item)], file, roles))
    return bench
