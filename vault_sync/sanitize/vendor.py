"""Vendor rules: each row of the data table (:func:`vault_sync.secret_rules.vendor_formats`,
``secret_formats.toml``) turned into a :class:`~vault_sync.sanitize.rule.Rule`.

A row names its boundary (``before``), how far its match starts before its trigger (``lead`` /
``back``), which group to redact and a check on it; most rows are *dispatched*: tried at the
starts of long token-like runs (:data:`RUN_CHARS`) rather than by a search of the text per
trigger (:mod:`.search`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from vault_sync.sanitize.rule import ALNUM, WORD, WORD_DASH, LazyPattern, Rule, group, whole
from vault_sync.secret_rules import SecretFormat, vendor_formats


def _digits_before(text: str, at: int) -> int:
    """Start of the (at most 16) digits just before ``at``: a Telegram bot id before ":A"."""
    low = max(0, at - 16)
    while at > low and text[at - 1] in "0123456789":
        at -= 1
    return at


def _not_hex(value: str) -> bool:
    return any(c not in "0123456789abcdefABCDEF" for c in value)


def _generated(value: str) -> bool:
    """A value after a vendor's name reads as generated: a digit and a letter, or both cases,
    or 30+ letters; not a lowercase word (``algolia_index: productsearchindexfortheshop``)."""
    letters = any(c.isalpha() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return letters and (any(c.isdigit() for c in value) or mixed or len(value) >= 30)


#: ``SecretFormat.before`` names -> the characters that may not precede a match.
_BEFORE: dict[str, frozenset[str]] = {
    "": frozenset(),
    "word": WORD,
    "word_dash": WORD_DASH,
    "alnum": ALNUM,
    "digit": frozenset("0123456789"),
}
#: The row boundaries read as "no letter or digit before" (:func:`_vendor_rule`).
_WORD_BOUNDARIES = frozenset({"word", "word_dash"})
_BACK: dict[str, Callable[[str, int], int] | None] = {"": None, "digits": _digits_before}
_CHECK: dict[str, Callable[[str], bool] | None] = {
    "": None,
    "not_hex": _not_hex,
    "generated": _generated,
}


def _lead(chars: int) -> Callable[[str, int], int]:
    """A match starting ``chars`` characters before its trigger."""
    return lambda text, at: max(0, at - chars)


#: The characters of a token-like run (lowercased view), in which every dispatched vendor
#: token lies (:mod:`.search` finds the runs).
RUN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.~$+/-")


def _dispatchable(row: SecretFormat) -> bool:
    """Rows that need a boundary before them and whose triggers are run characters start at
    a run start or after a non-alphanumeric run character: no whole-text search needed."""
    return bool(
        row.before
        and not row.keyed
        and not row.back
        and not row.lead
        and all(set(t) <= RUN_CHARS and len(t) >= 2 for t in row.triggers)
    )


#: A pattern ending with a negative lookahead: a right boundary (``(?![\w-])``).
_BOUNDED = re.compile(r"\(\?![^()]*\)\Z")


def _vendor_rule(row: SecretFormat) -> Rule:
    """The rule of one row of :func:`~vault_sync.secret_rules.vendor_formats`."""
    check = _CHECK[row.check]
    back = _lead(row.lead) if row.lead else _BACK[row.back]
    dispatch = _dispatchable(row)
    # One left boundary for every token rule: a letter or digit glued before it makes it
    # part of a word (`mysk-…`), but a token after `-` or `_` is still the token
    # (`backup-xoxb-…`, `notes-glpat-…`, `x_sk-ant-…`, `dir-xoxp-…/`: a fresh user found
    # some rules took it after a dash and others not, and after `_` almost none did).
    before = ALNUM if row.before in _WORD_BOUNDARIES else _BEFORE[row.before]
    span = whole if row.group == 0 and check is None else group(row.group, check)
    return Rule(
        row.label,
        LazyPattern(row.pattern),
        row.triggers,
        span,
        back,
        before,
        dispatch=dispatch,
        bounded=_BOUNDED.search(row.pattern) is not None,
        keyed=row.keyed,
    )


def vendor_rules() -> list[Rule]:
    """Every vendor rule, in the data table's order (its precedence, DESIGN §8)."""
    return [_vendor_rule(row) for row in vendor_formats()]


def vendor_prefixes() -> tuple[str, ...]:
    """The lowercase triggers of the vendor rules that begin a token (not the name words of
    keyed rules, nor triggers a match starts before), 3+ characters: ``ghp_``, ``glpat-``,
    ``sk-``, ``akia``… — what a hard-wrapped token may begin with (:mod:`.markup`)."""
    return tuple(
        sorted(
            {
                t.lower()
                for row in vendor_formats()
                if not (row.keyed or row.back or row.lead)
                for t in row.triggers
                if len(t) >= 3
            }
        )
    )
