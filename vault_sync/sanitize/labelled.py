"""The text with its credential labels written plainly, for the sanitizer (fresh-user report
3, kinds 1-2).

The name rules (:mod:`.names`) read a value after its name and an operator: ``password:
X``, ``DB_PASSWORD=X``, ``"password": "X"``. People write the same pair in many other
syntaxes, and every one of them kept its value:

- Markdown around the label or the value: ``**Password:** X``, ``**Password**: X``,
  ``__Password:__ X``, ``*password*: X``, ``password: `X```;
- a table row or cells: ``| DB_PASSWORD | X |``, ``<td>password</td><td>X</td>``,
  ``<dt>Token</dt><dd>X</dd>``; a dash: ``Password - X``;
- a full-width colon (``DB_PASSWORD：X``, ``密码：X``) or a name in another language
  (``密码``, ``Passwort``, ``пароль``, ``mot de passe``, ``contraseña``, ``senha``…);
- pretty-printed JSON or YAML, the value on the next line (``"password":\\n    "X"``);
- a Dockerfile's ``ENV DB_PASSWORD X``; SQL's ``IDENTIFIED BY 'X'`` and ``PASSWORD 'X'``;
  an XML element ``<password>X</password>`` (any name the name rules know: ``<apiKey>``,
  ``<client_secret>``).

:func:`label_view` is the text with each of these rewritten to ``name: value`` (a
:class:`~.rendered.View`: what it rewrote maps to the raw syntax, the name and the value
are copied), and the name rules run on it as on the raw text: the same names, the same
placeholders spared, and a value found there is redacted in the raw text, its markup left.
Where the pair has no operator (a table row, cells, a dash), the value must be one word of
4+ characters that reads as a secret (:func:`_secret_like`): ``| DB_PASSWORD | Database
password |``, ``| Password | see-below |`` and ``Password - see the vault`` are prose.
``None`` when the text has none of these (the common case: the rules then run once). Linear:
each pattern is bounded and tried only at a keyword or trigger. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from vault_sync.sanitize.rendered import Edit, View, edited_view

#: The words a secret's name ends with, as the name rules read them (found from a literal
#: occurrence of their head: :data:`_HEADS`).
_KEYWORD = re.compile(
    r"(?:pass(?:w(?:or)?d|phrase)?|pwd|psk|keys?|tokens?|secrets?|creds?|credentials?|salt|pepper)",
    re.IGNORECASE,
)
_HEADS = (b"pass", b"pwd", b"psk", b"key", b"token", b"secret", b"cred", b"salt", b"pepper")
_LETTERS = re.compile(r"[A-Za-z]{0,16}")
#: What stands between a name and its value (matched right after the name's keyword), by
#: kind: ``op`` an operator with markup around it (or the value on the next line: JSON,
#: YAML); ``sql`` a blank before a single-quoted value; ``cell``, ``td``, ``dd``, ``dash``
#: no operator; ``tag`` an XML element's ``>``. ``tick``: a backtick opening the value.
_SEP = re.compile(
    r"(?P<close>[*_]{1,3}|`|[\"'])?"
    r"(?:(?P<op>[ \t]{0,4}[:=\uff1a\uff1d](?:[*_]{1,3}(?=[ \t]))?[ \t]{0,8}"
    r"(?:\r?\n[ \t]{1,32}(?=[\"']|[^\s\"'#`|-][^\s]{3,255}[ \t]*(?:\r?\n|\Z)))?)"
    r"|(?P<sql>[ \t]{1,8}(?='[^'\s]{4,256}'))"
    r"|(?P<cell>[*_]{0,3}[ \t]{1,8}\|[ \t]{1,8})"
    r"|(?P<td>[*_]{0,3}</t[dh]>[ \t\r\n]{0,16}<td(?:[ \t][^<>\n]{0,128})?>)"
    r"|(?P<dd>[*_]{0,3}</dt>[ \t\r\n]{0,16}<dd(?:[ \t][^<>\n]{0,128})?>)"
    r"|(?P<dash>[*_]{0,3}[ \t]{1,4}[-\u2013\u2014][ \t]{1,4})"
    r"|(?P<tag>(?:[ \t][^<>\n]{0,128})?>(?=[^<\n]{1,256}</)))"
    r"(?P<tick>`{1,2})?"
)
_KINDS = ("op", "sql", "cell", "td", "dd", "dash", "tag")
#: A separator that is already plain (``: ``, ``=``, ``": "``): no rewrite needed.
_PLAIN = re.compile(r"[\"']?[ \t]{0,8}[:=][ \t]{0,8}")
#: The value after a separator without an operator: one word, then the cell's or line's end.
_WORD_VALUE = {
    "cell": re.compile(r"([^\s|`<]{4,256})`{0,2}[ \t]{0,8}\|"),
    "td": re.compile(r"([^\s<`]{4,256})`{0,2}[ \t]{0,8}</td>"),
    "dd": re.compile(r"([^\s<`]{4,256})`{0,2}[ \t]{0,8}</dd>"),
    "dash": re.compile(r"([^\s`]{4,256})`{0,2}[ \t]{0,8}(?:\r?\n|\Z)"),
}
_NAME_CHARS = re.compile(r"[\w.:-]{0,64}\Z", re.ASCII)

#: "Password" in other languages (a password-manager's or a router's label): Chinese
#: (simplified, traditional), Japanese, Korean, German, Russian/Ukrainian, French, Spanish,
#: Portuguese, Dutch, Polish, Czech/Slovak, Italian/Romanian, Turkish, Swedish, Norwegian,
#: Danish, Finnish, Hungarian, Greek. Rewritten to ``password`` when an operator follows.
_FOREIGN_WORDS = (
    "密码|密碼|口令|パスワード|비밀번호|passwort|kennwort|пароль|mot de passe|mot-de-passe"
    "|contraseña|contrasena|senha|wachtwoord|hasło|haslo|heslo|parola|parolă|şifre|şifresi"
    "|sifre|lösenord|losenord|passord|adgangskode|salasana|jelszó|κωδικός"
)
_FOREIGN = re.compile(f"(?:{_FOREIGN_WORDS})", re.IGNORECASE)
#: What the words look like in the lowercased ASCII view (a non-ASCII letter is ``?``), and
#: the words of other scripts as written (both cases of their letters after the first).
_FOREIGN_ASCII = (
    *(w.encode("ascii", "replace") for w in _FOREIGN_WORDS.split("|") if w[0].isascii()),
)


@functools.cache
def _foreign_gate() -> Any:
    """The words of :data:`_FOREIGN_ASCII` as one RE2 pattern (bytes): one pass, not 28."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(b"|".join(re.escape(w) for w in _FOREIGN_ASCII), options)


_FOREIGN_SCRIPT = (
    "密码",
    "密碼",
    "口令",
    "パスワード",
    "비밀번호",
    "ароль",
    "АРОЛЬ",
    "ωδικ",
    "ΩΔΙΚ",
)
#: After a foreign word: an operator (plain or with markup: :data:`_SEP`'s ``op``).
_FOREIGN_OP = re.compile(r"[*_]{0,3}[ \t]{0,4}[:=\uff1a\uff1d]")

#: SQL: ``IDENTIFIED BY 'x'`` (Oracle, MySQL; ``IDENTIFIED WITH plugin BY 'x'``), not a
#: hash (``BY PASSWORD '*6C8…'``, ``AS 'hash'``).
_SQL_IDENTIFIED = re.compile(
    r"identified(?:[ \t]{1,8}with[ \t]{1,8}[\w]{1,64})?[ \t]{1,8}by[ \t]{1,8}"
    r"(?!password\b|values\b)(?=['\"]?[^\s'\";]{4,256})",
    re.IGNORECASE,
)
#: Dockerfile's ``ENV NAME value`` (the legacy form without ``=``; docs.docker.com
#: reference ``ENV``): the blanks after the name read as ``=``.
#: At a line's start (after blanks, a list marker or ``>``) any value is taken; elsewhere
#: (``- RUN x && ENV …`` no, but ``メモ：ENV …`` or a sentence) the value must read as a
#: secret (:func:`_secret_like`).
_DOCKER_ENV = re.compile(
    r"(?P<head>^[ \t]{0,16}(?:[-*+>][ \t]{1,4}){0,2})?(?<![A-Za-z0-9_])ENV[ \t]{1,8}"
    r"([A-Za-z_][\w.-]{0,127})([ \t]{1,8})(?=([^\s=][^\s]{0,255}))",
    re.MULTILINE,
)

#: The ASCII start of a value (a non-ASCII letter ends it: ``…O3hです``).
_ASCII_RUN = re.compile(r"[\x21-\x7e]*")


def _secret_like(word: str) -> bool:
    """A value after a separator without an operator (a table cell, a dash) reads as a
    secret: a symbol of a password (``!@#$%^&*+/=~``), or letters and digits together
    without a dash unless 16+ characters long (``Yh2Lc9Bn4Sx7``, a UUID) — not a word
    (``Required``, ``see-below``) nor a version (``v2-compatible``)."""
    if any(c in "!@#$%^&*+/=~" for c in word):
        return True
    mixed = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    return mixed and ("-" not in word or len(word) >= 16)


#: Characters that may follow a name's keyword in one of :data:`_SEP`'s kinds; after blanks,
#: those that may come next. Checked before the pattern runs (most keywords are prose).
_AFTER_NAME = frozenset("*_`|<>-'\u2013\u2014\uff1a\uff1d")
#: After an operator: emphasis closing the label, a backtick, a line break (the value on
#: the next line).
_AFTER_OPERATOR = frozenset("*_`\r\n")


def _may_separate(text: str, at: int, end: int) -> bool:
    """Whether a separator of :data:`_SEP` that is not plain may start at ``end``, after a
    keyword at ``at`` (a cheap look at the next few characters: most keywords are prose, or
    a plain ``KEY=value``; an XML element's attributes, after a ``<`` before the name)."""
    rest = text[end : end + 12]
    if rest[:1] in (" ", "\t") and text.rfind("<", max(0, at - 65), at) >= 0:
        return True
    if rest[:1] in ('"', "'"):
        rest = rest[1:]  # a JSON key's closing quote: its value may be on the next line
    rest = rest.lstrip(" \t")
    if not rest:
        return False
    if rest[0] in ":=":
        after = rest[1:].lstrip(" \t")
        return after[:1] in _AFTER_OPERATOR or (after[:1] == "" and len(rest) < 11)
    return rest[0] in _AFTER_NAME


#: Where a keyword may be followed by a separator that is not plain (a superset of
#: :func:`_may_separate`), in the lowercased ASCII view (a non-ASCII character is ``?``:
#: a full-width colon, a dash): RE2, one linear pass over a page instead of a Python step
#: at each of its keywords (38 a page in the scrub benchmark, a quarter of the scrub).
_HEAD_WORDS = "|".join(h.decode() for h in _HEADS)
GATE_PATTERN = (
    rf"<[a-z0-9_.:-]{{0,64}}(?:{_HEAD_WORDS})[a-z]{{0,16}}[ \t][^<>\n]{{0,128}}>"
    rf"|(?:{_HEAD_WORDS})[a-z]{{0,16}}(?:[*_`<>\-?]"
    r"|[*_]{0,3}[ \t]{1,8}\|[ \t]{1,8}`{0,2}[^\s|`<]{0,128}[0-9!@#$%^&*+/=~?][^\s|`<]{0,128}"
    r"`{0,2}[ \t]{0,8}\|"
    r"|[ \t]{1,8}[\-'?]|[\"']?[ \t]{0,8}[:=?][*_]{0,3}[ \t]{0,8}[*_`?]"
    r"|[\"']?[ \t]{0,8}[:=][ \t]{0,8}\r?\n[ \t]{1,32}"
    r"(?:[\"']|[^\s\"'#`|\-][^\s]{3,255}[ \t]{0,8}(?:\r?\n|\z)))"
)


@functools.cache
def _gate() -> Any:
    """:data:`GATE_PATTERN` compiled by RE2 (bytes)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(GATE_PATTERN.encode("ascii"), options)


def _keyword_edits(text: str, view: bytes, edits: list[Edit]) -> None:
    """The rewrites after each name ending with a secret keyword (:data:`_SEP`), where the
    gate (:data:`GATE_PATTERN`) finds one may follow."""
    for m in _gate().finditer(view):
        for head in _HEADS:
            at = view.find(head, m.start(), m.end())
            while at >= 0:
                end = _LETTERS.match(text, at + len(head)).end()  # type: ignore[union-attr]
                if _may_separate(text, at, end) and _KEYWORD.fullmatch(text, at, end):
                    _separator(text, at, end, edits)
                at = view.find(head, end, m.end())


def _separator(text: str, name_at: int, end: int, edits: list[Edit]) -> bool:
    """Add the rewrite of the separator after a name (its keyword at ``name_at``, ending at
    ``end``) when it is one of :data:`_SEP`'s kinds and not plain; whether one was added."""
    m = _SEP.match(text, end)
    if m is None or m.end() == end:
        return False
    kind = next(k for k in _KINDS if m.group(k) is not None)
    if kind == "op" and not m.group("tick") and _PLAIN.fullmatch(text, end, m.end()):
        return False
    if kind == "tag":
        name = _NAME_CHARS.search(text, max(0, name_at - 64), name_at)
        start = name.start() if name else name_at
        if m.group("close") or not text.endswith("<", 0, start):
            return False
    if kind in _WORD_VALUE:
        word = _WORD_VALUE[kind].match(text, m.end())
        if word is None or not _secret_like(word.group(1)):
            return False
    edits.append((end, m.end(), ": "))
    return True


def _foreign_edits(text: str, view: bytes, edits: list[Edit]) -> None:
    """``密码：X``, ``Passwort: X``: the word rewritten to ``password`` (and its separator,
    when it has markup or is full-width) where an operator follows it."""
    # substring scans in C first: the regex's search of a page (28 alternatives) cost more
    # than every other step of the view together
    if _foreign_gate().search(view) is None and (
        text.isascii() or not any(w in text for w in _FOREIGN_SCRIPT)
    ):
        return
    for m in _FOREIGN.finditer(text):
        start, end = m.span()
        if start and text[start - 1].isalpha() and text[start].isascii():
            continue  # `resenha`: a Latin word inside another
        if not _FOREIGN_OP.match(text, end):
            continue
        sep: list[Edit] = []
        if _separator(text, start, end, sep):
            edits.append((start, sep[0][1], "password: "))
        else:
            edits.append((start, end, "password"))


def _statement_edits(text: str, view: bytes, edits: list[Edit]) -> None:
    """SQL's ``IDENTIFIED BY 'x'`` and Dockerfile's ``ENV NAME value``."""
    if b"identified" in view:
        for m in _SQL_IDENTIFIED.finditer(text):
            edits.append((m.start(), m.end(), "password: "))
    if b"env" in view and "ENV" in text:
        for m in _DOCKER_ENV.finditer(text):
            if not _KEYWORD.search(m.group(2)):
                continue
            value = _ASCII_RUN.match(m.group(4)).group()  # type: ignore[union-attr]
            if m.group("head") is None and not _secret_like(value):
                continue
            edits.append((m.start(3), m.end(3), "="))


def label_view(text: str) -> View | None:
    """``text`` with each credential label of the module docstring's kinds rewritten to
    ``name: value``, mapped back to ``text``; ``None`` when it holds none."""
    view = text.encode("ascii", "replace").lower()
    edits: list[Edit] = []
    _keyword_edits(text, view, edits)
    _foreign_edits(text, view, edits)
    _statement_edits(text, view, edits)
    return edited_view(text, edits)
