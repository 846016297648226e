"""The not-yet stage: a record dated after the day a query is asked for was not written yet.

A ``session`` page records a conversation that happened on its day (DESIGN §5.6: the
``date`` key, else its newest evidence). A question asked *as of* a day (``query --now``,
``--as-of``; ``eval longmemeval`` passes each question's ``question_date`` as ``now``)
cannot be answered by a conversation that had not happened by then, so the score of a page
of a listed kind whose day is later than that day is multiplied by the kind's factor
(``[ranking.not_yet_factors]``, :data:`vault_sync.ranking_settings.NOT_YET_FACTORS`). A kind
not listed, a page without a day, or a day on or before the reference day: factor 1. In
daily use ``now`` is today and no session lies after it, so the stage moves nothing; it
moves pages when a question is asked for a past day of a vault that has grown since
(replaying a memory, the pooled LongMemEval vault: docs/eval.md, "The not-yet stage").

The page is demoted, not left out (its words may still be the best match there is), and a
factor above 0 keeps the demoted pages in their order among themselves.

Layer 4 (STYLE.md), pure: days are ISO 8601 strings (``YYYY-MM-DD``), compared as text.
"""

from __future__ import annotations

from collections.abc import Mapping


def not_yet_factor(
    kind: str | None, day: str | None, reference: str, factors: Mapping[str, float]
) -> float:
    """The not-yet multiplier of one page.

    Args:
        kind: the page's kind (``session``), or ``None``.
        day: the page's day (ISO ``YYYY-MM-DD``; a longer ISO datetime is cut to its day),
            or ``None`` when it has none.
        reference: the day the query is asked for (``--as-of``, else ``--now``, else today),
            ISO ``YYYY-MM-DD``.
        factors: kind -> multiplier for pages of that kind dated after ``reference``
            (``RankingSettings.not_yet_factors``).

    Returns:
        ``factors[kind]`` when the page is of a listed kind and its day is after
        ``reference``; else 1.0.
    """
    if day is None or kind is None or kind not in factors:
        return 1.0
    return factors[kind] if day[:10] > reference[:10] else 1.0
