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

import functools
import itertools
import operator
import re

#: How many characters of a value the checks here judge. A generated secret shows itself well
#: within them, and a bound keeps each rule attempt cheap: the name-keyed rules read values of
#: up to 4,096 characters and try again at every trigger inside a value they refused, so
#: judging the whole value made ``"a_token=" * n`` cost ~45 µs a character (O(n x 4,096)).
JUDGED = 256
#: Values that name a secret instead of being one: a ``...`` or an example word in the first
#: line of their first :data:`JUDGED` characters, searched for in lowercase (a
#: case-insensitive regex cost ~5x as much).
_TEMPLATE_WORD = re.compile(r"\.\.\.|your[_-]|example|placeholder")
#: Values that name a secret as a whole: masks and stock placeholders (each alternative fails
#: at the first character that does not fit, so a long value costs little).
_PLACEHOLDER_WHOLE = re.compile(
    r"(?i:x+|\*+|\.+|#+|-+|_+|(?:my[_-]?)?(?:pass(?:word|wd)?|secret|token|api[_-]?key|key)"
    r"|change[_-]?(?:me|it)|replace[_-]?me|redacted|none|null|nil|true|false|undefined|empty"
    r"|required|optional|string|__\w{1,64}__|@\w{1,64}@)\Z"
)
#: ``os.environ``, ``config.secret_key``: a code reference, not a value.
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w{0,64}(?:\.[A-Za-z_]\w{0,64}){1,8}\Z")
#: 16+ characters mixing upper and lower case and digits, in any order (a generated part).
_RANDOM_PART = re.compile(r"(?=[\w-]{0,64}[0-9])(?=[\w-]{0,64}[a-z])(?=[\w-]{0,64}[A-Z])[\w-]{16,}")
#: Words that mark a whole token as an example wherever they occur in it.
#: Searched for in lowercase (:func:`_example_word`).
_EXAMPLE_WORD = re.compile(
    r"example|placeholder|dummy|your[_-]?(?:token|key|secret|api|own)|sample[_-]?key"
    r"|here[\"'`]?\Z"
)
#: Every ASCII byte but letters and digits, deleted from a token's body (:func:`too_regular`).
_NOT_ALNUM = bytes(i for i in range(128) if not chr(i).isalnum())
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
#: What :func:`random_looking` looks for, found by the regex engine (about 6x cheaper than a
#: Python loop over the characters): a letter (as ``str.isalpha``, but for non-decimal
#: numerals such as ``²``), a decimal digit, a base64 symbol.
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
_B64_SYMBOL = re.compile(r"[+/=]")
#: ``1`` where a character is followed by its successor (:data:`_SUCCESSORS`), else ``0``:
#: made by ``map`` in C (:func:`_sequential`); runs of 3+ successor pairs are the 4+
#: character runs. Every other ASCII character maps to NUL, which no judged body holds.
_SUCCESSOR_RUN = re.compile(rb"\x01{3,}")
_NEXT = str.maketrans(
    {chr(i): "\x00" for i in range(128)}
    | {
        a: b
        for seq in ("abcdefghijklmnopqrstuvwxyz", "0123456789")
        for a, b in itertools.pairwise(seq)
    }
)


def placeholder(value: str) -> bool:
    """``value`` (an assignment's value) names a secret instead of being one (a template or
    example word counts within its first :data:`JUDGED` characters)."""
    if value.startswith(("$", "%", "<", "{")):  # ${X}, %X%, <token>, {{ secrets.X }}
        return True
    line = value.find("\n", 0, JUDGED)
    if _TEMPLATE_WORD.search(value[: JUDGED if line < 0 else line].lower()) is not None:
        return True
    if _PLACEHOLDER_WHOLE.match(value) is not None or _STOCK.match(value) is not None:
        return True
    # os.environ, config.secret_key: code; a dotted value with a long random part is a token
    return _DOTTED_NAME.match(value) is not None and not _RANDOM_PART.search(value)


def random_looking(value: str) -> bool:
    """A value that reads as generated, judged by its first :data:`JUDGED` characters: 8+
    characters mixing letters with digits or base64 symbols, or 20+ characters of mixed case.
    Prose words and identifiers fail. Costs O(:data:`JUDGED`) whatever the value's length."""
    if len(value) < 8 or placeholder(value):
        return False
    head = value[:JUDGED]
    if _LETTER.search(head) and (_DIGIT.search(head) or _B64_SYMBOL.search(head)):
        return not too_regular(head)
    mixed = head != head.lower() and head != head.upper()
    return len(value) >= 20 and mixed and not too_regular(head)


def _example_word(value: str) -> bool:
    """An ``EXAMPLE``, ``dummy``, ``your_key``, ``…Here`` word in ``value``, in any case."""
    return _EXAMPLE_WORD.search(value.lower()) is not None


def _has_run(value: str, length: int) -> bool:
    """Whether one character repeats ``length`` times in a row in ``value``."""
    return length <= 1 or _run_of(length).search(value) is not None


@functools.lru_cache(maxsize=JUDGED)
def _run_of(length: int) -> re.Pattern[str]:
    return re.compile(rf"(.)\1{{{length - 1}}}", re.DOTALL)


def _sequential(value: str) -> int:
    """How many characters of ``value`` (ASCII letters and digits) sit in ascending alphabet
    or digit runs of 4+."""
    low = value.lower()
    pairs = bytes(map(operator.eq, low.translate(_NEXT), low[1:]))
    return sum(len(m.group()) + 1 for m in _SUCCESSOR_RUN.finditer(pairs))


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
    if placeholder(value) or _example_word(value):
        return True
    if len(set(value.lower())) <= 1 or _repeated(value.lower()):
        return True
    return (value.isdigit() or value.isalpha()) and _one_run(value)


def too_regular(value: str) -> bool:
    """A token too regular to be generated: ``xxxx…``, ``0000…``, ``T00000000/B00000000``,
    ``abc123abc123``, ``0123456789abcdef…``, or an ``EXAMPLE``/``…Here`` word in it."""
    if _example_word(value):
        return True
    body = value.encode("ascii", "ignore").translate(None, _NOT_ALNUM).decode("ascii")
    if len(body) < 8:
        return False
    if _repeats_unit(body) or (len(body) >= 16 and len(set(body)) <= 6):
        return True
    if _has_run(body, -(-len(body) // 3)):  # one character over a third of it
        return True
    return _sequential(body) * 2 >= len(body)
