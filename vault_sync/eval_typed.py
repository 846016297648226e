"""``vault-sync eval typed``: questions a careful colleague answers from typed memory (issue 10).

The vaults come from :mod:`vault_sync.eval_typed_pages`. Each question's right answer is
reached through a relation, and (in every group but ``control``) it shares no content word
with the answer page's title (:func:`content_stems`: stop words out, Porter stems):

- ``fix``: "how do we fix it when the payment worker hangs when traffic peaks?" names the
  bug's symptoms; the gold is the page whose ``fixes`` names the bug.
- ``cause``: the same symptoms asked as "why"; the gold is the page whose ``causes`` names it.
- ``current``: "what is our current policy on retries for the billing api?" shares its words
  with the first decision's title; the gold is the newest decision of the ``supersedes`` chain.
- ``successor``: "is it still true that <what the first decision said>?": the newest decision.
- ``contradiction``: "is it still true that <what a rule says>?": the observation that
  ``contradicts`` it.
- ``control``: plain lexical questions (a component, a runbook, a bug by its title), which
  the relations must not spoil.

Every typed question is also in the ``typed`` group; all are in ``all``. A question's ``now``
is its vault's today.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from typing import Any

import tantivy

from vault_sync.eval_data import Benchmark, EvalVault, Question
from vault_sync.eval_typed_pages import DEV_SEED, TEST_SEED, Draft, TypedVault, build_vault
from vault_sync.eval_typed_words import ASK_CAUSE, ASK_CURRENT, ASK_FIX, ASK_STILL
from vault_sync.stopwords import STOP_WORDS

#: Questions per vault, by group, in the order they are drawn.
PER_VAULT = (
    ("fix", 6), ("cause", 3), ("current", 5), ("successor", 2), ("contradiction", 4),
    ("control", 5),
)  # fmt: skip
#: The groups whose questions share no content word with the gold page's title.
TITLE_FREE = frozenset({"fix", "cause", "current", "successor", "contradiction"})
_CONTROL = {
    "entity": ("what does the {c} do?", "tell me about the {c}", "{c} overview",
               "what is the {c} responsible for?"),
    "runbook": ("how to {x}", "steps to {x}", "{x} runbook", "checklist: {x}"),
    "bug": ("what happened with {x}?", "{x}", "details of {x}"),
}  # fmt: skip
_WORD = re.compile(r"\w+")


@functools.cache
def _stemmer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def content_stems(text: str) -> frozenset[str]:
    """The Porter stems of ``text``'s words that are not stop words (``"Retries, retrying"`` ->
    ``{"retri"}``): what "shares no title word" is checked with."""
    words = (w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS)
    return frozenset(t for w in words for t in _stemmer().analyze(w))


def _phrase(
    rng: random.Random, templates: Sequence[str], fills: Sequence[str], c: str, banned: str
) -> str | None:
    """A wording from ``templates`` x ``fills`` (drawn at random) sharing no content word with
    the title ``banned`` (``""``: any), or ``None`` when every one does."""
    options = [(t, x) for t in templates for x in fills]
    rng.shuffle(options)
    stems = content_stems(banned)
    for template, fill in options:
        text = template.format(c=c, x=fill.format(c=c))
        if not content_stems(text) & stems:
            return text[:1].upper() + text[1:] if rng.random() < 0.5 else text
    return None


def _typed(rng: random.Random, group: str, draft: Draft) -> str | None:
    """The wording of a typed question whose gold is ``draft``."""
    facts: dict[str, Any] = draft.facts
    templates: Sequence[str]
    if group in ("fix", "cause"):
        templates, fills = (ASK_FIX if group == "fix" else ASK_CAUSE), facts["family"]["ask"]
    elif group == "current":
        templates, fills = ASK_CURRENT, facts["topic"]["ask"]
    elif group == "successor":
        templates, fills = ASK_STILL, facts["topic"]["said"]
    else:
        templates, fills = ASK_STILL, facts["rule"]["said"]
    return _phrase(rng, templates, fills, facts["c"], draft.title)


def _control(rng: random.Random, draft: Draft) -> str | None:
    """A lexical question for an entity, runbook or bug page (its own words allowed)."""
    if draft.role == "entity":
        return _phrase(rng, _CONTROL["entity"], [""], draft.facts["c"], "")
    fill = draft.title.removeprefix("Bug ")
    if fill[1:2].islower():  # "Restart the ..." reads "how to restart the ...", "IMG-162" stays
        fill = fill[:1].lower() + fill[1:]
    return _phrase(rng, _CONTROL[draft.role], [fill], "", "")


def _candidates(vault: TypedVault, rng: random.Random) -> dict[str, list[Draft]]:
    """The drafts each group asks about, shuffled (``current`` and ``successor`` take
    different chains)."""
    by_role: dict[str, list[Draft]] = {}
    for draft in vault.drafts:
        by_role.setdefault(draft.role, []).append(draft)
    for drafts in by_role.values():
        rng.shuffle(drafts)
    newest = by_role.get("new", [])
    control = by_role.get("entity", [])[:2] + by_role.get("runbook", [])[:2]
    return {
        "fix": by_role.get("fix", []),
        "cause": by_role.get("cause", []),
        "current": newest[:5],
        "successor": newest[5:],
        "contradiction": by_role.get("challenger", []),
        "control": control + by_role.get("bug", [])[:1],
    }


def ask_vault(vault: TypedVault, split: str) -> tuple[list[Question], int]:
    """The questions of one generated vault (:data:`PER_VAULT`), and how many were dropped
    because every wording shared a word with the gold page's title."""
    rng = random.Random(f"vault-sync eval typed questions {vault.name}")
    candidates = _candidates(vault, rng)
    questions: list[Question] = []
    dropped = 0
    for group, count in PER_VAULT:
        for n, draft in enumerate(candidates[group][:count]):
            text = _control(rng, draft) if group == "control" else _typed(rng, group, draft)
            if text is None:
                dropped += 1
                continue
            groups = ("all", "control") if group == "control" else ("all", "typed", group)
            qid = f"{vault.name}/{group}-{n}"
            now = vault.today.isoformat()
            questions.append(Question(qid, text, frozenset({draft.path}), groups, split, now=now))
    return questions, dropped


def load_typed(
    *, seed_dev: int = DEV_SEED, seed_test: int = TEST_SEED, vaults: int = 4
) -> Benchmark:
    """The typed-memory benchmark: ``vaults`` dev vaults from ``seed_dev`` and as many test
    vaults from ``seed_test``, each with its questions.

    Returns:
        The benchmark, headline group ``all``; its notes name the seeds, and ``skipped``
        counts questions no wording could ask without the gold title's words.

    Raises:
        ValueError: ``vaults`` < 1, or the two seeds are equal (dev and test would be one).
    """
    if vaults < 1:
        raise ValueError(f"vaults must be at least 1, not {vaults}")
    if seed_dev == seed_test:
        raise ValueError("the dev and test seeds must differ")
    bench = Benchmark("typed", [], headline="all")
    for split, seed in (("dev", seed_dev), ("test", seed_test)):
        for number in range(vaults):
            typed = build_vault(seed, number)
            questions, dropped = ask_vault(typed, split)
            bench.vaults.append(EvalVault(typed.name, typed.pages(), questions))
            if dropped:
                reason = "no wording without the gold title's words"
                bench.skipped[reason] = bench.skipped.get(reason, 0) + dropped
    per = f"{vaults} vault{'s' if vaults != 1 else ''} per split"
    bench.notes.append(f"seeds: dev {seed_dev}, test {seed_test}; {per}")
    return bench
