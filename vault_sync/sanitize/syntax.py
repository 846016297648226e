"""Secrets after a name, in the syntaxes :mod:`.names` does not read (label ``env_secret``;
fresh-user report 4, F1, F3, F7).

- a value opened oddly: in parentheses (``password = ("v")``), in Python's triple quotes
  (``API_TOKEN = \"\"\"v\"\"\"``), or a quote not closed on its line (``password: "v``, a YAML
  double-quoted scalar that wraps);
- an API name with an operator the ``api_key`` rule does not know: ``API_TOKEN ?= v``
  (Make), ``api_key <- "v"`` (R), ``apiToken ||= "v"`` (Ruby), ``$api_key .= "v"`` (PHP);
- a YAML block scalar, tag or anchor before the value: ``password: |`` then the value on the
  next line, ``password: >-``, ``password: !!str v``, ``password: &pw v``;
- a name and value in escaped JSON, a JSON string inside JSON (an AWS ``SecretString``):
  ``\\"password\\": \\"v\\"``;
- names :mod:`.names` does not know: ``GH_PAT``, ``AZURE_DEVOPS_PAT``, ``SESSION_COOKIE``,
  ``JWT``, ``OTP_SEED``, ``RECOVERY_CODE``, ``BACKUP_CODES``, ``PASSCODE``, ``PIN``. A PIN is
  taken only after an UPPER_CASE name (``PIN``, ``SIM_PIN``) and when its value is 4 to 12
  digits that are no placeholder (``1234``, ``0000`` stay): ``pin: 13`` in a board's
  config is a GPIO pin.

The name before the keyword is judged as :mod:`.names` judges it (``monkey``, ``public_key``,
``bypass`` are no secret's name), and the value by :func:`value_ok`. Every repeat bounded:
each attempt reads a few hundred characters (linear time, :mod:`.search`).
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder, placeholder, random_looking
from vault_sync.sanitize.names import _assignment_name, _name_before
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span

#: The secret words of :mod:`.names` (group 1), then a name's closing quote or ``]``.
_WORD = r"(?i:(key|token|secret|pass(?:w(?:or)?d|phrase)?|pwd|pw|psk))[\"'\]]{0,2}"
_OPERATOR = r"[ \t]{0,8}(?::=|=>|\?=|\|\|=|\.=|<-|=|:)[ \t]{0,8}"
#: A value opened oddly (groups 2-7): parenthesised, triple-quoted, or an unclosed quote to
#: the line's end.
_OPENED = (
    r"(?:\([ \t]{0,4}\"([^\"\r\n]{1,4096}+)\"|\([ \t]{0,4}'([^'\r\n]{1,4096}+)'"
    r"|\"\"\"([^\"\r\n]{1,4096}+)\"\"\"|'''([^'\r\n]{1,4096}+)'''"
    r"|\"([^\"\s]{1,256}+)[ \t]{0,8}(?=\r?\n|\Z)|'([^'\s]{1,256}+)[ \t]{0,8}(?=\r?\n|\Z))"
)
#: An API name, then an operator the ``api_key`` rule does not read (Make ``?=``, R ``<-``,
#: Ruby ``||=``, PHP ``.=``), then a value: "double", 'single', bare (groups 2-4).
_RARE = (
    r"(?i:api[ _.-]?(key|token)|apikey)[\"'\]]{0,2}[ \t]{0,8}(?:\?=|\|\|=|\.=|<-)[ \t]{0,8}"
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([^\s\"'`,;<>\[\]{}()][^\s`,;<>\[\]{}()]{0,4095}+))"
)
_PASSWORD_HEADS = ("pas", "pwd", "pw", "psk")


def _named(text: str, at: int) -> bool:
    """The keyword at ``at`` ends a secret's name (:func:`~.names._assignment_name`), or an
    API one (``API_TOKEN``, ``apiKey``), which :mod:`.names` leaves to its ``api_key`` rule."""
    if _assignment_name(text, at):
        return True
    prefix = _name_before(text, at).lower().rstrip("_.-")
    return prefix.endswith("api") and text[at : at + 3].lower() in ("key", "tok")


def value_ok(value: str, password: bool, env_style: bool) -> bool:
    """A value after a secret's name that is one: 4+ characters, no variable (``$X``,
    ``%X%``, ``{{x}}``, ``<x>``) or placeholder; after a password's name a letter or symbol
    with a digit or symbol (``hunter2``; not ``username``), after an UPPER_CASE name 8+
    characters with a letter and a digit, else a random-looking value."""
    if len(value) < 4 or value[0] in "$%{<":
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "_-. " for c in value)
    if password and not ((letters or symbol) and (digits or symbol)):
        return False  # the cheap test first: a hostile page may hold many such values
    if placeholder(value) or password_placeholder(value):
        return False
    if password or (env_style and len(value) >= 8 and letters and digits):
        return True
    return random_looking(value)


def _judged(text: str, m: re.Match[str], index: int, keyword: str) -> bool:
    """Whether the value in group ``index`` after ``keyword`` (at ``m.start()``) is a secret."""
    prefix = _name_before(text, m.start())
    env_style = keyword.isupper() and prefix.upper() == prefix
    return value_ok(m.group(index), keyword.lower().startswith(_PASSWORD_HEADS), env_style)


def _rare_span(text: str, m: re.Match[str]) -> Span | None:
    """``API_TOKEN ?= v``, ``api_key <- "v"``: the value, unless code follows a bare one."""
    index = m.lastindex or 0
    if index == 4 and m.end() < len(text) and text[m.end()] in "([":
        return None  # `?= $(shell …)`, `<- get_key()`: code, not a value
    return m.span(index) if index > 1 and _judged(text, m, index, m.group(1) or "key") else None


def _group_span(text: str, m: re.Match[str]) -> Span | None:
    """The value in the last group that matched, when it is a secret (:func:`value_ok`)."""
    index = m.lastindex or 0
    return m.span(index) if index > 1 and _judged(text, m, index, m.group(1)) else None


#: Names of their own (group 1), each judged by :func:`_other_span`.
_OTHER = (
    r"(?i:(pat|cookie|jwt|seed|codes?|passcode|pin))[\"'\]]{0,2}"
    r"[ \t]{0,8}(?::=|=>|\?=|=|:)[ \t]{0,8}"
    r"(?:\"([^\"\r\n]{1,4096}+)\"|'([^'\r\n]{1,4096}+)'"
    r"|([^\s\"'`,;<>\[\]{}()][^\s`,;<>\[\]{}()]{0,4095}+))"
)
#: What must stand before ``seed`` and ``code(s)`` for them to name a secret.
_SEED_OWNERS = re.compile(r"(?i:otp|totp|hotp|mfa|2fa|recovery|backup)[_.-]?\Z")
_PIN = re.compile(r"[0-9]{4,12}")


def _other_span(text: str, m: re.Match[str]) -> Span | None:
    """``GH_PAT=…``, ``SESSION_COOKIE=…``, ``JWT=…``, ``OTP_SEED=…``, ``RECOVERY_CODE=…``,
    ``PASSCODE=…``, ``PIN=…`` (see the module docstring)."""
    word = m.group(1)
    lower = word.lower()
    prefix = _name_before(text, m.start())
    index = m.lastindex or 0
    value = m.group(index)
    env_style = word.isupper() and prefix.upper() == prefix
    if lower in ("seed", "code", "codes") and not _SEED_OWNERS.search(prefix):
        return None
    if lower in ("pat", "pin", "jwt") and not env_style:
        return None  # `pat: 3`, `pin: 13` (a GPIO pin), `jwt: true`
    if lower == "cookie" and not (prefix or env_style):
        return None  # an HTTP `Cookie:` header: the auth_header rule reads its pairs
    if lower == "pin":
        return m.span(index) if _PIN.fullmatch(value) and not password_placeholder(value) else None
    if index == 4 and m.end() < len(text) and text[m.end()] in "([":
        return None
    if lower != "passcode" and env_style and len(value) >= 6 and not placeholder(value):
        return m.span(index)  # RECOVERY_CODE=lfxctncsbp: letters alone are a code too
    password = lower in ("passcode", "code", "codes")
    return m.span(index) if value_ok(value, password, env_style) else None


def syntax_rules() -> list[Rule]:
    """The rules of this module, in order."""
    c = LazyPattern
    keywords = ("key", "token", "secret", "pass", "pw", "psk")
    return [
        Rule("env_secret", c(_WORD + _OPERATOR + _OPENED), keywords, _group_span, pre=_named),
        Rule("api_key", c(_RARE), ("api",), _rare_span, before=ALNUM),
        # YAML: a block scalar's indicator (then the value on a line of its own), a tag or
        # an anchor between the name and its value (YAML 1.2 §8.1, §6.9).
        Rule(
            "env_secret",
            c(
                _WORD + r":[ \t]{1,8}(?:[|>][-+1-9]{0,2}[ \t]{0,8}(?:#[^\r\n]{0,256}+)?"
                r"(?:\r?\n(?:[ \t]{0,16}\r?\n){0,4}[ \t]{1,32}|(?<=[ \t]))"
                r"|!!(?:str|binary)[ \t]{1,8}|&[\w-]{1,64}+[ \t]{1,8})"
                r"(?:!!str[ \t]{1,8})?[\"']?([^\s\"']{4,4096}+)"
            ),
            keywords,
            _group_span,
            pre=_named,
        ),
        # Escaped JSON inside JSON (one to three levels of backslashes before each quote).
        Rule(
            "env_secret",
            c(
                r"(?i:(key|token|secret|pass(?:w(?:or)?d|phrase)?|pwd|pw|psk))"
                r"\\{1,3}\"[ \t]{0,8}:[ \t]{0,8}\\{1,3}\"([^\"\\\r\n]{1,4096}+)"
            ),
            keywords,
            _group_span,
            pre=_named,
        ),
        Rule(
            "env_secret",
            c(_OTHER),
            ("pat", "cookie", "jwt", "seed", "code", "passcode", "pin"),
            _other_span,
            before=ALNUM,
        ),
    ]
