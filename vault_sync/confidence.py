"""Confidence in a page, derived from its evidence at read time — never stored (DESIGN §5.5).

It rises with distinct supporting sessions (saturating), falls with the age of the newest
evidence (floored) and with unresolved contradictions, and stays below 1. Its weight in
ranking starts at 0 and is raised only when ``eval`` shows it helps (DESIGN Invariant 9);
``brief`` orders standing answers by it. The constants below give that shape; they are chosen,
not tuned (no eval set measures them yet), and each is named here so the ranking issue can
make them settable under ``[ranking]``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Each distinct session halves the doubt that remains: 1 session 0.5, 2 sessions 0.75, ...
SESSION_GAIN = 0.5
#: Evidence that is not a session (observation, feedback, commit, document...) counts as half
#: a session each (one person's feedback is weaker than a session that relied on the page).
OTHER_EVIDENCE_WEIGHT = 0.5
#: Age of the newest evidence at which the age factor has halved, in days.
HALF_LIFE_DAYS = 180
#: The age factor never falls below this: an old, well-supported rule is still a rule.
AGE_FLOOR = 0.5
#: Each unresolved contradiction multiplies confidence by this.
CONTRADICTION_FACTOR = 0.7
#: Confidence is bounded below 1 (DESIGN §5.5): no amount of evidence makes a page certain.
CEILING = 0.99


@dataclass(frozen=True)
class Support:
    """What a page's confidence is computed from.

    Attributes:
        sessions: distinct ``session`` evidence sources.
        other: other distinct evidence entries (kind, source).
        newest_age_days: days from the newest dated evidence (else the page's own date) to
            the reference day (the vault's newest date), or ``None`` when nothing is dated:
            then the age factor is its floor (undated support is never favoured).
        contradictions: unresolved ``contradicts`` edges of the page (either direction).
    """

    sessions: int
    other: int
    newest_age_days: int | None
    contradictions: int = 0


def confidence(support: Support) -> float:
    """A page's confidence in ``[0, CEILING]``, rounded to 4 decimals (stable orderings).

    ``(1 - (1 - SESSION_GAIN) ** weight) * age * CONTRADICTION_FACTOR ** contradictions``
    with ``weight = sessions + OTHER_EVIDENCE_WEIGHT * other`` and
    ``age = max(AGE_FLOOR, 0.5 ** (newest_age_days / HALF_LIFE_DAYS))`` (``AGE_FLOOR``
    when undated).
    """
    weight = support.sessions + OTHER_EVIDENCE_WEIGHT * support.other
    base = 1 - (1 - SESSION_GAIN) ** weight
    age = AGE_FLOOR
    if support.newest_age_days is not None:
        age = max(AGE_FLOOR, 0.5 ** (max(support.newest_age_days, 0) / HALF_LIFE_DAYS))
    value = float(base * age * CONTRADICTION_FACTOR**support.contradictions)
    return round(min(value, CEILING), 4)
