"""What is not a secret though it stands where one would (DESIGN §8, issue 17 kind 5).

Placeholders are spared by kind, for every label: a value naming a secret instead of being one
(``${DB_PASSWORD}``, ``<token>``, ``your-key-here``, ``…TokenHere``, ``EXAMPLE``); a value too
regular to be generated (one character repeated over a third of it, a short unit repeated,
an alphabet or digit run, few distinct characters); and stock words (``test``, ``changeme``,
``password123``). Vendor rules stay strict: a placeholder must still match the vendor's format
to be found at all, and is then spared by these checks only. Name-keyed rules also need a value
that reads as generated (:func:`random_looking`).
"""

from __future__ import annotations

import itertools
import re

#: Values that name a secret instead of being one: templates, masks, stock placeholders.
_PLACEHOLDER = re.compile(
    r"[$%<{]|.*\.\.\.|.*(?i:your[_-]|example|placeholder)"
    r"|(?i:x+|\*+|\.+|#+|-+|_+|(?:my[_-]?)?(?:pass(?:word|wd)?|secret|token|api[_-]?key|key)"
    r"|change[_-]?(?:me|it)|replace[_-]?me|redacted|none|null|nil|true|false|undefined|empty"
    r"|required|optional|string|__\w{1,64}__|@\w{1,64}@)\Z"
)
#: ``os.environ``, ``config.secret_key``: a code reference, not a value.
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w{0,64}(?:\.[A-Za-z_]\w{0,64}){1,8}\Z")
#: 16+ characters mixing upper and lower case and digits, in any order (a generated part).
_RANDOM_PART = re.compile(r"(?=[\w-]{0,64}[0-9])(?=[\w-]{0,64}[a-z])(?=[\w-]{0,64}[A-Z])[\w-]{16,}")
#: Words that mark a whole token as an example wherever they occur in it.
_EXAMPLE_WORD = re.compile(
    r"(?i:example|placeholder|dummy|your[_-]?(?:token|key|secret|api|own)|sample[_-]?key)"
    r"|(?i:here)\Z|(?i:here)[\"'`]?\Z"
)
#: Stock words used as stand-in values, with an optional short number.
_STOCK = re.compile(
    r"(?i:test|testing|demo|foo|bar|baz|secret|password|passwd|token|changeme|admin|letmein"
    r"|qwerty|abc|xyz)[0-9]{0,4}\Z"
)
_SUCCESSORS = frozenset(
    a + b
    for seq in ("abcdefghijklmnopqrstuvwxyz", "0123456789")
    for a, b in itertools.pairwise(seq)
)
_SAME = re.compile(r"(.)\1*", re.DOTALL)


def placeholder(value: str) -> bool:
    """``value`` (an assignment's value) names a secret instead of being one."""
    if _PLACEHOLDER.match(value) is not None or _STOCK.match(value) is not None:
        return True
    # os.environ, config.secret_key: code; a dotted value with a long random part is a token
    return _DOTTED_NAME.match(value) is not None and not _RANDOM_PART.search(value)


def random_looking(value: str) -> bool:
    """A value that reads as generated: 8+ characters mixing letters with digits or base64
    symbols, or 20+ characters of mixed case. Prose words and identifiers fail."""
    if len(value) < 8 or placeholder(value):
        return False
    letters = any(c.isalpha() for c in value)
    if letters and (any(c.isdigit() for c in value) or any(c in "+/=" for c in value)):
        return not too_regular(value[:256])
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return len(value) >= 20 and mixed and not too_regular(value[:256])


def _longest_run(value: str) -> int:
    return max(len(m.group()) for m in _SAME.finditer(value))


def _sequential(value: str) -> int:
    """How many characters of ``value`` sit in ascending alphabet or digit runs of 4+."""
    low = value.lower()
    count = run = 1
    total = 0
    for pair in itertools.pairwise(low):
        if pair[0] + pair[1] in _SUCCESSORS:
            run += 1
            continue
        total += run if run >= 4 else 0
        run = 1
    count = total + (run if run >= 4 else 0)
    return count


def _repeats_unit(value: str) -> bool:
    """``abc123abc123abc123``: a unit of at most 8 characters repeated over the value."""
    for unit in range(1, 9):
        if (
            len(value) >= 2 * unit + 4
            and value == (value[:unit] * (len(value) // unit + 1))[: len(value)]
        ):
            return True
    return False


def _one_run(value: str) -> bool:
    """``123456``, ``abcdef``, ``987654``: the whole value one ascending or descending run."""
    low = value.lower()
    pairs = [a + b for a, b in itertools.pairwise(low)]
    return bool(pairs) and (
        all(p in _SUCCESSORS for p in pairs) or all(p[::-1] in _SUCCESSORS for p in pairs)
    )


def _repeated(value: str) -> bool:
    """``abab``, ``abc123abc123``: a unit repeated twice or more over the whole value."""
    return any(
        len(value) % unit == 0 and value == value[:unit] * (len(value) // unit)
        for unit in range(1, len(value) // 2 + 1)
    )


def password_placeholder(value: str) -> bool:
    """A value after a password-like name (``PASSWORD=``, ``"passwd":``) that stands in for
    one: a template or stock word (:func:`placeholder`), an example word, one character
    repeated (``0000``, ``********``), a unit repeated (``abc123abc123``), or a run of one
    kind (``123456``, ``abcdefgh``). A value mixing kinds is a real, if weak, password
    (``Abc123456!``, ``abcd1234``, ``root1234``): the looser :func:`too_regular`, meant for
    generated tokens, would spare it as sequential."""
    if placeholder(value) or _EXAMPLE_WORD.search(value):
        return True
    if len(set(value.lower())) <= 1 or _repeated(value.lower()):
        return True
    return (value.isdigit() or value.isalpha()) and _one_run(value)


def too_regular(value: str) -> bool:
    """A token too regular to be generated: ``xxxx…``, ``0000…``, ``T00000000/B00000000``,
    ``abc123abc123``, ``0123456789abcdef…``, or an ``EXAMPLE``/``…Here`` word in it."""
    if _EXAMPLE_WORD.search(value):
        return True
    body = re.sub(r"[^A-Za-z0-9]", "", value)
    if len(body) < 8:
        return False
    if _longest_run(body) * 3 >= len(body) or _repeats_unit(body):
        return True
    if len(body) >= 16 and len(set(body)) <= 6:
        return True
    return _sequential(body) * 2 >= len(body)
