"""Where the built-in rules run: each trigger searched once in a lowercased ASCII view (gates
first), the dispatched vendor rules tried at the starts of token-like runs, each match checked
and judged (placeholders spared) into a :class:`~.overlaps.Candidate` (TECH-NOTES §9).
"""

from __future__ import annotations

import functools
import re

from vault_sync.placeholders import too_regular
from vault_sync.sanitize.monero import monero_candidates
from vault_sync.sanitize.overlaps import Candidate
from vault_sync.sanitize.rule import Rule, Span, after_token, before_token, label_rank
from vault_sync.sanitize.seeds import seed_candidates
from vault_sync.sanitize.structural import structural_rules
from vault_sync.sanitize.vendor import RUN_CHARS, vendor_rules
from vault_sync.sanitize.wallets import wallet_candidates

#: A token-like run: every dispatched vendor token lies in one (16+ characters of
#: ``[a-z0-9_.~$+/-]`` in the lowercased view, so base64 bodies stay whole; a space, quote,
#: ``=``, ``:`` ends it).
#: Found with ``bytes.translate`` (run characters -> ``a``, others -> space) and a search for
#: 16 ``a``: two C passes, ~1 GB/s, where a regex scan costs ~15 MB/s.
_RUN_MAP = bytes(ord("a") if chr(i) in RUN_CHARS else ord(" ") for i in range(256))
_RUN_MIN = b"a" * 16
#: Where inside a run a dispatched token may start: after one of these (or at the run start).
_INNER_START = re.compile(r"[^a-zA-Z0-9]")


@functools.cache
def _builtin_rules() -> tuple[Rule, ...]:
    """Compiled once, on first use (nothing is compiled at import time)."""
    return (*vendor_rules(), *structural_rules())


#: Bytes whose absence rules out every trigger containing them, tested first (memchr-fast);
#: then short strings rare in prose that each stand for several triggers (``.p``: ``.pem``,
#: ``.p12``, ``.pfx``, ``.ppk``, ``.pgpass``): one absent gate saves a scan of the text per
#: trigger, 47 -> 40 scans per page (12% of scrubbing the 10k-page benchmark vault); ``$``
#: for the password hashes' prefixes (``$2``, ``$6$``, ``$argon2``…).
_GATES = (b"_", b"-", b".", b":", b"/", b"$", b".p", b"id_", b"k_", b"netrc", b"contribsys")


@functools.cache
def _plan() -> tuple[tuple[bytes, frozenset[bytes], tuple[Rule, ...]], ...]:
    """(trigger, parents, rules) shortest first: each trigger is searched once for all its
    rules, and only when every gate byte and shorter trigger inside it is present."""
    rules: dict[bytes, list[Rule]] = {gate: [] for gate in _GATES}
    for rule in _builtin_rules():
        for trigger in rule.triggers if not (rule.dispatch or rule.keyed) else ():
            rules.setdefault(trigger.encode("ascii"), []).append(rule)
    order = sorted(rules, key=lambda t: (len(t), t))
    return tuple(
        (t, frozenset(p for p in order[:i] if p in t), tuple(rules[t])) for i, t in enumerate(order)
    )


@functools.cache
def _run_table() -> dict[bytes, tuple[tuple[bytes, tuple[Rule, ...]], ...]]:
    """Dispatched rules by the first two bytes of their triggers: ``{b"gl": ((b"glpat-",
    rules), ...)}``."""
    by_trigger: dict[bytes, list[Rule]] = {}
    for rule in _builtin_rules():
        for literal in rule.triggers if rule.dispatch else ():
            by_trigger.setdefault(literal.encode("ascii"), []).append(rule)
    table: dict[bytes, list[tuple[bytes, tuple[Rule, ...]]]] = {}
    for trigger, rules in sorted(by_trigger.items()):
        table.setdefault(trigger[:2], []).append((trigger, tuple(rules)))
    return {key: tuple(value) for key, value in table.items()}


@functools.cache
def _keyed_table() -> tuple[re.Pattern[bytes], dict[bytes, tuple[Rule, ...]]]:
    """The keyed vendor rules (``TWITTER_SECRET = …``): one bytes regex finding any of their
    name words (longest first) in the name before a value, and the rules of each word."""
    by_word: dict[bytes, list[Rule]] = {}
    for rule in _builtin_rules():
        for word in rule.triggers if rule.keyed else ():
            by_word.setdefault(word.encode("ascii"), []).append(rule)
    words = sorted(by_word, key=lambda w: (-len(w), w))
    finder = re.compile(b"|".join(re.escape(w) for w in words) or b"(?!)")
    return finder, {word: tuple(rules) for word, rules in by_word.items()}


#: How far before a value its assignment operator may stand (quotes and blanks between).
_OPERATOR_GAP = 6
#: What may stand between a name and its value's quotes: the operator (``=``, ``:=``,
#: ``=>``, ``?=``, ``||=``), blanks, the name's closing quote or ``]``; at most this many.
_BETWEEN = b"=:>?| \t\"']"
_BETWEEN_MAX = 14
#: Bytes of a name (``[\w.-]``), and how much of one is looked at: the longest keyed pattern
#: allows a 34-character word and 24 name characters after it.
_NAME_BYTE = bytes(c.isascii() and (c.isalnum() or c in "_.-") for c in map(chr, range(256)))
_NAME_MAX = 64


def _keyed(
    text: str, view: bytes, at: int, resume: dict[bytes, list[int]], out: list[Candidate]
) -> None:
    """The keyed vendor rules at a value run starting at ``at``, when an assignment operator
    stands just before it: each is tried where one of its words occurs in the name before
    the operator (a few bytes scanned back, then one regex over the name)."""
    j = at - 1
    low = max(0, at - _OPERATOR_GAP)
    while j >= low and view[j] in b" \t\"'`":
        j -= 1
    if j < 0 or view[j] not in b"=:>":
        return
    low = max(0, j - _BETWEEN_MAX)
    while j >= low and view[j] in _BETWEEN:
        j -= 1
    end = j + 1
    low = max(0, end - _NAME_MAX)
    while j >= low and _NAME_BYTE[view[j]]:
        j -= 1
    if end - j <= 3:
        return
    finder, rules = _keyed_table()
    for m in finder.finditer(view, j + 1, end):
        word = m.group()
        group = rules[word]
        _attempt(text, m.start(), group, resume.setdefault(b"=" + word, [0] * len(group)), out)


#: Labels whose whole match is structure, not a token to judge by its look.
_NOT_JUDGED = frozenset({"private_key", "kubernetes_secret", "credential_path"})


def _spared(rule: Rule, text: str, span: Span) -> bool:
    """A match that is a placeholder by kind (the rule's ``spare``, by default
    :func:`~vault_sync.placeholders.too_regular`): ``ghp_xxxx…``, ``AKIAIOSFODNN7EXAMPLE``,
    ``T00000000/B00000000/XXXX…``; after a password-like name only a true placeholder."""
    if rule.label in _NOT_JUDGED:
        return False
    return (rule.spare or too_regular)(text[span[0] : min(span[1], span[0] + 256)])


def _attempt(
    text: str, at: int, rules: tuple[Rule, ...], resume: list[int], out: list[Candidate]
) -> None:
    """Try each rule of a trigger found at ``at``; ``resume[i]``: where rule i last ended."""
    for i, rule in enumerate(rules):
        start = rule.back(text, at) if rule.back else at
        # no new attempt inside this rule's last redaction (already covered), so runs of
        # triggers (A_KEY=A_KEY=…) cost O(n), not O(n x longest repeat)
        if start < resume[i] or (
            start and rule.before and (text[start - 1] in rule.before or after_token(text, start))
        ):
            continue
        if rule.pre is not None and not rule.pre(text, start):
            continue
        m = rule.regex.match(text, start)
        if m and rule.bounded and before_token(text, m.end()):
            continue
        span = rule.span(text, m) if m else None
        if m and span and span[0] < span[1]:
            resume[i] = span[1]  # a spared placeholder is settled too: no retry inside it
            if _spared(rule, text, span):
                continue
            context = (min(m.start(), span[0]), max(m.end(), span[1]))
            out.append(Candidate(label_rank()[rule.label], *span, rule.label, context))


def _dispatched(text: str, view: bytes, out: list[Candidate]) -> None:
    """The dispatched vendor rules, tried where a run or a part of one starts, and the keyed
    ones where a run follows an assignment (:func:`_keyed`)."""
    flat = view.translate(_RUN_MAP)
    pos = flat.find(_RUN_MIN)
    if pos < 0:
        return
    table = _run_table()
    resume: dict[bytes, list[int]] = {}
    while pos >= 0:
        end = flat.find(b" ", pos)
        end = len(flat) if end < 0 else end
        _keyed(text, view, pos, resume, out)
        starts = [pos]
        starts.extend(j.end() for j in _INNER_START.finditer(text, pos, end - 15))
        for at in starts:
            for trigger, rules in table.get(view[at : at + 2], ()):
                if view.startswith(trigger, at):
                    _attempt(text, at, rules, resume.setdefault(trigger, [0] * len(rules)), out)
        pos = flat.find(_RUN_MIN, end)


def builtin_candidates(text: str) -> list[Candidate]:
    """Every built-in rule match in ``text`` whose checks pass, before overlaps are resolved.

    Args:
        text: any text.

    Returns:
        The candidates, in the order found (triggers shortest first, then dispatched runs).
    """
    out: list[Candidate] = []
    # One byte per character (non-ASCII -> "?"), so offsets match the text's; lowering
    # bytes is ~7x cheaper than str.lower() on non-ASCII text (and never changes length).
    view = text.encode("ascii", "replace").lower()
    wallet_candidates(text, view, out)
    absent: set[bytes] = set()
    for trigger, parents, rules in _plan():
        at = view.find(trigger) if absent.isdisjoint(parents) else -1
        if at < 0:
            absent.add(trigger)
            continue
        if not rules:  # a gate: its presence is all we need, not its ~10 places per page
            continue
        resume = [0] * len(rules)
        while at >= 0:
            _attempt(text, at, rules, resume, out)
            at = view.find(trigger, at + 1)
    _dispatched(text, view, out)
    seed_candidates(view, out)
    monero_candidates(view, out)
    return out
